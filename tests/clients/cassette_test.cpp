#include <neograde/clients/cassette.hpp>

#include "../support/http_options.hpp"
#include "../support/scripted_server.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace neograde;
using test::fast_options;
using namespace std::chrono_literals;
using test::scripted_server;

namespace {

// A file in the temporary directory, removed when the test ends.
class temp_path {
 public:
  explicit temp_path(const std::string& name)
      : path_(std::filesystem::temp_directory_path() / ("neograde-cassette-" + std::to_string(::getpid()) + "-" + name + ".jsonl")) {
    std::filesystem::remove(path_);
  }
  ~temp_path() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  temp_path(const temp_path&) = delete;
  temp_path& operator=(const temp_path&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

cassette_header test_header() {
  cassette_header h;
  h.provider = "lambda";
  h.base_url = "http://api.test";
  h.run_id = "0a1b2c3d";
  h.recorded_source = result_source::emulated;
  h.time_scale = 1.0;
  h.recorded_at = "2026-11-30T00:00:00Z";
  return h;
}

// One recorded exchange answered with a response; a request with a body says it is JSON.
recorded_exchange recorded(std::size_t seq, std::string method, std::string url, std::string body, int status, std::string response_body,
                           double t_ms = 0, double duration_ms = 1, header_list response_headers = {{"Content-Type", "application/json"}}) {
  recorded_exchange e;
  e.seq = seq;
  e.t_ms = t_ms;
  e.duration_ms = duration_ms;
  e.request.method = std::move(method);
  e.request.url = std::move(url);
  e.request.headers = {{"Host", "api.test"}, {"Authorization", "<redacted>"}};
  if (!body.empty()) e.request.headers.emplace_back("Content-Type", "application/json");
  e.request.body = std::move(body);
  e.response = http::response{status, std::move(response_headers), std::move(response_body)};
  return e;
}

std::string cassette_text(const std::vector<recorded_exchange>& exchanges) {
  std::string out = to_jsonl(test_header());
  for (const auto& e : exchanges) out += to_jsonl(e);
  return out;
}

std::shared_ptr<replayer> replayer_of(const std::vector<recorded_exchange>& exchanges) {
  auto parsed = parse_cassette(cassette_text(exchanges));
  if (!parsed) throw std::runtime_error(parsed.error());
  return std::make_shared<replayer>(*parsed);
}

http::client_options replaying(const std::shared_ptr<replayer>& from) {
  auto o = fast_options();
  replay_from(o, from);
  return o;
}

const header_list json_body = {{"Content-Type", "application/json"}};

// The two-exchange cassette most replay tests use.
std::vector<recorded_exchange> two_exchanges() {
  return {recorded(0, "GET", "http://api.test/a", "", 200, R"({"a":1})"),
          recorded(1, "POST", "http://api.test/b", R"({"n":1})", 201, R"({"id":"i-1"})")};
}

std::string parse_error(const std::string& text) {
  auto parsed = parse_cassette(text);
  if (parsed) return "(parsed)";
  return parsed.error();
}

}  // namespace

TEST(Cassette, RecordsAndReplaysThroughTheClient) {
  temp_path file("record-replay");
  std::string refused;
  {
    scripted_server gone({});
    refused = gone.url("/nobody");
  }
  std::vector<http::request> requests;
  std::vector<boost::system::result<http::response, http::transport_error>> live;
  std::deque<exchange> live_transcript;
  {
    scripted_server s({{scripted_server::response(200, R"({"a":1})")},
                       {scripted_server::response(201, R"({"id":"i-1"})", "Location: /b/i-1\r\n")},
                       {scripted_server::response(404, R"({"error":"not found"})")}});
    requests = {{"GET", s.url("/a"), {}, {}},
                {"POST", s.url("/b"), json_body, R"({"name":"x"})"},
                {"GET", s.url("/missing"), {}, {}},
                {"GET", refused, {}, {}}};
    auto writer = std::make_shared<cassette_writer>(file.path(), test_header());
    auto o = fast_options();
    record_into(o, writer);
    http::client c(o);
    for (const auto& r : requests) live.push_back(c.send(r));
    EXPECT_EQ(writer->size(), 4u);
    live_transcript = c.transcript();
  }  // the server is gone: a replay that touched the network would fail

  auto loaded = load_cassette(file.path());
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->header.provider, "lambda");
  EXPECT_EQ(loaded->header.run_id, "0a1b2c3d");
  ASSERT_EQ(loaded->exchanges.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(loaded->exchanges[i].seq, i);
    EXPECT_EQ(loaded->exchanges[i].request.method, requests[i].method);
    EXPECT_EQ(loaded->exchanges[i].request.url, requests[i].url);
    EXPECT_EQ(loaded->exchanges[i].request.headers, live_transcript[i].request_headers);
    if (i > 0) {
      EXPECT_LE(loaded->exchanges[i - 1].t_ms, loaded->exchanges[i].t_ms);
    }
  }
  ASSERT_TRUE(loaded->exchanges[0].response);
  EXPECT_EQ(loaded->exchanges[0].response->status, 200);
  EXPECT_EQ(loaded->exchanges[1].response->status, 201);
  EXPECT_EQ(loaded->exchanges[1].request.body, R"({"name":"x"})");
  EXPECT_EQ(loaded->exchanges[2].response->status, 404);
  ASSERT_TRUE(loaded->exchanges[3].error);
  EXPECT_EQ(loaded->exchanges[3].error->code, http::client_errc::connect_failed);

