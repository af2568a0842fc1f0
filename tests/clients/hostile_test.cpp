// neograde against a hostile provider (issue 9): whatever a server sends, or fails to send, the
// client returns a specific error or a correct result, gives up within a bound derived from its
// deadlines, and keeps at most the configured number of bytes. Cases already covered elsewhere
// (body over the cap with Content-Length, a silent server, a refused connection, a redirect to
// another host, a garbage status line, a status below 100, an untrusted or wrong-host
// certificate) are in http_client_test.cpp.
#include <neograde/clients/http.hpp>

#include <neograde/clients/curl.hpp>
#include <neograde/clients/provider_client.hpp>
#include <neograde/core/base64.hpp>
#include <neograde/core/evidence.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/core/redact.hpp>
#include <neograde/emulator/tls_cert.hpp>

#include "../support/hostile_server.hpp"
#include "../support/scripted_server.hpp"
#include "../support/specs.hpp"

#include <openssl/ssl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace neograde;
using namespace std::chrono_literals;
using test::hostile_server;
using test::scripted_reply;
using test::scripted_server;

namespace {

constexpr std::size_t cap = 1024 * 1024;          // max_body_bytes in every case
constexpr auto give_up_bound = 10s;               // "gives up", not "is fast"
constexpr long rss_growth_bound_kib = 64 * 1024;  // 64 MiB

http::client_options hostile_options() {
  http::client_options o;
  o.connect_timeout = 1s;
  o.handshake_timeout = 1s;
  o.write_timeout = 1s;
  o.read_timeout = 1s;
  o.max_body_bytes = cap;
  o.max_retries = 0;
  o.sleep = [](std::chrono::milliseconds) {};
  return o;
}

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;  // KiB on Linux
}

// The time and the growth of the process's peak RSS across one case, kept in the XML report
// (--gtest_output=xml) as elapsed_ms and rss_growth_kib for worst-case figures.
class bounds {
 public:
  bounds() = default;
  bounds(const bounds&) = delete;
  bounds& operator=(const bounds&) = delete;
  ~bounds() {
    ::testing::Test::RecordProperty("elapsed_ms", std::to_string(elapsed().count()));
    ::testing::Test::RecordProperty("rss_growth_kib", std::to_string(rss_growth_kib()));
  }
  [[nodiscard]] std::chrono::milliseconds elapsed() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start_);
  }
  [[nodiscard]] long rss_growth_kib() const { return peak_rss_kib() - rss_; }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  long rss_ = peak_rss_kib();
};

// The error's message, kept in the XML report beside the figures.
template <class Result>
void record_error(const Result& r) {
  if (!r.has_value()) ::testing::Test::RecordProperty("error", r.error().message());
}

std::string temp_file(const std::string& name, const std::string& content) {
  auto path = std::filesystem::temp_directory_path() / ("neograde-hostile-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << content;
  return path.string();
}

const std::string ok_head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n";

// A Lambda-shaped offers document with one offer whose price field is `price` (raw JSON).
std::string offers_with_price(const std::string& price) {
  return R"({"data":{"gpu_1x_a10":{"instance_type":{"name":"gpu_1x_a10","price_cents_per_hour":)" + price +
         R"(},"regions_with_capacity_available":[{"name":"us-east-1"}]}}})";
}

// The server counts a handshake a moment after the client has finished its side.
bool handshakes_reach(const hostile_server& s, int n) {
  for (auto end = std::chrono::steady_clock::now() + 2s; std::chrono::steady_clock::now() < end; std::this_thread::sleep_for(10ms))
    if (s.handshakes() >= n) return true;
  return false;
}

bool has_cr_or_lf(const std::string& s) { return s.find_first_of("\r\n") != std::string::npos; }

}  // namespace

// 1. Valid chunks forever: the body limit counts chunked payload too.
TEST(HostileBody, EndlessChunkedBodyStopsAtTheCap) {
  hostile_server s(hostile_server::endless_chunked(64 * 1024));
  http::client c(hostile_options());
  bounds b;
  auto r = c.send({"GET", s.url(), {}, {}});
  record_error(r);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, http::client_errc::body_too_large) << r.error().message();
  EXPECT_NE(r.error().message().find("limit is 1048576 bytes"), std::string::npos) << r.error().message();
  EXPECT_LT(b.elapsed(), give_up_bound);
  EXPECT_LT(b.rss_growth_kib(), rss_growth_bound_kib);
  EXPECT_GE(s.bytes_sent(), cap);  // the server did offer more than the cap
  EXPECT_TRUE(c.last_exchange().response_body.empty());
}

