#pragma once
// An HTTP/1.1 client for talking to provider APIs: TCP and TLS, a deadline on every step,
// keep-alive reuse, a response size cap, no redirects, bounded retries on 429/503 honouring
// Retry-After, and a redacted transcript of every exchange. Beast stays in http_client.cpp.

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
  // Replaces the sleep between retries (tests); default sleeps the calling thread.
  std::function<void(std::chrono::milliseconds)> sleep;
  // Called before every request is sent, retries included: request budgets and politeness
  // limits hook in here (it may sleep).
  std::function<void()> before_attempt;
  // Record: sees every exchange as kept (redacted, as in the transcript), retries included, with
  // its transport error (code, and detail redacted like the exchange) if there was one.
  std::function<void(const exchange&, const std::optional<transport_error>&)> tap;
  // Replay: stands in for the network, which send() then never touches. Given the request as it
  // would be kept (redacted; method, url, request_headers and request_body filled, the headers
  // exactly as a real attempt would send them), returns the recorded answer and its duration,
  // which the transcript reports instead of a measured one. Retries on 429/503 happen as with
  // the network, their waits going through `sleep`.
  std::function<replayed(const exchange& request)> replay;
};

class client {
 public:
  explicit client(client_options options = {}, redactor redact = {});
  ~client();
  client(const client&) = delete;
  client& operator=(const client&) = delete;

  // Sends one request (with retries on 429/503) and returns the final response.
  [[nodiscard]] boost::system::result<response, transport_error> send(const request& req);

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
