#include "hostile_server.hpp"
#include "network.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <memory>
#include <stdexcept>

namespace neograde::test {

namespace {

using steady = std::chrono::steady_clock;
constexpr int slice_ms = 50;

// Polls for at most one slice; the return value of poll().
int poll_once(int fd, short events) {
  pollfd p{fd, events, 0};
  return ::poll(&p, 1, slice_ms);
}

// OpenSSL writes to sockets without MSG_NOSIGNAL: a peer that hangs up mid-handshake (which is
// what a refusing client does) would kill the test process with SIGPIPE.
void ignore_sigpipe() { std::signal(SIGPIPE, SIG_IGN); }

std::string openssl_reason(const char* fallback) {
  const unsigned long e = ERR_get_error();
  if (e == 0) return fallback;
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

template <class T, void (*F)(T*)>
struct deleter {
  void operator()(T* p) const { F(p); }
};
using pkey_ptr = std::unique_ptr<EVP_PKEY, deleter<EVP_PKEY, EVP_PKEY_free>>;
using x509_ptr = std::unique_ptr<X509, deleter<X509, X509_free>>;
using bio_ptr = std::unique_ptr<BIO, deleter<BIO, BIO_free_all>>;
using ctx_ptr = std::unique_ptr<SSL_CTX, deleter<SSL_CTX, SSL_CTX_free>>;
using ssl_ptr = std::unique_ptr<SSL, deleter<SSL, SSL_free>>;

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("hostile_server: ") + what + ": " + openssl_reason("failed"));
}

bio_ptr memory_bio(const std::string& pem) {
  bio_ptr b(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  check(b != nullptr, "BIO");
  return b;
}

}  // namespace

// --- connection ---------------------------------------------------------------------------

bool hostile_connection::stopping() const { return server_.stopping_; }

bool hostile_connection::pause(std::chrono::milliseconds d) {
  const auto end = steady::now() + d;
  while (!stopping()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - steady::now());
    if (left.count() <= 0) return true;
    std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(slice_ms)));
  }
  return false;
}

std::string hostile_connection::read_request_head(std::chrono::milliseconds limit) {
  std::string data;
  const auto end = steady::now() + limit;
  char buf[4096];
  while (fd_ >= 0 && !stopping() && steady::now() < end && data.find("\r\n\r\n") == std::string::npos) {
    long n = 0;
    if (ssl_ != nullptr) {
      ERR_clear_error();
      const int r = SSL_read(ssl_, buf, sizeof buf);
      if (r <= 0) {
        const int e = SSL_get_error(ssl_, r);
        if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) break;
        (void)poll_once(fd_, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT);
        continue;
      }
      n = r;
    } else {
      n = ::recv(fd_, buf, sizeof buf, 0);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        (void)poll_once(fd_, POLLIN);
        continue;
      }
      if (n <= 0) break;
    }
    data.append(buf, static_cast<std::size_t>(n));
  }
  if (!data.empty()) {
    std::lock_guard lock(server_.mu_);
    server_.requests_.push_back(data);
  }
  return data;
}

bool hostile_connection::send(std::string_view bytes) {
  std::size_t at = 0;
  while (at < bytes.size()) {
    if (fd_ < 0 || stopping()) return false;
    const std::size_t want = std::min<std::size_t>(bytes.size() - at, INT_MAX);
    std::size_t n = 0;
    if (ssl_ != nullptr) {
      ERR_clear_error();
      const int r = SSL_write(ssl_, bytes.data() + at, static_cast<int>(want));
      if (r <= 0) {
        const int e = SSL_get_error(ssl_, r);
        if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) return false;
        (void)poll_once(fd_, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT);
        continue;
      }
      n = static_cast<std::size_t>(r);
    } else {
      const auto r = ::send(fd_, bytes.data() + at, want, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (r < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
        (void)poll_once(fd_, POLLOUT);
        continue;
      }
      n = static_cast<std::size_t>(r);
    }
    at += n;
    sent_ += n;
    server_.bytes_sent_ += n;
  }
  return true;
}

