# Demo: what scripts/demo compiles once for a newcomer, nvmond and nvmonctl
# only (docs/performance.md has the measurements). Without optimisation or
# debug information: optimising is most of a unit's compile time at -O2 and
# still a tenth of it at -O1, and unoptimised the demo daemon serves eight
# simulated drives on a few percent of a core. Each library
# compiled as one unity source (each program with its folder's library: see
# nvmond_program), and the heavy third-party headers (Asio,
# nlohmann-json, fmt, prometheus-cpp; see NVMOND_PCH_HEADERS) parsed once
# into one precompiled header that every unit loads instead of parsing them.
set(NVMOND_DEMO_UNITY_BATCH 0 CACHE STRING "Sources per unity unit in the Demo build (0: the whole library)")
option(NVMOND_DEMO_PCH "Demo build: one precompiled header of the heavy third-party headers for every unit" ON)

# Included before project(), which creates the cache entry
# CMAKE_CXX_FLAGS_DEMO from this value: a set(... CACHE) after it finds the entry there and changes nothing,
# and the Demo build would keep CMake's default flags.
# The compiler collects its garbage once its heap passes 512 MiB rather than
# 128: about a tenth of each unit's CPU time was collection, and a unit's
# peak memory grows by about a tenth.
set(CMAKE_CXX_FLAGS_DEMO_INIT "-O0 -DNDEBUG --param=ggc-min-heapsize=524288")
