// The whole conformance run, and the reports made from it, against a provider that answers every
// request with something hostile: the run ends, every check has a verdict, nothing passes that
// did not see a valid answer, and the results file, scorecard and HTML page are still made.

#include <neograde/conformance/catalogue.hpp>
#include <neograde/conformance/runner.hpp>
#include <neograde/reports/html.hpp>
#include <neograde/reports/results.hpp>
#include <neograde/reports/scorecard.hpp>

#include "../support/hostile_server.hpp"
#include "../support/specs.hpp"

#include <gtest/gtest.h>

#include <atomic>

#include <unistd.h>

#include <chrono>
#include <filesystem>

using namespace neograde;
using namespace std::chrono_literals;

namespace {

struct hostile_case {
  const char* name;
  std::string reply;  // every request gets these bytes, then the connection closes
};

std::string reply_200(const std::string& body, const std::string& content_type = "application/json") {
  return "HTTP/1.1 200 OK\r\nContent-Type: " + content_type + "\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
}

// Invalid UTF-8 and a NUL inside a name, and a price of "NaN" (sizeof - 1: the NUL is part of it).
constexpr char invalid_utf8_and_nul_text[] = "{\"data\":[{\"name\":\"\xff\xfe\x00\xc3\x28\",\"price\":\"NaN\"}]}";
const std::string invalid_utf8_and_nul(invalid_utf8_and_nul_text, sizeof invalid_utf8_and_nul_text - 1);

std::vector<hostile_case> cases() {
  return {
      {"deeply_nested_json", reply_200(std::string(100'000, '[') + std::string(100'000, ']'))},
      {"invalid_utf8_and_nul", reply_200(invalid_utf8_and_nul)},
      {"garbage_status_line", "HTTP/1.1 OK FINE\r\nConnection: close\r\n\r\n{}"},
      {"http09_body_only", "{\"data\":[]}"},
      {"html_error_page",
       "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/html\r\nConnection: close\r\nContent-Length: 23\r\n\r\n<html>Oops: "
       "crash</html>"},
  };
}

class HostileProvider : public ::testing::TestWithParam<hostile_case> {};

TEST_P(HostileProvider, TheRunEndsWithAVerdictForEveryCheckAndTheReportIsMade) {
  const auto reply = GetParam().reply;
  auto requests = std::make_shared<std::atomic<int>>(0);
  test::hostile_server server([reply, requests](test::hostile_connection& c) {
    if (c.read_request_head(2s).empty()) return;
    ++*requests;
    (void)c.send(reply);
  });
  const auto& spec = test::spec("lambda");
  virtual_clock time;  // the run's waits (polls, deadlines) take no real time
  // Loopback: the run may try to create, and must not be fooled.
  session s(spec, {.base_url = server.url("/api/v1"),
                   .api_key = "hostile-run-key",
                   .second_api_key = "hostile-run-key-2",
                   .run_id = "hostile0",
                   .http = {.connect_timeout = 2s, .read_timeout = 2s, .max_retries = 0, .sleep = [](std::chrono::milliseconds) {}},
                   .clock = &time});

  const auto dir = std::filesystem::temp_directory_path() / ("neograde-hostile-" + std::to_string(::getpid()) + "-" + GetParam().name);
  std::filesystem::create_directories(dir);
  std::optional<reports::results_writer> writer(std::in_place, dir / "results.jsonl",
                                                reports::run_header{.run_id = s.run_id(),
                                                                    .spec = &spec,
                                                                    .source = s.provenance(),
                                                                    .base_url = s.base_url(),
                                                                    .time_scale = s.time_scale(),
                                                                    .allow_spend = true});
  conformance::run_options o{.on_outcome = [&](const check_descriptor& d, const check_outcome& out) { writer->outcome(d, out); }};

  conformance::run_report report;
  ASSERT_NO_THROW(report = conformance::run(s, o));
  ASSERT_NO_THROW(writer->finish(report.measurements));
  // Gives up, does not go on asking: a generous bound over the ~200 requests a run makes (and
  // ctest's timeout catches a hang).
  EXPECT_LT(requests->load(), 1000);

  EXPECT_FALSE(report.stopped.has_value()) << report.stopped->message;
  EXPECT_EQ(report.source, result_source::live);  // it is not the emulator, whatever it sends
  EXPECT_EQ(report.outcomes.size(), conformance::catalogue().size());
  int passed = 0, failed = 0;
  for (const auto& out : report.outcomes) {
    if (out.result == outcome::pass) ++passed;
    if (out.result == outcome::fail || out.result == outcome::errored || out.result == outcome::warn) ++failed;
  }
  EXPECT_GT(failed, 5) << "a hostile provider was graded as mostly fine";
  for (const auto& out : report.outcomes) {
    if (out.check_id.starts_with("lifecycle.instance.") || out.check_id.starts_with("schema.")) {
      EXPECT_NE(out.result, outcome::pass) << out.check_id << " passed against " << GetParam().name << ": " << out.reason;
    }
  }

  auto runs = reports::read_results(dir / "results.jsonl");
  ASSERT_EQ(runs.size(), 1u);
  reports::scorecard card;
  ASSERT_NO_THROW(card = reports::build_scorecard(runs.front()));
  EXPECT_EQ(card.source, "live");
  std::string html;
  ASSERT_NO_THROW(html = reports::render_html({card}, "2026-11-30T00:00:00Z"));
  EXPECT_NE(html.find("</html>"), std::string::npos);
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Every, HostileProvider, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
