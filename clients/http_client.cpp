#include <neograde/clients/http.hpp>

#include <neograde/clients/url.hpp>
#include <neograde/core/clock.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/throw_exception.hpp>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <stdexcept>

namespace neograde::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

class client_category_impl : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "neograde.http"; }
  std::string message(int ev) const override {
    switch (static_cast<client_errc>(ev)) {
      case client_errc::bad_url: return "malformed URL";
      case client_errc::unsupported_scheme: return "unsupported URL scheme (use http or https)";
      case client_errc::resolve_failed: return "host name could not be resolved";
      case client_errc::connect_failed: return "connection failed";
      case client_errc::tls_handshake_failed: return "TLS handshake failed";
      case client_errc::write_failed: return "sending the request failed";
      case client_errc::read_failed: return "reading the response failed";
      case client_errc::timeout: return "timed out";
      case client_errc::body_too_large: return "response body exceeds the size limit";
      case client_errc::header_too_large: return "response header exceeds the size limit";
      case client_errc::bad_response: return "malformed HTTP response";
      case client_errc::replay_mismatch: return "the request differs from the cassette";
    }
    return "unknown client error";
  }
};

constexpr auto nothrow = asio::as_tuple(asio::use_awaitable);

boost::system::result<url_parts, transport_error> parse_target(const std::string& url) {
  if (url.starts_with("http://") || url.starts_with("https://")) {
    if (auto u = parse_url(url)) return *u;
    return transport_error{make_error_code(client_errc::bad_url), url};
  }
  auto scheme_end = url.find("://");
  if (scheme_end != std::string::npos && scheme_end > 0)
    return transport_error{make_error_code(client_errc::unsupported_scheme), url.substr(0, scheme_end)};
  return transport_error{make_error_code(client_errc::bad_url), url};
}

std::string connection_key(const url_parts& t) { return (t.tls ? "https://" : "http://") + t.host + ":" + t.port; }

bool is_ip_literal(const std::string& host) {
  error_code ec;
  (void)asio::ip::make_address(host, ec);
  return !ec;
}

transport_error fail(client_errc e, const error_code& cause) {
  if (cause == beast::error::timeout)
    return {make_error_code(client_errc::timeout), std::string(client_category().message(static_cast<int>(e)))};
  return {make_error_code(e), cause.message()};
}

using parser_type = bhttp::response_parser<bhttp::string_body>;

void limit(parser_type& parser, const client_options& opts) {
  parser.body_limit(opts.max_body_bytes);
  parser.header_limit(static_cast<std::uint32_t>(opts.max_header_bytes));
}

// The parse errors that name a property of the response rather than of the connection.
std::optional<transport_error> parse_failure(const error_code& ec, const client_options& opts) {
  if (ec == bhttp::error::body_limit)
    return transport_error{make_error_code(client_errc::body_too_large), "limit is " + std::to_string(opts.max_body_bytes) + " bytes"};
  if (ec == bhttp::error::header_limit)
    return transport_error{make_error_code(client_errc::header_too_large), "limit is " + std::to_string(opts.max_header_bytes) + " bytes"};
  if (ec.category() == bhttp::make_error_code(bhttp::error::end_of_stream).category() && ec != bhttp::error::end_of_stream &&
      ec != bhttp::error::partial_message)
    return transport_error{make_error_code(client_errc::bad_response), ec.message()};
  return std::nullopt;
}

// Beast reads any three digits as a status; below 100 there is no such status (RFC 9110 §15).
std::optional<transport_error> bad_status(const bhttp::response<bhttp::string_body>& res) {
  if (res.result_int() >= 100) return std::nullopt;
  return transport_error{make_error_code(client_errc::bad_response),
                         "status code " + std::to_string(res.result_int()) + " is not a status"};
}

response to_response(bhttp::response<bhttp::string_body>& res) {
  response out;
  out.status = static_cast<int>(res.result_int());
  for (const auto& field : res) out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  out.body = std::move(res.body());
  return out;
}

// The request as it goes on the wire. A replay builds it too, so that the headers it matches and
// keeps are exactly those a real attempt sends.
bhttp::request<bhttp::string_body> build_request(const request& r, const url_parts& t, const client_options& opts) {
  bhttp::request<bhttp::string_body> req;
  req.method_string(r.method);
  req.target(t.target);
  req.version(11);
  const bool default_port = t.port == (t.tls ? "443" : "80");
  std::string host_header = t.host.find(':') != std::string::npos ? "[" + t.host + "]" : t.host;
  req.set(bhttp::field::host, default_port ? host_header : host_header + ":" + t.port);
  req.set(bhttp::field::user_agent, opts.user_agent);
  req.set(bhttp::field::accept, "application/json");
  for (const auto& [k, v] : r.headers) req.set(k, v);
  if (!r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH") {
    req.body() = r.body;
    req.prepare_payload();
  }
  return req;
}

