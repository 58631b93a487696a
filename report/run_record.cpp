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

// A scalar as the header prints it: strings bare, numbers as JSON writes them.
std::string printed(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::vector<std::pair<std::string, std::string>> printed_fields(const std::optional<SmartRecord>& s) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!s) return out;
  const json fields = smart_record_json(*s);
  for (const auto& [k, v] : fields.items()) out.emplace_back(k, printed(v));
  return out;
}

double or_absent(const std::optional<double>& v) { return v ? *v : kAbsent; }

// Seconds since the run started of an RFC 3339 time; NaN when empty or malformed.
double offset_of(const std::string& text, double run_start) {
  if (text.empty()) return kAbsent;
  const auto t = parse_rfc3339(text);
  return t ? *t - run_start : kAbsent;
}

std::optional<OpStats> op_stats(const std::optional<OpSummary>& s) {
  if (!s) return std::nullopt;
  const Latency l{s->mean, s->min, s->max, s->p50, s->p90, s->p99, s->p999, s->p9999, or_absent(s->p99999)};
  return OpStats{static_cast<double>(s->ops), static_cast<double>(s->bytes),  s->iops,
                 s->bytes_per_second,         static_cast<double>(s->errors), l};
}

Ops ops_of(const std::array<std::optional<OpSummary>, kIoOpCount>& ops) {
  return {op_stats(ops[static_cast<int>(IoOp::read)]), op_stats(ops[static_cast<int>(IoOp::write)])};
}

Round round_view(const RoundRecord& r, double run_start) {
  Round v;
  v.index = static_cast<int>(r.index);
  v.stage = r.stage;
  v.round = static_cast<double>(r.round);
  v.phase = r.phase;
  if (!r.label.empty() || r.bs > 0) {
    v.element = Element{static_cast<double>(r.bs), r.read_pct, static_cast<double>(r.threads),
                        static_cast<double>(r.queue_depth), r.label};
  }
  v.start = static_cast<double>(to_unix_ns(r.started_at)) * 1e-9 - run_start;
  v.seconds = r.seconds;
  v.iops = r.iops;
  v.bytes_per_second = r.bytes_per_second;
  v.ops = ops_of(r.ops);
  if (r.temp_min_c && r.temp_max_c) v.temperature_c = MinMax{*r.temp_min_c, *r.temp_max_c};
  v.throttled_seconds = r.throttled_seconds;
  v.bytes_written = static_cast<double>(r.bytes_written);
  return v;
}

SteadyState steady_state_view(const SteadyStateReport& s) {
  SteadyState v;
  v.variable = tracked_variable_name(s.tracked.front().variable);
  v.element = s.tracked.front().element;
  v.reached = s.verdict.reached;
  v.round = s.verdict.round ? static_cast<double>(*s.verdict.round) : kAbsent;
  v.stage = static_cast<double>(s.stage);
  if (const auto& w = s.verdict.window) {
    v.window_from = static_cast<double>(w->first);
    v.window_to = static_cast<double>(w->last);
    v.average = w->average;
    v.range = w->range;
    v.range_limit = w->range_limit;
    v.slope_excursion = w->slope_excursion;
    v.slope_excursion_limit = w->slope_excursion_limit;
    v.slope = w->slope;
    v.intercept = w->intercept;
  }
  for (std::size_t i = 0; i < s.tracked.size(); ++i) {
    TrackedCheck c{
        tracked_variable_name(s.tracked[i].variable), s.tracked[i].element, kAbsent, kAbsent, kAbsent, false, false};
    if (i < s.verdict.windows.size()) {
      const WindowCheck& w = s.verdict.windows[i];
      c.window_from = static_cast<double>(w.first);
      c.window_to = static_cast<double>(w.last);
      c.average = w.average;
      c.range_ok = w.range_ok;
      c.slope_ok = w.slope_ok;
    }
    v.variables.push_back(std::move(c));
  }
  return v;
}

std::optional<SteadyState> steady_state_view(const std::optional<SteadyStateReport>& s) {
  return s ? std::optional(steady_state_view(*s)) : std::nullopt;
}

std::optional<MeasurementWindow> window_view(const std::optional<nvmond::MeasurementWindow>& w) {
  if (!w) return std::nullopt;
  return MeasurementWindow{static_cast<double>(w->stage), static_cast<double>(w->first), static_cast<double>(w->last),
                           w->steady_state};
}

std::vector<double> as_doubles(const std::vector<std::uint64_t>& v) { return {v.begin(), v.end()}; }

