#include <neograde/reports/results.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace neograde;
using namespace neograde::reports;

namespace {
std::filesystem::path temp_dir() {
  auto d = std::filesystem::temp_directory_path() /
           ("neograde-results-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}
}  // namespace

TEST(ResultsFile, HeaderOutcomesFooterRoundTrip) {
  const auto path = temp_dir() / "results.jsonl";
  {
    results_writer w(path, {"run1", &test::spec("lambda"), result_source::emulated, "http://127.0.0.1:1/api/v1", 0.01, true});
    check_descriptor d{"a.b.c", "auth", severity::critical, requirement_level::must, "d", "MUST x", "src", "q"};
    check_outcome o;
    o.check_id = "a.b.c";
    o.result = outcome::fail;
    o.reason = "because";
    w.outcome(d, o);
    w.finish({{"time_to_running_s", 2.0}});
  }
  auto runs = read_results(path);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].header["provider"], "lambda");
  EXPECT_EQ(runs[0].header["source"], "emulated");
  ASSERT_EQ(runs[0].outcomes.size(), 1u);
  EXPECT_EQ(runs[0].outcomes[0]["outcome"], "fail");
  EXPECT_EQ(runs[0].outcomes[0]["severity"], "critical");
  EXPECT_EQ(runs[0].outcomes[0]["source"], "emulated");
  ASSERT_TRUE(runs[0].footer.has_value());
  EXPECT_EQ((*runs[0].footer)["counts"]["fail"], 1);
}

// Evidence of a request sent wrong on purpose says so; ordinary evidence keeps its nine members.
TEST(ResultsFile, DeliberateEvidenceIsMarkedAndOrdinaryEvidenceIsNot) {
  exchange plain{"GET", "http://127.0.0.1:1/x", {}, "", 401, {}, "", 1.5, ""};
  auto marked = plain;
  marked.deliberate = "without credentials";
  const nlohmann::json p = plain, m = marked;
  EXPECT_FALSE(p.contains("deliberate")) << p.dump();
  EXPECT_EQ(p.size(), 9u);
  EXPECT_EQ(m.at("deliberate"), "without credentials");
  EXPECT_EQ(m.get<exchange>().deliberate, "without credentials");
  EXPECT_EQ(p.get<exchange>().deliberate, "");
}

TEST(ResultsFile, ReadersTolerateATornLastLine) {
  const auto path = temp_dir() / "results.jsonl";
  std::ofstream(path) << R"({"record":"header","provider":"p"})"
                      << "\n"
                      << R"({"record":"outcome","check_id":"a.b.c","outcome":"pass"})"
                      << "\n"
                      << R"({"record":"outcome","check_id":"a.b.d","outc)";
  std::size_t skipped = 0;
  auto runs = read_results(path, &skipped);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].outcomes.size(), 1u);
  EXPECT_FALSE(runs[0].footer.has_value());
  EXPECT_EQ(skipped, 1u);
}

TEST(AtomicWrite, ReplacesWholeAndLeavesNoTemporary) {
  const auto dir = temp_dir();
  write_file_atomic(dir / "a.md", "first");
  write_file_atomic(dir / "a.md", "second");
  std::ifstream in(dir / "a.md");
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(s, "second");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
  EXPECT_THROW(write_file_atomic(dir / "missing-dir" / "x", "y"), std::runtime_error);
}

TEST(ResultsFile, EvidenceThatIsNotUtf8IsWrittenNotThrown) {
  // A hostile provider's body may be any bytes; the record must still be written.
  const auto path = temp_dir() / "results.jsonl";
  {
    results_writer w(path, {"run1", &test::spec("lambda"), result_source::emulated, "http://127.0.0.1:1/api/v1", 0.01, true});
    check_descriptor d{"a.b.c", "auth", severity::high, requirement_level::must, "d", "MUST x", "src", "q"};
    check_outcome o;
    o.check_id = "a.b.c";
    o.result = outcome::fail;
    o.reason = std::string("body \xff\xfe");
    exchange e;
    e.response_body = std::string("\x80\x81 not utf-8");
    o.evidence.push_back(e);
    w.outcome(d, o);
    w.finish({});
  }
  auto runs = read_results(path);
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_EQ(runs[0].outcomes.size(), 1u);
  EXPECT_NE(runs[0].outcomes[0]["reason"].get<std::string>().find("body "), std::string::npos);
}
