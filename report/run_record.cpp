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
#include "runmodel/run_codec.hpp"

namespace nvmond::report {

using nlohmann::json;

namespace {

using json_keys::DecodeError;
using Node = json_keys::Path;

// A scalar as the header prints it: strings bare, numbers as JSON writes them.
std::string printed(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::vector<std::pair<std::string, std::string>> printed_fields(const std::optional<Node>& n) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!n) return out;
  for (const auto& [k, v] : n->j.items()) out.emplace_back(k, printed(v));
  return out;
}

// What the steady-state section says of its window: numbers under the names
// of their fields.
constexpr std::pair<const char*, double SteadyState::*> kWindowStatistics[] = {
    {"average", &SteadyState::average},
    {"range", &SteadyState::range},
    {"range_limit", &SteadyState::range_limit},
    {"slope_excursion", &SteadyState::slope_excursion},
    {"slope_excursion_limit", &SteadyState::slope_excursion_limit},
    {"slope", &SteadyState::slope},
    {"intercept", &SteadyState::intercept},
};

class Decoder {
 public:
  explicit Decoder(double run_start) : start_(run_start) {}
  double start() const { return start_; }

  // Seconds since the run started; NaN when absent, an error when malformed.
  double offset(const Node& n, const char* key) const {
    const auto s = n.text(key);
    if (s.empty()) return kAbsent;
    const auto t = parse_rfc3339(s);
    if (!t) n.at(key).fail("expected an RFC 3339 time, got \"" + s + "\"");
    return *t - start_;
  }

  static Latency latency(const std::optional<Node>& n) {
    Latency l;
    if (!n) return l;
    l = {n->number("mean"), n->number("min"),   n->number("max"),    n->number("p50"),    n->number("p90"),
         n->number("p99"),  n->number("p99.9"), n->number("p99.99"), n->number("p99.999")};
    return l;
  }
  static std::optional<OpStats> op(const std::optional<Node>& n) {
    if (!n) return std::nullopt;
    return OpStats{n->number("ops"),    n->number("bytes"),
                   n->number("iops"),   n->number("bytes_per_second"),
                   n->number("errors"), latency(n->object("latency_s"))};
  }
  static Ops ops(const Node& n) {
    Ops o;
    if (const auto x = n.object("ops")) o = {op(x->object("read")), op(x->object("write"))};
    return o;
  }
  static Element element(const Node& n) {
    return {n.number("bs"), n.number("read_pct"), n.number("threads"), n.number("queue_depth"), n.text("label")};
  }
  static std::optional<MinMax> min_max(const std::optional<Node>& n) {
    if (!n) return std::nullopt;
    return MinMax{n->number("min"), n->number("max")};
  }

  Round round(const Node& n) const {
    Round r;
    const double index = n.number("index");
    if (std::isnan(index)) n.fail("index is required");
    r.index = static_cast<int>(index);
    r.stage = n.number("stage");
    r.round = n.number("round");
    r.phase = n.text("phase");
    if (const auto e = n.object("element")) r.element = element(*e);
    r.start = offset(n, "started_at");
    r.seconds = n.number("seconds");
    r.iops = n.number("iops");
    r.bytes_per_second = n.number("bytes_per_second");
    r.ops = ops(n);
    r.temperature_c = min_max(n.object("temperature_c"));
    r.throttled_seconds = n.number("throttled_seconds");
    r.bytes_written = n.number("bytes_written");
    return r;
  }

  // [first, last] under `key`, into from and to; absent leaves them NaN.
  static void round_range(const Node& n, const char* key, double& from, double& to) {
    const auto w = n.array(key);
    if (w.empty()) return;
    if (w.size() != 2 || !w[0].j.is_number() || !w[1].j.is_number()) n.at(key).fail("expected [first, last]");
    from = w[0].j.get<double>();
    to = w[1].j.get<double>();
  }

  static SteadyState steady_state(const Node& n) {
    SteadyState s;
    s.variable = n.text("variable");
    s.element = n.text("element");
    s.reached = n.flag("reached");
    s.round = n.number("round");
    s.stage = n.number("stage");
    round_range(n, "window", s.window_from, s.window_to);
    for (const auto& [key, field] : kWindowStatistics) s.*field = n.number(key);
    for (const auto& v : n.array("variables")) {
      TrackedCheck c{v.text("variable"),  v.text("element"),  kAbsent,           kAbsent,
                     v.number("average"), v.flag("range_ok"), v.flag("slope_ok")};
      round_range(v, "window", c.window_from, c.window_to);
      s.variables.push_back(std::move(c));
    }
    return s;
  }