// The request headers an exchange keeps: every field of the request as sent, in order.
header_list sent_headers(const bhttp::request<bhttp::string_body>& req) {
  header_list out;
  for (const auto& field : req) out.emplace_back(std::string(field.name_string()), std::string(field.value()));
  return out;
}

}  // namespace

const boost::system::error_category& client_category() noexcept {
  static const client_category_impl cat;
  return cat;
}

error_code make_error_code(client_errc e) noexcept { return {static_cast<int>(e), client_category()}; }

std::string transport_error::message() const {
  if (detail.empty() || detail == code.message()) return code.message();
  return code.message() + ": " + detail;
}

void throw_exception_from_error(const transport_error& e, const boost::source_location& loc) {
  boost::throw_exception(std::runtime_error(e.message()), loc);
}

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value) {
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    if (value.size() > 9) return std::chrono::milliseconds::max();
    return std::chrono::seconds(std::stol(std::string(value)));
  }
  // RFC 9110 §5.6.7 IMF-fixdate, e.g. "Sun, 06 Nov 1994 08:49:37 GMT".
  auto delta = seconds_until_utc(std::string(value), "%a, %d %b %Y %H:%M:%S GMT");
  if (!delta) return std::nullopt;
  if (*delta > 999'999'999) return std::chrono::milliseconds::max();
  return std::chrono::seconds(std::max(0LL, *delta));
}

struct event_loop::impl {
  asio::io_context ioc{1};  // one thread runs it
};

event_loop::event_loop() : impl_(std::make_unique<impl>()) {}
event_loop::~event_loop() = default;

void event_loop::run() {
  impl_->ioc.restart();
  impl_->ioc.run();
}

void event_loop::stop() { impl_->ioc.stop(); }

void event_loop::after(std::chrono::milliseconds delay, std::function<void()> f) {
  auto timer = std::make_shared<asio::steady_timer>(impl_->ioc, delay);
  timer->async_wait([timer, f = std::move(f)](error_code ec) {
    if (!ec) f();
  });
}

struct client::impl {
  client_options opts;
  redactor redact;
  std::unique_ptr<event_loop> own;  // the private loop, for a client made without one
  asio::io_context& ioc;
  // The TLS context, made at the first https connection: loading the CA store costs
  // milliseconds that a client of plain http (an emulator, a load driver's 32) never needs.
  std::optional<ssl::context> ssl_ctx;
  std::string ssl_ctx_error;

  // The kept-alive connection, if any.
  std::string conn_key;
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
  beast::flat_buffer buffer;

  std::deque<exchange> transcript;
  exchange last;
  bool busy = false;       // an operation is in flight
  std::string target_url;  // the last URL sent to, parsed
  url_parts target;

  impl(client_options o, redactor r, std::unique_ptr<event_loop> private_loop, asio::io_context& context)
      : opts(std::move(o)), redact(std::move(r)), own(std::move(private_loop)), ioc(context) {}

