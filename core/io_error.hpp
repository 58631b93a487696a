#pragma once
#include <string>

#include "core/result.hpp"

namespace nvmond {

// A failed system call on a file: "WHAT: STEP: strerror(err)", reason io.
Error io_error(const std::string& what, const char* step, int err);

}  // namespace nvmond