  static MeasurementWindow measurement_window(const Node& n) {
    MeasurementWindow w;
    w.stage = n.number("stage");
    round_range(n, "rounds", w.from, w.to);
    w.steady_state = n.flag("steady_state");
    return w;
  }

  static std::vector<double> numbers(const Node& n, const char* key) {
    std::vector<double> out;
    for (const auto& v : n.array(key)) {
      if (!v.j.is_number()) v.fail("expected a number");
      out.push_back(v.j.get<double>());
    }
    return out;
  }

  Drive drive(const Node& n) const {
    Drive d;
    d.temperature_c = min_max(n.object("temperature_c"));
    for (const auto& e : n.array("throttle_events")) {
      ThrottleEvent t{offset(e, "start"), offset(e, "end"), e.text("start"), e.text("end"), e.number("peak_c"), {}};
      for (const auto& s : e.array("sources")) t.sources.push_back(printed(s.j));
      d.throttle_events.push_back(std::move(t));
    }
    d.smart_before = printed_fields(n.object("smart_before"));
    d.smart_after = printed_fields(n.object("smart_after"));
    d.host_bytes_written = n.number("host_bytes_written");
    d.drive_writes = n.number("drive_writes");
    d.dwpd_spent = n.number("dwpd_spent");
    if (const auto lm = n.object("latency_monitor")) {
      d.latency_threshold_s = lm->number("threshold_s");
      d.latency_drive_ios = lm->number("drive_ios");
      d.latency_host_ios_min = lm->number("host_ios_min");
      d.latency_host_ios_max = lm->number("host_ios_max");
    }
    return d;
  }

