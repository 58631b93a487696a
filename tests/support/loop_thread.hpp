#pragma once
// An io_context run on a thread of its own, as the daemon runs its event
// loop: a test posts work to it and waits, with a deadline, for the answer,
// so a loop held by something it should not wait for fails the test instead
// of hanging it.
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <thread>

namespace nvmond::test {

struct LoopThread {
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{io.get_executor()};
  std::thread thread{[this] { io.run(); }};
  ~LoopThread() {
    work.reset();
    io.stop();
    thread.join();
  }
  // Runs `f` on the loop; its result, or nullopt when the loop did not get
  // to it within `within`.
  template <typename F>
  auto on_loop(F f, std::chrono::milliseconds within = std::chrono::seconds(2)) -> std::optional<decltype(f())> {
    auto done = std::make_shared<std::promise<decltype(f())>>();
    auto answer = done->get_future();
    boost::asio::post(io, [f = std::move(f), done]() mutable { done->set_value(f()); });
    if (answer.wait_for(within) != std::future_status::ready) return std::nullopt;
    return answer.get();
  }
};

}  // namespace nvmond::test