// 2. Slowloris: one byte of header every 200 ms, forever (here: for 20 s, after which the server
// goes silent, so that a client whose deadline restarts with every byte fails this test at
// about 21 s instead of hanging it). The read deadline bounds the whole response.
TEST(Hostile, SlowlorisHeadersTimeOutWithinTheReadDeadline) {
  hostile_server s(hostile_server::trickle("HTTP/1.1 200 OK\r\nX-Slow: ", "x", 200ms, 20s));
  auto o = hostile_options();
  o.read_timeout = 1s;
  http::client c(o);
  bounds b;
  auto r = c.send({"GET", s.url(), {}, {}});
  record_error(r);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, http::client_errc::timeout) << r.error().message();
  EXPECT_NE(r.error().message().find("reading the response"), std::string::npos) << r.error().message();
  EXPECT_LT(b.elapsed(), give_up_bound);  // 1 s here; a deadline restarted per byte takes ~21 s
  EXPECT_GE(s.bytes_sent(), 3u);          // bytes did keep coming while the client waited
}

// 3. TCP accepted, then not a byte: the ClientHello is never answered.
TEST(HostileTls, HandshakeThatNeverCompletesTimesOut) {
  hostile_server s(hostile_server::silent());
  auto o = hostile_options();
  o.handshake_timeout = 500ms;
  http::client c(o);
  bounds b;
  auto r = c.send({"GET", s.https_url(), {}, {}});
  record_error(r);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, http::client_errc::timeout) << r.error().message();
  EXPECT_NE(r.error().message().find("TLS handshake"), std::string::npos) << r.error().message();
  EXPECT_LT(b.elapsed(), give_up_bound);
  EXPECT_EQ(s.connections(), 1);
}

// A GET to a TLS server trusting `ca_pem` must fail the handshake, saying `why`, in bounded time.
void expect_handshake_refused(const hostile_server& s, const std::string& ca_pem, const std::string& why) {
  auto o = hostile_options();
  o.extra_ca_file = temp_file("ca-" + std::to_string(s.port()) + ".pem", ca_pem);
  http::client c(o);
  bounds b;
  auto r = c.send({"GET", s.url(), {}, {}});
  record_error(r);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, http::client_errc::tls_handshake_failed) << r.error().message();
  EXPECT_NE(r.error().message().find(why), std::string::npos) << r.error().message();
  EXPECT_LT(b.elapsed(), give_up_bound);
}

// 4. A certificate the client trusts, but whose notAfter is past.
TEST(HostileTls, ExpiredCertificateIsRefused) {
  emulator::certificate_options co;
  co.not_before_s = -30L * 24 * 3600;
  co.not_after_s = -24L * 3600;
  auto cert = emulator::make_self_signed({}, {"127.0.0.1"}, co);
  hostile_server s(hostile_server::send_then_hold(scripted_server::response(200, "{}")),
                   test::tls_setup{cert.certificate, cert.private_key});
  expect_handshake_refused(s, cert.certificate, "certificate has expired");
  EXPECT_EQ(s.handshakes(), 0);
}

// 4b. The outcome of a certificate for another name is tested in http_client_test.cpp; here, that
// the message says what failed rather than "unspecified".
TEST(HostileTls, CertificateForAnotherHostSaysSo) {
  auto cert = emulator::make_self_signed({}, {"127.0.0.2"});
  hostile_server s(hostile_server::send_then_hold(scripted_server::response(200, "{}")),
                   test::tls_setup{cert.certificate, cert.private_key});
  expect_handshake_refused(s, cert.certificate, "mismatch");
}

// 5. A trusted, valid, matching certificate with a 1024-bit RSA key (80 bits of security; NIST
// SP 800-131A disallows it since 2013).
TEST(HostileTls, WeakRsaKeyIsRefused) {
  emulator::certificate_options co;
  co.rsa_bits = 1024;
  auto cert = emulator::make_self_signed({}, {"127.0.0.1"}, co);
  test::tls_setup tls{cert.certificate, cert.private_key};
  tls.legacy = true;
  hostile_server s(hostile_server::send_then_hold(scripted_server::response(200, "{}")), tls);
  // The server does serve it to a client that accepts weak keys.
  ASSERT_EQ(test::probe_tls(s.port(), TLS1_2_VERSION, 0), "");
  ASSERT_TRUE(handshakes_reach(s, 1));
  expect_handshake_refused(s, cert.certificate, "key too weak");
  EXPECT_EQ(s.handshakes(), 1);  // only the probe's
}

