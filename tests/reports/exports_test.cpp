#include <neograde/reports/exports.hpp>

#include <neograde/core/json_schema.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/reports/scorecard.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string_view>

#include <unistd.h>

#ifndef NEOGRADE_SCORECARD_SCHEMA
#error "NEOGRADE_SCORECARD_SCHEMA must name reports/scorecard.schema.json"
#endif

using namespace neograde::reports;
using nlohmann::json;

namespace {

json outcome(const std::string& id, const std::string& severity, const std::string& result, const std::string& reason = "r") {
  return {{"record", "outcome"},  {"check_id", id},           {"category", id.substr(0, id.find('.'))},
          {"severity", severity}, {"requirement", "MUST"},    {"outcome", result},
          {"reason", reason},     {"evidence", json::array()}};
}

run_record run(std::vector<json> outcomes, std::string source = "emulated", bool fictional = false) {
  return {{{"record", "header"},
           {"provider", "p"},
           {"display_name", "P Cloud"},
           {"fictional", fictional},
           {"source", source},
           {"base_url", "https://api.p.example"},
           {"started_at", "2026-11-29T00:00:00Z"}},
          std::move(outcomes),
          json{{"record", "footer"}, {"finished_at", "2026-11-29T00:01:00Z"}, {"measurements", {{"time_to_running_s", 1.5}}}},
          {}};
}

// A failure as results_writer records it: a reproduce command and one exchange of evidence,
// serialised by neograde::exchange's own to_json.
json failure_with_evidence(const std::string& id, const std::string& severity) {
  neograde::exchange e;
  e.method = "GET";
  e.url = "https://api.p.example/x";
  e.request_headers = {{"Authorization", "<redacted>"}};
  e.status = 200;
  e.response_headers = {{"Content-Type", "application/json"}};
  e.response_body = "{}";
  e.duration_ms = 1.25;
  auto o = outcome(id, severity, "fail");
  o["requirement_text"] = "It MUST answer 404.";
  o["check_source"] = "provider docs";
  o["reproduce"] = "curl -sS https://api.p.example/x";
  o["evidence"] = json::array({json(e)});
  return o;
}

// Every kind of outcome once: one pass, two failures (fail, warn), one error, four skips.
scorecard every_outcome_card() {
  return build_scorecard(
      run({outcome("a.x.pass", "high", "pass"), failure_with_evidence("b.x.fail", "high"), outcome("c.x.warn", "medium", "warn"),
           outcome("d.x.err", "critical", "errored"), outcome("e.x.skip", "low", "skipped"), outcome("f.x.cap", "high", "no_capacity"),
           outcome("g.x.quota", "high", "quota"), outcome("h.x.rl", "high", "rate_limited")}));
}

std::size_t count(std::string_view haystack, std::string_view needle) {
  std::size_t n = 0;
  for (auto pos = haystack.find(needle); pos != std::string_view::npos; pos = haystack.find(needle, pos + needle.size())) ++n;
  return n;
}

// A small XML 1.0 well-formedness check, enough for what render_junit writes: an optional
// declaration, elements that nest and close, quoted attributes without '<', unique attribute
// names, '&' only in the five predefined or numeric references, no "]]>" in text, and no
// control characters but tab, LF and CR. Returns "" when well-formed, else what is wrong.
std::string well_formed(std::string_view x) {
  std::size_t i = 0;
  const auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '-' || c == '.'; };
  const auto reference_ok = [&](std::size_t at) {
    const auto end = x.find(';', at);
    if (end == std::string_view::npos) return false;
    const auto ref = x.substr(at + 1, end - at - 1);
    if (ref == "lt" || ref == "gt" || ref == "amp" || ref == "quot" || ref == "apos") return true;
    if (ref.size() < 2 || ref[0] != '#') return false;
    const bool hex = ref[1] == 'x';
    const auto digits = ref.substr(hex ? 2 : 1);
    return !digits.empty() && std::all_of(digits.begin(), digits.end(), [&](char c) {
      return hex ? std::isxdigit(static_cast<unsigned char>(c)) != 0 : std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
  };
  for (char c : x)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') return "control character";
  if (x.substr(0, 5) == "<?xml") {
    i = x.find("?>");
    if (i == std::string_view::npos) return "unterminated declaration";
    i += 2;
  }
  std::vector<std::string> open;
  int roots = 0;
  while (i < x.size()) {
    if (x[i] != '<') {
      if (x[i] == '&' && !reference_ok(i)) return "bad reference in text at " + std::to_string(i);
      if (x.substr(i, 3) == "]]>") return "]]> in text at " + std::to_string(i);
      if (open.empty() && !std::isspace(static_cast<unsigned char>(x[i]))) return "text outside the root";
      ++i;
      continue;
    }
    ++i;
    const bool closing = i < x.size() && x[i] == '/';
    if (closing) ++i;
    const auto start = i;
    while (i < x.size() && name_char(x[i])) ++i;
    const std::string name(x.substr(start, i - start));
    if (name.empty()) return "bad element name at " + std::to_string(start);
    if (closing) {
      if (open.empty() || open.back() != name) return "mismatched </" + name + ">";
      open.pop_back();
      if (i >= x.size() || x[i] != '>') return "bad end tag " + name;
      ++i;
      continue;
    }
    if (open.empty() && ++roots > 1) return "more than one root";
    std::set<std::string> attributes;
    for (;;) {
      while (i < x.size() && std::isspace(static_cast<unsigned char>(x[i]))) ++i;
      if (i >= x.size()) return "unterminated tag " + name;
      if (x[i] == '>') {
        open.push_back(name);
        ++i;
        break;
      }
      if (x.substr(i, 2) == "/>") {
        i += 2;
        break;
      }
      const auto a = i;
      while (i < x.size() && name_char(x[i])) ++i;
      const std::string attribute(x.substr(a, i - a));
      if (attribute.empty() || !attributes.insert(attribute).second) return "bad attribute in " + name;
      if (x.substr(i, 2) != "=\"") return "unquoted attribute " + attribute;
      i += 2;
      const auto end = x.find('"', i);
      if (end == std::string_view::npos) return "unterminated attribute " + attribute;
      for (auto k = i; k < end; ++k) {
        if (x[k] == '<') return "raw '<' in attribute " + attribute;
        if (x[k] == '&' && !reference_ok(k)) return "bad reference in attribute " + attribute;
      }
      i = end + 1;
    }
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  return roots == 1 ? "" : "no root element";
}

json load_schema_document() {
  std::ifstream in(NEOGRADE_SCORECARD_SCHEMA);
  if (!in) throw std::runtime_error("cannot read " NEOGRADE_SCORECARD_SCHEMA);
  return json::parse(in);
}

std::string violations_of(const neograde::json_schema& schema, const json& doc) {
  std::string out;
  for (const auto& v : schema.validate(doc)) out += v.pointer + ": " + v.message + "\n";
  return out;
}

// A run as conformance writes it: the lambda spec's header (transparency, timings, one replaced),
// an offer selection, outcomes with evidence, a hardware record and the footer's measurements.
run_record written_run() {
  const auto path = std::filesystem::temp_directory_path() / ("neograde-exports-" + std::to_string(::getpid()) + ".jsonl");
  {
    results_writer w(path, {.run_id = "20261129-000000-abcd",
                            .spec = &neograde::test::spec("lambda"),
                            .source = neograde::result_source::emulated,
                            .base_url = "http://127.0.0.1:1/api/v1",
                            .time_scale = 0.01,
                            .allow_spend = true,
                            .offer_selection = {{"instance_type", "gpu_1x_a10"}, {"region", "us-east-1"}},
                            .timing_overrides = {{"time_to_gone_s", {{"value", 20.0}, {"spec", 300.0}}}}});
    neograde::check_descriptor pass{"auth.token.missing_is_401",
                                    "auth",
                                    neograde::severity::critical,
                                    neograde::requirement_level::must,
                                    "d",
                                    "It MUST answer 401.",
                                    "RFC 6750",
                                    "q"};
    auto fail = pass;
    fail.id = "lifecycle.instance.gone_after_terminate";
    fail.category = "lifecycle";
    neograde::check_outcome o{.check_id = pass.id, .result = neograde::outcome::pass, .reason = "HTTP 401", .duration_ms = 3};
    w.outcome(pass, o);
    o = {.check_id = fail.id, .result = neograde::outcome::fail, .reason = "still running", .duration_ms = 1.5};
    o.evidence = {neograde::exchange{"DELETE",
                                     "http://127.0.0.1:1/api/v1/instances/i-1",
                                     {{"Authorization", "<redacted>"}},
                                     "",
                                     200,
                                     {{"Content-Type", "application/json"}},
                                     "{}",
                                     1.25,
                                     "",
                                     "without credentials"}};
    o.reproduce = "curl -sS -X DELETE http://127.0.0.1:1/api/v1/instances/i-1";
    w.outcome(fail, o);
    w.hardware(json::parse(R"({"status": "pass", "reason": "all checks pass", "address": "10.0.0.1", "time_to_ssh_s": 41,
      "instance": {"id": "i-1", "type": "gpu_1x_a10"},
      "smoke": {"gpus": [{"index": 0, "name": "NVIDIA A10", "sku": "a10-24gb",
                          "measurements": {"hbm_triad": {"value": 540.5, "unit": "GB/s", "pct_of_datasheet": 90.1, "verdict": "pass"}}}],
                "checks": [{"id": "gpu.clock", "gpu": 0, "verdict": "warn", "message": "slow"}]}})"));
    w.finish({{"time_to_running_s", 12.5},
              {"latency_read_ms", {{"p50", 2.0}, {"p95", 9.5}, {"p99", 11}, {"count", 40}}},
              {"offer_selection", {{"instance_type", "gpu_1x_a10"}}}});
  }
  auto runs = read_results(path);
  std::filesystem::remove(path);
  return runs.at(0);
}

// Every kind of card this suite builds, by name.
std::vector<std::pair<std::string, scorecard>> cards_of_every_kind() {
  auto interrupted = run({outcome("a.x.y", "high", "pass")});
  interrupted.footer.reset();
  auto no_source = run({outcome("a.x.y", "high", "pass")});
  no_source.header.erase("source");
  std::vector<json> capped;
  for (int i = 0; i < 40; ++i) capped.push_back(outcome("a.x." + std::to_string(i), "critical", "pass"));
  capped.push_back(failure_with_evidence("lifecycle.instance.gone_after_terminate", "critical"));

  auto hardware = run({outcome("a.x.y", "high", "pass")});
  hardware.hardware.push_back(
      {{"record", "hardware"},
       {"status", "fail"},
       {"reason", "gpu.sku [GPU 0]: delivered NVIDIA H100 PCIe"},
       {"address", "10.0.0.1"},
       {"instance", {{"id", "i-1"}, {"type", "gpu_8x_h100_sxm5"}}},
       {"time_to_ssh_s", 41.2},
       {"smoke",
        {{"status", "fail"},
         {"gpus",
          {{{"index", 0},
            {"name", "NVIDIA H100 PCIe"},
            {"sku", "h100-pcie-80gb"},
            {"measurements",
             {{"hbm_triad", {{"value", 1812.0}, {"unit", "GB/s"}, {"pct_of_datasheet", 54.1}, {"verdict", "fail"}}},
              {"memtest", {{"value", 0.0}, {"unit", "errors"}, {"pct_of_datasheet", nullptr}, {"verdict", ""}}}}}}}},
         {"checks",
          {{{"id", "gpu.sku"}, {"gpu", 0}, {"verdict", "fail"}, {"message", "delivered PCIe"}},
           {{"id", "gpu.clock"}, {"gpu", nullptr}, {"verdict", "warn"}, {"message", "slow"}},
           {{"id", "gpu.mig"}, {"gpu", 0}, {"verdict", "pass"}, {"message", "MIG off"}}}}}}});
  auto hostile_hardware = run({});
  hostile_hardware.hardware.push_back(
      {{"record", "hardware"},
       {"status", 7},
       {"reason", json::array()},
       {"instance", "i"},
       {"smoke",
        {{"gpus", {1, "x", {{"index", "zero"}, {"measurements", {{"m", 3}}}}}}, {"checks", {{{"verdict", "fail"}, {"id", 9}}, "junk"}}}}});

  auto audit = run({outcome("a.x.y", "high", "pass")}, "live");
  audit.header["read_only"] = true;

  return {
      {"every outcome", every_outcome_card()},
      {"read-only audit", build_scorecard(audit)},
      {"weighted", build_scorecard(run({outcome("a.x.y", "critical", "pass"), outcome("b.x.y", "high", "fail"),
                                        outcome("c.x.y", "medium", "warn"), outcome("d.x.y", "low", "pass")}))},
      {"capped", build_scorecard(run(capped))},
      {"not graded", build_scorecard(run({outcome("a.x.y", "high", "skipped")}))},
      {"empty", build_scorecard(run({}))},
      {"fictional", build_scorecard(run({outcome("a.x.y", "high", "pass")}, "emulated", true))},
      {"live", build_scorecard(run({outcome("a.x.y", "high", "pass")}, "live"))},
      {"replay", build_scorecard(run({outcome("a.x.y", "high", "fail")}, "replay"))},
      {"no source", build_scorecard(no_source)},
      {"interrupted", build_scorecard(interrupted)},
      {"hardware", build_scorecard(hardware)},
      {"hostile hardware", build_scorecard(hostile_hardware)},
      {"written by results_writer", build_scorecard(written_run())},
  };
}

}  // namespace

TEST(JunitExport, OneTestcasePerCheckWithTheMatchingElement) {
  const auto xml = render_junit({every_outcome_card()});
  EXPECT_EQ(well_formed(xml), "") << xml;
  EXPECT_EQ(count(xml, "<testcase "), 8u);
  EXPECT_NE(xml.find("<testsuites name=\"neograde\" tests=\"8\" failures=\"2\" errors=\"1\" skipped=\"4\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testsuite name=\"p (emulated)\" tests=\"8\" failures=\"2\" errors=\"1\" skipped=\"4\" time=\"0\" "
                     "timestamp=\"2026-11-29T00:00:00Z\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testcase classname=\"p.a\" name=\"a.x.pass\" time=\"0\"/>"), std::string::npos);
  // fail: the severity as type, and the reproduce command of the matching finding.
  EXPECT_NE(xml.find("<testcase classname=\"p.b\" name=\"b.x.fail\" time=\"0\">\n      <failure message=\"r\" type=\"high\">"
                     "r\nreproduce: curl -sS https://api.p.example/x</failure>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<failure message=\"r\" type=\"warn\">r</failure>"), std::string::npos);
  EXPECT_NE(xml.find("<error message=\"r\" type=\"errored\">r</error>"), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"skipped: r\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"no_capacity: r\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"quota: r\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"rate_limited: r\"/>"), std::string::npos);
  EXPECT_EQ(count(xml, "<failure "), 2u);
  EXPECT_EQ(count(xml, "<error "), 1u);
  EXPECT_EQ(count(xml, "<skipped "), 4u);
  EXPECT_NE(xml.find("<property name=\"source\" value=\"emulated\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"provenance\" value=\"EMULATED: "), std::string::npos);
  // Graded: high pass 4 x 1, high fail 4 x 0, medium warn 2 x 0.5; the rest is not graded.
  EXPECT_NE(xml.find("<property name=\"score\" value=\"50.0\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<property name=\"tier\" value=\"Bronze\"/>"), std::string::npos);
}

TEST(JunitExport, OneSuitePerScorecardAndNotGradedSaysSo) {
  const auto xml = render_junit({every_outcome_card(), build_scorecard(run({outcome("a.x.y", "high", "skipped")}, "live"))});
  EXPECT_EQ(well_formed(xml), "") << xml;
  EXPECT_EQ(count(xml, "<testsuite "), 2u);
  EXPECT_NE(xml.find("<testsuite name=\"p (live)\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\""), std::string::npos);
  EXPECT_NE(xml.find("<testsuites name=\"neograde\" tests=\"9\" failures=\"2\" errors=\"1\" skipped=\"5\""), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"score\" value=\"n/a\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"tier\" value=\"Not graded\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"provenance\" value=\"LIVE: measured against https://api.p.example"), std::string::npos);
}