bool hostile_connection::trickle(std::string_view bytes, std::chrono::milliseconds interval) {
  for (char c : bytes)
    if (!send(std::string_view(&c, 1)) || !pause(interval)) return false;
  return true;
}

void hostile_connection::hold(std::chrono::milliseconds limit) {
  const auto end = steady::now() + limit;
  char buf[4096];
  while (fd_ >= 0 && !stopping() && steady::now() < end) {
    if (poll_once(fd_, POLLIN) <= 0) continue;
    // Whatever arrives is read and dropped (a ClientHello, a second request); end of stream or
    // an error means the peer has gone.
    const auto n = ::recv(fd_, buf, sizeof buf, 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return;
  }
}

void hostile_connection::reset() {
  if (fd_ < 0) return;
  linger l{1, 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  ::close(fd_);
  fd_ = -1;
}

// --- server -------------------------------------------------------------------------------

hostile_server::hostile_server(hostile_behaviour behaviour, std::optional<tls_setup> tls) : behaviour_(std::move(behaviour)) {
  if (tls) {
    ignore_sigpipe();
    ctx_ptr ctx(SSL_CTX_new(TLS_server_method()));
    check(ctx != nullptr, "SSL_CTX_new");
    if (tls->legacy) {
      // Debian's openssl.cnf sets @SECLEVEL=2 for every context; level 0 lets TLS 1.0, SHA-1
      // signatures and short RSA keys through on this side.
      check(SSL_CTX_set_cipher_list(ctx.get(), "DEFAULT:@SECLEVEL=0") == 1, "cipher list");
      SSL_CTX_set_security_level(ctx.get(), 0);
    }
    if (tls->min_version != 0) check(SSL_CTX_set_min_proto_version(ctx.get(), tls->min_version) == 1, "min version");
    if (tls->max_version != 0) check(SSL_CTX_set_max_proto_version(ctx.get(), tls->max_version) == 1, "max version");
    auto cert_bio = memory_bio(tls->certificate_pem);
    x509_ptr cert(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr));
    check(cert != nullptr, "reading the certificate");
    auto key_bio = memory_bio(tls->private_key_pem);
    pkey_ptr key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
    check(key != nullptr, "reading the key");
    check(SSL_CTX_use_certificate(ctx.get(), cert.get()) == 1, "using the certificate");
    check(SSL_CTX_use_PrivateKey(ctx.get(), key.get()) == 1, "using the key");
    tls_ = ctx.release();
  }
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listener_, 16) != 0) {
    if (listener_ >= 0) ::close(listener_);
    SSL_CTX_free(tls_);
    throw std::runtime_error("hostile_server: cannot listen");
  }
  socklen_t len = sizeof addr;
  ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { serve(); });
}

hostile_server::~hostile_server() {
  stopping_ = true;
  thread_.join();  // every wait is one slice long: this returns within about 50 ms
  ::close(listener_);
  SSL_CTX_free(tls_);
}

std::string hostile_server::url(const std::string& path) const {
  return (tls_ != nullptr ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(port_) + path;
}

std::string hostile_server::https_url(const std::string& path) const { return "https://127.0.0.1:" + std::to_string(port_) + path; }

std::vector<std::string> hostile_server::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

void hostile_server::serve() {
  while (!stopping_) {
    if (poll_once(listener_, POLLIN) <= 0) continue;
    const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) continue;
    ++connections_;
    handle(fd);
  }
}

void hostile_server::handle(int fd) {
  ssl_ptr ssl;
  bool ready = true;
  if (tls_ != nullptr) {
    ssl.reset(SSL_new(tls_));
    ready = ssl != nullptr && SSL_set_fd(ssl.get(), fd) == 1;
    const auto end = steady::now() + std::chrono::seconds(5);
    while (ready) {
      ERR_clear_error();
      const int r = SSL_accept(ssl.get());
      if (r == 1) {
        ++handshakes_;
        break;
      }
      const int e = SSL_get_error(ssl.get(), r);
      if ((e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) || stopping_ || steady::now() > end) {
        ready = false;  // the client refused us (the point of most TLS cases), or gave up
        break;
      }
      (void)poll_once(fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT);
    }
  }
  hostile_connection conn(*this, fd, ssl.get());
  if (ready) {
    try {
      behaviour_(conn);
    } catch (const std::exception&) {
      // A behaviour that throws ends its connection; the client sees the close.
    }
  }
  ssl.reset();  // SSL_free does not close the socket it was given
  if (conn.fd_ >= 0) ::close(conn.fd_);
}

