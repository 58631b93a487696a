// The Clock's timers: Asio's steady timers for the running clocks, timers
// fired by advance() for the ManualClock.
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <optional>

#include "core/clock.hpp"

namespace nvmond {
namespace {

// A steady timer waiting `scale(after)` of real time. The generation drops a
// call that was already queued when the timer was re-armed, cancelled or
// destroyed (Asio's cancel cannot take back a completed wait).
class AsioTimer final : public Timer {
 public:
  AsioTimer(boost::asio::io_context& io, const Clock* scaled_by) : timer_(io), scaled_by_(scaled_by) {}
  ~AsioTimer() override { cancel(); }

  void arm(Duration after, std::function<void()> call) override {
    std::uint64_t mine = ++*generation_;
    timer_.expires_after(scaled_by_ ? scaled_by_->to_real(after) : after);
    timer_.async_wait([gen = std::weak_ptr<std::uint64_t>(generation_), mine,
                       call = std::move(call)](const boost::system::error_code& ec) {
      auto current = gen.lock();
      if (ec || !current || *current != mine) return;
      call();
    });
  }

  void cancel() override {
    ++*generation_;
    timer_.cancel();
  }

 private:
  boost::asio::steady_timer timer_;
  const Clock* scaled_by_;  // nullptr: real time
  std::shared_ptr<std::uint64_t> generation_ = std::make_shared<std::uint64_t>(0);
};

}  // namespace

std::unique_ptr<Timer> Clock::timer(boost::asio::io_context& io) const { return std::make_unique<AsioTimer>(io, this); }

std::unique_ptr<Timer> Clock::real_timer(boost::asio::io_context& io) const {
  return std::make_unique<AsioTimer>(io, nullptr);
}

// Guarded by the clock's mutex. `work` keeps the io_context from running out
// of work while the timer is armed, as an armed Asio timer would.
struct ManualClock::Pending {
  explicit Pending(boost::asio::io_context& context) : io(context) {}
  boost::asio::io_context& io;
  std::function<void()> call;
  std::optional<WallTime> due;
  std::uint64_t generation = 0;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work;
};

class ManualClock::ManualTimer final : public Timer {
 public:
  ManualTimer(const ManualClock& clock, std::shared_ptr<Pending> pending)
      : clock_(clock), pending_(std::move(pending)) {}
  ~ManualTimer() override { cancel(); }

  void arm(Duration after, std::function<void()> call) override {
    std::unique_lock lock(clock_.mu_);
    ++pending_->generation;
    pending_->call = std::move(call);
    pending_->due = clock_.now_ + std::chrono::duration_cast<WallTime::duration>(after);
    if (!pending_->work) pending_->work.emplace(pending_->io.get_executor());
    clock_.fire_due(lock);
  }

  void cancel() override {
    std::lock_guard lock(clock_.mu_);
    ++pending_->generation;
    pending_->due.reset();
    // Like a cancelled Asio wait, whose aborted handler still runs: the work
    // goes when the loop next runs, never inside cancel(), so that cancelling
    // the last timer does not stop an io_context about to get more work.
    if (pending_->work) {
      boost::asio::post(pending_->io, [work = std::move(*pending_->work)]() mutable { work.reset(); });
      pending_->work.reset();
    }
  }

 private:
  const ManualClock& clock_;
  std::shared_ptr<Pending> pending_;
};

std::unique_ptr<Timer> ManualClock::timer(boost::asio::io_context& io) const {
  auto pending = std::make_shared<Pending>(io);
  {
    std::lock_guard lock(mu_);
    std::erase_if(timers_, [](const auto& t) { return t.expired(); });
    timers_.push_back(pending);
  }
  return std::make_unique<ManualTimer>(*this, std::move(pending));
}

std::size_t ManualClock::armed_timers() const {
  std::lock_guard lock(mu_);
  return static_cast<std::size_t>(std::count_if(timers_.begin(), timers_.end(), [](const auto& t) {
    auto p = t.lock();
    return p && p->due;
  }));
}

// Posts the due calls, earliest first. The posted call checks the generation
// it was posted with, so a timer re-armed or cancelled before the call runs
// drops it.
void ManualClock::fire_due(std::unique_lock<std::mutex>& lock) const {
  std::vector<std::shared_ptr<Pending>> due;
  for (const auto& t : timers_) {
    if (auto p = t.lock(); p && p->due && *p->due <= now_) due.push_back(std::move(p));
  }
  std::stable_sort(due.begin(), due.end(), [](const auto& a, const auto& b) { return *a->due < *b->due; });
  for (auto& p : due) {
    p->due.reset();
    boost::asio::post(p->io, [this, weak = std::weak_ptr<Pending>(p), mine = p->generation] {
      std::function<void()> call;
      {
        std::lock_guard guard(mu_);
        auto pending = weak.lock();
        if (!pending || pending->generation != mine) return;
        call = pending->call;  // a copy: the call may re-arm its timer
      }
      call();
    });
    // Only now: the posted call is work of its own, and dropping the guard
    // first could let the io_context run out of work and stop.
    p->work.reset();
  }
  (void)lock;  // held by the caller throughout
}

}  // namespace nvmond
