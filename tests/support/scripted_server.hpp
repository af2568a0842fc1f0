#pragma once
// A loopback TCP server that answers each request with the next canned raw response, for tests
// of the client's handling of what real servers do wrong. Plain POSIX sockets, one thread.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace neograde::test {

struct scripted_reply {
  std::string raw;          // bytes to send ("HTTP/1.1 200 OK\r\n...")
  bool close_after = true;  // close the connection after sending
  bool silent = false;      // send nothing and hold the connection open until the server stops
};

class scripted_server {
 public:
  explicit scripted_server(std::vector<scripted_reply> replies);
  ~scripted_server();
  scripted_server(const scripted_server&) = delete;
  scripted_server& operator=(const scripted_server&) = delete;

  [[nodiscard]] std::uint16_t port() const { return port_; }
  [[nodiscard]] std::string url(const std::string& path = "/") const;
  [[nodiscard]] std::vector<std::string> requests() const;  // raw request heads and bodies
  [[nodiscard]] int connections() const { return connections_; }

  // "HTTP/1.1 <status>" with the given headers and body, Content-Length set.
  static std::string response(int status, const std::string& body, const std::string& extra_headers = {},
                              const std::string& content_type = "application/json");

 private:
  void serve();
  int listener_ = -1;
  std::uint16_t port_ = 0;
  std::vector<scripted_reply> replies_;
  std::size_t next_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0};
  mutable std::mutex mu_;
  std::vector<std::string> requests_;
  std::thread thread_;
};

}  // namespace neograde::test