  ssl::context& tls() {
    if (ssl_ctx) return *ssl_ctx;
    auto& ctx = ssl_ctx.emplace(ssl::context::tls_client);
    ctx.set_verify_mode(ssl::verify_peer);
    error_code ec;
    ctx.set_default_verify_paths(ec);
    if (!opts.extra_ca_file.empty()) {
      ctx.load_verify_file(opts.extra_ca_file, ec);
      if (ec) ssl_ctx_error = "cannot load CA file " + opts.extra_ca_file + ": " + ec.message();
    }
    SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_2_VERSION);
    // Security level 2 (112 bits: RSA and DH keys of 2048 bits and more, no SHA-1 signatures)
    // whatever OpenSSL's build default is: Debian builds with 2, upstream with 1, which accepts
    // the 1024-bit RSA keys NIST SP 800-131A has disallowed since 2013.
    SSL_CTX_set_security_level(ctx.native_handle(), 2);
    return ctx;
  }

  ~impl() { close(); }

  void close() {
    error_code ec;
    if (secure) beast::get_lowest_layer(*secure).socket().close(ec);
    if (plain) plain->socket().close(ec);
    secure.reset();
    plain.reset();
    conn_key.clear();
    buffer.clear();
  }

  beast::tcp_stream& lowest() { return secure ? beast::get_lowest_layer(*secure) : *plain; }

  asio::awaitable<std::optional<transport_error>> connect(const url_parts& t) {
    tcp::resolver resolver(ioc);
    asio::steady_timer guard(ioc);
    bool timed_out = false;
    guard.expires_after(opts.resolve_timeout);
    guard.async_wait([&](error_code ec) {
      if (!ec) {
        timed_out = true;
        resolver.cancel();
      }
    });
    auto [rec, endpoints] = co_await resolver.async_resolve(t.host, t.port, nothrow);
    guard.cancel();
    if (timed_out) co_return transport_error{make_error_code(client_errc::timeout), "resolving " + t.host};
    if (rec) co_return transport_error{make_error_code(client_errc::resolve_failed), t.host + ": " + rec.message()};

    if (t.tls) {
      auto& ctx = tls();
      if (!ssl_ctx_error.empty()) co_return transport_error{make_error_code(client_errc::tls_handshake_failed), ssl_ctx_error};
      secure.emplace(ioc, ctx);
      // SNI: servers hosting several names pick the certificate by it (RFC 6066 §3);
      // it is not sent for IP literals.
      if (!is_ip_literal(t.host) && !SSL_set_tlsext_host_name(secure->native_handle(), t.host.c_str()))
        co_return transport_error{make_error_code(client_errc::tls_handshake_failed), "cannot set SNI"};
      secure->set_verify_callback([check = ssl::host_name_verification(t.host)](bool preverified, ssl::verify_context& ctx) {
        if (check(preverified, ctx)) return true;
        // A name that does not match would be reported as an "unspecified" failure: name it.
        if (preverified) X509_STORE_CTX_set_error(ctx.native_handle(), X509_V_ERR_HOSTNAME_MISMATCH);
        return false;
      });
    } else {
      plain.emplace(ioc);
    }
    lowest().expires_after(opts.connect_timeout);
    auto [cec, ep] = co_await lowest().async_connect(endpoints, nothrow);
    if (cec) {
      close();
      co_return fail(client_errc::connect_failed, cec);
    }
    if (secure) {
      lowest().expires_after(opts.handshake_timeout);
      auto [hec] = co_await secure->async_handshake(ssl::stream_base::client, nothrow);
      if (hec) {
        auto err = fail(client_errc::tls_handshake_failed, hec);
        // OpenSSL's reason is only "certificate verify failed"; the verification result says
        // which check failed ("certificate has expired", "CA certificate key too weak").
        const long v = SSL_get_verify_result(secure->native_handle());
        if (v != X509_V_OK && hec != beast::error::timeout) err.detail += std::string(": ") + X509_verify_cert_error_string(v);
        close();
        co_return err;
      }
    }
    conn_key = connection_key(t);
    co_return std::nullopt;
  }

  template <class Stream>
  asio::awaitable<std::optional<transport_error>> round_trip(Stream& stream, bhttp::request<bhttp::string_body>& req, response& out,
                                                             bool& nothing_read) {
    lowest().expires_after(opts.write_timeout);
    auto [wec, wn] = co_await bhttp::async_write(stream, req, nothrow);
    if (wec) {
      nothing_read = true;
      co_return fail(client_errc::write_failed, wec);
    }
    // One deadline for the whole response, interim ones included.
    lowest().expires_after(opts.read_timeout);
    for (bool first = true;; first = false) {
      bhttp::response_parser<bhttp::string_body> parser;
      limit(parser, opts);
      // A response to HEAD has no content, whatever its Content-Length or Transfer-Encoding say
      // (RFC 9110 §9.3.2, §8.6; RFC 9112 §6.3 rule 1); most servers send the length a GET would
      // have. Beast cannot know the method: without skip() it would wait for that many bytes.
      // 1xx, 204 and 304 are read without content by Beast itself, whatever their headers say.
      if (req.method() == bhttp::verb::head) parser.skip(true);
      auto [rec, rn] = co_await bhttp::async_read(stream, buffer, parser, nothrow);
      if (rec) {
        nothing_read = first && !parser.got_some() &&
                       (rec == bhttp::error::end_of_stream || rec == asio::error::connection_reset || rec == asio::error::eof);
        if (auto known = parse_failure(rec, opts)) co_return known;
        co_return fail(client_errc::read_failed, rec);
      }
      auto& res = parser.get();
      if (auto bad = bad_status(res)) co_return bad;
      // An interim response (100 Continue, 103 Early Hints) comes before the final one, on the
      // same connection (RFC 9110 §15.2): skip it and read on. 101 is final: the connection now
      // speaks another protocol, so it is returned and not reused.
      if (res.result_int() < 200 && res.result() != bhttp::status::switching_protocols) continue;
      out = to_response(res);
      // Bytes beyond the end of the response were sent when nothing was asked (a body after a
      // HEAD answer, more body than Content-Length said): the next response on this connection
      // would start with them, so the connection is not reused.
      if (!res.keep_alive() || res.result() == bhttp::status::switching_protocols || buffer.size() != 0) close();
      co_return std::nullopt;
    }
  }

  asio::awaitable<std::optional<transport_error>> perform(const url_parts& t, bhttp::request<bhttp::string_body>& req, response& out) {
    // A kept-alive connection may have been closed by the server meanwhile; if nothing at all
    // came back on a reused connection, reconnect once and resend.
    for (int attempt = 0; attempt < 2; ++attempt) {
      const bool reused = conn_key == connection_key(t) && (plain || secure);
      if (!reused) {
        close();
        if (auto err = co_await connect(t)) co_return err;
      }
      bool nothing_read = false;
      out = {};
      std::optional<transport_error> err;
      if (secure) err = co_await round_trip(*secure, req, out, nothing_read);
      else
        err = co_await round_trip(*plain, req, out, nothing_read);
      if (!err) co_return std::nullopt;
      close();
      if (!(reused && nothing_read)) co_return err;
    }
    co_return transport_error{make_error_code(client_errc::read_failed), "connection closed"};
  }

  // One attempt over the network, timed.
  asio::awaitable<send_result> once(const request& r, exchange& ex, bool keeping) {
    const auto start = std::chrono::steady_clock::now();
    // A client sends to one origin, mostly to a few URLs: the last one parsed is kept.
    if (r.url != target_url) {
      auto t = parse_target(r.url);
      if (!t) co_return t.error();
      target = std::move(*t);
      target_url = r.url;
    }
    const url_parts t = target;
    auto req = build_request(r, t, opts);
    if (keeping) ex.request_headers = sent_headers(req);
    response out;
    std::optional<transport_error> err;
    try {
      err = co_await perform(t, req, out);
    } catch (const std::exception& x) {
      err = transport_error{make_error_code(client_errc::read_failed), x.what()};
    }
    ex.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (err) co_return std::move(*err);
    co_return std::move(out);
  }

  // One attempt answered by opts.replay: the request is built and kept as once() would (a URL
  // that does not parse keeps no headers, as with the network), and nothing is sent.
  send_result replay_once(const request& r, exchange& ex) {
    if (auto t = parse_target(r.url)) ex.request_headers = sent_headers(build_request(r, *t, opts));
    auto answer = opts.replay(redact.apply(ex));
    ex.duration_ms = answer.duration_ms;
    return std::move(answer.result);
  }

  // Keeps one attempt's exchange, redacted: the last one, the transcript and the tap.
  void keep(exchange ex, const send_result& res) {
    if (res) {
      ex.status = res->status;
      ex.response_headers = res->headers;
      ex.response_body = res->body;
    } else {
      ex.error = res.error().message();
    }
    auto kept = redact.apply(std::move(ex));
    // The tap sees the bodies whole (a cassette bounds what it writes by its own limits, so as to
    // replay them); what is kept here is bounded, so that a provider's answers cannot make the
    // transcript, or the evidence and files made of it, grow without bound.
    if (opts.tap) {
      std::optional<transport_error> kept_error;
      if (!res) kept_error = transport_error{res.error().code, redact.text(res.error().detail)};
      opts.tap(kept, kept_error);
    }
    if (opts.keep_exchanges) {
      bound_bodies(kept, opts.evidence_bodies);
      if (opts.transcript_limit > 0) transcript.push_back(kept);
      while (transcript.size() > opts.transcript_limit) transcript.pop_front();
      last = std::move(kept);
    }
  }

  // What send() and async_send() run: attempts, with retries on 429/503 after a wait on the loop.
  asio::awaitable<send_result> send_op(request req) {
    for (int attempt = 0;; ++attempt) {
      const bool keeping = opts.keep_exchanges || opts.tap || opts.replay;
      exchange ex;
      if (keeping) {
        ex.method = req.method;
        ex.url = req.url;
        ex.request_body = req.body;
      }
      if (opts.before_attempt) opts.before_attempt();
      send_result res;
      if (opts.replay) res = replay_once(req, ex);
      else
        res = co_await once(req, ex, keeping);
      if (keeping) keep(std::move(ex), res);

      if (!res || (res->status != 429 && res->status != 503) || attempt >= opts.max_retries) co_return res;
      if (opts.retryable && !opts.retryable(*res)) co_return res;
      // RFC 9110 §10.2.3: Retry-After says how long to wait; without it, back off exponentially.
      auto wait = parse_retry_after(res->header("Retry-After")).value_or(std::chrono::milliseconds(500LL << attempt));
      if (wait > opts.max_retry_wait) co_return res;  // the provider asks for longer than we wait
      if (opts.sleep) {
        opts.sleep(wait);
      } else {
        asio::steady_timer timer(ioc, wait);
        (void)co_await timer.async_wait(nothrow);
      }
    }
  }

  void start(request req, std::function<void(std::exception_ptr, send_result)> done) {
    if (busy) throw std::logic_error("neograde::http::client: an operation is already in flight");
    busy = true;
    asio::co_spawn(ioc, send_op(std::move(req)), [this, done = std::move(done)](std::exception_ptr e, send_result r) {
      busy = false;
      done(e, std::move(r));
    });
  }
};

