#include <neograde/clients/http.hpp>

#include <neograde/emulator/emulator.hpp>
#include <neograde/emulator/tls_cert.hpp>

#include "../support/http_options.hpp"
#include "../support/scripted_server.hpp"
#include "../support/specs.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace neograde;
using test::fast_options;
using namespace std::chrono_literals;
using test::scripted_reply;
using test::scripted_server;

namespace {

std::string temp_file(const std::string& name, const std::string& content) {
  auto path = std::filesystem::temp_directory_path() / ("neograde-test-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << content;
  return path.string();
}

}  // namespace

TEST(HttpClient, ReusesAKeptAliveConnection) {
  scripted_server s({{scripted_server::response(200, "{}"), false}, {scripted_server::response(200, "{}"), false}});
  http::client c(fast_options());
  ASSERT_TRUE(c.send({"GET", s.url("/a"), {}, {}}).has_value());
  ASSERT_TRUE(c.send({"GET", s.url("/b"), {}, {}}).has_value());
  EXPECT_EQ(s.connections(), 1);
}

TEST(HttpClient, ReconnectsWhenTheServerDroppedAKeptAliveConnection) {
  // The first reply does not announce Connection: close, yet the server closes.
  scripted_server s({{scripted_server::response(200, "{}"), true}, {scripted_server::response(200, "{\"n\":2}"), true}});
  http::client c(fast_options());
  ASSERT_TRUE(c.send({"GET", s.url(), {}, {}}).has_value());
  auto second = c.send({"GET", s.url(), {}, {}});
  ASSERT_TRUE(second.has_value()) << second.error().message();
  EXPECT_EQ(second->body, "{\"n\":2}");
  EXPECT_EQ(s.connections(), 2);
}

TEST(HttpClient, BodyOverTheCapIsAnError) {
  scripted_server s({{scripted_server::response(200, std::string(5000, 'x'))}});
  auto o = fast_options();
  o.max_body_bytes = 1000;
  http::client c(o);
  auto r = c.send({"GET", s.url(), {}, {}});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, http::client_errc::body_too_large);
}

TEST(HttpClientTimeout, SilentServerExpires) {
  scripted_server s({{"", false, true}});
  auto o = fast_options();
  o.read_timeout = 200ms;
  http::client c(o);
  const auto start = std::chrono::steady_clock::now();
  auto r = c.send({"GET", s.url(), {}, {}});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, http::client_errc::timeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);  // a hang would be caught by ctest's timeout
}

TEST(HttpClient, RefusedConnectionIsConnectFailed) {
  std::string url;
  {
    scripted_server s({});
    url = s.url();
  }
  http::client c(fast_options());
  auto r = c.send({"GET", url, {}, {}});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, http::client_errc::connect_failed);
}

TEST(HttpClient, RedirectsAreNotFollowed) {
  scripted_server s({{scripted_server::response(302, "", "Location: http://evil.example/\r\n")}});
  http::client c(fast_options());
  auto r = c.send({"GET", s.url(), {{"Authorization", "Bearer k"}}, {}});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 302);
  EXPECT_EQ(s.requests().size(), 1u);
}

TEST(HttpClientRetry, HonoursRetryAfterOn429) {
  scripted_server s({{scripted_server::response(429, "{}", "Retry-After: 2\r\n")}, {scripted_server::response(200, "{}")}});
  std::vector<std::chrono::milliseconds> waits;
  auto o = fast_options();
  o.sleep = [&](std::chrono::milliseconds d) { waits.push_back(d); };
  http::client c(o);
  auto r = c.send({"POST", s.url(), {}, "{}"});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0], 2000ms);
  EXPECT_EQ(c.transcript().size(), 2u);
}

TEST(HttpClientRetry, BacksOffExponentiallyWithoutRetryAfterAndGivesUp) {
  std::vector<scripted_reply> replies(5, scripted_reply{scripted_server::response(503, "{}")});
  scripted_server s(replies);
  std::vector<std::chrono::milliseconds> waits;
  auto o = fast_options();
  o.max_retries = 3;
  o.sleep = [&](std::chrono::milliseconds d) { waits.push_back(d); };
  http::client c(o);
  auto r = c.send({"GET", s.url(), {}, {}});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(waits, (std::vector<std::chrono::milliseconds>{500ms, 1000ms, 2000ms}));
  EXPECT_EQ(s.requests().size(), 4u);
}

