#include "report/run_record.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/json_path.hpp"
#include "core/io_op.hpp"
#include "runmodel/round_record.hpp"
#include "runmodel/run_codec.hpp"
#include "runmodel/run_json.hpp"

namespace nvmond::report {

using nlohmann::json;

namespace {

using json_keys::DecodeError;
using Node = json_keys::Path;

void require_schema(const Node& root) {
  const auto schema = root.text("schema");
  if (!schema.empty() && schema.rfind("nvmond.run/1", 0) != 0) {
    root.at("schema").fail("unsupported schema \"" + schema + "\" (this nvmonctl reads nvmond.run/1)");
  }
}

// What every run document has from its first line on (the writer's
// header): without them it is some other JSON, not a run.
void require_run_fields(const Node& root) {
  if (!root.j.is_object()) root.fail("expected a run object");
  std::string missing;
  for (const char* key : {"schema", "test", "status", "started_at"}) {
    if (!root.has(key)) missing += (missing.empty() ? "" : ", ") + std::string(key);
  }
  if (!missing.empty()) throw DecodeError("not a run (schema nvmond.run/1): missing " + missing);
}

// The JSON path of the value a SAX parse is at, so that a document the DOM
// parser refuses can be reported by the field that broke it.
class PathTracker final : public json::json_sax_t {
 public:
  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(json::number_integer_t) override { return value(); }
  bool number_unsigned(json::number_unsigned_t) override { return value(); }
  bool number_float(json::number_float_t, const std::string&) override { return value(); }
  bool string(std::string&) override { return value(); }
  bool binary(json::binary_t&) override { return value(); }
  bool start_object(std::size_t) override {
    frames_.push_back({false, 0, {}});
    return true;
  }
  bool key(std::string& k) override {
    frames_.back().key = k;
    return true;
  }
  bool end_object() override {
    frames_.pop_back();
    return value();
  }
  bool start_array(std::size_t) override {
    frames_.push_back({true, 0, {}});
    return true;
  }
  bool end_array() override {
    frames_.pop_back();
    return value();
  }
  bool parse_error(std::size_t position, const std::string& token, const json::exception& e) override {
    end_ = position;
    token_ = token;
    id_ = e.id;
    what_ = e.what();
    return false;
  }

  std::string path() const {
    std::string out;
    for (const auto& f : frames_) {
      if (f.array) out += "[" + std::to_string(f.index) + "]";
      else if (!f.key.empty()) out += (out.empty() ? "" : ".") + f.key;
    }
    return out.empty() ? "(top level)" : out;
  }
  std::size_t end() const { return end_; }
  const std::string& token() const { return token_; }
  int id() const { return id_; }
  const std::string& what() const { return what_; }

 private:
  struct Frame {
    bool array;
    std::size_t index;  // arrays: of the element being read
    std::string key;    // objects: of the member being read
  };
  bool value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    return true;
  }
  std::vector<Frame> frames_;
  std::size_t end_ = 0;
  std::string token_;
  int id_ = 0;
  std::string what_;
};

constexpr int kNumberOverflow = 406;  // nlohmann: a number beyond double (1e999)

// "line 3, column 12" of byte `offset` of `text`.
std::string line_and_column(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
  const auto last_newline = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const auto column = offset - (last_newline == std::string::npos || last_newline >= offset ? 0 : last_newline + 1) + 1;
  return fmt::format("line {}, column {}", line, column);
}

bool in_word(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  return std::isalnum(c) || c == '+' || c == '-' || c == '.';
}

// Where the value the lexer stopped in at `end` begins: the start of its
// word (a number, a bare literal), else the character it stopped at.
std::size_t start_of_value(const std::string& text, std::size_t end) {
  end = std::min(end, text.size());
  std::size_t start = end;
  while (start > 0 && in_word(text[start - 1])) --start;
  return start == end && end > 0 ? end - 1 : start;
}

// The word (number or bare literal) at `offset`, as written.
std::string word_at(const std::string& text, std::size_t offset) {
  std::string w;
  for (std::size_t i = offset; i < text.size() && w.size() < 24 && in_word(text[i]); ++i) w += text[i];
  return w;
}

bool non_finite_word(std::string w) {
  if (!w.empty() && (w[0] == '-' || w[0] == '+')) w.erase(0, 1);
  std::transform(w.begin(), w.end(), w.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return w == "inf" || w == "infinity" || w == "nan";
}

// Why `text` is not JSON nvmonctl reads, naming the field: JSON has no
// infinities or NaN, and a number beyond a double (1e999) is one in disguise.
std::string where_parsing_failed(const std::string& text) {
  PathTracker at;
  json::sax_parse(text, &at);
  const std::size_t start = start_of_value(text, at.end());
  const std::string word = word_at(text, start);
  if (at.id() == kNumberOverflow || non_finite_word(word)) {
    return fmt::format("{}: {} is not a finite number ({})", at.path(), word.empty() ? at.token() : word,
                       line_and_column(text, start));
  }
  return fmt::format("not JSON at {} ({}): {}", at.path(), line_and_column(text, start), at.what());
}

// "a FIFO": what a path that is not a regular file is.
std::string file_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISSOCK(mode)) return "a socket";
  return "something else";
}

