#pragma once
// An HTTP/1.1 client for talking to provider APIs: TCP and TLS, a deadline on every step,
// keep-alive reuse, a response size cap, no redirects, bounded retries on 429/503 honouring
// Retry-After, and a redacted transcript of every exchange. Synchronous (send()) or asynchronous
// (async_send(), many clients on one caller-owned event_loop); both run the same operation.
// Beast stays in http_client.cpp.

#include <neograde/core/finding.hpp>
#include <neograde/core/http_message.hpp>
#include <neograde/core/redact.hpp>

#include <boost/system/error_code.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace neograde::http {

enum class client_errc {
  bad_url = 1,
  unsupported_scheme,
  resolve_failed,
  connect_failed,
  tls_handshake_failed,
  write_failed,
  read_failed,
  timeout,
  body_too_large,
  header_too_large,
  bad_response,
  replay_mismatch,  // a replayed request differs from the one the cassette recorded
};

[[nodiscard]] const boost::system::error_category& client_category() noexcept;
[[nodiscard]] boost::system::error_code make_error_code(client_errc e) noexcept;

// What went wrong, with the lower-level detail (e.g. OpenSSL's reason) kept for the user.
struct transport_error {
  boost::system::error_code code;
  std::string detail;
  [[nodiscard]] std::string message() const;
};

[[noreturn]] void throw_exception_from_error(const transport_error& e, const boost::source_location& loc);

// What a replay answers in place of the network: the recorded response or transport error, and
// how long the recorded exchange took.
struct replayed {
  boost::system::result<response, transport_error> result;
  double duration_ms = 0;
};

struct client_options {
  std::chrono::milliseconds resolve_timeout{10'000};
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds handshake_timeout{10'000};
  std::chrono::milliseconds write_timeout{30'000};
  std::chrono::milliseconds read_timeout{60'000};
  std::size_t max_body_bytes = 16 * 1024 * 1024;
  std::size_t max_header_bytes = 64 * 1024;
  int max_retries = 3;  // on 429 and 503
  // Whether a 429 or 503 answer is worth retrying (default: every one).
  std::function<bool(const response&)> retryable;
  std::chrono::milliseconds max_retry_wait{30'000};  // cap on one Retry-After wait
  std::string extra_ca_file;                         // trusted in addition to the system store
  std::string user_agent = "neograde/0.1";
  std::size_t transcript_limit = 10'000;  // exchanges kept, oldest dropped first
  // What each kept exchange (transcript, last_exchange(), the evidence made of them) keeps of its
  // bodies: text cut past 16 KiB, binary shown by its head, with length and SHA-256 (core/evidence.hpp).
  // The response send() returns is whole.
  body_limits evidence_bodies;
  // False: no exchange is built or kept (transcript() and last_exchange() stay empty, unless a
  // tap or replay needs one); what a load driver sets to measure the wire and not the redaction.
  bool keep_exchanges = true;
  // Replaces the wait between retries (tests; called in place, the retry follows at once);
  // default: a timer on the client's event loop.
  std::function<void(std::chrono::milliseconds)> sleep;
  // Called before every request is sent, retries included: request budgets and politeness
  // limits hook in here (it may sleep; on a shared loop it holds up the loop meanwhile).
  std::function<void()> before_attempt;
  // Record: sees every exchange redacted as the transcript keeps it but with its bodies whole,
  // retries included, with its transport error (code, and detail redacted like the exchange) if
  // there was one.
  std::function<void(const exchange&, const std::optional<transport_error>&)> tap;
  // Replay: stands in for the network, which send() then never touches. Given the request as it
  // would be kept (redacted; method, url, request_headers and request_body filled, the headers
  // exactly as a real attempt would send them), returns the recorded answer and its duration,
  // which the transcript reports instead of a measured one. Retries on 429/503 happen as with
  // the network, their waits going through `sleep`.
  std::function<replayed(const exchange& request)> replay;
};

using send_result = boost::system::result<response, transport_error>;

// An event loop that clients share: their asynchronous operations, timers included, progress on
// the thread that calls run(), which also runs every completion. Owned by the caller; it must
// outlive the clients made on it. Not thread-safe: one thread runs it and calls its clients.
class event_loop {
 public:
  event_loop();
  ~event_loop();
  event_loop(const event_loop&) = delete;
  event_loop& operator=(const event_loop&) = delete;

  // Runs until nothing is left to do (no operation in flight, no timer, nothing posted) or stop().
  void run();
  // Makes run() return as soon as it can; what is in flight stays pending for the next run().
  void stop();
  // Calls `f` on the loop after `delay` (zero: at the next turn).
  void after(std::chrono::milliseconds delay, std::function<void()> f);

 private:
  friend class client;
  struct impl;
  std::unique_ptr<impl> impl_;
};

class client {
 public:
  // A client with a private event loop, for send().
  explicit client(client_options options = {}, redactor redact = {});
  // A client on `loop`, for async_send() (send() works too, outside the loop's handlers).
  client(event_loop& loop, client_options options = {}, redactor redact = {});
  ~client();
  client(const client&) = delete;
  client& operator=(const client&) = delete;

  // Sends one request (with retries on 429/503) and returns the final response: the
  // asynchronous operation, run to its end. On a shared loop, runs that loop meanwhile (other
  // clients' operations progress too); calling it from one of the loop's handlers throws
  // std::logic_error.
  [[nodiscard]] send_result send(const request& req);

  using completion = std::function<void(send_result)>;
  // Starts sending `req` and returns; `done` is called on the loop with what send() would
  // return. One operation at a time per client (a second one throws std::logic_error; `done`
  // may start the next). The client must outlive its operation. An exception thrown by a hook
  // (before_attempt, tap, replay) or by `done` comes out of the loop's run().
  void async_send(request req, completion done);
  [[nodiscard]] bool busy() const;

  // The redacted exchange of the last attempt made by send().
  [[nodiscard]] const exchange& last_exchange() const;
  [[nodiscard]] const std::deque<exchange>& transcript() const;
  [[nodiscard]] const client_options& options() const;
  [[nodiscard]] const redactor& redaction() const;
  // Adds a secret learned later (an OAuth2 access token) to what is redacted.
  void add_secret(std::string secret);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// Parses one complete HTTP/1.1 response from bytes, with the client's size limits and the same
// error mapping as a response read from a connection (used by fuzzing and replay).
[[nodiscard]] boost::system::result<response, transport_error> parse_response(std::string_view bytes, const client_options& options = {});

// Seconds to wait from a Retry-After value (delay-seconds or an HTTP-date); nullopt if invalid.
[[nodiscard]] std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value);

}  // namespace neograde::http

template <>
struct boost::system::is_error_code_enum<neograde::http::client_errc> : std::true_type {};
