#pragma once
// A loopback server that misbehaves on purpose, over plain TCP or TLS: it trickles bytes, never
// stops a chunked body, resets mid-body, holds a connection silent, or serves TLS with a weak,
// expired or outdated setup. Each connection is handed to a behaviour (a function) in turn.
// Where scripted_server answers with canned bytes, this one acts over time. Everything it does
// waits in slices of at most 50 ms, so that the destructor stops it promptly, whatever the peer.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using SSL = struct ssl_st;
using SSL_CTX = struct ssl_ctx_st;

namespace neograde::test {

struct tls_setup {
  std::string certificate_pem;
  std::string private_key_pem;
  int min_version = 0;  // TLS1_VERSION, TLS1_2_VERSION, ...; 0: OpenSSL's default
  int max_version = 0;
  // Security level 0, so that the server offers what OpenSSL refuses by default (TLS 1.0, SHA-1,
  // RSA keys under 2048 bits): the client has to refuse them itself.
  bool legacy = false;
};

class hostile_server;

// One accepted connection, as a behaviour sees it.
class hostile_connection {
 public:
  hostile_connection(hostile_server& server, int fd, SSL* ssl) : server_(server), fd_(fd), ssl_(ssl) {}
  hostile_connection(const hostile_connection&) = delete;
  hostile_connection& operator=(const hostile_connection&) = delete;

  // Reads a request head (up to the blank line); empty if none came within `limit`.
  std::string read_request_head(std::chrono::milliseconds limit = std::chrono::seconds(5));
  // Sends all of `bytes`; false once the peer is gone or the server is stopping.
  bool send(std::string_view bytes);
  // Sends `bytes` one at a time, `interval` apart; false as send().
  bool trickle(std::string_view bytes, std::chrono::milliseconds interval);
  // Sends nothing until the peer closes or the server stops (at most `limit`).
  void hold(std::chrono::milliseconds limit = std::chrono::minutes(10));
  // Waits `d`; false if the server is stopping.
  bool pause(std::chrono::milliseconds d);
  // Aborts the connection: SO_LINGER 0 and close, so that the peer sees RST, not FIN.
  void reset();
  [[nodiscard]] bool stopping() const;
  [[nodiscard]] std::size_t bytes_sent() const { return sent_; }

 private:
  friend class hostile_server;
  hostile_server& server_;
  int fd_;
  SSL* ssl_;
  std::size_t sent_ = 0;
};

using hostile_behaviour = std::function<void(hostile_connection&)>;

class hostile_server {
 public:
  explicit hostile_server(hostile_behaviour behaviour, std::optional<tls_setup> tls = std::nullopt);
  ~hostile_server();
  hostile_server(const hostile_server&) = delete;
  hostile_server& operator=(const hostile_server&) = delete;

  [[nodiscard]] std::uint16_t port() const { return port_; }
  // http://127.0.0.1:<port><path>, or https:// when the server speaks TLS.
  [[nodiscard]] std::string url(const std::string& path = "/") const;
  [[nodiscard]] std::string https_url(const std::string& path = "/") const;
  [[nodiscard]] int connections() const { return connections_; }
  [[nodiscard]] int handshakes() const { return handshakes_; }          // TLS handshakes completed
  [[nodiscard]] std::size_t bytes_sent() const { return bytes_sent_; }  // over all connections
  [[nodiscard]] std::vector<std::string> requests() const;              // request heads read (not empty ones)

  // Ready-made behaviours. Each reads the request head first.
  // Sends `head`, then `filler` over and over, one byte every `interval`, for at most `budget`;
  // then holds the connection.
  static hostile_behaviour trickle(std::string head, std::string filler, std::chrono::milliseconds interval,
                                   std::chrono::milliseconds budget);
  // "200 OK", chunked, then valid chunks of `chunk` bytes forever.
  static hostile_behaviour endless_chunked(std::size_t chunk);
  // Sends `head` and `body_bytes` bytes of body, then resets the connection.
  static hostile_behaviour reset_after(std::string head, std::size_t body_bytes);
  // Sends `raw`, then holds the connection open without a further byte.
  static hostile_behaviour send_then_hold(std::string raw);
  // Reads nothing and sends nothing: a TLS client waits for a ServerHello that never comes.
  static hostile_behaviour silent();
  // Answers each request of a kept-alive connection with reply(request head), sent in one
  // piece, until the peer closes it.
  static hostile_behaviour answer_each(std::function<std::string(const std::string& request_head)> reply);

 private:
  friend class hostile_connection;
  void serve();
  void handle(int fd);
  hostile_behaviour behaviour_;
  SSL_CTX* tls_ = nullptr;
  int listener_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0};
  std::atomic<int> handshakes_{0};
  std::atomic<std::size_t> bytes_sent_{0};
  mutable std::mutex mu_;
  std::vector<std::string> requests_;
  std::thread thread_;
};

// Tries a TLS handshake with 127.0.0.1:port as a permissive client (no verification, the given
// protocol version only, the given security level); "" on success, else OpenSSL's reason. Proves
// that a hostile TLS server offers what the client under test must refuse.
[[nodiscard]] std::string probe_tls(std::uint16_t port, int version, int security_level);

// A gzip member whose deflate stream (one hand-built dynamic-Huffman block: a zero byte, then
// `matches` back-references of 258 bytes at distance 1, two bits each) inflates to
// 1 + 258 × matches zero bytes from about matches / 4 bytes: by default gzip_bomb_size, about
// 100 MiB, from about 100 KiB; with gzip_bomb_4gib_matches, 4 GiB from 4 MiB, the answer issue 36
// measured (a 2.1 GB run writing a 1.06 GB results file).
inline constexpr std::uint64_t gzip_bomb_matches = 406'420;
inline constexpr std::uint64_t gzip_bomb_size = 1 + 258ULL * gzip_bomb_matches;
inline constexpr std::uint64_t gzip_bomb_4gib_matches = 1ULL << 24;
[[nodiscard]] std::string gzip_bomb(std::uint64_t matches = gzip_bomb_matches);

}  // namespace neograde::test
