#include <neograde/clients/cassette.hpp>
#include <neograde/core/errors.hpp>

#include <neograde/core/json_util.hpp>

#include <neograde/core/text.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace neograde {

namespace {

using http::client_errc;
using nlohmann::json;

constexpr std::array<std::pair<client_errc, std::string_view>, 12> errc_names{{
    {client_errc::bad_url, "bad_url"},
    {client_errc::unsupported_scheme, "unsupported_scheme"},
    {client_errc::resolve_failed, "resolve_failed"},
    {client_errc::connect_failed, "connect_failed"},
    {client_errc::tls_handshake_failed, "tls_handshake_failed"},
    {client_errc::write_failed, "write_failed"},
    {client_errc::read_failed, "read_failed"},
    {client_errc::timeout, "timeout"},
    {client_errc::body_too_large, "body_too_large"},
    {client_errc::header_too_large, "header_too_large"},
    {client_errc::bad_response, "bad_response"},
    {client_errc::replay_mismatch, "replay_mismatch"},
}};

// Text from outside (a provider's bytes) may not be UTF-8; it is written with U+FFFD in place of
// what is not, rather than refused.
std::string dump_line(const json& doc) { return doc.dump(-1, ' ', false, json::error_handler_t::replace) + "\n"; }

// What a string becomes once written to a cassette and read back (invalid UTF-8 replaced).
std::string as_recorded(const std::string& s) {
  auto doc = json::parse(json(s).dump(-1, ' ', false, json::error_handler_t::replace), nullptr, false);
  return doc.is_string() ? doc.get<std::string>() : s;
}

// Times in a cassette are at most 1e12 ms (31 years): virtual time in nanoseconds cannot overflow.
constexpr double max_ms = 1e12;

// Virtual time stops here (100 years), so that start + elapsed stays within steady_clock's range.
constexpr std::chrono::nanoseconds max_elapsed = std::chrono::hours(24 * 365 * 100);

std::chrono::nanoseconds from_ms(double ms) {
  if (!std::isfinite(ms) || ms <= 0) return std::chrono::nanoseconds::zero();
  return std::chrono::round<std::chrono::nanoseconds>(std::chrono::duration<double, std::milli>(std::min(ms, 4 * max_ms)));
}

// A parse failure inside this file; parse_cassette turns it into its error result.
struct bad_cassette {
  std::string message;
};

[[noreturn]] void fail(std::size_t line, const std::string& what) { throw bad_cassette{"line " + std::to_string(line) + ": " + what}; }

std::string in_quotes(std::string_view key) { return "\"" + std::string(key) + "\""; }

// Strict field access on one object of one line; `where` prefixes nested keys ("request.").
struct fields {
  const json& obj;
  std::size_t line;
  std::string where;