// A caller can say which 429/503 answers are not worth a retry (a 503 that is a capacity refusal).
TEST(HttpClientRetry, AnAnswerTheCallerCallsFinalIsNotRetried) {
  scripted_server s({{scripted_server::response(503, R"({"message": "no capacity"})")},
                     {scripted_server::response(503, "{}")},
                     {scripted_server::response(503, "{}")},
                     {scripted_server::response(200, "{}")}});
  std::vector<std::chrono::milliseconds> waits;
  auto o = fast_options();
  o.sleep = [&](std::chrono::milliseconds d) { waits.push_back(d); };
  o.retryable = [](const http::response& r) { return r.body.find("no capacity") == std::string::npos; };
  http::client c(o);
  auto r = c.send({"POST", s.url(), {}, "{}"});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 503);
  EXPECT_TRUE(waits.empty());
  EXPECT_EQ(s.requests().size(), 1u);
  auto again = c.send({"POST", s.url(), {}, "{}"});  // the other 503s are retried as before
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->status, 200);
  EXPECT_EQ(waits.size(), 2u);
}

TEST(HttpClientRetry, RetryAfterBeyondTheCapIsNotWaitedFor) {
  scripted_server s({{scripted_server::response(429, "{}", "Retry-After: 3600\r\n")}});
  bool slept = false;
  auto o = fast_options();
  o.sleep = [&](std::chrono::milliseconds) { slept = true; };
  http::client c(o);
  auto r = c.send({"GET", s.url(), {}, {}});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 429);
  EXPECT_FALSE(slept);
}

TEST(HttpClientRetry, ParsesRetryAfterForms) {
  EXPECT_EQ(http::parse_retry_after("120"), std::chrono::milliseconds(120000));
  EXPECT_EQ(http::parse_retry_after(" 0 "), std::chrono::milliseconds(0));
  EXPECT_EQ(http::parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"), std::chrono::milliseconds(0));
  EXPECT_FALSE(http::parse_retry_after("soon").has_value());
  // Found by fuzzing: dates far from now overflowed the clock arithmetic.
  EXPECT_EQ(http::parse_retry_after("Wed, 01 Oct 1007 07:28:00 GMT"), std::chrono::milliseconds(0));
  EXPECT_EQ(http::parse_retry_after("Wed, 01 Oct 9999 07:28:00 GMT"), std::chrono::milliseconds::max());
  EXPECT_FALSE(http::parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT and more").has_value());
  EXPECT_FALSE(http::parse_retry_after("").has_value());
}

TEST(HttpClient, TranscriptIsRedacted) {
  scripted_server s({{scripted_server::response(401, R"({"error":"bad key sk_SECRET"})")}});
  redactor r;
  r.add_secret("sk_SECRET");
  http::client c(fast_options(), r);
  (void)c.send({"GET", s.url("/x?key=sk_SECRET"), {{"Authorization", "Bearer sk_SECRET"}}, {}});
  const auto text = nlohmann::json(c.transcript().back()).dump();
  EXPECT_EQ(text.find("sk_SECRET"), std::string::npos) << text;
  EXPECT_NE(s.requests().front().find("Bearer sk_SECRET"), std::string::npos);  // but it was sent
}

TEST(HttpClient, BadUrlsAreErrors) {
  http::client c(fast_options());
  EXPECT_EQ(c.send({"GET", "not a url", {}, {}}).error().code, http::client_errc::bad_url);
  EXPECT_EQ(c.send({"GET", "ftp://127.0.0.1/", {}, {}}).error().code, http::client_errc::unsupported_scheme);
}

TEST(HttpClient, GarbageStatusLineIsAnError) {
  scripted_server s({{"SSH-2.0-OpenSSH_9.2\r\n\r\n"}});
  http::client c(fast_options());
  auto r = c.send({"GET", s.url(), {}, {}});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, http::client_errc::bad_response) << r.error().message();
}

TEST(HttpClient, StatusBelow100IsAnError) {
  // Found by fuzzing: "HTTP/1.1 000" parsed as a response with status 0, which callers read as
  // "no response at all".
  scripted_server s({{"HTTP/1.1 000 X\r\nContent-Length: 0\r\n\r\n"}});
  http::client c(fast_options());
  auto r = c.send({"GET", s.url(), {}, {}});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, http::client_errc::bad_response) << r.error().message();
}