// 6. A server that speaks TLS 1.0 only; the client's minimum is TLS 1.2 (RFC 8996 deprecates
// TLS 1.0 and 1.1).
TEST(HostileTls, Tls10OnlyServerIsRefused) {
  auto pair = emulator::make_self_signed({"localhost"}, {"127.0.0.1"});
  test::tls_setup tls{pair.certificate, pair.private_key, TLS1_VERSION, TLS1_VERSION, true};
  hostile_server s(hostile_server::send_then_hold(scripted_server::response(200, "{}")), tls);
  ASSERT_EQ(test::probe_tls(s.port(), TLS1_VERSION, 0), "");  // it really does speak TLS 1.0
  ASSERT_TRUE(handshakes_reach(s, 1));
  expect_handshake_refused(s, pair.certificate, "protocol");
  EXPECT_EQ(s.handshakes(), 1);  // only the probe's
}

// 7. A redirect to itself, with more redirects waiting: the 302 comes back after one request.
TEST(Hostile, RedirectLoopIsReturnedNotFollowed) {
  std::vector<scripted_reply> loop(5, scripted_reply{scripted_server::response(302, "", "Location: /loop\r\n"), false});
  scripted_server s(loop);
  http::client c(hostile_options());
  bounds b;
  auto r = c.send({"GET", s.url("/loop"), {{"Authorization", "Bearer k"}}, {}});
  record_error(r);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->status, 302);
  EXPECT_EQ(r->header("Location"), "/loop");
  EXPECT_EQ(s.requests().size(), 1u);
  EXPECT_EQ(s.connections(), 1);
  EXPECT_LT(b.elapsed(), give_up_bound);
}

// 8. Bytes that are not UTF-8 inside a JSON string: no JSON, and the evidence still serialises.
TEST(HostileBody, InvalidUtf8InJsonIsNotJsonAndTheEvidenceSerialises) {
  const std::string body = std::string(R"({"data":{"x":{"instance_type":{"name":"bad )") + "\xff\xfe" +
                           R"(","price_cents_per_hour":75},"regions_with_capacity_available":[]}}})";
  scripted_server s({{scripted_server::response(200, body)}});
  const auto& spec = test::spec("lambda");
  provider_client pc(spec, s.url(""), "key-one", hostile_options());
  bounds b;
  typed_result<std::vector<offer>> offers;
  ASSERT_NO_THROW(offers = pc.list_offers());
  EXPECT_TRUE(offers.call.success) << offers.call.describe();
  EXPECT_FALSE(offers.call.json.has_value());
  EXPECT_FALSE(offers.value.has_value());
  EXPECT_EQ(offers.problem, "the response is not JSON");
  const auto& evidence = offers.call.evidence;
  // Binary: kept byte for byte, in base64 beside an empty body, never escaped into JSON.
  EXPECT_EQ(evidence.response_body, "");
  ASSERT_TRUE(evidence.response_body_digest.has_value());
  EXPECT_EQ(evidence.response_body_digest->binary, "not UTF-8 at offset 43");
  EXPECT_EQ(whole_body(evidence.response_body, evidence.response_body_digest), std::nullopt) << "longer than the head";
  EXPECT_EQ(evidence.response_body_digest->sha256, sha256_hex(body));
  std::string line, text;
  EXPECT_NO_THROW(line = curl_command(redactor{}.apply(evidence), spec));
  EXPECT_FALSE(has_cr_or_lf(line));
  EXPECT_NO_THROW(text = dump_json(nlohmann::json(evidence)));
  EXPECT_EQ(text.find("\xef\xbf\xbd"), std::string::npos);  // no U+FFFD: nothing was replaced
  EXPECT_LT(b.elapsed(), give_up_bound);
}

