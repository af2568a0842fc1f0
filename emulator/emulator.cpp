#include <neograde/emulator/emulator.hpp>

#include <neograde/emulator/tls_cert.hpp>

#include <neograde/core/provenance.hpp>

#include <nlohmann/json.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace neograde::emulator {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = asio::ip::tcp;

namespace {

constexpr auto nothrow = asio::as_tuple(asio::use_awaitable);
constexpr auto idle_timeout = std::chrono::seconds(30);

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Sets the framing headers of an answer as RFC 9110 §8.6 and RFC 9112 §6 have them; Beast's
// prepare_payload() alone would write "Content-Length: 0" on 1xx and 204 (where a server MUST NOT
// send it) and on HEAD answers (where it may only be the length GET's content would have).
void frame(bhttp::response<bhttp::string_body>& res, bool head) {
  const auto status = res.result_int();
  if (status < 200 || status == 204 || status == 304) {
    // No content, and no length: a 304's would have to be the 200's, which is not known here.
    res.body().clear();
    res.content_length(boost::none);
    res.chunked(false);
  } else if (head) {
    // The model's Content-Length (GET's length, or none) stays as it is (chunked(false) would
    // erase it too): the serializer writes the header and the empty body, that is nothing after
    // the blank line, whatever the length says.
    res.body().clear();
  } else {
    res.prepare_payload();
  }
}

}  // namespace

struct emulator::impl {
  provider_model model;
  server_options server;
  asio::io_context ioc{1};
  ssl::context ssl_ctx{ssl::context::tls_server};
  std::optional<tcp::acceptor> acceptor;
  std::thread thread;
  std::uint16_t port = 0;
  std::string cert_pem;

  impl(const provider_spec& spec, model_options m, server_options s) : model(spec, std::move(m)), server(std::move(s)) {}

  // Outside the provider's API: what tests read to prove a run left nothing behind.
  static constexpr const char* state_path = "/_neograde/state";
  http::response state() const {
    http::response r;
    r.status = 200;
    r.headers = {{"Content-Type", "application/json"}, {emulator_header_name, model.spec().provider.id}};
    r.body = nlohmann::json{{"live_instances", model.live_instances()},
                            {"instances_created", model.instances_created()},
                            {"ssh_keys_created", model.ssh_keys_created()},
                            {"create_requests", model.create_requests()}}
                 .dump();
    return r;
  }

  template <class Stream>
  asio::awaitable<void> serve(Stream& stream, beast::tcp_stream& lowest) {
    beast::flat_buffer buffer;
    for (;;) {
      bhttp::request_parser<bhttp::string_body> parser;
      parser.body_limit(1024 * 1024);
      parser.header_limit(16 * 1024);
      lowest.expires_after(idle_timeout);
      auto [rec, rn] = co_await bhttp::async_read(stream, buffer, parser, nothrow);
      if (rec) co_return;
      auto& req = parser.get();
      http::request in;
      in.method = std::string(req.method_string());
      in.url = std::string(req.target());
      for (const auto& f : req) in.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
      in.body = std::move(req.body());
      auto early = server.intercept ? server.intercept(in) : std::nullopt;
      auto out = early ? std::move(*early) : in.url == state_path ? state() : model.handle(in);

      bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(out.status), req.version()};
      res.set(bhttp::field::server, "neograde-emulator");
      for (const auto& [k, v] : out.headers) res.insert(k, v);
      res.body() = std::move(out.body);
      res.keep_alive(req.keep_alive());
      frame(res, req.method() == bhttp::verb::head);
      lowest.expires_after(idle_timeout);
      auto [wec, wn] = co_await bhttp::async_write(stream, res, nothrow);
      if (wec || !res.keep_alive()) co_return;
    }
  }

  asio::awaitable<void> session(tcp::socket socket) {
    beast::tcp_stream plain(std::move(socket));
    if (!server.tls) {
      co_await serve(plain, plain);
      beast::error_code ec;
      plain.socket().shutdown(tcp::socket::shutdown_send, ec);
      co_return;
    }
    beast::ssl_stream<beast::tcp_stream> secure(std::move(plain), ssl_ctx);
    beast::get_lowest_layer(secure).expires_after(idle_timeout);
    auto [hec] = co_await secure.async_handshake(ssl::stream_base::server, nothrow);
    if (hec) co_return;
    co_await serve(secure, beast::get_lowest_layer(secure));
    beast::get_lowest_layer(secure).expires_after(std::chrono::seconds(2));
    co_await secure.async_shutdown(nothrow);
  }

  asio::awaitable<void> accept_loop() {
    for (;;) {
      auto [ec, socket] = co_await acceptor->async_accept(nothrow);
      if (ec == asio::error::operation_aborted || !acceptor->is_open()) co_return;
      if (ec) continue;
      asio::co_spawn(ioc, session(std::move(socket)), asio::detached);
    }
  }
};

emulator::emulator(const provider_spec& spec, model_options model, server_options server)
    : impl_(std::make_unique<impl>(spec, std::move(model), std::move(server))) {}

emulator::~emulator() { stop(); }

void emulator::start() {
  auto& d = *impl_;
  if (d.server.tls) {
    std::string cert, key;
    if (!d.server.cert_file.empty()) {
      cert = read_file(d.server.cert_file);
      key = read_file(d.server.key_file.empty() ? d.server.cert_file : d.server.key_file);
    } else {
      auto pair = make_self_signed({"localhost"}, {"127.0.0.1", "::1"});
      cert = std::move(pair.certificate);
      key = std::move(pair.private_key);
    }
    d.cert_pem = cert;
    beast::error_code ec;
    d.ssl_ctx.use_certificate_chain(asio::buffer(cert), ec);
    if (!ec) d.ssl_ctx.use_private_key(asio::buffer(key), ssl::context::pem, ec);
    if (ec) throw std::runtime_error("TLS certificate or key rejected: " + ec.message());
  }
  beast::error_code ec;
  auto address = asio::ip::make_address(d.server.host, ec);
  if (ec) throw std::runtime_error("not an IP address: " + d.server.host);
  tcp::endpoint ep{address, d.server.port};
  d.acceptor.emplace(d.ioc);
  d.acceptor->open(ep.protocol(), ec);
  if (!ec) d.acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) d.acceptor->bind(ep, ec);
  if (!ec) d.acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error("cannot listen on " + d.server.host + ":" + std::to_string(d.server.port) + ": " + ec.message());
  d.port = d.acceptor->local_endpoint().port();
  asio::co_spawn(d.ioc, d.accept_loop(), asio::detached);
  d.thread = std::thread([&d] { d.ioc.run(); });
}

void emulator::stop() {
  auto& d = *impl_;
  if (!d.thread.joinable()) return;
  asio::post(d.ioc, [&d] {
    beast::error_code ec;
    d.acceptor->close(ec);
    d.ioc.stop();
  });
  d.thread.join();
}

std::string emulator::base_url() const {
  const auto& d = *impl_;
  std::string host = d.server.host.find(':') != std::string::npos ? "[" + d.server.host + "]" : d.server.host;
  return (d.server.tls ? "https://" : "http://") + host + ":" + std::to_string(d.port) + d.model.base_path();
}

std::uint16_t emulator::port() const { return impl_->port; }
const std::string& emulator::certificate_pem() const { return impl_->cert_pem; }
provider_model& emulator::model() { return impl_->model; }

}  // namespace neograde::emulator