TEST(ParseResponse, ReadsAResponseFromBytesWithTheClientsLimits) {
  auto ok = http::parse_response("HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
  ASSERT_TRUE(ok.has_value()) << ok.error().message();
  EXPECT_EQ(ok->status, 201);
  EXPECT_EQ(ok->header("content-type"), "application/json");
  EXPECT_EQ(ok->body, "{}");
  http::client_options small;
  small.max_body_bytes = 1;
  auto big = http::parse_response("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", small);
  ASSERT_FALSE(big.has_value());
  EXPECT_EQ(big.error().code, http::client_errc::body_too_large);
  EXPECT_FALSE(http::parse_response("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n{}").has_value());
  EXPECT_FALSE(http::parse_response("HTTP/1.1 099 X\r\n\r\n").has_value());
}

// Bytes read offline frame as a connection does: interim responses are skipped, a 204 or 304 has
// no content whatever its Content-Length, and interim responses alone are no answer.
TEST(ParseResponse, FramesInterimAndContentlessResponsesAsAConnectionDoes) {
  auto interim = http::parse_response(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
  ASSERT_TRUE(interim.has_value()) << interim.error().message();
  EXPECT_EQ(interim->status, 200);
  EXPECT_EQ(interim->body, "{}");
  EXPECT_TRUE(interim->header("Link").empty());
  for (const char* contentless :
       {"HTTP/1.1 204 No Content\r\nContent-Length: 1000\r\n\r\n", "HTTP/1.1 304 Not Modified\r\nContent-Length: 1000\r\n\r\n"}) {
    auto r = http::parse_response(contentless);
    ASSERT_TRUE(r.has_value()) << contentless << r.error().message();
    EXPECT_TRUE(r->body.empty()) << contentless;
  }
  auto upgrade = http::parse_response("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n");
  ASSERT_TRUE(upgrade.has_value()) << upgrade.error().message();
  EXPECT_EQ(upgrade->status, 101);
  auto alone = http::parse_response("HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_FALSE(alone.has_value()) << alone->status;
  EXPECT_EQ(alone.error().code, http::client_errc::read_failed) << alone.error().message();
  EXPECT_FALSE(http::parse_response("").has_value());
}

class HttpClientTls : public ::testing::Test {
 protected:
  void start(emulator::server_options server) {
    emulator::model_options m;
    m.api_keys = {"k1"};
    server.tls = true;
    emu_ = std::make_unique<emulator::emulator>(test::spec("lambda"), m, server);
    emu_->start();
  }
  std::unique_ptr<emulator::emulator> emu_;
};

TEST_F(HttpClientTls, VerifiesAgainstAnExtraCa) {
  start({});
  auto o = fast_options();
  o.extra_ca_file = temp_file("ca.pem", emu_->certificate_pem());
  http::client c(o);
  auto r = c.send({"GET", emu_->base_url() + "/instance-types", {{"Authorization", "Bearer k1"}}, {}});
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->status, 200);
}

TEST_F(HttpClientTls, UntrustedCertificateFailsTheHandshake) {
  start({});
  http::client c(fast_options());
  auto r = c.send({"GET", emu_->base_url() + "/instance-types", {}, {}});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, http::client_errc::tls_handshake_failed);
  EXPECT_NE(r.error().message().find("certificate verify failed"), std::string::npos) << r.error().message();
}

TEST_F(HttpClientTls, CertificateForAnotherHostFailsTheHandshake) {
  auto pair = emulator::make_self_signed({"other.example"}, {});
  start({"127.0.0.1", 0, true, temp_file("other.pem", pair.certificate), temp_file("other.key", pair.private_key)});
  auto o = fast_options();
  o.extra_ca_file = temp_file("other-ca.pem", pair.certificate);
  http::client c(o);
  auto r = c.send({"GET", emu_->base_url() + "/instance-types", {}, {}});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, http::client_errc::tls_handshake_failed);
}
