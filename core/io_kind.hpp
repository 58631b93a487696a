#pragma once
// Direction of one block I/O. Shared by the workload engines (io_uring, sim)
// and the simulated drive model, which must agree on it without depending on
// each other.
namespace nvmond {

enum class IoKind { read, write };

}  // namespace nvmond