hostile_behaviour hostile_server::trickle(std::string head, std::string filler, std::chrono::milliseconds interval,
                                          std::chrono::milliseconds budget) {
  return [head = std::move(head), filler = std::move(filler), interval, budget](hostile_connection& c) {
    (void)c.read_request_head();
    const auto end = steady::now() + budget;
    if (!c.trickle(head, interval)) return;
    while (!filler.empty() && steady::now() < end)
      if (!c.trickle(filler, interval)) return;
    c.hold();
  };
}

hostile_behaviour hostile_server::endless_chunked(std::size_t chunk) {
  return [chunk](hostile_connection& c) {
    (void)c.read_request_head();
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", chunk);
    const std::string one = size + std::string(chunk, 'x') + "\r\n";
    if (!c.send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")) return;
    while (c.send(one)) {}
  };
}

hostile_behaviour hostile_server::reset_after(std::string head, std::size_t body_bytes) {
  return [head = std::move(head), body_bytes](hostile_connection& c) {
    (void)c.read_request_head();
    if (!c.send(head + std::string(body_bytes, 'x'))) return;
    // Let the client read what was sent, so that the reset comes mid-body, not before it.
    if (c.pause(std::chrono::milliseconds(100))) c.reset();
  };
}

hostile_behaviour hostile_server::send_then_hold(std::string raw) {
  return [raw = std::move(raw)](hostile_connection& c) {
    (void)c.read_request_head();
    if (c.send(raw)) c.hold();
  };
}

hostile_behaviour hostile_server::silent() {
  return [](hostile_connection& c) { c.hold(); };
}

hostile_behaviour hostile_server::answer_each(std::function<std::string(const std::string&)> reply) {
  return [reply = std::move(reply)](hostile_connection& c) {
    for (;;) {
      const auto head = c.read_request_head();
      if (head.empty() || !c.send(reply(head))) return;
    }
  };
}

// --- certificates and probes --------------------------------------------------------------

std::string probe_tls(std::uint16_t port, int version, int security_level) {
  ignore_sigpipe();
  ctx_ptr ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) return "SSL_CTX_new failed";
  SSL_CTX_set_cipher_list(ctx.get(), ("DEFAULT:@SECLEVEL=" + std::to_string(security_level)).c_str());
  SSL_CTX_set_security_level(ctx.get(), security_level);
  SSL_CTX_set_min_proto_version(ctx.get(), version);
  SSL_CTX_set_max_proto_version(ctx.get(), version);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
  const int fd = connect_loopback(port, 2);
  if (fd < 0) return "connect failed";
  std::string result;
  ssl_ptr ssl(SSL_new(ctx.get()));
  ERR_clear_error();
  if (!ssl || SSL_set_fd(ssl.get(), fd) != 1 || SSL_connect(ssl.get()) != 1) result = openssl_reason("handshake failed");
  else
    (void)SSL_shutdown(ssl.get());
  ssl.reset();
  ::close(fd);
  return result;
}

// --- compression bomb ---------------------------------------------------------------------

namespace {

// Deflate's bit order (RFC 1951 §3.1.1): numbers least significant bit first, Huffman codes
// most significant bit first.
struct bit_writer {
  std::string out;
  unsigned acc = 0;
  int used = 0;
  void put_bit(unsigned b) {
    acc |= (b & 1u) << used;
    if (++used == 8) {
      out += static_cast<char>(acc);
      acc = 0;
      used = 0;
    }
  }
  void number(unsigned v, int bits) {
    for (int i = 0; i < bits; ++i) put_bit(v >> i);
  }
  void code(unsigned c, int bits) {
    for (int i = bits - 1; i >= 0; --i) put_bit(c >> i);
  }
  void flush() {
    if (used > 0) out += static_cast<char>(acc);
    acc = 0;
    used = 0;
  }
};

void little_endian32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xffu);
}