TEST(JunitExport, HostileTextIsEscapedAndStaysWellFormed) {
  const std::string hostile = "a <b> & \"c\" 'd' \x01 ]]> e \xff";
  auto card = build_scorecard(run({outcome("x.<y>", "high", "fail", hostile), outcome("z.q", "high", "skipped", hostile)}));
  card.provider.id = "p&q";
  const auto xml = render_junit({card});
  EXPECT_EQ(well_formed(xml), "") << xml;
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
  EXPECT_EQ(xml.find('\xff'), std::string::npos);
  const std::string escaped = "a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos; \xEF\xBF\xBD ]]&gt; e \xEF\xBF\xBD";
  EXPECT_NE(xml.find("<failure message=\"" + escaped + "\" type=\"high\">" + escaped + "</failure>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<skipped message=\"skipped: " + escaped + "\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"x.&lt;y&gt;\""), std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"p&amp;q (emulated)\""), std::string::npos);
}

TEST(JunitExport, LineBreaksSurviveInAttributes) {
  const auto xml = render_junit({build_scorecard(run({outcome("a.x.y", "high", "fail", "one\r\ntwo\tthree")}))});
  EXPECT_EQ(well_formed(xml), "") << xml;
  EXPECT_NE(xml.find("message=\"one&#13;&#10;two&#9;three\""), std::string::npos) << xml;
  EXPECT_NE(xml.find(">one&#13;\ntwo\tthree</failure>"), std::string::npos) << xml;
}

