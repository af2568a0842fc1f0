// The emulator's transport: what goes on the wire around the model's answers.
#include <neograde/emulator/emulator.hpp>

#include <neograde/clients/http.hpp>

#include "../support/http_options.hpp"
#include "../support/network.hpp"
#include "../support/specs.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <optional>

using namespace neograde;

namespace {

// Sends `bytes` to 127.0.0.1:port in one write and reads until the server closes (at most 10 s:
// a bound for a broken server, not a measure).
std::string raw_exchange(std::uint16_t port, const std::string& bytes) {
  const int fd = test::connect_loopback(port, 10);
  if (fd < 0) return {};
  std::string out;
  if (::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size())) {
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

std::string request(const std::string& method, const std::string& target, bool last = false) {
  return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer key-a\r\n" + (last ? "Connection: close\r\n" : "") +
         "\r\n";
}

// One response as it came on the wire: its head (through the blank line) and what follows it by
// its Content-Length (or nothing, for `contentless` ones: HEAD answers, 204).
struct wire_response {
  std::string head;
  std::string body;
};

std::optional<std::string> field(const std::string& head, const std::string& name) {
  const auto at = head.find("\r\n" + name + ": ");
  if (at == std::string::npos) return std::nullopt;
  const auto start = at + name.size() + 4;
  return head.substr(start, head.find("\r\n", start) - start);
}

// Splits `wire` into responses, each framed as `contentless[i]` says; nullopt if it does not
// split exactly.
std::optional<std::vector<wire_response>> split(const std::string& wire, const std::vector<bool>& contentless) {
  std::vector<wire_response> out;
  std::size_t at = 0;
  for (bool none : contentless) {
    if (wire.compare(at, 9, "HTTP/1.1 ") != 0) return std::nullopt;
    const auto end = wire.find("\r\n\r\n", at);
    if (end == std::string::npos) return std::nullopt;
    wire_response r{wire.substr(at, end + 4 - at), {}};
    at = end + 4;
    if (!none) {
      const auto length = field(r.head, "Content-Length");
      if (!length) return std::nullopt;
      r.body = wire.substr(at, std::stoul(*length));
      at += r.body.size();
    }
    out.push_back(std::move(r));
  }
  if (at != wire.size()) return std::nullopt;
  return out;
}

class EmulatorFraming : public ::testing::Test {
 protected:
  void start(bool head_content_length = true) {
    emulator::model_options m;
    m.api_keys = {"key-a"};
    m.head_content_length = head_content_length;
    m.time_scale = 0;
    emu_ = std::make_unique<emulator::emulator>(test::spec("lambda"), m);
    emu_->start();
  }
  std::unique_ptr<emulator::emulator> emu_;
};

}  // namespace

// GET, HEAD and GET again, pipelined on one connection: the HEAD answer carries the length of
// GET's content, as most servers send it, and nothing follows its blank line but the next answer.
TEST_F(EmulatorFraming, HeadCarriesTheLengthOfGetAndNoContent) {
  start();
  const auto wire = raw_exchange(
      emu_->port(), request("GET", "/api/v1/instances") + request("HEAD", "/api/v1/instances") + request("GET", "/api/v1/instances", true));
  const auto responses = split(wire, {false, true, false});
  ASSERT_TRUE(responses.has_value()) << wire;
  const auto& get = (*responses)[0];
  const auto& head = (*responses)[1];
  EXPECT_EQ(get.head.rfind("HTTP/1.1 200 ", 0), 0u) << get.head;
  EXPECT_EQ(head.head.rfind("HTTP/1.1 200 ", 0), 0u) << head.head;
  EXPECT_FALSE(get.body.empty());
  EXPECT_EQ(field(head.head, "Content-Length"), std::to_string(get.body.size())) << head.head;
  EXPECT_FALSE(field(head.head, "Transfer-Encoding").has_value()) << head.head;
  EXPECT_EQ((*responses)[2].body, get.body);
}

// Switched off (neograde emulate --no-head-content-length), HEAD answers carry no length at all,
// rather than "Content-Length: 0", which would misstate GET's (RFC 9110 §8.6).
TEST_F(EmulatorFraming, HeadWithoutContentLengthWhenSwitchedOff) {
  start(false);
  const auto wire = raw_exchange(emu_->port(), request("HEAD", "/api/v1/instances") + request("GET", "/api/v1/instances", true));
  const auto responses = split(wire, {true, false});
  ASSERT_TRUE(responses.has_value()) << wire;
  const auto& head = (*responses)[0].head;
  EXPECT_EQ(head.rfind("HTTP/1.1 200 ", 0), 0u) << head;
  EXPECT_FALSE(field(head, "Content-Length").has_value()) << head;
  EXPECT_FALSE(field(head, "Transfer-Encoding").has_value()) << head;
}

// A 204 (OPTIONS) carries no Content-Length (RFC 9110 §8.6: a server MUST NOT send one); Beast's
// prepare_payload() alone would send "Content-Length: 0".
TEST_F(EmulatorFraming, NoContentAnswerHasNoContentLength) {
  start();
  const auto wire = raw_exchange(emu_->port(), request("OPTIONS", "/api/v1/instances") + request("GET", "/api/v1/instances", true));
  const auto responses = split(wire, {true, false});
  ASSERT_TRUE(responses.has_value()) << wire;
  const auto& options = (*responses)[0].head;
  EXPECT_EQ(options.rfind("HTTP/1.1 204 ", 0), 0u) << options;
  EXPECT_TRUE(field(options, "Allow").has_value()) << options;
  EXPECT_FALSE(field(options, "Content-Length").has_value()) << options;
  EXPECT_FALSE(field(options, "Transfer-Encoding").has_value()) << options;
}

// neograde's own client, HEAD then GET on one kept-alive connection to the emulator.
TEST_F(EmulatorFraming, ClientReadsHeadThenGet) {
  start();
  http::client c(test::fast_options());
  const auto url = emu_->base_url() + "/instances";
  auto head = c.send({"HEAD", url, {{"Authorization", "Bearer key-a"}}, {}});
  ASSERT_TRUE(head.has_value()) << head.error().message();
  auto get = c.send({"GET", url, {{"Authorization", "Bearer key-a"}}, {}});
  ASSERT_TRUE(get.has_value()) << get.error().message();
  EXPECT_EQ(head->status, 200);
  EXPECT_TRUE(head->body.empty());
  EXPECT_EQ(get->status, 200);
  EXPECT_EQ(head->header("Content-Length"), std::to_string(get->body.size()));
}

// FastAPI's answer to a path without the document's trailing slash, on the wire (Prime
// Intellect's CLI lists pods at /api/v1/pods, prime_cli api/pods.py:172 @66fb4b7): a 307 whose
// Location is the slashed path with the query, no content, and the slashed path served on the
// same connection.
TEST(EmulatorRedirect, AMissingTrailingSlashIs307ToTheSlashedPath) {
  emulator::model_options m;
  m.api_keys = {"key-a"};
  m.time_scale = 0;
  emulator::emulator emu(test::spec("primeintellect"), m);
  emu.start();
  const auto wire = raw_exchange(
      emu.port(), request("GET", "/api/v1/pods?offset=0&limit=100") + request("GET", "/api/v1/pods/?offset=0&limit=100", true));
  const auto responses = split(wire, {false, false});
  ASSERT_TRUE(responses.has_value()) << wire;
  const auto& redirect = (*responses)[0];
  EXPECT_EQ(redirect.head.rfind("HTTP/1.1 307 ", 0), 0u) << redirect.head;
  EXPECT_EQ(field(redirect.head, "Location"), "/api/v1/pods/?offset=0&limit=100") << redirect.head;
  EXPECT_TRUE(redirect.body.empty());
  EXPECT_EQ((*responses)[1].head.rfind("HTTP/1.1 200 ", 0), 0u) << (*responses)[1].head;
  EXPECT_NE((*responses)[1].body.find("\"total_count\""), std::string::npos) << (*responses)[1].body;
}
