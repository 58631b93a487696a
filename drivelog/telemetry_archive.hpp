#pragma once
// Where saved telemetry captures live: STATE_DIR/telemetry/<drive>/<file>,
// one directory per drive (its serial, escaped to one safe path component)
// and one file per capture, the log's bytes exactly as the drive returned
// them (header and data areas), for the vendor's tools. The files are the
// only record: the newest one of a drive says which generation was saved
// last and when, across restarts.
//
// Size caps: after each save the oldest captures go, first the drive's own
// beyond max_bytes_per_drive, then any drive's beyond max_bytes; the one
// just saved never does (a capture larger than either cap is not saved).
// Only file names save() can write are counted or deleted: anything else
// an operator leaves there is left alone.
//
// Every step goes through descriptors opened with O_NOFOLLOW: a symlink
// planted as `telemetry` or as a drive's directory is refused, never
// followed, so nothing is written or deleted outside the state directory.
//
// Thread-safety: save() and newest() may be called from every drive's
// poller thread at once (an internal mutex orders them); a second archive
// over the same directory (during a reload) only ever finds a file already
// deleted, which is not an error.
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/telemetry.hpp"
#include "core/clock.hpp"
#include "core/result.hpp"

namespace nvmond {

// "SN-01/A" -> "SN-01%2FA": letters, digits, '-' and '_' kept, every other
// byte as %XX, so no serial becomes "..", a slash or an empty name.
std::string telemetry_drive_dir(std::string_view serial);
// "20260101T120000Z-gen007-area3.bin": clock time to the second, then the
// controller-initiated generation and the last data area read. Names sort
// by time.
std::string telemetry_file_name(WallTime at, std::uint8_t generation, unsigned data_area);

struct TelemetryFile {
  std::string drive_dir;
  std::string name;
  WallTime at{};
  std::uint8_t generation = 0;
  std::uint64_t bytes = 0;
};
// nullopt for a name telemetry_file_name cannot have written.
std::optional<TelemetryFile> parse_telemetry_file_name(std::string_view name);

class TelemetryArchive {
 public:
  TelemetryArchive(std::string state_dir, std::uint64_t max_bytes_per_drive, std::uint64_t max_bytes);

  struct Saved {
    std::string path;                  // what the log line names
    std::vector<std::string> removed;  // older captures deleted for the caps
  };
  // Writes `log` atomically (temporary, fsync, rename) as the drive's
  // capture at `at`, then applies the caps. Error{full} when the capture
  // alone is over a cap; Error{io} naming the path and step otherwise.
  Result<Saved> save(std::string_view serial, const TelemetryLog& log, WallTime at);
  // The drive's newest capture; nullopt when it has none.
  Result<std::optional<TelemetryFile>> newest(std::string_view serial);
  // Every capture of every drive, oldest first.
  Result<std::vector<TelemetryFile>> files();
  std::string root() const { return state_dir_ + "/telemetry"; }

 private:
  std::string state_dir_;
  std::uint64_t max_bytes_per_drive_;
  std::uint64_t max_bytes_;
  std::mutex mu_;
};

}  // namespace nvmond