TEST(JunitExport, MalformedScorecardsNeverThrow) {
  const std::vector<scorecard> cards{
      scorecard{},
      scorecard{.source = "3", .score = std::nullopt},
      scorecard{.checks = {{}, {.check_id = "a", .outcome = "fail"}}, .failures = {{}, {.check_id = "a"}}},
      scorecard{.checks = {{}, {.outcome = "7"}, {.check_id = "a", .outcome = "fail"}}, .failures = {{.check_id = "a"}}},
  };
  std::string xml;
  ASSERT_NO_THROW(xml = render_junit(cards));
  EXPECT_EQ(well_formed(xml), "") << xml;
  EXPECT_EQ(count(xml, "<testsuite "), 4u);
  // The junk entries are errors (an outcome this code does not know), not silent passes.
  EXPECT_NE(xml.find("tests=\"3\" failures=\"1\" errors=\"2\" skipped=\"0\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("UNKNOWN SOURCE"), std::string::npos);
  ASSERT_NO_THROW((void)render_matrix_csv(cards));
}

TEST(MatrixCsv, OneColumnPerScorecardSortedByCategoryThenId) {
  auto late = outcome("z.late.id", "low", "warn");
  late["category"] = "a";
  const auto p1 = build_scorecard(run({outcome("a.x.y", "high", "pass"), outcome("b.x.y", "high", "fail"), late}));
  const auto p2 = build_scorecard(run({outcome("a.x.y", "high", "fail")}, "live"));
  auto q = build_scorecard(run({outcome("b.x.y", "high", "pass"), outcome("a.x,\"z\"", "low", "pass")}));
  q.provider.id = "q";
  EXPECT_EQ(render_matrix_csv({p1, p2, q}),
            "check_id,category,severity,p,p#2,q\r\n"
            "\"a.x,\"\"z\"\"\",a,low,,,pass\r\n"
            "a.x.y,a,high,pass,fail,\r\n"
            "z.late.id,a,low,warn,,\r\n"
            "b.x.y,b,high,fail,,pass\r\n");
}

TEST(MatrixCsv, LineBreaksAreQuotedAndNothingIsJustTheHeader) {
  EXPECT_EQ(render_matrix_csv({}), "check_id,category,severity\r\n");
  auto card = build_scorecard(run({outcome("a.x.y", "high", "pass")}));
  card.provider.id = "odd\r\nid";
  EXPECT_EQ(render_matrix_csv({card}), "check_id,category,severity,\"odd\r\nid\"\r\na.x.y,a,high,pass\r\n");
}

TEST(ScorecardSchema, EveryScorecardBuiltHereValidates) {
  json doc;
  ASSERT_NO_THROW(doc = load_schema_document());
  const neograde::json_schema schema(doc);

  for (const auto& [name, card] : cards_of_every_kind()) {
    const json written = card;
    EXPECT_EQ(violations_of(schema, written), "") << name << "\n" << written.dump(2);
  }
}

TEST(ScorecardSchema, ARenamedOrMissingKeyIsCaught) {
  json doc;
  ASSERT_NO_THROW(doc = load_schema_document());
  const neograde::json_schema schema(doc);
  const json card = every_outcome_card();
  ASSERT_EQ(violations_of(schema, card), "");

  auto renamed = card;
  renamed["grade"] = renamed["tier"];
  renamed.erase("tier");
  EXPECT_NE(violations_of(schema, renamed), "");

  auto extra = card;
  extra["tier_reason"] = "x";
  EXPECT_NE(violations_of(schema, extra), "");

  auto provider_renamed = card;
  provider_renamed["provider"]["name"] = provider_renamed["provider"]["display_name"];
  provider_renamed["provider"].erase("display_name");
  EXPECT_NE(violations_of(schema, provider_renamed), "");

  auto wrong_type = card;
  wrong_type["counts"]["pass"] = "1";
  EXPECT_NE(violations_of(schema, wrong_type), "");

  auto bad_source = card;
  bad_source["source"] = "simulated";
  EXPECT_NE(violations_of(schema, bad_source), "");

  auto graded_without_score = card;
  graded_without_score["score"] = nullptr;  // tier stays Bronze: a score is owed
  EXPECT_NE(violations_of(schema, graded_without_score), "");
}

// The one JSON mapping, both ways: a card written and read back is written the same.
TEST(ScorecardJson, WrittenCardsReadBackTheSame) {
  for (const auto& [name, card] : cards_of_every_kind()) {
    const json written = card;
    scorecard read;
    ASSERT_NO_THROW(read = written.get<scorecard>()) << name;
    EXPECT_EQ(neograde::dump_json(json(read), 2), neograde::dump_json(written, 2)) << name;
  }
  // An integer stays one and a float keeps its fraction, as the records wrote them.
  const auto hardware = json(build_scorecard(written_run()))["hardware"][0];
  EXPECT_EQ(hardware["time_to_ssh_s"].dump(), "41");
  EXPECT_EQ(hardware["gpus"][0]["measurements"][0]["value"].dump(), "540.5");
}

TEST(ScorecardJson, AMissingKeyOrAnotherVersionIsAClearError) {
  const json card = build_scorecard(written_run());
  const auto error_of = [](const json& doc) -> std::string {
    try {
      (void)doc.get<scorecard>();
    } catch (const scorecard_format_error& e) {
      return e.what();
    }
    return "";
  };
  auto missing = card;
  missing.erase("tier");
  EXPECT_EQ(error_of(missing), "not a scorecard this version reads: /tier is missing");
  auto nested = card;
  nested["failures"][0].erase("evidence");
  EXPECT_EQ(error_of(nested), "not a scorecard this version reads: /failures/0/evidence is missing");
  auto wrong_type = card;
  wrong_type["counts"]["pass"] = "1";
  EXPECT_EQ(error_of(wrong_type), "not a scorecard this version reads: /counts/pass is a string, not an integer");
  auto newer = card;
  newer["scorecard_version"] = 2;
  EXPECT_EQ(error_of(newer), "not a scorecard this version reads: /scorecard_version is 2; this version of neograde reads 1");
  EXPECT_EQ(error_of(json::array()), "not a scorecard this version reads: the document is an array, not an object");

  // Keys this version does not know are ignored; cards from before --time-to-gone lack the timings.
  auto extra = card;
  extra["tier_reason"] = "x";
  extra["provider"]["logo"] = "x";
  EXPECT_EQ(error_of(extra), "");
  auto older = card;
  older.erase("timing_overrides");
  EXPECT_EQ(error_of(older), "");
  EXPECT_TRUE(older.get<scorecard>().timing_overrides.empty());
}

// A badge always names its source, with the tier, the score and the run's date; its SVG is
// well-formed plain text whatever the provider is called, and the shields.io endpoint JSON has the
// four fields that form requires.
TEST(Badge, NamesTheSourceTierScoreAndDate) {
  const auto emulated = build_scorecard(run({outcome("a.x.y", "high", "pass")}));
  const auto b = badge_of(emulated);
  EXPECT_EQ(b.label, "neograde EMULATED");
  EXPECT_EQ(b.message, "Platinum 100.0 \u00b7 2026-11-29");
  EXPECT_EQ(b.color, "brightgreen");
  EXPECT_EQ(badge_of(build_scorecard(run({outcome("a.x.y", "high", "pass")}, "live"))).label, "neograde LIVE");
  EXPECT_EQ(badge_of(build_scorecard(run({outcome("a.x.y", "high", "pass")}, "replay"))).label, "neograde REPLAY");
  EXPECT_EQ(badge_of(build_scorecard(run({outcome("a.x.y", "high", "pass")}, "??"))).label, "neograde UNKNOWN SOURCE");
  const auto capped = badge_of(build_scorecard(run({outcome("a.x.y", "critical", "fail")})));
  EXPECT_EQ(capped.message, "Underperform 0.0 \u00b7 2026-11-29");
  EXPECT_EQ(capped.color, "red");
  const auto ungraded = badge_of(build_scorecard(run({outcome("a.x.y", "high", "skipped")})));
  EXPECT_EQ(ungraded.message, "Not graded \u00b7 2026-11-29");
  EXPECT_EQ(ungraded.color, "lightgrey");

  const auto svg = render_badge_svg(emulated);
  EXPECT_EQ(well_formed(svg), "") << svg;
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find(">neograde EMULATED</text>"), std::string::npos);
  EXPECT_NE(svg.find(">Platinum 100.0 \u00b7 2026-11-29</text>"), std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("href"), std::string::npos);

  const auto endpoint = json::parse(render_badge_json(emulated));
  EXPECT_EQ(endpoint.size(), 4u);
  EXPECT_EQ(endpoint.at("schemaVersion"), 1);
  EXPECT_EQ(endpoint.at("label"), "neograde EMULATED");
  EXPECT_EQ(endpoint.at("message"), "Platinum 100.0 \u00b7 2026-11-29");
  EXPECT_EQ(endpoint.at("color"), "brightgreen");
}

TEST(Badge, HostileNamesAreEscapedAndStayWellFormed) {
  auto card = build_scorecard(run({outcome("a.x.y", "high", "fail")}));
  card.provider.display_name = "</title><script>alert(1)</script> & \"x\" 'y' \x01 ]]> \xff";
  card.tier = "<Gold & \"more\">";
  card.finished_at = "<2026>";
  const auto svg = render_badge_svg(card);
  EXPECT_EQ(well_formed(svg), "") << svg;
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_NE(svg.find("&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot; &apos;y&apos;"), std::string::npos) << svg;
  EXPECT_EQ(svg.find('\x01'), std::string::npos);
  EXPECT_EQ(count(svg, "<title>"), 1u);
  EXPECT_EQ(count(svg, "<text "), 2u);
  json endpoint;
  ASSERT_NO_THROW(endpoint = json::parse(render_badge_json(card)));
  EXPECT_EQ(endpoint.at("message"), "<Gold & \"more\"> 0.0 \u00b7 <2026>");
}
