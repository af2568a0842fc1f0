#pragma once
// Cassettes: a run's HTTP exchanges recorded to a file, and replayed from it with no network.
//
// The format is JSON Lines (UTF-8, one object a line, keys in sorted order so that files are
// stable). Line 1 is the header:
//   {"accounts":1,"base_url":"https://...","cassette":"neograde","provider":"lambda","recorded_at":"2026-11-30T00:00:00Z",
//    "recorded_source":"live","run_id":"0a1b2c3d","time_scale":1.0,"version":1}
// then one line per exchange, in the order the exchanges ended:
//   {"duration_ms":3.1,"request":{"body":"","headers":[["Accept","application/json"]],"method":"GET","url":"..."},
//    "response":{"body":"...","headers":[["Content-Type","application/json"]],"status":200},"seq":0,"t_ms":12.5}
// with "error":{"code":"timeout","detail":"..."} in place of "response" when no response came.
// A body a cassette does not hold as plain text has a "body_digest" beside it (core/evidence.hpp,
// with cassette_body_limits): binary (compressed, NULs, not UTF-8) is held in base64 in its
// "head_base64", whole up to 1 MiB; text past 4 MiB, and binary past 1 MiB, is cut, and an
// exchange with a cut response body cannot be replayed (the replay says so).
//
// A cassette holds only what the client keeps: exchanges already redacted (secret headers,
// registered secrets, secret JSON members), so it is as safe to share as a transcript. Replayed
// responses are those redacted ones too.

#include <neograde/clients/http.hpp>
#include <neograde/core/clock.hpp>
#include <neograde/core/finding.hpp>

#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neograde {

inline constexpr int cassette_version = 1;
inline constexpr std::size_t cassette_max_bytes = 64 * 1024 * 1024;
inline constexpr std::size_t cassette_max_exchanges = 1'000'000;
inline constexpr std::size_t cassette_max_depth = 64;  // JSON nesting of one line
// What a cassette holds of each body: more than evidence does (so as to replay the answers), still
// bounded (a provider that answers 4 MiB to every request must not make a recording grow by
// 4 MiB, escaped, a request). Text is held whole up to 4 MiB: real offer lists fit.
inline constexpr body_limits cassette_body_limits{.text_bytes = 4 * 1024 * 1024, .binary_head_bytes = 1024 * 1024};

struct cassette_header {
  std::string provider;
  std::string base_url;
  std::string run_id;
  result_source recorded_source = result_source::unknown;  // emulated or live
  double time_scale = 1.0;
  std::string recorded_at;  // ISO 8601 UTC; the writer fills it when empty
  int accounts = 1;         // 2 when a second account's requests are in it (--second-api-key)
};

struct recorded_exchange {
  std::size_t seq = 0;
  double t_ms = 0;  // when the request started, in ms since the recording began
  double duration_ms = 0;
  // The run's first clock read after the exchange before this one ended, in the same time base:
  // where a wait decided (a deadline passed, or not) between the two exchanges, so that a replay
  // reads the same time there and decides the same way.
  std::optional<double> read_after_previous_ms;
  http::request request;                   // as kept: redacted, headers as sent
  std::optional<http::response> response;  // exactly one of response and error
  std::optional<http::transport_error> error;
  // Set when the body beside it is not the whole body as plain text (cassette_body_limits).
  std::optional<body_digest> request_digest;
  std::optional<body_digest> response_digest;

  // The recorded answer: the response (its body whole again), or the transport error rebuilt from
  // its code and detail; replay_mismatch when the cassette holds only part of the response body.
  [[nodiscard]] boost::system::result<http::response, http::transport_error> result() const;
  // As the client's transcript kept it.
  [[nodiscard]] exchange as_exchange() const;
};

struct cassette {
  cassette_header header;
  std::vector<recorded_exchange> exchanges;
};

// A stable name for each client_errc value ("timeout", "connect_failed", ...), and back.
[[nodiscard]] std::optional<std::string_view> client_errc_name(http::client_errc e) noexcept;
[[nodiscard]] std::optional<http::client_errc> client_errc_from_name(std::string_view name) noexcept;

// One cassette line, newline included. Throws std::invalid_argument for an error whose code is
// not a client_errc, or an exchange with neither a response nor an error.
[[nodiscard]] std::string to_jsonl(const cassette_header& header);
[[nodiscard]] std::string to_jsonl(const recorded_exchange& e);