  auto rp = std::make_shared<replayer>(*loaded);
  http::client c(replaying(rp));
  for (std::size_t i = 0; i < requests.size(); ++i) {
    SCOPED_TRACE("request " + std::to_string(i));
    auto r = c.send(requests[i]);
    ASSERT_EQ(r.has_value(), live[i].has_value());
    if (r) {
      EXPECT_EQ(r->status, live[i]->status);
      EXPECT_EQ(r->body, live[i]->body);
      EXPECT_EQ(r->headers, live[i]->headers);
    } else {
      EXPECT_EQ(r.error().code, live[i].error().code);
      EXPECT_EQ(r.error().message(), live[i].error().message());
    }
    EXPECT_EQ(c.last_exchange().duration_ms, loaded->exchanges[i].duration_ms);
    EXPECT_EQ(c.last_exchange().duration_ms, live_transcript[i].duration_ms);
    EXPECT_EQ(c.last_exchange().request_headers, live_transcript[i].request_headers);
  }
  EXPECT_EQ(rp->used(), 4u);
  EXPECT_EQ(rp->remaining(), 0u);
  EXPECT_FALSE(rp->failure());
}

// Issue 36: bodies beyond what evidence keeps. A binary body (gzip, NULs) is held in base64 and
// replayed byte for byte (escaped as text it would come back with U+FFFD in place of its bytes); a
// text body of 100 KiB, past evidence's 16 KiB, is held whole and replayed whole; a body past the
// cassette's own limit is cut, and its replay fails saying so instead of answering part of it.
TEST(Cassette, BinaryAndLongBodiesReplayWholeAndACutOneIsRefused) {
  temp_path file("bodies");
  const std::string gzip("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\x00\xff\xfe", 13);
  const std::string long_text = R"({"data":")" + std::string(100 * 1024, 'x') + R"("})";
  const std::string too_long(cassette_body_limits.text_bytes + 1, 'y');
  std::vector<http::request> requests;
  std::vector<std::string> live;
  {
    scripted_server s({{"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 13\r\n\r\n" + gzip},
                       {scripted_server::response(200, long_text)},
                       {scripted_server::response(200, too_long)}});
    requests = {{"GET", s.url("/gzip"), {}, {}}, {"GET", s.url("/long"), {}, {}}, {"GET", s.url("/too-long"), {}, {}}};
    auto writer = std::make_shared<cassette_writer>(file.path(), test_header());
    auto o = fast_options();
    record_into(o, writer);
    http::client c(o);
    for (const auto& r : requests) {
      auto got = c.send(r);
      ASSERT_TRUE(got) << got.error().message();
      live.push_back(got->body);
    }
    // What the client keeps as evidence is bounded all the same.
    EXPECT_EQ(c.transcript()[1].response_body.size(), 16u * 1024);
  }
  EXPECT_LT(std::filesystem::file_size(file.path()), 100 * 1024 + cassette_body_limits.text_bytes + 4096)
      << "the cut body is held to the limit";
  auto loaded = load_cassette(file.path());
  ASSERT_TRUE(loaded) << loaded.error();
  ASSERT_TRUE(loaded->exchanges[0].response_digest.has_value());
  EXPECT_EQ(loaded->exchanges[0].response_digest->binary, "Content-Encoding: gzip");
  EXPECT_FALSE(loaded->exchanges[1].response_digest.has_value());
  ASSERT_TRUE(loaded->exchanges[2].response_digest.has_value());
  EXPECT_FALSE(loaded->exchanges[2].response_digest->complete());

  http::client c(replaying(std::make_shared<replayer>(*loaded)));
  auto gz = c.send(requests[0]);
  ASSERT_TRUE(gz) << gz.error().message();
  EXPECT_EQ(gz->body, gzip);
  auto text = c.send(requests[1]);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_EQ(text->body, long_text);
  auto cut = c.send(requests[2]);
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().code, http::client_errc::replay_mismatch);
  EXPECT_NE(cut.error().message().find("cannot be replayed"), std::string::npos) << cut.error().message();
}