// 9. 100,000 levels of nesting: refused before the recursive parser would overflow the stack.
TEST(HostileBody, DeeplyNestedJsonIsRefusedNotRecursedInto) {
  const std::string body = std::string(100'000, '[') + std::string(100'000, ']');
  scripted_server s({{scripted_server::response(200, body)}});
  provider_client pc(test::spec("lambda"), s.url(""), "key-one", hostile_options());
  bounds b;
  auto offers = pc.list_offers();
  EXPECT_TRUE(offers.call.success) << offers.call.describe();
  EXPECT_FALSE(offers.call.json.has_value());
  EXPECT_FALSE(offers.value.has_value());
  EXPECT_NE(offers.problem.find("not JSON"), std::string::npos) << offers.problem;
  // The evidence keeps the first 16 KiB, with the whole length and hash.
  EXPECT_EQ(offers.call.evidence.response_body, body.substr(0, 16 * 1024));
  ASSERT_TRUE(offers.call.evidence.response_body_digest.has_value());
  EXPECT_EQ(offers.call.evidence.response_body_digest->bytes, body.size());
  EXPECT_LT(b.elapsed(), give_up_bound);
}

// 10. Numbers beyond double's range, as JSON numbers and as numeric strings: an offer's price is
// absent or finite, never inf or NaN (a NaN price would poison cheapest_offer's comparisons).
TEST(HostileBody, HugeNumbersGiveNoPriceOrAFiniteOne) {
  const std::vector<std::string> prices = {"1e999999",   "-1e999999",   "123456789012345678901234567890",
                                           R"("1e400")", R"("-1e400")", R"("1e-400")"};
  std::vector<scripted_reply> replies;
  for (const auto& p : prices) replies.push_back({scripted_server::response(200, offers_with_price(p))});
  scripted_server s(replies);
  provider_client pc(test::spec("lambda"), s.url(""), "key-one", hostile_options());
  bounds b;
  int mapped = 0;
  for (const auto& p : prices) {
    SCOPED_TRACE(p);
    auto offers = pc.list_offers();
    ASSERT_TRUE(offers.call.success) << offers.call.describe();
    if (!offers.value) continue;
    ASSERT_EQ(offers.value->size(), 1u);
    const auto& price = offers.value->front().price_per_hour_usd;
    if (price) {
      EXPECT_TRUE(std::isfinite(*price)) << *price;
      ++mapped;
    }
  }
  EXPECT_GE(mapped, 1);  // 1.2e29 cents is absurd but finite: the mapping did run
}

// Pages that never end (issue 39 point 6): each with rows and a token of its own, none the last. The
// walk is bounded by count: it stops at 1000 pages and says so, instead of looping (or growing)
// for as long as the provider answers.
TEST(HostilePages, AWalkThatNeverEndsStopsAtItsBound) {
  const auto& spec = test::spec("crusoe");  // a token walk: only an empty token ends it
  const auto& op = *spec.operation(operation_id::list);
  std::vector<scripted_reply> replies;
  for (int i = 0; i < 1001; ++i) {
    nlohmann::json page = nlohmann::json::object();
    set_pointer(page, *op.items, nlohmann::json::array({{{"id", "vm-" + std::to_string(i)}}}));
    set_pointer(page, op.pagination->next_pointer, "token-" + std::to_string(i));
    replies.push_back({scripted_server::response(200, page.dump())});
  }
  scripted_server s(replies);
  provider_client pc(spec, s.url(""), "key-one", hostile_options());
  bounds b;
  const auto walked = pc.walk(operation_id::list);
  EXPECT_FALSE(walked.value);
  EXPECT_EQ(walked.problem, "the walk did not end within 1000 pages");
  EXPECT_EQ(s.requests().size(), 1000u);
}

// 10b. Numeric strings that std::stod reads as non-finite ("NaN", "inf"): no price (a NaN price
// would make cheapest_offer's comparisons meaningless).
TEST(HostileBody, NonFiniteNumericStringsGiveNoPrice) {
  const std::vector<std::string> prices = {R"("NaN")", R"("inf")", R"("-Infinity")"};
  std::vector<scripted_reply> replies;
  for (const auto& p : prices) replies.push_back({scripted_server::response(200, offers_with_price(p))});
  scripted_server s(replies);
  provider_client pc(test::spec("lambda"), s.url(""), "key-one", hostile_options());
  for (const auto& p : prices) {
    SCOPED_TRACE(p);
    auto offers = pc.list_offers();
    ASSERT_TRUE(offers.value.has_value()) << offers.call.describe() << offers.problem;
    ASSERT_EQ(offers.value->size(), 1u);
    const auto& price = offers.value->front().price_per_hour_usd;
    EXPECT_TRUE(!price || std::isfinite(*price)) << *price;
  }
}

// 11. Duplicate member names (RFC 8259 §4: "SHOULD be unique"): the last one wins, every time.
TEST(HostileBody, DuplicateKeysKeepTheLastDeterministically) {
  const std::string body = R"({"data":{"gpu_1x_a10":{"instance_type":{"name":"first","price_cents_per_hour":100},)"
                           R"("instance_type":{"name":"second","price_cents_per_hour":200},"regions_with_capacity_available":[]}},)"
                           R"("data":{"gpu_1x_a10":{"instance_type":{"name":"third","price_cents_per_hour":300},)"
                           R"("instance_type":{"name":"fourth","price_cents_per_hour":400},"regions_with_capacity_available":[]}}})";
  scripted_server s({{scripted_server::response(200, body)}, {scripted_server::response(200, body)}});
  provider_client pc(test::spec("lambda"), s.url(""), "key-one", hostile_options());
  for (int i = 0; i < 2; ++i) {
    auto offers = pc.list_offers();
    ASSERT_TRUE(offers.value.has_value()) << offers.call.describe() << offers.problem;
    ASSERT_EQ(offers.value->size(), 1u);
    EXPECT_EQ(offers.value->front().instance_type, "fourth");
    EXPECT_EQ(offers.value->front().price_per_hour_usd, 4.0);
  }
}

// 12a. NUL bytes inside a body: kept, all of them, at their places, in the response; the
// evidence shows the body as binary (length, hash, head), not 3,000 bytes escaped into JSON.
TEST(HostileBody, NulBytesInTheBodyAreKept) {
  std::string body;
  for (int i = 0; i < 1000; ++i) body += std::string("{\0}", 3);
  scripted_server s({{scripted_server::response(200, body)}});
  http::client c(hostile_options());
  auto r = c.send({"GET", s.url(), {}, {}});
  record_error(r);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->body.size(), 3000u);
  EXPECT_EQ(r->body, body);
  const auto& kept = c.last_exchange();
  EXPECT_EQ(kept.response_body, "");
  ASSERT_TRUE(kept.response_body_digest.has_value());
  EXPECT_EQ(kept.response_body_digest->bytes, 3000u);
  EXPECT_EQ(kept.response_body_digest->binary, "a NUL byte at offset 1");
  std::string text;
  EXPECT_NO_THROW(text = dump_json(nlohmann::json(kept)));
  EXPECT_EQ(text.find("\\u0000"), std::string::npos) << text;
}

