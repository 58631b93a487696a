#pragma once
// The server's live connections and the cap on their number. At the cap, a
// new connection is admitted by dropping the connection that has waited
// longest for a request (idle keep-alive, half-open, or dribbling its
// header), never one that is being answered: a crowd of idle or slow
// clients can only push each other out, not a scrape.
// Not thread-safe: used on the server's thread only.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>

namespace nvmond::http {

enum class DropReason { evicted, timeout, tls, shutdown };

// What the table can do to a connection.
class Connection {
 public:
  virtual ~Connection() = default;
  virtual void drop(DropReason reason) = 0;
};

class ConnectionTable {
 public:
  using Id = std::uint64_t;
  using TimePoint = std::chrono::steady_clock::time_point;

  explicit ConnectionTable(std::size_t cap) : cap_(cap) {}

  // Drops waiting connections, oldest wait first, until one more fits.
  // False when every connection is busy answering (the new one is refused).
  bool make_room();
  // A new connection, waiting for its first request since `now`.
  Id add(std::weak_ptr<Connection> c, TimePoint now);
  // Waiting for a request since `since` (evictable), or busy answering one.
  void set_waiting(Id id, bool waiting, TimePoint since);
  void remove(Id id);
  // Drops every connection (server shutdown).
  void drop_all();

  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::weak_ptr<Connection> conn;
    bool waiting = true;
    TimePoint since;
  };
  std::size_t cap_;
  Id next_ = 1;
  std::map<Id, Entry> entries_;
};

}  // namespace nvmond::http