// CRC-32 (gzip's, reflected polynomial 0xedb88320) of n zero bytes, in O(log n): the register's
// update for one zero bit is linear over GF(2), so that for 8n bits is that matrix raised to the
// power 8n, by squaring (what zlib's crc32_combine does).
std::uint32_t crc32_of_zeros(std::uint64_t n) {
  using matrix = std::array<std::uint32_t, 32>;  // column i: the image of bit i
  const auto times = [](const matrix& m, std::uint32_t v) {
    std::uint32_t r = 0;
    for (int i = 0; v != 0; ++i, v >>= 1)
      if ((v & 1u) != 0) r ^= m[static_cast<std::size_t>(i)];
    return r;
  };
  const auto square = [&](const matrix& m) {
    matrix r{};
    for (std::size_t i = 0; i < 32; ++i) r[i] = times(m, m[i]);
    return r;
  };
  matrix step{};  // one zero bit: bit 0 leaves with the polynomial, every other bit shifts down
  step[0] = 0xedb88320u;
  for (std::size_t i = 1; i < 32; ++i) step[i] = 1u << (i - 1);
  matrix power = square(square(square(step)));  // one zero byte
  std::uint32_t reg = 0xffffffffu;
  for (std::uint64_t k = n; k != 0; k >>= 1) {
    if ((k & 1u) != 0) reg = times(power, reg);
    power = square(power);
  }
  return reg ^ 0xffffffffu;
}

}  // namespace

std::string gzip_bomb(std::uint64_t matches) {
  const std::uint64_t inflated = 1 + 258 * matches;
  bit_writer w;
  w.out.reserve(static_cast<std::size_t>(matches / 4 + 64));
  w.number(1, 1);   // BFINAL
  w.number(2, 2);   // BTYPE 10: dynamic Huffman codes
  w.number(29, 5);  // HLIT: 286 literal/length codes
  w.number(1, 5);   // HDIST: 2 distance codes
  w.number(14, 4);  // HCLEN: 18 code length codes
  // Code length code lengths, in RFC 1951's order 16 17 18 0 8 7 9 6 10 5 11 4 12 3 13 2 14 1:
  // symbol 18 (a run of zeros) gets 1 bit, lengths 1 and 2 get 2 bits.
  constexpr unsigned order_lengths[18] = {0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2};
  for (unsigned l : order_lengths) w.number(l, 3);
  // Canonical codes: 18 -> 0, 1 -> 10, 2 -> 11.
  auto zeros = [&](unsigned n) {  // symbol 18: 11..138 zeros
    w.code(0, 1);
    w.number(n - 11, 7);
  };
  // Literal/length code lengths: 0 (the literal zero byte) and 256 (end of block) 2 bits, 285
  // (length 258) 1 bit; then both distance codes 1 bit.
  w.code(3, 2);  // symbol 0: length 2
  zeros(138);
  zeros(117);    // symbols 1..255
  w.code(3, 2);  // symbol 256: length 2
  zeros(28);     // symbols 257..284
  w.code(2, 2);  // symbol 285: length 1
  w.code(2, 2);  // distance 0: length 1
  w.code(2, 2);  // distance 1: length 1
  // Canonical literal/length codes: 285 -> 0, 0 -> 10, 256 -> 11; distance 0 -> 0.
  w.code(2, 2);  // the literal zero byte
  for (std::uint64_t i = 0; i < matches; ++i) {
    w.code(0, 1);  // length 258
    w.code(0, 1);  // distance 1
  }
  w.code(3, 2);  // end of block
  w.flush();
  std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10);  // gzip, deflate, no name, no time
  out += w.out;
  little_endian32(out, crc32_of_zeros(inflated));
  little_endian32(out, static_cast<std::uint32_t>(inflated & 0xffffffffu));  // ISIZE: the length modulo 2^32
  return out;
}

}  // namespace neograde::test
