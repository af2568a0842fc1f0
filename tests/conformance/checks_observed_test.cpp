// The checks decided over everything the run saw (conformance/checks_observed.cpp): a requirement
// the provider's documents declare for their operations is judged on the answers of those
// operations, not on a request no document lists (issue 36 point 3).

#include "../support/emulator_front.hpp"
#include "../support/specs.hpp"

#include <neograde/core/provenance.hpp>
#include <neograde/core/text.hpp>

#include <gtest/gtest.h>

#include <algorithm>

using namespace neograde;

namespace {

const char* declared_headers = "http.response.declared_headers";

// How a server in front of DigitalOcean's API may answer OPTIONS: as a CORS preflight, before
// authentication and the rate limiter, with Allow and Date but no ratelimit-* headers. No
// DigitalOcean document lists OPTIONS; the headers are declared on the responses of its
// operations (digitalocean/openapi, every operation's responses).
std::optional<http::response> preflight(const http::request& req, emulator::provider_model&) {
  if (req.method != "OPTIONS") return std::nullopt;
  return http::response{204,
                        {{"Allow", "GET, POST, DELETE, OPTIONS"},
                         {"Access-Control-Allow-Origin", "*"},
                         {"Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS"},
                         {"Date", "Thu, 03 Dec 2026 12:00:00 GMT"}},
                        {}};
}

bool is_rate_limit_header(const std::string& name) { return name.size() > 10 && iequals(name.substr(0, 10), "ratelimit-"); }

}  // namespace

// A clean DigitalOcean-shaped API whose OPTIONS answer carries no rate-limit headers passes: the
// OPTIONS probe was answered (options_sane saw the 204) and left out of the judgement.
TEST(DeclaredHeaders, AnOptionsPreflightWithoutTheHeadersIsNotJudged) {
  const auto report = test::run_behind_front(test::spec("digitalocean"), preflight);
  const auto& options = test::outcome_in(report, "http.method.options_sane");
  ASSERT_EQ(options.result, outcome::pass) << options.reason;
  ASSERT_FALSE(options.evidence.empty());
  ASSERT_EQ(options.evidence.front().status, 204);
  ASSERT_TRUE(std::none_of(options.evidence.front().response_headers.begin(), options.evidence.front().response_headers.end(),
                           [](const auto& h) { return is_rate_limit_header(h.first); }))
      << "the front did not answer the OPTIONS probe";

  const auto& o = test::outcome_in(report, declared_headers);
  EXPECT_EQ(o.result, outcome::pass) << o.reason;
  EXPECT_GT(o.measurements.value("judged", 0), 10) << o.measurements.dump();
  EXPECT_GE(o.measurements.value("not_judged", 0), 1) << o.measurements.dump();  // the OPTIONS 204
}

// The headers dropped from every successful answer: the reason says every, and names them all.
TEST(DeclaredHeaders, HeadersMissingFromEverySuccessAreReportedAsNeverSent) {
  const auto report = test::run_behind_front(test::spec("digitalocean"), preflight, {"no_rate_limit_headers_on_success"});
  const auto& o = test::outcome_in(report, declared_headers);
  ASSERT_EQ(o.result, outcome::fail) << o.reason;
  EXPECT_NE(o.reason.find("none of the"), std::string::npos) << o.reason;
  for (const char* h : {"ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"}) {
    EXPECT_NE(o.reason.find(h), std::string::npos) << o.reason;
    EXPECT_EQ(o.measurements["missing"][h], o.measurements["judged"]) << o.measurements.dump();
  }
  EXPECT_FALSE(o.evidence.empty());
}