TEST(Cassette, SecretsNeverReachTheFile) {
  const std::string key = "sk_live_7f3a9c2e5b41";
  const std::string later = "oauth_token_d41d8cd98f";
  temp_path file("secrets");
  scripted_server s({{scripted_server::response(200, R"({"token":")" + later + R"(","note":"key )" + key + R"("})")},
                     {scripted_server::response(200, R"({"ok":true})")}});
  redactor r;
  r.add_secret(key);
  auto writer = std::make_shared<cassette_writer>(file.path(), test_header());
  auto o = fast_options();
  record_into(o, writer);
  http::client c(o, r);
  (void)c.send({"POST",
                s.url("/v1/keys?api_key=" + key),
                {{"Authorization", "Bearer " + key}, {"Content-Type", "application/json"}},
                R"({"api_key":")" + key + R"(","name":"n"})"});
  c.add_secret(later);
  (void)c.send({"GET", s.url("/v1/me"), {{"Authorization", "Bearer " + later}}, {}});
  (void)c.send({"GET", "notaurl-" + key, {}, {}});  // bad_url, whose detail is the URL

  const auto bytes = read_bytes(file.path());
  EXPECT_EQ(bytes.find(key), std::string::npos) << bytes;
  EXPECT_EQ(bytes.find(later), std::string::npos) << bytes;
  EXPECT_NE(bytes.find("<redacted>"), std::string::npos);
  auto loaded = parse_cassette(bytes);
  ASSERT_TRUE(loaded) << loaded.error();
  ASSERT_EQ(loaded->exchanges.size(), 3u);
  const http::response as_headers{0, loaded->exchanges[0].request.headers, {}};
  EXPECT_EQ(as_headers.header("Authorization"), "<redacted>");
  ASSERT_TRUE(loaded->exchanges[2].error);
  EXPECT_EQ(loaded->exchanges[2].error->code, http::client_errc::bad_url);
}

TEST(CassetteReplay, ADifferentUrlFailsTheReplayForGood) {
  auto rp = replayer_of(two_exchanges());
  http::client c(replaying(rp));
  auto wrong = c.send({"GET", "http://api.test/other", {}, {}});
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, http::client_errc::replay_mismatch);
  const auto message = wrong.error().detail;
  EXPECT_NE(message.find("request #0"), std::string::npos) << message;
  EXPECT_NE(message.find("expected GET http://api.test/a"), std::string::npos) << message;
  EXPECT_NE(message.find("got GET http://api.test/other"), std::string::npos) << message;
  ASSERT_TRUE(rp->failure());
  EXPECT_EQ(*rp->failure(), message);

  // The replay has failed: even the recorded request is refused now, with the first problem.
  auto after = c.send({"GET", "http://api.test/a", {}, {}});
  ASSERT_FALSE(after);
  EXPECT_EQ(after.error().code, http::client_errc::replay_mismatch);
  EXPECT_EQ(after.error().detail, message);
  EXPECT_EQ(rp->used(), 0u);
  EXPECT_EQ(rp->remaining(), 2u);
}

