#include "daemon/control/loop_worker.hpp"

#include <pthread.h>

#include <boost/asio/post.hpp>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace nvmond {

// Shared with the thread, which a stuck job lets outlive the worker.
struct LoopWorker::Shared {
  boost::asio::io_context& io;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Job> jobs;
  bool stopping = false;
  bool busy = false;
  std::thread thread;

  explicit Shared(boost::asio::io_context& context) : io(context) {}

  void loop() {
    std::unique_lock lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return stopping || !jobs.empty(); });
      if (stopping) return;
      Job job = std::move(jobs.front());
      jobs.pop_front();
      busy = true;
      lock.unlock();
      std::function<void()> then = job();
      lock.lock();
      busy = false;
      cv.notify_all();
      if (stopping) return;  // the loop is going: nothing to tell it
      if (then) boost::asio::post(io, std::move(then));
    }
  }
};

LoopWorker::LoopWorker(boost::asio::io_context& io) : shared_(std::make_shared<Shared>(io)) {
  auto s = shared_;
  shared_->thread = std::thread([s] {
    pthread_setname_np(pthread_self(), "nvmond-ctl");
    s->loop();
  });
}

LoopWorker::~LoopWorker() {
  bool stuck;
  {
    std::unique_lock lock(shared_->mu);
    shared_->stopping = true;
    shared_->jobs.clear();
    shared_->cv.notify_all();
    stuck = !shared_->cv.wait_for(lock, kStopGrace, [&] { return !shared_->busy; });
  }
  if (stuck) {
    shared_->thread.detach();  // it holds `shared_` and exits when its job returns
  } else {
    shared_->thread.join();
  }
}

void LoopWorker::submit(Job job) {
  {
    std::lock_guard lock(shared_->mu);
    shared_->jobs.push_back(std::move(job));
  }
  shared_->cv.notify_one();
}

}  // namespace nvmond