// The headers lost on one path only (the sizes list): the reason counts the answers without them
// and names the first, with one that carries them.
TEST(DeclaredHeaders, HeadersMissingFromSomeSuccessesNameThePathThatLosesThem) {
  auto sizes_without_headers = [](const http::request& req, emulator::provider_model& model) -> std::optional<http::response> {
    if (req.method == "OPTIONS") return preflight(req, model);
    if (req.method != "GET" || test::path_of(req) != "/v2/sizes") return std::nullopt;
    auto r = model.handle(req);
    std::erase_if(r.headers, [](const auto& h) { return is_rate_limit_header(h.first); });
    return r;
  };
  const auto report = test::run_behind_front(test::spec("digitalocean"), sizes_without_headers);
  const auto& o = test::outcome_in(report, declared_headers);
  ASSERT_EQ(o.result, outcome::fail) << o.reason;
  EXPECT_EQ(o.reason.find("none of the"), std::string::npos) << o.reason;
  EXPECT_NE(o.reason.find("carry no ratelimit-limit"), std::string::npos) << o.reason;
  EXPECT_NE(o.reason.find("GET "), std::string::npos) << o.reason;
  EXPECT_NE(o.reason.find("/v2/sizes"), std::string::npos) << o.reason;
  const auto missing = o.measurements["missing"]["ratelimit-limit"].get<int>();
  EXPECT_GT(missing, 0);
  EXPECT_LT(missing, o.measurements["judged"].get<int>());
  ASSERT_GE(o.evidence.size(), 2u);  // one answer without the header, one with it
  EXPECT_NE(o.evidence[0].url.find("/v2/sizes"), std::string::npos);
  EXPECT_EQ(o.evidence[1].url.find("/v2/sizes"), std::string::npos);
}

// A 429 to a request no document lists (an OPTIONS probe throttled by whatever answers in front
// of the API, in its own form) says when to retry, and is no sample of the provider's error
// envelope; the probe's 429s, of the declared list, are.
TEST(RateLimitEnvelope, A429ToAnUndocumentedRequestIsNotASampleOfTheEnvelope) {
  auto throttled_options = [](const http::request& req, emulator::provider_model&) -> std::optional<http::response> {
    if (req.method != "OPTIONS") return std::nullopt;
    return http::response{
        429, {{"Content-Type", "text/plain"}, {"Retry-After", "1"}, {"Date", "Thu, 03 Dec 2026 12:00:00 GMT"}}, "slow down"};
  };
  const auto report = test::run_behind_front(test::spec("lambda"), throttled_options);
  const auto& options = test::outcome_in(report, "http.method.options_sane");
  ASSERT_EQ(options.evidence.at(0).status, 429) << "the front did not answer the OPTIONS probe";
  const auto& retry = test::outcome_in(report, "ratelimit.response.has_retry_after");
  EXPECT_EQ(retry.result, outcome::pass) << retry.reason;
  const auto& o = test::outcome_in(report, "ratelimit.response.has_envelope");
  EXPECT_EQ(o.result, outcome::pass) << o.reason;
  EXPECT_NE(o.reason.find("of a declared operation"), std::string::npos) << o.reason;
}

// On the emulator the read latency is judged by the service time it states, never by this
// machine's loopback round trip: reads stated as half a second each miss the expectation however
// fast they came back, and the reason says what was judged.
TEST(ReadLatency, AnEmulatorIsJudgedByTheServiceTimeItStates) {
  auto slow_on_paper = [](const http::request& req, emulator::provider_model& model) -> std::optional<http::response> {
    if (req.method != "GET") return std::nullopt;
    auto r = model.handle(req);
    for (auto& [k, v] : r.headers)
      if (iequals(k, service_time_header_name)) v = "500";
    return r;
  };
  const auto report = test::run_behind_front(test::spec("lambda"), slow_on_paper);
  const auto& o = test::outcome_in(report, "performance.latency.read_p95");
  ASSERT_EQ(o.result, outcome::warn) << o.reason;  // a SHOULD missed
  EXPECT_NE(o.reason.find("p95 500.000000 ms"), std::string::npos) << o.reason;
  EXPECT_NE(o.reason.find("the emulator's stated service times"), std::string::npos) << o.reason;
  // Stated as nothing (a clean emulator), the same reads pass.
  const auto clean_report = test::run_behind_front(
      test::spec("lambda"), [](const http::request&, emulator::provider_model&) { return std::optional<http::response>{}; });
  const auto& clean = test::outcome_in(clean_report, "performance.latency.read_p95");
  EXPECT_EQ(clean.result, outcome::pass) << clean.reason;
}