// A parsed document as a run: its fields named in every error.
Result<RunRecord> record_from_document(const json& j, const std::string& source) {
  try {
    const Node root{j, ""};
    require_run_fields(root);
    require_schema(root);
    auto run = nvmond::run_from_json(j);
    if (!run) return Error{run.error().reason, source + ": " + run.error().message};
    if (!parse_rfc3339(run->header.started_at)) root.at("started_at").fail("expected an RFC 3339 time");
    return record_of(std::move(*run), source);
  } catch (const DecodeError& e) {
    return Error{ErrorReason::decode, source + ": " + e.what()};
  } catch (const json::exception& e) {
    return Error{ErrorReason::decode, source + ": " + e.what()};
  }
}

// The rounds of `run` in `group` and what they amount to, under `header`.
RunRecord group_record(const std::shared_ptr<const Run>& run, int group, const GroupResults& results, RunHeader header,
                       const std::string& source) {
  RunRecord r;
  r.source = source;
  r.header = std::move(header);
  r.run = run;
  r.group = group;
  r.results = &results;
  r.started = parse_rfc3339(run->header.started_at).value_or(kAbsent);
  r.duration_s = r.offset(run->header.ended_at.value_or(""));
  for (const RoundRecord& round : run->rounds) {
    if (round.group == group) r.rounds.push_back(&round);
  }
  return r;
}

}  // namespace

RunRecord record_of(Run run, const std::string& source) {
  for (const auto& c : run.results.conditions) add_condition(run.header, c);
  run.results.conditions.clear();
  auto shared = std::make_shared<const Run>(std::move(run));
  RunRecord r = group_record(shared, 0, shared->results.main, shared->header, source);
  r.status = shared->status;
  if (const auto& c = shared->results.compare) {
    r.compare_label = c->label;
    RunHeader header = shared->header;
    header.test = c->test;
    header.target.tested_range_bytes = c->tested_range_bytes.value_or(0);
    r.compare = std::make_shared<RunRecord>(group_record(shared, 1, c->run, std::move(header), source));
  }
  return r;
}

const DriveResults* RunRecord::drive() const {
  return group == 0 && run && run->results.drive ? &*run->results.drive : nullptr;
}

const QosResults* RunRecord::qos() const {
  return group == 0 && run && run->results.qos ? &*run->results.qos : nullptr;
}

const std::vector<TimelinePoint>& RunRecord::timeline() const {
  static const std::vector<TimelinePoint> kNone;
  return group == 0 && run ? run->results.timeline : kNone;
}

double RunRecord::offset(const RoundRecord& r) const {
  return static_cast<double>(to_unix_ns(r.started_at)) * 1e-9 - started;
}

double RunRecord::offset(const std::string& rfc3339_time) const {
  if (rfc3339_time.empty()) return kAbsent;
  const auto t = parse_rfc3339(rfc3339_time);
  return t ? *t - started : kAbsent;
}

Result<RunRecord> parse_run(const std::string& json_text, const std::string& source) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::exception&) {
    return Error{ErrorReason::decode, source + ": " + where_parsing_failed(json_text)};
  }
  return record_from_document(j, source);
}

Result<RunRecord> load_run(const std::string& run) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string path = fs::is_directory(run, ec) ? (fs::path(run) / "run.json").string() : run;
  auto text = read_run_file(path);
  if (!text) return text.error();
  return parse_run(*text, path);
}

Result<std::string> read_run_file(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return Error{ErrorReason::absent, path + ": no such file"};
    if (err == ELOOP) return Error{ErrorReason::io, path + ": is a symbolic link; give the run file itself"};
    return Error{ErrorReason::io, path + ": cannot open: " + std::strerror(err)};
  }
  const auto fail = [fd](Error e) {
    ::close(fd);
    return e;
  };
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail(Error{ErrorReason::io, path + ": cannot stat: " + std::strerror(errno)});
  if (!S_ISREG(st.st_mode))
    return fail(Error{ErrorReason::io, path + ": is " + file_kind(st.st_mode) + ", not a regular file"});
  const auto too_large = [&] {
    const bool mib = max_bytes % (std::size_t{1} << 20) == 0;
    return Error{ErrorReason::io, fmt::format("{}: larger than {} {}, more than any run nvmond writes", path,
                                              mib ? max_bytes >> 20 : max_bytes, mib ? "MiB" : "bytes")};
  };
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) return fail(too_large());
  // The size is only a hint: the file may grow while it is read.
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(Error{ErrorReason::io, path + ": read: " + std::strerror(errno)});
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes) return fail(too_large());
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace nvmond::report