// The sections of one group of rounds: the run's, or its comparison run's.
void group_view(const nvmond::Run& run, const GroupResults& g, int group, double run_start, RunRecord& r) {
  for (const auto& p : g.preconditioning) {
    r.preconditioning.push_back({p.kind, static_cast<double>(p.bytes), p.seconds, static_cast<double>(p.rounds),
                                 steady_state_view(p.steady_state)});
  }
  for (const auto& round : run.rounds) {
    if (round.group == group) r.rounds.push_back(round_view(round, run_start));
  }
  r.steady_state = steady_state_view(g.steady_state);
  r.measurement_window = window_view(g.measurement_window);
  for (const auto& s : g.subtests) {
    r.subtests.push_back({s.label, steady_state_view(s.steady_state), window_view(s.window)});
  }
  if (g.elements) {
    for (const auto& e : *g.elements) {
      r.elements.push_back({Element{static_cast<double>(e.bs), e.read_pct, static_cast<double>(e.threads),
                                    static_cast<double>(e.queue_depth), e.label},
                            e.iops, e.bytes_per_second, ops_of(e.ops)});
    }
  }
  if (g.histogram) r.histogram = Histogram{g.histogram->bounds_s, as_doubles(g.histogram->counts)};
  if (g.response_time_histograms) {
    for (const auto& h : *g.response_time_histograms) {
      PointHistogram p{h.point,
                       h.label,
                       static_cast<double>(h.threads),
                       static_cast<double>(h.queue_depth),
                       h.iops,
                       h.bounds_s,
                       {},
                       {},
                       h.source,
                       or_absent(h.seconds)};
      for (int op = 0; op < kIoOpCount; ++op) {
        if (!h.ops[op]) continue;
        const PointOpHistogram& o = *h.ops[op];
        (op == static_cast<int>(IoOp::read) ? p.read : p.write) =
            OpHistogram{static_cast<double>(o.ops), o.iops, o.mean_s, o.max_s, as_doubles(o.counts)};
      }
      r.response_time_histograms.push_back(std::move(p));
    }
  }
  if (g.slc) {
    const SlcResult& s = *g.slc;
    Slc slc{s.found ? static_cast<double>(s.cache_bytes) : kAbsent,
            s.found ? s.before_bytes_per_second : kAbsent,
            s.found ? s.after_bytes_per_second : kAbsent,
            {}};
    for (const auto& p : s.curve) slc.curve.push_back({static_cast<double>(p.written_bytes), p.bytes_per_second});
    r.slc = std::move(slc);
  }
}

Drive drive_view(const DriveResults& d, const RunHeader& header, double start) {
  Drive drive;
  if (d.temperature_c) drive.temperature_c = MinMax{d.temperature_c->first, d.temperature_c->second};
  for (const auto& e : d.throttle_events) {
    drive.throttle_events.push_back(
        {offset_of(e.start, start), offset_of(e.end, start), e.start, e.end, e.peak_c, e.sources});
  }
  drive.smart_before = printed_fields(header.smart_before);
  drive.smart_after = printed_fields(header.smart_after);
  drive.host_bytes_written = d.host_bytes_written;
  drive.drive_writes = or_absent(d.drive_writes);
  drive.dwpd_spent = or_absent(d.dwpd_spent);
  if (const auto& lm = d.latency_monitor) {
    drive.latency_threshold_s = lm->threshold_s;
    drive.latency_drive_ios = static_cast<double>(lm->drive_ios);
    drive.latency_host_ios_min = static_cast<double>(lm->host_ios_min);
    drive.latency_host_ios_max = static_cast<double>(lm->host_ios_max);
  }
  return drive;
}

RunRecord record_of(const nvmond::Run& run, const std::string& source) {
  RunRecord r;
  r.source = source;
  r.header = run.header;
  r.status = run.status;
  const auto start = parse_rfc3339(run.header.started_at);
  if (!start) throw DecodeError("started_at: expected an RFC 3339 time");
  r.duration_s = offset_of(run.header.ended_at.value_or(""), *start);
  group_view(run, run.results.main, 0, *start, r);
  if (const auto& c = run.results.compare) {
    r.compare_label = c->label;
    auto nested = std::make_shared<RunRecord>();
    nested->source = source;
    nested->header = run.header;
    nested->header.test = c->test;
    nested->header.target.tested_range_bytes = c->tested_range_bytes.value_or(0);
    group_view(run, c->run, 1, *start, *nested);
    r.compare = std::move(nested);
  }
  if (const auto& q = run.results.qos) {
    Qos qos{q->pass, {}};
    for (const auto& c : q->checks) {
      qos.checks.push_back(
          {op_name(c.op), static_cast<double>(c.bs), c.quantile, c.limit_s, or_absent(c.measured_s), c.pass});
    }
    r.qos = std::move(qos);
  }
  if (run.results.drive) r.drive = drive_view(*run.results.drive, run.header, *start);
  for (const auto& p : run.results.timeline) {
    r.timeline.push_back({p.t, or_absent(p.temperature_c), p.bytes_per_second});
  }
  return r;
}

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

}  // namespace

Result<RunRecord> parse_run(const std::string& json_text, const std::string& source) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::exception&) {
    return Error{ErrorReason::decode, source + ": " + where_parsing_failed(json_text)};
  }
  return run_from_json(j, source);
}

Result<RunRecord> run_from_json(const json& j, const std::string& source) {
  try {
    const Node root{j, ""};
    require_run_fields(root);
    require_schema(root);
    auto run = nvmond::run_from_json(j);
    if (!run) return Error{run.error().reason, source + ": " + run.error().message};
    return record_of(*run, source);
  } catch (const DecodeError& e) {
    return Error{ErrorReason::decode, source + ": " + e.what()};
  } catch (const json::exception& e) {
    return Error{ErrorReason::decode, source + ": " + e.what()};
  }
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