// 12b. A NUL byte inside a header value (RFC 9110 §5.5: field values MUST NOT contain NUL).
TEST(Hostile, NulByteInAHeaderValueIsABadResponse) {
  scripted_server s({{ok_head + "X-Nul: a" + std::string(1, '\0') + "b\r\nContent-Length: 2\r\n\r\n{}"}});
  http::client c(hostile_options());
  auto r = c.send({"GET", s.url(), {}, {}});
  record_error(r);
  ASSERT_FALSE(r.has_value()) << "kept X-Nul of " << r->header("X-Nul").size() << " bytes";
  EXPECT_EQ(r.error().code, http::client_errc::bad_response) << r.error().message();
}

// 13. A bare CR inside a header value (RFC 9112 §2.2: a recipient MAY treat a bare CR as invalid
// and reject the message) is refused; an obs-fold (RFC 9112 §5.2: replace it with a space) is kept
// without its line break.
TEST(Hostile, BareCrOrObsFoldInAHeaderLeavesNoLineBreak) {
  scripted_server s(
      {{ok_head + "X-Echo: a\rb\r\nContent-Length: 2\r\n\r\n{}"}, {ok_head + "X-Echo: a\r\n b\r\nContent-Length: 2\r\n\r\n{}"}});
  http::client c(hostile_options());
  auto bare_cr = c.send({"GET", s.url(), {}, {}});
  ASSERT_FALSE(bare_cr.has_value()) << "kept " << bare_cr->header("X-Echo");
  EXPECT_EQ(bare_cr.error().code, http::client_errc::bad_response) << bare_cr.error().message();
  auto folded = c.send({"GET", s.url(), {}, {}});
  ASSERT_TRUE(folded.has_value()) << folded.error().message();
  const auto value = folded->header("X-Echo");
  EXPECT_FALSE(has_cr_or_lf(value)) << value;
  EXPECT_TRUE(value.starts_with("a") && value.ends_with("b")) << value;
  for (const auto& [k, v] : c.last_exchange().response_headers) EXPECT_FALSE(has_cr_or_lf(k + v)) << k;
  // A reproduction of what the client kept is one line.
  const auto line = curl_command(c.last_exchange(), test::spec("lambda"));
  EXPECT_FALSE(has_cr_or_lf(line)) << line;
}

// 13b. A curl reproduction of an exchange whose request carries a line break (a header value, a
// raw() body such as the fuzzer sends, a URL) is one line: control bytes are written as $'\r',
// $'\n' (shell_quote) or percent-encoded in the URL.
TEST(Hostile, CurlReproductionOfALineBreakIsOneLine) {
  exchange e;
  e.method = "POST";
  e.url = "http://127.0.0.1:9/instances/a\rb";
  e.request_headers = {{"X-Echo", "a\rb"}, {"X-Fold", "a\r\n b"}, {"Authorization", "<redacted>"}};
  e.request_body = "{\"a\":\n1}";
  const auto line = curl_command(e, test::spec("lambda"));
  EXPECT_FALSE(has_cr_or_lf(line)) << line;
}

