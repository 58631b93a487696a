#include "http/connection_table.hpp"

#include <vector>

namespace nvmond::http {

bool ConnectionTable::make_room() {
  while (entries_.size() >= cap_) {
    auto victim = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->second.waiting && (victim == entries_.end() || it->second.since < victim->second.since)) victim = it;
    }
    if (victim == entries_.end()) return false;
    auto conn = victim->second.conn.lock();
    entries_.erase(victim);  // before drop(): the count must fall now, not when its handlers run
    if (conn) conn->drop(DropReason::evicted);
  }
  return true;
}

ConnectionTable::Id ConnectionTable::add(std::weak_ptr<Connection> c, TimePoint now) {
  Id id = next_++;
  entries_.emplace(id, Entry{std::move(c), true, now});
  return id;
}

void ConnectionTable::set_waiting(Id id, bool waiting, TimePoint since) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  it->second.waiting = waiting;
  it->second.since = since;
}

void ConnectionTable::remove(Id id) { entries_.erase(id); }

void ConnectionTable::drop_all() {
  std::vector<std::shared_ptr<Connection>> all;
  for (auto& [id, e] : entries_) {
    if (auto c = e.conn.lock()) all.push_back(std::move(c));
  }
  entries_.clear();
  for (auto& c : all) c->drop(DropReason::shutdown);
}

}  // namespace nvmond::http