TEST(CassetteReplay, ADifferentBodyFails) {
  auto rp = replayer_of(two_exchanges());
  http::client c(replaying(rp));
  ASSERT_TRUE(c.send({"GET", "http://api.test/a", {}, {}}));
  auto r = c.send({"POST", "http://api.test/b", json_body, R"({"n":2})"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, http::client_errc::replay_mismatch);
  const auto& message = r.error().detail;
  EXPECT_NE(message.find("request #1"), std::string::npos) << message;
  EXPECT_NE(message.find(R"(expected POST http://api.test/b [Content-Type: application/json] (body "{\"n\":1}"))"), std::string::npos)
      << message;
  EXPECT_NE(message.find(R"(got POST http://api.test/b [Content-Type: application/json] (body "{\"n\":2}"))"), std::string::npos)
      << message;
  EXPECT_EQ(rp->used(), 1u);
}

TEST(CassetteReplay, ContentTypeIsComparedOtherHeadersAreNot) {
  {
    auto rp = replayer_of(two_exchanges());
    http::client c(replaying(rp));
    // A different credential (redacted anyway) and an extra header: still the recorded request.
    ASSERT_TRUE(c.send({"GET", "http://api.test/a", {{"Authorization", "Bearer other"}, {"X-Trace", "1"}}, {}}));
    auto r = c.send({"POST", "http://api.test/b", {{"content-type", "application/json"}}, R"({"n":1})"});
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(r->status, 201);
  }
  {
    auto rp = replayer_of(two_exchanges());
    http::client c(replaying(rp));
    ASSERT_TRUE(c.send({"GET", "http://api.test/a", {}, {}}));
    auto r = c.send({"POST", "http://api.test/b", {{"Content-Type", "text/plain"}}, R"({"n":1})"});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, http::client_errc::replay_mismatch);
    EXPECT_NE(r.error().detail.find("[Content-Type: text/plain]"), std::string::npos) << r.error().detail;
  }
}

TEST(CassetteReplay, AnExhaustedCassetteFailsClearly) {
  auto rp = replayer_of(two_exchanges());
  http::client c(replaying(rp));
  ASSERT_TRUE(c.send({"GET", "http://api.test/a", {}, {}}));
  ASSERT_TRUE(c.send({"POST", "http://api.test/b", json_body, R"({"n":1})"}));
  EXPECT_EQ(rp->remaining(), 0u);
  auto r = c.send({"GET", "http://api.test/a", {}, {}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, http::client_errc::replay_mismatch);
  EXPECT_NE(r.error().detail.find("request #2: the cassette has no more exchanges (it recorded 2), got GET http://api.test/a"),
            std::string::npos)
      << r.error().detail;
  EXPECT_EQ(rp->failure(), r.error().detail);
  EXPECT_EQ(rp->used(), 2u);
}

TEST(CassetteReplay, RecordedTransportErrorsComeBack) {
  auto e = recorded(0, "GET", "http://api.test/slow", "", 200, "");
  e.response.reset();
  e.error = http::transport_error{http::make_error_code(http::client_errc::timeout), "reading http://api.test/slow"};
  auto rp = replayer_of({e});
  http::client c(replaying(rp));
  auto r = c.send({"GET", "http://api.test/slow", {}, {}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, http::client_errc::timeout);
  EXPECT_EQ(r.error().detail, "reading http://api.test/slow");
  EXPECT_EQ(c.last_exchange().error, r.error().message());
}

TEST(CassetteReplay, RetriesReplayAsRecorded) {
  auto busy =
      recorded(0, "GET", "http://api.test/busy", "", 503, "{}", 0, 10, {{"Content-Type", "application/json"}, {"Retry-After", "2"}});
  auto ok = recorded(1, "GET", "http://api.test/busy", "", 200, R"({"ok":true})", 2012, 5);
  auto rp = replayer_of({busy, ok});
  auto o = replaying(rp);
  std::vector<std::chrono::milliseconds> waits;
  o.sleep = [&waits, virtual_sleep = o.sleep](std::chrono::milliseconds d) {
    waits.push_back(d);
    virtual_sleep(d);
  };
  http::client c(o);
  auto r = c.send({"GET", "http://api.test/busy", {}, {}});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, R"({"ok":true})");
  ASSERT_EQ(c.transcript().size(), 2u);
  EXPECT_EQ(c.transcript()[0].status, 503);
  EXPECT_EQ(waits, std::vector<std::chrono::milliseconds>{2000ms});
  EXPECT_EQ(rp->used(), 2u);
  EXPECT_EQ(rp->now() - rp->start(), 2017ms);
}

TEST(CassetteClock, FollowsTheRecordingAndSleepsVirtually) {
  auto rp = replayer_of(
      {recorded(0, "GET", "http://api.test/a", "", 200, "{}", 1000, 50), recorded(1, "GET", "http://api.test/b", "", 200, "{}", 100, 10)});
  run_clock& clock = *rp;
  EXPECT_EQ(clock.now(), rp->start());
  http::client c(replaying(rp));
  ASSERT_TRUE(c.send({"GET", "http://api.test/a", {}, {}}));
  EXPECT_EQ(clock.now() - rp->start(), 1050ms);
  clock.sleep(200ms);
  EXPECT_EQ(clock.now() - rp->start(), 1250ms);
  // An exchange that ended earlier (another client's, interleaved) never moves the clock back.
  ASSERT_TRUE(c.send({"GET", "http://api.test/b", {}, {}}));
  EXPECT_EQ(clock.now() - rp->start(), 1250ms);
  clock.sleep(std::chrono::milliseconds::max());  // saturates rather than wrapping round
  EXPECT_GT(clock.now() - rp->start(), 1250ms);
}

// A wait decides by the first clock read after an exchange: the replay reads that time there, a
// moment after the exchange ended, so that a deadline between the two decides the same way.
TEST(CassetteClock, TheFirstReadAfterAnExchangeIsReplayedThere) {
  auto a = recorded(0, "GET", "http://api.test/a", "", 200, "{}", 1000, 50);
  auto b = recorded(1, "GET", "http://api.test/b", "", 200, "{}", 1200, 10);
  b.read_after_previous_ms = 1053.5;  // 3.5 ms after the first exchange ended
  auto rp = replayer_of({a, b});
  http::client c(replaying(rp));
  ASSERT_TRUE(c.send({"GET", "http://api.test/a", {}, {}}));
  EXPECT_EQ(rp->now() - rp->start(), 1053500us);
  ASSERT_TRUE(c.send({"GET", "http://api.test/b", {}, {}}));
  EXPECT_EQ(rp->now() - rp->start(), 1210ms);
}

// The recording clock notes the first read after each exchange, and none after a sleep (the
// replay's own sleep moves its clock there).
TEST(CassetteWriter, NotesTheFirstClockReadAfterAnExchangeBeforeAnySleep) {
  temp_path file("reads");
  {
    auto w = std::make_shared<cassette_writer>(file.path(), test_header());
    virtual_clock inner;
    recording_clock clock(inner, w);
    exchange kept;
    kept.method = "GET";
    kept.url = "http://api.test/a";
    kept.status = 200;
    (void)clock.now();  // before any exchange: nothing to note
    w->add(kept, std::nullopt);
    (void)clock.now();
    (void)clock.now();
    w->add(kept, std::nullopt);
    clock.sleep(10ms);
    (void)clock.now();
    w->add(kept, std::nullopt);
  }
  auto loaded = load_cassette(file.path());
  ASSERT_TRUE(loaded) << loaded.error();
  ASSERT_EQ(loaded->exchanges.size(), 3u);
  EXPECT_FALSE(loaded->exchanges[0].read_after_previous_ms);
  ASSERT_TRUE(loaded->exchanges[1].read_after_previous_ms);
  EXPECT_GE(*loaded->exchanges[1].read_after_previous_ms, loaded->exchanges[0].t_ms + loaded->exchanges[0].duration_ms);
  EXPECT_FALSE(loaded->exchanges[2].read_after_previous_ms);
}

TEST(CassetteWriter, WritesSortedStableLinesAndReadsThemBack) {
  temp_path file("stable");
  {
    cassette_writer w(file.path(), test_header());
    exchange kept;
    kept.method = "GET";
    kept.url = "http://api.test/a";
    kept.request_headers = {{"Accept", "application/json"}};
    kept.status = 200;
    kept.response_headers = {{"Content-Type", "application/json"}};
    kept.response_body = "{}";
    kept.duration_ms = 3.25;
    w.add(kept, std::nullopt);
    // Every line is on disk as soon as it is added: a crash loses nothing before it.
    const auto bytes = read_bytes(file.path());
    ASSERT_EQ(std::count(bytes.begin(), bytes.end(), '\n'), 2);
    EXPECT_TRUE(bytes.starts_with(
        R"({"accounts":1,"base_url":"http://api.test","cassette":"neograde","provider":"lambda","recorded_at":"2026-11-30T00:00:00Z",)"
        R"("recorded_source":"emulated","run_id":"0a1b2c3d","time_scale":1.0,"version":1})"
        "\n"))
        << bytes;
    EXPECT_NE(bytes.find("\n{\"duration_ms\":3.25,\"request\":{\"body\":\"\",\"headers\":[[\"Accept\",\"application/json\"]],"
                         "\"method\":\"GET\",\"url\":\"http://api.test/a\"},\"response\":{\"body\":\"{}\","),
              std::string::npos)
        << bytes;
    w.add(kept, http::transport_error{http::make_error_code(http::client_errc::read_failed), "reset"});
  }
  struct stat st {};
  ASSERT_EQ(::stat(file.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  auto loaded = load_cassette(file.path());
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->header.recorded_source, result_source::emulated);
  EXPECT_EQ(loaded->header.recorded_at, "2026-11-30T00:00:00Z");
  ASSERT_EQ(loaded->exchanges.size(), 2u);
  EXPECT_EQ(loaded->exchanges[0].duration_ms, 3.25);
  ASSERT_TRUE(loaded->exchanges[1].error);
  EXPECT_EQ(loaded->exchanges[1].error->code, http::client_errc::read_failed);
  EXPECT_EQ(loaded->exchanges[1].error->detail, "reset");
  // What was read writes back byte for byte.
  std::string again = to_jsonl(loaded->header);
  for (const auto& e : loaded->exchanges) again += to_jsonl(e);
  EXPECT_EQ(again, read_bytes(file.path()));
}

TEST(CassetteWriter, FillsRecordedAtAndFailsLoudlyOnAPathItCannotWrite) {
  temp_path file("recorded-at");
  auto h = test_header();
  h.recorded_at.clear();
  cassette_writer w(file.path(), h);
  EXPECT_EQ(w.header().recorded_at.size(), std::string("2026-11-30T00:00:00Z").size());
  EXPECT_EQ(w.header().recorded_at.back(), 'Z');

  const std::string bad = "/nonexistent-neograde-dir/cassette.jsonl";
  try {
    cassette_writer unwritable(bad, test_header());
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos) << e.what();
  }
}

TEST(CassetteWriter, ErrorCodeNamesRoundTrip) {
  for (int v = static_cast<int>(http::client_errc::bad_url); v <= static_cast<int>(http::client_errc::replay_mismatch); ++v) {
    const auto e = static_cast<http::client_errc>(v);
    const auto name = client_errc_name(e);
    ASSERT_TRUE(name) << v;
    EXPECT_EQ(client_errc_from_name(*name), e);
  }
  EXPECT_EQ(client_errc_name(http::client_errc::timeout), "timeout");
  EXPECT_FALSE(client_errc_from_name("no_such_error"));
  EXPECT_EQ(http::make_error_code(http::client_errc::replay_mismatch).message(), "the request differs from the cassette");
}

TEST(CassetteParse, GarbageLineIsAnError) {
  EXPECT_EQ(parse_error(to_jsonl(test_header()) + "this is not json\n"), "line 2: not valid JSON");
  EXPECT_EQ(parse_error(""), "line 1: empty cassette: no header");
  EXPECT_EQ(parse_error(to_jsonl(test_header()) + "\n"), "line 2: empty line");
}

TEST(CassetteParse, TornLastLineSaysTruncated) {
  const auto whole = cassette_text(two_exchanges());
  const auto torn = whole.substr(0, whole.size() - 20);
  const auto error = parse_error(torn);
  EXPECT_NE(error.find("line 3: the cassette is truncated"), std::string::npos) << error;
  // A complete last line without its newline is accepted.
  auto parsed = parse_cassette(whole.substr(0, whole.size() - 1));
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed->exchanges.size(), 2u);
}

TEST(CassetteParse, UnknownVersionIsAnError) {
  auto line = to_jsonl(test_header());
  line.replace(line.find("\"version\":1"), 11, "\"version\":2");
  EXPECT_EQ(parse_error(line), "line 1: unsupported cassette version 2 (this neograde reads version 1)");
  line.replace(line.find("\"version\":2"), 11, "\"version\":\"1\"");
  EXPECT_EQ(parse_error(line), "line 1: \"version\" must be an integer");
  EXPECT_EQ(parse_error(R"({"cassette":"vcr","version":1})"
                        "\n"),
            "line 1: not a neograde cassette (\"cassette\" is not \"neograde\")");
}

TEST(CassetteParse, SeqMustCountUpFromZero) {
  auto exchanges = two_exchanges();
  exchanges[1].seq = 2;
  EXPECT_EQ(parse_error(cassette_text(exchanges)), "line 3: seq is 2, expected 1 (seq counts up from 0)");
  exchanges[0].seq = 1;
  EXPECT_EQ(parse_error(cassette_text(exchanges)), "line 2: seq is 1, expected 0 (seq counts up from 0)");
}

TEST(CassetteParse, DeepNestingIsRefusedBeforeParsing) {
  const auto header = to_jsonl(test_header());
  EXPECT_EQ(parse_error(header + std::string(100'000, '[') + "\n"), "line 2: nested deeper than 64 levels");
  EXPECT_EQ(parse_error(header + std::string(100'000, '{')), "line 2: nested deeper than 64 levels");
  // Brackets inside strings are text, not nesting.
  auto e = recorded(0, "GET", "http://api.test/a", "", 200, std::string(1000, '['));
  EXPECT_TRUE(parse_cassette(cassette_text({e})));
}

TEST(CassetteParse, OversizeIsRefused) {
  std::string text = to_jsonl(test_header());
  text += std::string(cassette_max_bytes, ' ');
  const auto error = parse_error(text);
  EXPECT_EQ(error.rfind("line 2: the cassette is longer than its limit of 67108864 bytes", 0), 0u) << error;
}

TEST(CassetteParse, WrongOrMissingFieldsAreErrors) {
  const auto header = to_jsonl(test_header());
  EXPECT_EQ(parse_error(header + R"({"seq":0,"t_ms":0,"duration_ms":1,"response":{"status":200,"headers":[],"body":""}})"
                                 "\n"),
            "line 2: missing \"request\"");
  const std::string request = R"("request":{"method":"GET","url":"u","headers":[],"body":""})";
  EXPECT_EQ(parse_error(header + R"({"seq":"0","t_ms":0,"duration_ms":1,)" + request + "}\n"),
            "line 2: \"seq\" must be a non-negative integer");
  EXPECT_EQ(parse_error(header + R"({"seq":0,"t_ms":-1,"duration_ms":1,)" + request + "}\n"),
            "line 2: \"t_ms\" must be a number from 0 to 1e12 (milliseconds)");
  EXPECT_EQ(parse_error(header + R"({"seq":0,"t_ms":0,"duration_ms":1,)" + request + "}\n"), "line 2: missing \"response\" (or \"error\")");
  EXPECT_EQ(parse_error(header + R"({"seq":0,"t_ms":0,"duration_ms":1,)" + request +
                        R"(,"response":{"status":42,"headers":[],"body":""}})"
                        "\n"),
            "line 2: \"response.status\" must be an integer from 100 to 999");
  EXPECT_EQ(parse_error(header + R"({"seq":0,"t_ms":0,"duration_ms":1,)" + request +
                        R"(,"response":{"status":200,"headers":[["a"]],"body":""}})"
                        "\n"),
            "line 2: \"response.headers\" must be an array of [name, value] string pairs");
  EXPECT_EQ(parse_error(header + R"({"seq":0,"t_ms":0,"duration_ms":1,)" + request +
                        R"(,"error":{"code":"exploded","detail":""}})"
                        "\n"),
            "line 2: unknown error code \"exploded\"");
  EXPECT_EQ(parse_error(header + R"({"seq":0,"t_ms":0,"duration_ms":1,"request":{"method":1,"url":"u","headers":[],"body":""}})"
                                 "\n"),
            "line 2: \"request.method\" must be a string");
}

TEST(CassetteParse, LoadNamesThePath) {
  auto missing = load_cassette("/nonexistent-neograde-dir/x.jsonl");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().rfind("/nonexistent-neograde-dir/x.jsonl: ", 0), 0u) << missing.error();
  temp_path file("garbage");
  std::ofstream(file.path()) << to_jsonl(test_header()) << "garbage\n";
  auto bad = load_cassette(file.path());
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), file.path().string() + ": line 2: not valid JSON");
}