// 14. A gzip bomb (about 100 KiB inflating to 100 MiB): the client asks for no encoding and
// inflates nothing, so the body kept is the compressed bytes, under the cap.
TEST(HostileBody, GzipBombIsKeptCompressed) {
  const auto bomb = test::gzip_bomb();
  ASSERT_LT(bomb.size(), 128u * 1024);
  scripted_server s({{ok_head + "Content-Encoding: gzip\r\nContent-Length: " + std::to_string(bomb.size()) + "\r\n\r\n" + bomb}});
  http::client c(hostile_options());
  bounds b;
  auto r = c.send({"GET", s.url(), {}, {}});
  record_error(r);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->header("Content-Encoding"), "gzip");
  EXPECT_EQ(r->body.size(), bomb.size());
  EXPECT_LE(r->body.size(), cap);
  EXPECT_EQ(r->body, bomb);
  ASSERT_EQ(s.requests().size(), 1u);
  std::string head = s.requests().front();
  for (auto& ch : head) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  EXPECT_EQ(head.find("accept-encoding"), std::string::npos) << s.requests().front();
  EXPECT_LT(b.elapsed(), give_up_bound);
  EXPECT_LT(b.rss_growth_kib(), rss_growth_bound_kib);
}

// 14b. The bomb issue 36 measured (4 MiB inflating to 4 GiB): the response keeps every
// compressed byte, the exchange kept as evidence a few hundred (issue 36: every exchange's
// evidence held the 4 MiB, escaped six bytes each, and a run wrote 1.9 GB).
TEST(HostileBody, GzipBombEvidenceIsItsLengthHashAndHead) {
  const auto bomb = test::gzip_bomb(test::gzip_bomb_4gib_matches);
  ASSERT_GT(bomb.size(), 4'000'000u);
  scripted_server s({{ok_head + "Content-Encoding: gzip\r\nContent-Length: " + std::to_string(bomb.size()) + "\r\n\r\n" + bomb}});
  auto o = hostile_options();
  o.max_body_bytes = 16 * 1024 * 1024;  // the default: the bomb is within it
  http::client c(o);
  auto r = c.send({"GET", s.url(), {}, {}});
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->body, bomb);
  const auto& kept = c.last_exchange();
  EXPECT_EQ(kept.response_body, "");
  ASSERT_TRUE(kept.response_body_digest.has_value());
  EXPECT_EQ(kept.response_body_digest->bytes, bomb.size());
  EXPECT_EQ(kept.response_body_digest->sha256, sha256_hex(bomb));
  EXPECT_EQ(kept.response_body_digest->binary, "Content-Encoding: gzip");
  EXPECT_EQ(kept.response_body_digest->head_base64, base64_encode(bomb.substr(0, 48)));
  EXPECT_LT(dump_json(nlohmann::json(kept)).size(), 2048u);
  EXPECT_LT(c.transcript().back().response_body.capacity(), 64u);
}

// 15. Content-Length 10000, 100 bytes, then RST: an error, not a short success.
TEST(Hostile, ResetMidBodyIsAReadFailure) {
  hostile_server s(hostile_server::reset_after(ok_head + "Content-Length: 10000\r\n\r\n", 100));
  http::client c(hostile_options());
  bounds b;
  auto r = c.send({"GET", s.url(), {}, {}});
  record_error(r);
  ASSERT_FALSE(r.has_value()) << "a " << r->body.size() << "-byte body";
  EXPECT_EQ(r.error().code, http::client_errc::read_failed) << r.error().message();
  EXPECT_NE(r.error().message().find("reset"), std::string::npos) << r.error().message();
  EXPECT_LT(b.elapsed(), give_up_bound);
  EXPECT_EQ(s.connections(), 1);  // not retried: the response had begun
}

// 16. An HTTP/0.9-style answer: a body with no status line, then close.
TEST(Hostile, Http09StyleReplyIsABadResponse) {
  scripted_server s({{R"({"a":1})"}});
  http::client c(hostile_options());
  bounds b;
  auto r = c.send({"GET", s.url(), {}, {}});
  record_error(r);
  ASSERT_FALSE(r.has_value()) << "status " << r->status;
  // No status line ever comes: the connection ends inside the start line ("partial message").
  EXPECT_TRUE(r.error().code == http::client_errc::bad_response || r.error().code == http::client_errc::read_failed) << r.error().message();
  EXPECT_NE(r.error().message().find("partial message"), std::string::npos) << r.error().message();
  EXPECT_LT(b.elapsed(), give_up_bound);
}

// 17. Content-Length: 10 GB, then nothing: refused from the header alone, without waiting for
// (or allocating) the body; a client that waited would time out instead.
TEST(HostileBody, TenGigabyteContentLengthIsRefusedAtOnce) {
  hostile_server s(hostile_server::send_then_hold(ok_head + "Content-Length: 10000000000\r\n\r\n"));
  auto o = hostile_options();
  o.read_timeout = 5s;
  http::client c(o);
  bounds b;
  auto r = c.send({"GET", s.url(), {}, {}});
  record_error(r);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, http::client_errc::body_too_large) << r.error().message();
  EXPECT_LT(b.elapsed(), o.read_timeout);  // it did not wait for the body
  EXPECT_LT(b.rss_growth_kib(), rss_growth_bound_kib);
}

