#include "scripted_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace neograde::test {

scripted_server::scripted_server(std::vector<scripted_reply> replies) : replies_(std::move(replies)) {
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listener_, 16) != 0)
    throw std::runtime_error("scripted_server: cannot listen");
  socklen_t len = sizeof addr;
  ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { serve(); });
}

scripted_server::~scripted_server() {
  stopping_ = true;
  ::shutdown(listener_, SHUT_RDWR);
  ::close(listener_);
  thread_.join();
}

std::string scripted_server::url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

std::vector<std::string> scripted_server::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

std::string scripted_server::response(int status, const std::string& body, const std::string& extra_headers,
                                      const std::string& content_type) {
  return "HTTP/1.1 " + std::to_string(status) + " Scripted\r\nContent-Type: " + content_type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + extra_headers + "\r\n" + body;
}

namespace {
// Waits up to `ms` for data; false on timeout or when the server is stopping.
bool readable(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, ms) > 0;
}
}  // namespace

void scripted_server::serve() {
  while (!stopping_) {
    if (!readable(listener_, 50)) continue;
    int conn = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) continue;
    ++connections_;
    bool open = true;
    while (open && !stopping_) {
      // Read one request: the head, then Content-Length bytes of body.
      std::string data;
      char buf[4096];
      std::size_t head_end = std::string::npos;
      while (head_end == std::string::npos && !stopping_) {
        if (!readable(conn, 50)) continue;
        auto n = ::recv(conn, buf, sizeof buf, 0);
        if (n <= 0) {
          open = false;
          break;
        }
        data.append(buf, static_cast<std::size_t>(n));
        head_end = data.find("\r\n\r\n");
      }
      if (!open || stopping_) break;
      std::size_t body_len = 0;
      if (auto cl = data.find("Content-Length: "); cl != std::string::npos && cl < head_end) body_len = std::stoul(data.substr(cl + 16));
      while (data.size() < head_end + 4 + body_len && readable(conn, 1000)) {
        auto n = ::recv(conn, buf, sizeof buf, 0);
        if (n <= 0) break;
        data.append(buf, static_cast<std::size_t>(n));
      }
      scripted_reply reply;
      {
        std::lock_guard lock(mu_);
        requests_.push_back(data);
        if (next_ < replies_.size()) reply = replies_[next_++];
        else
          reply = {response(500, "no more scripted replies"), true, false};
      }
      if (reply.silent) {
        while (!stopping_) (void)readable(conn, 50);
        break;
      }
      std::size_t sent = 0;
      while (sent < reply.raw.size()) {
        auto n = ::send(conn, reply.raw.data() + sent, reply.raw.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;
        sent += static_cast<std::size_t>(n);
      }
      if (reply.close_after) open = false;
    }
    ::close(conn);
  }
}

}  // namespace neograde::test