 private:
  double start_;
};

RunRecord decode_nested(const Node& root, const std::string& source, const RunHeader& parent, double run_start);

void decode_sections(const Node& root, const Decoder& d, RunRecord& r, const std::string& source) {
  for (const auto& p : root.array("preconditioning")) {
    Preconditioning pre{p.text("kind"), p.number("bytes"), p.number("seconds"), p.number("rounds"), std::nullopt};
    if (const auto s = p.object("steady_state")) pre.steady_state = Decoder::steady_state(*s);
    r.preconditioning.push_back(std::move(pre));
  }
  for (const auto& n : root.array("rounds")) r.rounds.push_back(d.round(n));
  if (const auto s = root.object("steady_state")) r.steady_state = Decoder::steady_state(*s);
  if (const auto w = root.object("measurement_window")) r.measurement_window = Decoder::measurement_window(*w);
  for (const auto& n : root.array("subtests")) {
    Subtest t{n.text("label"), {}, {}};
    if (const auto s = n.object("steady_state")) t.steady_state = Decoder::steady_state(*s);
    if (const auto w = n.object("measurement_window")) t.measurement_window = Decoder::measurement_window(*w);
    r.subtests.push_back(std::move(t));
  }
  for (const auto& e : root.array("elements")) {
    r.elements.push_back({Decoder::element(e), e.number("iops"), e.number("bytes_per_second"), Decoder::ops(e)});
  }
  if (const auto h = root.object("histogram")) {
    r.histogram = Histogram{Decoder::numbers(*h, "bounds_s"), Decoder::numbers(*h, "counts")};
    // One count per bound, plus optionally the overflow bucket above the last bound.
    const auto nb = r.histogram->bounds_s.size(), nc = r.histogram->counts.size();
    if (nc != nb && nc != nb + 1) h->fail("counts must have one entry per bound (plus one for the overflow)");
  }
  for (const auto& n : root.array("response_time_histograms")) {
    PointHistogram p{n.text("point"),
                     n.text("label"),
                     n.number("threads"),
                     n.number("queue_depth"),
                     n.number("iops"),
                     Decoder::numbers(n, "bounds_s"),
                     {},
                     {},
                     n.text("source"),
                     n.number("seconds")};
    if (const auto ops = n.object("ops")) {
      for (const char* name : {"read", "write"}) {
        const auto o = ops->object(name);
        if (!o) continue;
        OpHistogram h{o->number("ops"), o->number("iops"), o->number("mean_s"), o->number("max_s"),
                      Decoder::numbers(*o, "counts")};
        if (h.counts.size() != p.bounds_s.size() + 1) o->fail("counts must have one entry per bound and one above");
        (name[0] == 'r' ? p.read : p.write) = std::move(h);
      }
    }
    r.response_time_histograms.push_back(std::move(p));
  }
  if (const auto s = root.object("slc")) {
    Slc slc{s->number("cache_bytes"), s->number("before_bytes_per_second"), s->number("after_bytes_per_second"), {}};
    for (const auto& p : s->array("curve"))
      slc.curve.push_back({p.number("written_bytes"), p.number("bytes_per_second")});
    r.slc = std::move(slc);
  }
  if (const auto q = root.object("qos")) {
    Qos qos{q->flag("pass"), {}};
    for (const auto& c : q->array("checks")) {
      qos.checks.push_back({c.text("op"), c.number("bs"), c.number("quantile"), c.number("limit_s"),
                            c.number("measured_s"), c.flag("pass")});
    }
    r.qos = std::move(qos);
  }
  if (const auto c = root.object("compare")) {
    r.compare_label = c->text("label");
    if (const auto nested = c->object("run")) {
      r.compare = std::make_shared<RunRecord>(decode_nested(*nested, source, r.header, d.start()));
    }
  }
  if (const auto dr = root.object("drive")) r.drive = d.drive(*dr);
  for (const auto& p : root.array("timeline")) {
    r.timeline.push_back({p.number("t"), p.number("temperature_c"), p.number("bytes_per_second")});
  }
}

// A run document: the header through the run model's codec, then the
// sections only run.json has.
RunRecord decode(const Node& root, const std::string& source) {
  if (!root.j.is_object()) root.fail("expected a run object");
  RunRecord r;
  r.source = source;
  const auto schema = root.text("schema");
  if (!schema.empty() && schema.rfind("nvmond.run/1", 0) != 0) {
    root.at("schema").fail("unsupported schema \"" + schema + "\" (this nvmonctl reads nvmond.run/1)");
  }
  auto header = header_from_json(root.j);
  if (!header) throw DecodeError(header.error().message);
  r.header = std::move(*header);
  if (const auto status = root.text("status"); !status.empty()) {
    auto s = run_status_from_text(status);
    if (!s) root.at("status").fail(s.error().message);
    r.status = *s;
  }
  const auto start = parse_rfc3339(r.header.started_at);
  if (!start) root.at("started_at").fail("expected an RFC 3339 time");
  const Decoder d(*start);
  r.duration_s = d.offset(root, "ended_at");
  decode_sections(root, d, r, source);
  return r;
}

// A comparison's nested run (the mixed test's reduced range): its test,
// tested range and sections; the rest of what ran on what is its parent's.
RunRecord decode_nested(const Node& root, const std::string& source, const RunHeader& parent, double run_start) {
  if (!root.j.is_object()) root.fail("expected a run object");
  RunRecord r;
  r.source = source;
  r.header = parent;
  r.header.test = root.text("test");
  // Unknown in runs written before nested runs carried it: not the parent's.
  const double range = root.number("tested_range_bytes");
  r.header.target.tested_range_bytes = std::isfinite(range) && range > 0 ? static_cast<std::uint64_t>(range) : 0;
  decode_sections(root, Decoder(run_start), r, source);
  return r;
}

// What every run document has from its first line on (pts/run_json.cpp's
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
    return decode(root, source);
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

std::optional<double> parse_rfc3339(const std::string& s) {
  int y, mo, d, h, mi, consumed = 0;
  double sec;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &consumed) != 6) {
    if (std::sscanf(s.c_str(), "%4d-%2d-%2d %2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &consumed) != 6) {
      return std::nullopt;
    }
  }
  const std::string zone = s.substr(static_cast<std::size_t>(consumed));
  double offset = 0;
  if (zone == "Z" || zone == "z") {
    offset = 0;
  } else {
    int oh, om;
    char sign;
    if (std::sscanf(zone.c_str(), "%c%2d:%2d", &sign, &oh, &om) != 3 || (sign != '+' && sign != '-') ||
        zone.size() != 6) {
      return std::nullopt;
    }
    offset = (sign == '+' ? 1 : -1) * (oh * 3600.0 + om * 60.0);
  }
  using namespace std::chrono;
  const year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || h > 23 || mi > 59 || sec < 0 || sec >= 61) return std::nullopt;
  const double days = static_cast<double>(sys_days{ymd}.time_since_epoch().count());
  return days * 86400.0 + h * 3600.0 + mi * 60.0 + sec - offset;
}

}  // namespace nvmond::report