// --- HTTP framing as real servers do it (issue 17, point 9) -------------------------------
// A response to HEAD, and any 1xx, 204 or 304, ends with its header section whatever its
// Content-Length says (RFC 9110 §6.4.1, §9.3.2; RFC 9112 §6.3). Most servers send HEAD the
// length GET would have; a client that believed it would wait for content that never comes.

namespace {

const std::string get_body = R"({"data":[]})";
const std::string get_answer = ok_head + "Content-Length: 11\r\n\r\n" + get_body;

// Answers a request for /next with get_answer, any other with `other`. (No request here has a
// body, so each read of a head is one whole request.)
test::hostile_behaviour other_then_get(std::string other) {
  return hostile_server::answer_each([other = std::move(other)](const std::string& head) {
    return head.find(" /next HTTP/1.1\r\n") != std::string::npos ? get_answer : other;
  });
}

// The request heads' methods, in order.
std::vector<std::string> methods(const hostile_server& s) {
  std::vector<std::string> out;
  for (const auto& head : s.requests()) out.push_back(head.substr(0, head.find(' ')));
  return out;
}

// `first` (a request to s), then a GET on the same connection, which must read get_answer.
void expect_get_after_on_one_connection(http::client& c, const hostile_server& s, const char* first) {
  auto next = c.send({"GET", s.url("/next"), {}, {}});
  record_error(next);
  ASSERT_TRUE(next.has_value()) << next.error().message();
  EXPECT_EQ(next->status, 200);
  EXPECT_EQ(next->body, get_body);
  EXPECT_EQ(s.connections(), 1);
  EXPECT_EQ(methods(s), (std::vector<std::string>{first, "GET"}));
}

}  // namespace

// A HEAD answer announcing 10 GB, ten thousand times the cap, and sending nothing more: the
// client returns the status and headers at once, neither waiting for (a timeout) nor refusing
// (body_too_large) content that a HEAD answer never has.
TEST(HttpClientFraming, HeadIgnoresContentLength) {
  hostile_server s(hostile_server::send_then_hold(ok_head + "Content-Length: 10000000000\r\n\r\n"));
  http::client c(hostile_options());
  bounds b;
  auto r = c.send({"HEAD", s.url(), {}, {}});
  record_error(r);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("Content-Length"), "10000000000");
  EXPECT_TRUE(r->body.empty());
  EXPECT_TRUE(c.last_exchange().error.empty()) << c.last_exchange().error;
  EXPECT_LT(b.elapsed(), give_up_bound);
}

// Transfer-Encoding: chunked on a HEAD answer announces no chunk either.
TEST(HttpClientFraming, HeadIgnoresTransferEncoding) {
  hostile_server s(hostile_server::send_then_hold(ok_head + "Transfer-Encoding: chunked\r\n\r\n"));
  http::client c(hostile_options());
  auto r = c.send({"HEAD", s.url(), {}, {}});
  record_error(r);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(r->body.empty());
}

// The connection stays in step after a HEAD answer with a length: the next request on it reads
// its own answer, not a body the HEAD answer never had.
TEST(HttpClientFraming, HeadThenGetOnOneKeptAliveConnection) {
  hostile_server s(other_then_get(ok_head + "Content-Length: 11\r\n\r\n"));
  http::client c(hostile_options());
  auto head = c.send({"HEAD", s.url(), {}, {}});
  record_error(head);
  ASSERT_TRUE(head.has_value()) << head.error().message();
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->header("Content-Length"), "11");
  EXPECT_TRUE(head->body.empty());
  expect_get_after_on_one_connection(c, s, "HEAD");
}

// The same over TLS, where the stream is read through OpenSSL's buffers.
TEST(HttpClientFraming, HeadThenGetOnOneKeptAliveTlsConnection) {
  auto pair = emulator::make_self_signed({"localhost"}, {"127.0.0.1"});
  hostile_server s(other_then_get(ok_head + "Content-Length: 11\r\n\r\n"), test::tls_setup{pair.certificate, pair.private_key});
  auto o = hostile_options();
  o.extra_ca_file = temp_file("framing-ca.pem", pair.certificate);
  http::client c(o);
  auto head = c.send({"HEAD", s.url(), {}, {}});
  record_error(head);
  ASSERT_TRUE(head.has_value()) << head.error().message();
  EXPECT_TRUE(head->body.empty());
  expect_get_after_on_one_connection(c, s, "HEAD");
}