  const json& at(std::string_view key) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(line, "missing " + in_quotes(where + std::string(key)));
    return *it;
  }
  [[noreturn]] void wrong(std::string_view key, const char* type) const {
    fail(line, in_quotes(where + std::string(key)) + " must be " + type);
  }
  std::string string(std::string_view key) const {
    const auto& v = at(key);
    if (!v.is_string()) wrong(key, "a string");
    return v.get<std::string>();
  }
  double non_negative(std::string_view key) const {
    const auto& v = at(key);
    if (!v.is_number()) wrong(key, "a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < 0 || d > max_ms) wrong(key, "a number from 0 to 1e12 (milliseconds)");
    return d;
  }
  fields object(std::string_view key) const {
    const auto& v = at(key);
    if (!v.is_object()) wrong(key, "an object");
    return {v, line, where + std::string(key) + "."};
  }
  header_list headers(std::string_view key) const {
    const auto& v = at(key);
    if (!v.is_array()) wrong(key, "an array of [name, value] pairs");
    header_list out;
    out.reserve(v.size());
    for (const auto& pair : v) {
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
        wrong(key, "an array of [name, value] string pairs");
      out.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
    }
    return out;
  }
};

// A body's optional "body_digest" (core/evidence.hpp), with its types checked.
std::optional<body_digest> digest(const fields& f, const char* what) {
  if (!f.obj.contains("body_digest")) return std::nullopt;
  const auto d = f.object("body_digest");
  body_digest out;
  for (const char* key : {"bytes", "kept_bytes"}) {
    const auto& v = d.at(key);
    if (!v.is_number_unsigned()) d.wrong(key, "a non-negative integer");
  }
  out.bytes = d.at("bytes").get<std::uint64_t>();
  out.kept_bytes = d.at("kept_bytes").get<std::uint64_t>();
  out.sha256 = d.string("sha256");
  if (out.kept_bytes > out.bytes) fail(f.line, std::string(what) + ".body_digest: kept_bytes is more than bytes");
  if (d.obj.contains("binary")) {
    out.binary = d.string("binary");
    out.head_base64 = d.string("head_base64");
  }
  return out;
}

cassette_header read_header(const json& doc) {
  if (!doc.is_object()) fail(1, "the header must be a JSON object");
  const fields f{doc, 1, ""};
  if (f.string("cassette") != "neograde") fail(1, "not a neograde cassette (\"cassette\" is not \"neograde\")");
  const auto& version = f.at("version");
  if (!version.is_number_integer()) f.wrong("version", "an integer");
  if (version.get<long long>() != cassette_version)
    fail(1, "unsupported cassette version " + version.dump() + " (this neograde reads version " + std::to_string(cassette_version) + ")");
  cassette_header h;
  h.provider = f.string("provider");
  h.base_url = f.string("base_url");
  h.run_id = f.string("run_id");
  const auto source = f.string("recorded_source");
  if (source == "emulated") h.recorded_source = result_source::emulated;
  else if (source == "live")
    h.recorded_source = result_source::live;
  else
    fail(1,
         "\"recorded_source\" must be \"emulated\" or \"live\", not " + json(source).dump(-1, ' ', false, json::error_handler_t::replace));
  h.time_scale = f.non_negative("time_scale");
  h.recorded_at = f.string("recorded_at");
  const auto& accounts = f.at("accounts");
  if (!accounts.is_number_integer() || accounts.get<long long>() < 1 || accounts.get<long long>() > 2) f.wrong("accounts", "1 or 2");
  h.accounts = static_cast<int>(accounts.get<long long>());
  return h;
}

recorded_exchange read_exchange(const json& doc, std::size_t line, std::size_t expected_seq) {
  if (!doc.is_object()) fail(line, "an exchange must be a JSON object");
  const fields f{doc, line, ""};
  const auto& seq = f.at("seq");
  if (!seq.is_number_unsigned()) f.wrong("seq", "a non-negative integer");
  if (seq.get<std::uint64_t>() != expected_seq)
    fail(line, "seq is " + seq.dump() + ", expected " + std::to_string(expected_seq) + " (seq counts up from 0)");
  recorded_exchange e;
  e.seq = expected_seq;
  e.t_ms = f.non_negative("t_ms");
  e.duration_ms = f.non_negative("duration_ms");
  if (doc.contains("read_after_previous_ms")) e.read_after_previous_ms = f.non_negative("read_after_previous_ms");
  const auto req = f.object("request");
  e.request.method = req.string("method");
  e.request.url = req.string("url");
  e.request.headers = req.headers("headers");
  e.request.body = req.string("body");
  e.request_digest = digest(req, "request");
  const bool has_response = doc.contains("response");
  const bool has_error = doc.contains("error");
  if (has_response == has_error) fail(line, has_response ? "both \"response\" and \"error\"" : "missing \"response\" (or \"error\")");
  if (has_response) {
    const auto res = f.object("response");
    const auto& status = res.at("status");
    if (!status.is_number_integer() || status.get<long long>() < 100 || status.get<long long>() > 999)
      res.wrong("status", "an integer from 100 to 999");
    http::response r;
    r.status = status.get<int>();
    r.headers = res.headers("headers");
    r.body = res.string("body");
    e.response = std::move(r);
    e.response_digest = digest(res, "response");
  } else {
    const auto err = f.object("error");
    const auto name = err.string("code");
    const auto code = client_errc_from_name(name);
    if (!code) fail(line, "unknown error code " + json(name).dump(-1, ' ', false, json::error_handler_t::replace));
    e.error = http::transport_error{http::make_error_code(*code), err.string("detail")};
  }
  return e;
}

cassette parse(std::string_view text) {
  if (text.size() > cassette_max_bytes) {
    const auto line = static_cast<std::size_t>(std::count(text.begin(), text.begin() + cassette_max_bytes, '\n')) + 1;
    fail(line, "the cassette is longer than its limit of " + std::to_string(cassette_max_bytes) + " bytes (" + std::to_string(text.size()) +
                   " bytes)");
  }
  if (text.empty()) fail(1, "empty cassette: no header");
  cassette out;
  std::size_t pos = 0;
  for (std::size_t line = 1; pos < text.size(); ++line) {
    const auto nl = text.find('\n', pos);
    const bool torn = nl == std::string_view::npos;
    const auto content = text.substr(pos, torn ? std::string_view::npos : nl - pos);
    pos = torn ? text.size() : nl + 1;
    if (line > cassette_max_exchanges + 1) fail(line, "more than " + std::to_string(cassette_max_exchanges) + " exchanges");
    if (!json_depth_within(content, cassette_max_depth)) fail(line, "nested deeper than " + std::to_string(cassette_max_depth) + " levels");
    auto doc = json::parse(content, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) {
      if (torn) fail(line, "the cassette is truncated: its last line is incomplete (no newline, not valid JSON)");
      fail(line, content.find_first_not_of(" \t\r") == std::string_view::npos ? "empty line" : "not valid JSON");
    }
    if (line == 1) out.header = read_header(doc);
    else
      out.exchanges.push_back(read_exchange(doc, line, out.exchanges.size()));
  }
  return out;
}

json header_json(const header_list& headers) {
  json out = json::array();
  for (const auto& [k, v] : headers) out.push_back(json::array({k, v}));
  return out;
}

// A description of a request for a mismatch message: method, URL, Content-Type, body start.
std::string describe(const std::string& method, const std::string& url, const std::optional<std::string>& content_type,
                     const std::string& body) {
  std::string out = method + " " + url;
  if (content_type) out += " [Content-Type: " + *content_type + "]";
  if (body.empty()) return out + " (no body)";
  constexpr std::size_t shown = 200;
  out += " (body " + json(body.substr(0, shown)).dump(-1, ' ', false, json::error_handler_t::replace);
  if (body.size() > shown) out += "... " + std::to_string(body.size()) + " bytes";
  return out + ")";
}

std::optional<std::string> content_type(const header_list& headers) {
  for (const auto& [k, v] : headers)
    if (iequals(k, "Content-Type")) return v;
  return std::nullopt;
}

// Equal as the cassette would hold the live value: recorded text went through UTF-8 repair.
bool same(const std::string& recorded, const std::string& live) { return recorded == live || recorded == as_recorded(live); }

// A recorded body against the live one: by SHA-256 where either is held in a digest.
bool same_body(const std::string& recorded, const std::optional<body_digest>& recorded_digest, const std::string& live,
               const std::optional<body_digest>& live_digest) {
  if (!recorded_digest && !live_digest) return same(recorded, live);
  const auto sha = [](const std::string& body, const std::optional<body_digest>& d) { return d ? d->sha256 : sha256_hex(body); };
  return sha(recorded, recorded_digest) == sha(live, live_digest);
}

json body_json(const std::string& body, const std::optional<body_digest>& digest, json object) {
  object["body"] = body;
  if (digest) object["body_digest"] = *digest;
  return object;
}

bool same(const std::optional<std::string>& recorded, const std::optional<std::string>& live) {
  if (!recorded || !live) return !recorded && !live;
  return same(*recorded, *live);
}

std::string system_error_text(int err) {
  char buf[256];
  // GNU strerror_r returns the message (possibly not in buf).
  return ::strerror_r(err, buf, sizeof buf);
}

}  // namespace