// Reads a cassette strictly: every field present with its type, version 1, seq counting up from
// 0, at most cassette_max_bytes of text, cassette_max_exchanges exchanges and cassette_max_depth
// levels of nesting a line (bounded before the recursive JSON parser sees the line). A last
// line without its newline is accepted only when it is complete JSON; otherwise the cassette is
// reported truncated. Never throws; the error names the line: `line 7: missing "request"`.
// (The error type is a plain string: check the result and use * or ->, not value().)
[[nodiscard]] boost::system::result<cassette, std::string> parse_cassette(std::string_view text) noexcept;
// The same from a file; errors start with the path.
[[nodiscard]] boost::system::result<cassette, std::string> load_cassette(const std::filesystem::path& path) noexcept;

// Writes a cassette as a run goes: the header when made, then one line per exchange, each
// written whole and at once (a crash leaves every earlier line intact). Shared by the clients of
// one run (two accounts), hence thread-safe. It receives kept exchanges only, which the client
// has already redacted; it adds no redaction of its own. Any write failure throws
// std::runtime_error naming the path and the system's reason.
class cassette_writer {
 public:
  // Creates or truncates `path` (mode 0600) and writes the header line.
  cassette_writer(std::filesystem::path path, cassette_header header);
  ~cassette_writer();
  cassette_writer(const cassette_writer&) = delete;
  cassette_writer& operator=(const cassette_writer&) = delete;

  // Appends one exchange, its bodies bounded by cassette_body_limits; t_ms is taken now (steady
  // clock, since construction) less its duration.
  void add(const exchange& kept, const std::optional<http::transport_error>& error);

  // The run read its clock, or slept on it: the first read after an exchange, before any sleep, is
  // written with the next exchange (recorded_exchange::read_after_previous_ms). A read after a
  // sleep is not: the replay's own sleep moves its clock there.
  void clock_read();
  void clock_slept();

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] const cassette_header& header() const { return header_; }
  [[nodiscard]] std::size_t size() const;  // exchanges written

 private:
  void write(const std::string& line);  // with mu_ held
  std::filesystem::path path_;
  cassette_header header_;
  std::chrono::steady_clock::time_point started_;
  int fd_ = -1;
  mutable std::mutex mu_;
  std::size_t next_seq_ = 0;
  std::optional<double> read_after_last_ms_;  // the first clock read since the last exchange, before a sleep
  bool slept_since_last_ = false;
};

// The run's clock while a run records: `inner`'s time, each read noted in the cassette.
class recording_clock final : public run_clock {
 public:
  recording_clock(run_clock& inner, std::shared_ptr<cassette_writer> writer) : inner_(inner), writer_(std::move(writer)) {}
  [[nodiscard]] time_point now() override {
    writer_->clock_read();
    return inner_.now();
  }
  void sleep(std::chrono::milliseconds d) override {
    writer_->clock_slept();
    inner_.sleep(d);
  }

 private:
  run_clock& inner_;
  std::shared_ptr<cassette_writer> writer_;
};

// Answers requests from a cassette, strictly in order, and is the run's clock while it does.
//
// answer() compares the next recorded exchange's method, URL and body exactly (a body held in a
// digest by its SHA-256), and the requests'
// Content-Type values (header name case-insensitive; absent on one side only is a difference).
// Other headers are not compared: they carry redacted credentials and the User-Agent. The first
// difference, or a request after the last exchange, fails the replay: that request and every
// later one get client_errc::replay_mismatch with the same message, and failure() keeps it.
//
// As a run_clock it keeps virtual time: it starts at the real now() of construction; sleep()
// advances it without sleeping; answer() moves it to start + t_ms + duration_ms of the exchange
// it replayed, so that code measuring with this clock sees the recorded timings. It never moves
// back (readers of a steady clock may subtract): an exchange that ended before the virtual now
// (two clients' exchanges interleaved) leaves it where it is.
//
// Thread-safe; two clients may share one through std::shared_ptr, provided they send their
// requests in the recorded order (matching is strictly sequential).
class replayer final : public run_clock {
 public:
  explicit replayer(cassette c);

  [[nodiscard]] http::replayed answer(const exchange& request);

  [[nodiscard]] std::optional<std::string> failure() const;
  [[nodiscard]] std::size_t used() const;
  [[nodiscard]] std::size_t remaining() const;
  [[nodiscard]] const cassette& recorded() const { return cassette_; }

  [[nodiscard]] time_point now() override;
  void sleep(std::chrono::milliseconds d) override;
  [[nodiscard]] time_point start() const { return start_; }  // virtual time zero

 private:
  const cassette cassette_;
  const time_point start_;
  mutable std::mutex mu_;
  std::size_t next_ = 0;
  std::chrono::nanoseconds elapsed_{0};
  std::optional<std::string> failure_;
};

// Sets options.tap to append to `writer` (after any tap already set).
void record_into(http::client_options& options, std::shared_ptr<cassette_writer> writer);
// Sets options.replay to `from`'s answers and options.sleep to its virtual sleep.
void replay_from(http::client_options& options, std::shared_ptr<replayer> from);

}  // namespace neograde
