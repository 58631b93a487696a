#pragma once
// Why an operation failed, as an enum that code branches on. The text of
// each reason is stable: it is a metric label value (collection errors,
// store errors), and it appears in JSON (a job's failure) and in logs, so a
// reason's text never changes once shipped.
//
// One list: the X-macro below makes the enum and its text table together,
// so a reason cannot exist without its text. It is kept in text order: a
// std::map keyed by ErrorReason then iterates in the label order the
// exposition had when those maps were keyed by text.
#include <iosfwd>
#include <string_view>

namespace nvmond {

#define NVMOND_ERROR_REASONS(X)                                                             \
  X(absent)               /* no such device, file, run or database */                       \
  X(block_size)           /* a block size below the target's logical block size */          \
  X(busy)                 /* a target in use (mounted, claimed by a driver) */              \
  X(calendar)             /* a calendar expression that does not parse */                   \
  X(config)               /* the configuration could not be read */                         \
  X(corrupt)              /* a database SQLite calls corrupt or not a database */           \
  X(decode)               /* a page, record or document that does not decode */             \
  X(duplicate)            /* a round that is already recorded */                            \
  X(ended)                /* a run that ended before it opened */                           \
  X(ending)               /* a run that is ending and takes no more commands */             \
  X(full)                 /* no space, or a full queue */                                   \
  X(hard_link)            /* a target file with more than one link */                       \
  X(has_partitions)       /* a whole disk with partitions on it */                          \
  X(holder)               /* a block device another device is built on */                   \
  X(io)                   /* any other failure of the system or the device */               \
  X(locked)               /* a database another process holds */                            \
  X(loop_backing)         /* a loop device over a refused file */                           \
  X(mounted)              /* a mounted block device */                                      \
  X(name)                 /* a run name that is not allowed */                              \
  X(no_serial)            /* a block device without a serial number */                      \
  X(not_allowed)          /* a device outside [safety] allow_devices */                     \
  X(not_paused)           /* resuming a run that is not paused */                           \
  X(nvme_status)          /* a command the controller answered with an error status */      \
  X(outside_allowed_dirs) /* a file outside [safety] allow_dirs */                          \
  X(params)               /* test parameters that do not make a plan */                     \
  X(partition)            /* a partition of a disk */                                       \
  X(permission_denied)    /* a peer the control socket does not serve */                    \
  X(protocol_version)     /* a control message in a protocol version not spoken */          \
  X(read_only)            /* a file or database that may not be written */                  \
  X(refused)              /* a job on real media without a safety guard */                  \
  X(schedule)             /* a schedule that does not parse */                              \
  X(setup)                /* an engine or a job that cannot be set up */                    \
  X(signature)            /* a device with a filesystem or partition table on it */         \
  X(stopped)              /* a writer that has stopped */                                   \
  X(store)                /* a store that cannot be used (its directory, schema or rows) */ \
  X(swap)                 /* an active swap device or file */                               \
  X(symlink)              /* a target given through a symbolic link */                      \
  X(timeout)              /* a command that did not answer in time */                       \
  X(unknown)              /* a run id the database does not hold */                         \
  X(unknown_device)       /* a target that cannot be opened or identified */                \
  X(unsupported)          /* a command the device does not support */                       \
  X(unsupported_target)   /* a target that is neither a block device nor a regular file */  \
  X(would_block)          /* a target a read job could block on forever */                  \
  X(zone)                 /* a time zone that cannot be loaded */

enum class ErrorReason {
#define NVMOND_ERROR_REASON_ENUMERATOR(name) name,
  NVMOND_ERROR_REASONS(NVMOND_ERROR_REASON_ENUMERATOR)
#undef NVMOND_ERROR_REASON_ENUMERATOR
};

// The reason's label text: "absent", "read_only", ...
std::string_view to_text(ErrorReason reason);
// Reading text back is in core/result.hpp (error_reason_from_text): it
// returns a Result, which holds an Error, which holds an ErrorReason.

// For test failure messages (GoogleTest prints through operator<<).
std::ostream& operator<<(std::ostream& out, ErrorReason reason);

}  // namespace nvmond