std::optional<std::string_view> client_errc_name(http::client_errc e) noexcept {
  for (const auto& [code, name] : errc_names)
    if (code == e) return name;
  return std::nullopt;
}

std::optional<http::client_errc> client_errc_from_name(std::string_view name) noexcept {
  for (const auto& [code, n] : errc_names)
    if (n == name) return code;
  return std::nullopt;
}

boost::system::result<http::response, http::transport_error> recorded_exchange::result() const {
  if (error) return *error;
  if (response) {
    auto body = whole_body(response->body, response_digest);
    if (!body)
      return http::transport_error{http::make_error_code(client_errc::replay_mismatch),
                                   "exchange #" + std::to_string(seq) + ": the cassette holds " +
                                       std::to_string(response_digest->kept_bytes) + " of the " + std::to_string(response_digest->bytes) +
                                       " bytes of its response body (cassette_body_limits), which cannot be replayed"};
    return http::response{response->status, response->headers, std::move(*body)};
  }
  return http::transport_error{http::make_error_code(client_errc::replay_mismatch), "the recorded exchange has no answer"};
}

exchange recorded_exchange::as_exchange() const {
  exchange e;
  e.method = request.method;
  e.url = request.url;
  e.request_headers = request.headers;
  e.request_body = request.body;
  e.request_body_digest = request_digest;
  if (auto whole = whole_body(request.body, request_digest)) {
    e.request_body = std::move(*whole);
    e.request_body_digest.reset();
  }
  if (response) {
    e.status = response->status;
    e.response_headers = response->headers;
    e.response_body = response->body;
    e.response_body_digest = response_digest;
    if (auto whole = whole_body(response->body, response_digest)) {
      e.response_body = std::move(*whole);
      e.response_body_digest.reset();
    }
  }
  if (error) e.error = error->message();
  e.duration_ms = duration_ms;
  return e;
}

