#pragma once
// Text that goes into HTML or SVG. Everything that comes from a run.json
// (serials, paths, labels: user strings) passes through escape() before it
// reaches a page; numbers pass through num() so coordinates stay short and
// locale-free.
#include <string>
#include <string_view>

namespace nvmond::report {

// Escapes & < > " ' for use in element text and in quoted attribute values.
std::string escape(std::string_view text);

// A coordinate or attribute number with at most `decimals` places and no
// trailing zeros ("12", "12.5"); never locale-dependent, never "-0".
std::string num(double value, int decimals = 1);

// A round as a person reads it: run.json counts rounds of a stage from 0,
// the PTS (and every page and table) from 1. "–" when absent.
std::string pts_round(double round_from_zero);
// "1.23k", "45.6M": three significant digits with an SI suffix (no unit).
std::string si(double value);
// A latency in seconds as "512 µs", "1.2 ms", "3.4 s".
std::string seconds(double value);
// A byte count as "28.0 GB", "512 MB" (decimal units, as drive vendors state them).
std::string bytes(double value);
// A block size as I/O tools state them: "4 KiB", "1 MiB", "0.5 KiB", "512 B".
std::string block_size(double bs);
// A throughput in bytes/s as "1.70 GB/s", "630 MB/s".
std::string bytes_per_second(double value);

}  // namespace nvmond::report
