#pragma once
// Direction of one block I/O. Shared by the workload engines (io_uring, sim),
// their accounting (indexed by it: read = 0, write = 1) and the simulated
// drive model, which must agree on it without depending on each other.
#include <cstdint>

namespace nvmond {

enum class IoOp : std::uint8_t { read = 0, write = 1 };
inline constexpr int kIoOpCount = 2;
inline const char* op_name(IoOp op) { return op == IoOp::read ? "read" : "write"; }

// What one op type did: completed I/Os, the bytes they moved, failed I/Os.
struct OpCounts {
  std::uint64_t ops = 0;
  std::uint64_t bytes = 0;
  std::uint64_t errors = 0;
};

}  // namespace nvmond