std::string to_jsonl(const cassette_header& header) {
  if (header.recorded_source != result_source::emulated && header.recorded_source != result_source::live)
    throw std::invalid_argument("cassette: recorded_source must be emulated or live");
  json doc = {
      {"cassette", "neograde"},          {"version", cassette_version},       {"provider", header.provider},
      {"base_url", header.base_url},     {"run_id", header.run_id},           {"recorded_source", header.recorded_source},
      {"time_scale", header.time_scale}, {"recorded_at", header.recorded_at}, {"accounts", header.accounts},
  };
  return dump_line(doc);
}

std::string to_jsonl(const recorded_exchange& e) {
  json doc = {
      {"seq", e.seq},
      {"t_ms", e.t_ms},
      {"duration_ms", e.duration_ms},
      {"request", body_json(e.request.body, e.request_digest,
                            {{"method", e.request.method}, {"url", e.request.url}, {"headers", header_json(e.request.headers)}})},
  };
  if (e.read_after_previous_ms) doc["read_after_previous_ms"] = *e.read_after_previous_ms;
  if (e.error) {
    if (e.error->code.category() != http::client_category())
      throw std::invalid_argument("cassette: error code " + e.error->code.to_string() + " is not a client error");
    const auto name = client_errc_name(static_cast<client_errc>(e.error->code.value()));
    if (!name) throw std::invalid_argument("cassette: unknown client error " + e.error->code.to_string());
    doc["error"] = {{"code", *name}, {"detail", e.error->detail}};
  } else if (e.response) {
    doc["response"] =
        body_json(e.response->body, e.response_digest, {{"status", e.response->status}, {"headers", header_json(e.response->headers)}});
  } else {
    throw std::invalid_argument("cassette: exchange " + std::to_string(e.seq) + " has neither a response nor an error");
  }
  return dump_line(doc);
}