// 204 No Content with a Content-Length (RFC 9110 §8.6: a server MUST NOT send one; some do):
// no content is read, and the connection stays usable.
TEST(HttpClientFraming, NoContentIgnoresContentLength) {
  hostile_server s(other_then_get("HTTP/1.1 204 No Content\r\nContent-Length: 1000\r\n\r\n"));
  http::client c(hostile_options());
  bounds b;
  auto r = c.send({"DELETE", s.url("/instances/1"), {}, {}});
  record_error(r);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->status, 204);
  EXPECT_TRUE(r->body.empty());
  EXPECT_LT(b.elapsed(), give_up_bound);
  expect_get_after_on_one_connection(c, s, "DELETE");
}

// 304 Not Modified with the length of the representation it stands for (RFC 9110 §8.6 allows it).
TEST(HttpClientFraming, NotModifiedIgnoresContentLength) {
  hostile_server s(other_then_get("HTTP/1.1 304 Not Modified\r\nETag: \"a\"\r\nContent-Length: 1000\r\n\r\n"));
  http::client c(hostile_options());
  bounds b;
  auto r = c.send({"GET", s.url("/conditional"), {{"If-None-Match", "\"a\""}}, {}});
  record_error(r);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->status, 304);
  EXPECT_EQ(r->header("ETag"), "\"a\"");
  EXPECT_TRUE(r->body.empty());
  EXPECT_LT(b.elapsed(), give_up_bound);
  expect_get_after_on_one_connection(c, s, "GET");
}

// Interim responses (100 Continue, 103 Early Hints, one with a stray Content-Length) before the
// final one: the final one is returned, and the connection stays in step.
TEST(HttpClientFraming, InterimResponsesAreSkipped) {
  hostile_server s(
      other_then_get("HTTP/1.1 100 Continue\r\n\r\n"
                     "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\nContent-Length: 5\r\n\r\n" +
                     scripted_server::response(201, R"({"id":"i-1"})")));
  http::client c(hostile_options());
  auto r = c.send({"GET", s.url("/instances/i-1"), {}, {}});
  record_error(r);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->status, 201);
  EXPECT_EQ(r->body, R"({"id":"i-1"})");
  EXPECT_TRUE(r->header("Link").empty()) << "the headers are the final response's";
  expect_get_after_on_one_connection(c, s, "GET");
}

// Only interim responses, then the end of the connection: a response cut short, not a 100.
TEST(HttpClientFraming, InterimResponseAloneIsNotAnAnswer) {
  scripted_server s({{"HTTP/1.1 100 Continue\r\n\r\n"}});
  http::client c(hostile_options());
  auto r = c.send({"GET", s.url(), {}, {}});
  record_error(r);
  ASSERT_FALSE(r.has_value()) << "status " << r->status;
  EXPECT_EQ(r.error().code, http::client_errc::read_failed) << r.error().message();
}

// 101 Switching Protocols is final (RFC 9110 §15.2.2): it is returned, and the connection, which
// no longer speaks HTTP/1.1, is not reused.
TEST(HttpClientFraming, SwitchingProtocolsIsFinalAndEndsTheConnection) {
  hostile_server s(other_then_get("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"));
  http::client c(hostile_options());
  auto r = c.send({"GET", s.url(), {{"Upgrade", "websocket"}, {"Connection", "Upgrade"}}, {}});
  record_error(r);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->status, 101);
  auto next = c.send({"GET", s.url("/next"), {}, {}});
  record_error(next);
  ASSERT_TRUE(next.has_value()) << next.error().message();
  EXPECT_EQ(next->body, get_body);
  EXPECT_EQ(s.connections(), 2);
}

// A server that does send content after a HEAD answer (RFC 9110 §9.3.2: it MUST NOT), in the
// same write: those bytes are not taken for the start of the next response, because a
// connection with bytes left over after a response is not reused.
TEST(HttpClientFraming, BytesAfterAHeadAnswerAreNotTheNextResponse) {
  hostile_server s(other_then_get(ok_head + "Content-Length: 11\r\n\r\n" + get_body));
  http::client c(hostile_options());
  auto head = c.send({"HEAD", s.url(), {}, {}});
  record_error(head);
  ASSERT_TRUE(head.has_value()) << head.error().message();
  EXPECT_TRUE(head->body.empty());
  auto next = c.send({"GET", s.url("/next"), {}, {}});
  record_error(next);
  ASSERT_TRUE(next.has_value()) << next.error().message();
  EXPECT_EQ(next->status, 200);
  EXPECT_EQ(next->body, get_body);
  EXPECT_EQ(s.connections(), 2);
}