client::client(client_options options, redactor redact) {
  auto loop = std::make_unique<event_loop>();
  auto& ioc = loop->impl_->ioc;
  impl_ = std::make_unique<impl>(std::move(options), std::move(redact), std::move(loop), ioc);
}

client::client(event_loop& loop, client_options options, redactor redact)
    : impl_(std::make_unique<impl>(std::move(options), std::move(redact), nullptr, loop.impl_->ioc)) {}

client::~client() = default;

const exchange& client::last_exchange() const { return impl_->last; }
const std::deque<exchange>& client::transcript() const { return impl_->transcript; }
const client_options& client::options() const { return impl_->opts; }
const redactor& client::redaction() const { return impl_->redact; }
void client::add_secret(std::string secret) { impl_->redact.add_secret(std::move(secret)); }
bool client::busy() const { return impl_->busy; }

send_result client::send(const request& req) {
  auto& d = *impl_;
  if (d.ioc.get_executor().running_in_this_thread())
    throw std::logic_error("neograde::http::client::send() called from its event loop: use async_send()");
  std::optional<send_result> result;
  std::exception_ptr failure;
  d.start(req, [&](std::exception_ptr e, send_result r) {
    failure = e;
    result.emplace(std::move(r));
  });
  if (d.own) {
    d.ioc.restart();
    d.ioc.run();
  } else {
    while (!result) {
      if (d.ioc.stopped()) d.ioc.restart();
      d.ioc.run_one();
    }
  }
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

void client::async_send(request req, completion done) {
  impl_->start(std::move(req), [done = std::move(done)](std::exception_ptr e, send_result r) {
    if (e) std::rethrow_exception(e);
    done(std::move(r));
  });
}

boost::system::result<response, transport_error> parse_response(std::string_view bytes, const client_options& options) {
  std::size_t used = 0;
  for (;;) {
    parser_type parser;
    limit(parser, options);
    parser.eager(true);
    error_code ec;
    while (!ec && used < bytes.size() && !parser.is_done()) {
      auto n = parser.put(asio::buffer(bytes.data() + used, bytes.size() - used), ec);
      if (ec == bhttp::error::need_more) ec = {};
      if (n == 0 && !ec) break;
      used += n;
    }
    // Nothing at all (the end of the bytes after an interim response) is a message cut short;
    // put_eof() requires that something came.
    if (!ec && !parser.got_some()) ec = bhttp::error::partial_message;
    if (!ec && !parser.is_done()) parser.put_eof(ec);
    if (ec) {
      if (auto known = parse_failure(ec, options)) return *known;
      return transport_error{make_error_code(client_errc::read_failed), ec.message()};
    }
    if (auto bad = bad_status(parser.get())) return *bad;
    // Interim responses are skipped as on a connection (see round_trip).
    const auto status = parser.get().result_int();
    if (status < 200 && status != 101) continue;
    return to_response(parser.get());
  }
}

}  // namespace neograde::http