boost::system::result<cassette, std::string> parse_cassette(std::string_view text) noexcept {
  try {
    return parse(text);
  } catch (const bad_cassette& e) {
    return e.message;
  } catch (const std::exception& e) {
    return std::string("cannot read the cassette: ") + e.what();
  } catch (...) {
    return std::string("cannot read the cassette");
  }
}

boost::system::result<cassette, std::string> load_cassette(const std::filesystem::path& path) noexcept {
  try {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return path.string() + ": " + ec.message();
    if (size > cassette_max_bytes)
      return path.string() + ": the cassette is " + std::to_string(size) + " bytes, over its limit of " +
             std::to_string(cassette_max_bytes);
    std::ifstream in(path, std::ios::binary);
    if (!in) return path.string() + ": cannot open: " + system_error_text(errno);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) return path.string() + ": cannot read: " + system_error_text(errno);
    auto parsed = parse_cassette(text);
    if (!parsed) return path.string() + ": " + parsed.error();
    return parsed;
  } catch (const std::exception& e) {
    return path.string() + ": " + e.what();
  }
}

// --- cassette_writer ---

cassette_writer::cassette_writer(std::filesystem::path path, cassette_header header)
    : path_(std::move(path)), header_(std::move(header)), started_(std::chrono::steady_clock::now()) {
  if (header_.recorded_at.empty()) header_.recorded_at = utc_now_iso8601();
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd_ < 0) throw config_error("cannot create cassette " + path_.string() + ": " + system_error_text(errno));
  // An existing file keeps its mode through O_TRUNC; a cassette is readable by its owner only.
  if (::fchmod(fd_, 0600) != 0) {
    const int err = errno;
    ::close(fd_);
    throw config_error("cannot set the mode of cassette " + path_.string() + ": " + system_error_text(err));
  }
  try {
    const std::lock_guard lock(mu_);
    write(to_jsonl(header_));
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

cassette_writer::~cassette_writer() {
  if (fd_ >= 0) ::close(fd_);
}

void cassette_writer::write(const std::string& line) {
  std::size_t done = 0;
  while (done < line.size()) {
    const auto n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw config_error("cannot write cassette " + path_.string() + ": " + system_error_text(errno));
    }
    done += static_cast<std::size_t>(n);
  }
}

void cassette_writer::add(const exchange& kept, const std::optional<http::transport_error>& error) {
  recorded_exchange e;
  const double duration = std::isfinite(kept.duration_ms) ? std::clamp(kept.duration_ms, 0.0, max_ms) : 0.0;
  const double now_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_).count();
  e.t_ms = std::clamp(now_ms - duration, 0.0, max_ms);
  e.duration_ms = duration;
  e.request = {kept.method, kept.url, kept.request_headers, kept.request_body};
  e.request_digest =
      kept.request_body_digest ? kept.request_body_digest : keep_body(e.request.body, e.request.headers, cassette_body_limits);
  if (error) e.error = *error;
  else {
    e.response = http::response{kept.status, kept.response_headers, kept.response_body};
    e.response_digest =
        kept.response_body_digest ? kept.response_body_digest : keep_body(e.response->body, e.response->headers, cassette_body_limits);
  }
  const std::lock_guard lock(mu_);
  e.seq = next_seq_;
  if (e.seq > 0) e.read_after_previous_ms = read_after_last_ms_;
  write(to_jsonl(e));
  ++next_seq_;
  read_after_last_ms_.reset();
  slept_since_last_ = false;
}

void cassette_writer::clock_read() {
  const auto now_ms =
      std::clamp(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_).count(), 0.0, max_ms);
  const std::lock_guard lock(mu_);
  if (next_seq_ > 0 && !read_after_last_ms_ && !slept_since_last_) read_after_last_ms_ = now_ms;
}

void cassette_writer::clock_slept() {
  const std::lock_guard lock(mu_);
  slept_since_last_ = true;
}

std::size_t cassette_writer::size() const {
  const std::lock_guard lock(mu_);
  return next_seq_;
}

// --- replayer ---

replayer::replayer(cassette c) : cassette_(std::move(c)), start_(std::chrono::steady_clock::now()) {}

http::replayed replayer::answer(const exchange& request) {
  const std::lock_guard lock(mu_);
  auto mismatch = [&](std::string message) -> http::replayed {
    if (!failure_) failure_ = std::move(message);
    return {http::transport_error{http::make_error_code(client_errc::replay_mismatch), *failure_}, 0};
  };
  if (failure_) return mismatch({});
  const auto live_type = content_type(request.request_headers);
  const auto got = [&] { return describe(request.method, request.url, live_type, request.request_body); };
  if (next_ >= cassette_.exchanges.size())
    return mismatch("request #" + std::to_string(next_) + ": the cassette has no more exchanges (it recorded " +
                    std::to_string(cassette_.exchanges.size()) + "), got " + got());
  const auto& rec = cassette_.exchanges[next_];
  const auto recorded_type = content_type(rec.request.headers);
  if (!same(rec.request.method, request.method) || !same(rec.request.url, request.url) ||
      !same_body(rec.request.body, rec.request_digest, request.request_body, request.request_body_digest) ||
      !same(recorded_type, live_type))
    return mismatch("request #" + std::to_string(next_) + ": expected " +
                    describe(rec.request.method, rec.request.url, recorded_type, rec.request.body) + ", got " + got());
  ++next_;
  // Where the recording read its clock before the next exchange (a wait deciding whether its
  // deadline passed), the replay reads that time: a moment after the exchange ended, not its end.
  auto at = from_ms(rec.t_ms) + from_ms(rec.duration_ms);
  if (next_ < cassette_.exchanges.size())
    if (const auto read = cassette_.exchanges[next_].read_after_previous_ms; read && from_ms(*read) > at) at = from_ms(*read);
  elapsed_ = std::clamp(at, elapsed_, max_elapsed);
  return {rec.result(), rec.duration_ms};
}

std::optional<std::string> replayer::failure() const {
  const std::lock_guard lock(mu_);
  return failure_;
}

std::size_t replayer::used() const {
  const std::lock_guard lock(mu_);
  return next_;
}

std::size_t replayer::remaining() const {
  const std::lock_guard lock(mu_);
  return cassette_.exchanges.size() - next_;
}

replayer::time_point replayer::now() {
  const std::lock_guard lock(mu_);
  return start_ + std::chrono::duration_cast<time_point::duration>(elapsed_);
}

void replayer::sleep(std::chrono::milliseconds d) {
  const std::lock_guard lock(mu_);
  if (d <= std::chrono::milliseconds::zero()) return;
  // Saturates: a wait of milliseconds::max() must not wrap the clock round.
  const auto step = d >= std::chrono::duration_cast<std::chrono::milliseconds>(max_elapsed) ? max_elapsed : std::chrono::nanoseconds(d);
  elapsed_ = std::min(elapsed_ + step, max_elapsed);
}

// --- hooks ---

void record_into(http::client_options& options, std::shared_ptr<cassette_writer> writer) {
  options.tap = [previous = std::move(options.tap), writer = std::move(writer)](const exchange& kept,
                                                                                const std::optional<http::transport_error>& error) {
    if (previous) previous(kept, error);
    writer->add(kept, error);
  };
}

void replay_from(http::client_options& options, std::shared_ptr<replayer> from) {
  options.sleep = [from](std::chrono::milliseconds d) { from->sleep(d); };
  options.replay = [from = std::move(from)](const exchange& request) { return from->answer(request); };
}

}  // namespace neograde
