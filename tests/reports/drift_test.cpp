// Contract drift (issue 40.3): synthetic runs in the real results format, each with the footer
// measurements contract_shape and offer_selection; a field removed and a new status word between
// two runs are both reported, an unchanged history reports nothing, and the recorder's bounds hold.
#include <neograde/reports/drift.hpp>

#include <neograde/core/contract_shape.hpp>
#include <neograde/core/json_schema.hpp>
#include <neograde/reports/history.hpp>

#include <gtest/gtest.h>

#include <fstream>

using namespace neograde::reports;
using neograde::measurement::contract_recorder;
using neograde::measurement::contract_shape;
using nlohmann::json;

namespace {

// The answers of one run: a catalogue, an instance list with `fields` per instance, and the
// status words read.
contract_shape shape(const std::vector<std::string>& instance_fields, const std::vector<std::string>& words, int get_status = 200) {
  contract_recorder rec;
  rec.answer("list_offers", 200, nullptr);
  json offers = {{"data", {{"gpu_1x_h100", {{"price_cents", 249}}}, {"gpu_8x_h100", {{"price_cents", 1992}}}}}};
  rec.answer("list_offers", 200, &offers, "/data");
  json instance = json::object();
  for (const auto& f : instance_fields) instance[f] = "x";
  json list = {{"instances", json::array({instance, instance})}};
  rec.answer("list", 200, &list);
  rec.answer("get", get_status, get_status == 200 ? &instance : nullptr);
  for (const auto& w : words) rec.status_word(w);
  return rec.shape();
}

json selection(std::size_t rows, std::size_t unavailable, double price) {
  return {{"explanation", "cheapest"},
          {"rows", rows},
          {"not_gpu", 0},
          {"unavailable", unavailable},
          {"unpriced", 0},
          {"not_pinned", 0},
          {"refused", 0},
          {"not_fitting", 0},
          {"instance_type", "gpu_1x_h100"},
          {"region", "us-east-1"},
          {"price_per_hour_usd", price}};
}

run_record run(const std::string& id, const std::string& started, const contract_shape& s, const json& sel = selection(10, 2, 2.49)) {
  run_record r;
  r.header = {{"record", "header"}, {"run_id", id},          {"provider", "bodgenet"},
              {"source", "live"},   {"started_at", started}, {"display_name", "Bodgenet"}};
  r.footer = json{{"record", "footer"},
                  {"provider", "bodgenet"},
                  {"complete", true},
                  {"measurements", {{"contract_shape", s}, {"offer_selection", sel}}}};
  return r;
}

const std::vector<std::string> fields{"id", "status", "ip", "price"};

std::vector<std::string> kinds(const std::vector<contract_drift>& all) {
  std::vector<std::string> out;
  for (const auto& d : all) out.push_back(d.kind + " " + d.operation + " " + d.subject);
  return out;
}

}  // namespace

TEST(ContractShape, RoundTripsThroughTheFooter) {
  const auto s = shape(fields, {"booting", "active"});
  EXPECT_EQ(json(s).get<contract_shape>(), s);
  EXPECT_TRUE(s.operations.at("list").fields.contains("/instances/*/ip"));
  EXPECT_TRUE(s.operations.at("list").fields.contains("/instances/*"));
  // A keyed collection's keys are ids or names, not fields.
  EXPECT_TRUE(s.operations.at("list_offers").fields.contains("/data/*/price_cents"));
  EXPECT_FALSE(s.operations.at("list_offers").fields.contains("/data/gpu_1x_h100"));
  // Read back as data: a wrong-typed member is empty, never an exception.
  EXPECT_EQ(json({{"operations", 3}, {"status_words", {1, "up"}}}).get<contract_shape>().status_words, std::set<std::string>{"up"});
}

TEST(ContractShape, StaysWithinItsBoundsWhateverTheProviderAnswers) {
  contract_recorder rec;
  json wide = json::object();
  for (int i = 0; i < 5000; ++i) wide["field" + std::to_string(i)] = i;
  json deep = 1;
  for (int i = 0; i < 200; ++i) deep = json::array({deep});
  rec.answer("list", 200, &wide);
  rec.answer("get", 200, &deep);
  for (int i = 0; i < 500; ++i) rec.status_word("word" + std::to_string(i) + std::string(300, 'x'));
  for (int s = 100; s < 600; ++s) rec.answer("terminate", s, nullptr);
  const auto& s = rec.shape();
  EXPECT_EQ(s.operations.at("list").fields.size(), neograde::measurement::contract_limits{}.fields_per_operation);
  EXPECT_TRUE(s.operations.at("list").fields_cut);
  EXPECT_LE(s.operations.at("get").fields.size(), neograde::measurement::contract_limits{}.depth + 1);
  EXPECT_EQ(s.status_words.size(), neograde::measurement::contract_limits{}.status_words);
  EXPECT_TRUE(s.status_words_cut);
  for (const auto& w : s.status_words) EXPECT_LE(w.size(), neograde::measurement::contract_limits{}.word_bytes);
  EXPECT_EQ(s.operations.at("terminate").statuses.size(), neograde::measurement::contract_limits{}.statuses_per_operation);
  EXPECT_LT(json(s).dump().size(), 64u * 1024);
}

// A report over a long history keeps only what the figures read of each run (reliability_view):
// the figures, drift included, are the same, and what they do not read (evidence, hardware, other
// measurements) is gone.
TEST(ContractDrift, TheReliabilityViewGivesTheSameFigures) {
  std::vector<run_record> runs{run("r1", "2026-12-01T06:00:00Z", shape(fields, {"booting", "active"})),
                               run("r2", "2026-12-02T06:00:00Z", shape(fields, {"booting", "active"})),
                               run("r3", "2026-12-03T06:00:00Z", shape({"id", "status", "price"}, {"booting", "active", "degraded"}))};
  for (auto& r : runs) {
    r.outcomes.push_back({{"record", "outcome"},
                          {"check_id", "a.x.y"},
                          {"outcome", r.header["run_id"] == "r2" ? "fail" : "pass"},
                          {"evidence", json::array({{{"response_body", std::string(10000, 'x')}}})}});
    (*r.footer)["measurements"]["developer_experience"] = {{"launch_attempts", 1}, {"launch_succeeded", true}, {"time_to_running_s", 42}};
    (*r.footer)["measurements"]["catalogue"] = {{"rows", 1000}};
    r.hardware.push_back({{"record", "hardware"}, {"status", "pass"}});
  }
  std::vector<run_record> views;
  for (const auto& r : runs) views.push_back(reliability_view(r));
  EXPECT_EQ(reliability_document(compute_reliability(views)), reliability_document(compute_reliability(runs)));
  // Kept compactly, a group at a time, with another provider's runs among them: the same again.
  auto other = runs;
  for (auto& r : other) r.header["provider"] = "another";
  std::vector<run_record> both;
  reliability_runs kept;
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (const auto* r : {&other[i], &runs[i]}) {
      both.push_back(*r);
      kept.add(*r);
    }
  EXPECT_EQ(kept.size(), 6u);
  EXPECT_EQ(reliability_document(kept.figures()), reliability_document(compute_reliability(both)));
  EXPECT_EQ(kept.figures().at(0).provider, "another");
  EXPECT_EQ(compute_reliability(views).at(0).drift.size(), 3u);
  EXPECT_EQ(compute_reliability(views).at(0).flipping.size(), 1u);
  const auto& v = views[1];
  EXPECT_TRUE(v.hardware.empty());
  EXPECT_EQ(v.outcomes.back(), json({{"check_id", "a.x.y"}, {"outcome", "fail"}}));
  EXPECT_FALSE(v.footer->at("measurements").contains("catalogue"));
  EXPECT_LT(json(v.outcomes).dump().size(), 200u);
}

TEST(ContractDrift, AFieldRemovedAndANewStatusWordAreBothReported) {
  const std::vector<run_record> runs{
      run("r1", "2026-12-01T06:00:00Z", shape(fields, {"booting", "active"})),
      run("r2", "2026-12-02T06:00:00Z", shape(fields, {"booting", "active"})),
      run("r3", "2026-12-03T06:00:00Z", shape({"id", "status", "price"}, {"booting", "active", "degraded"}))};
  const auto drift = diff_drift({}, runs);
  EXPECT_EQ(kinds(drift),
            (std::vector<std::string>{"field_vanished get /ip", "field_vanished list /instances/*/ip", "status_word_new  degraded"}));
  EXPECT_EQ(drift[0].since_run, "r2");
  EXPECT_EQ(drift[0].run, "r3");
  EXPECT_NE(drift[2].text().find("\"degraded\" never read before"), std::string::npos) << drift[2].text();
  // The same in the history's figures, the report's Markdown and HTML and reliability.json.
  const auto figures = compute_reliability(runs);
  ASSERT_EQ(figures.size(), 1u);
  EXPECT_EQ(figures[0].drift.size(), 3u);
  const auto md = render_reliability_markdown(figures);
  EXPECT_NE(md.find("Contract drift: 3 change(s)"), std::string::npos) << md;
  EXPECT_NE(md.find("| field_vanished | list | `/instances/*/ip` |"), std::string::npos) << md;
  const auto html = render_reliability_html(figures);
  EXPECT_NE(html.find("<tr data-kind=\"status_word_new\"><td>status_word_new</td><td>-</td><td><code>degraded</code>"), std::string::npos)
      << html;
  EXPECT_LT(html.find("<svg class=\"chart trend\""), html.find("<div class=\"drift\""));  // beside the trend chart
  std::ifstream schema_file(NEOGRADE_RELIABILITY_SCHEMA);
  const neograde::json_schema schema(json::parse(schema_file));
  for (const auto& v : schema.validate(reliability_document(figures))) ADD_FAILURE() << v.pointer << ": " << v.message;
  // As changes of `neograde diff`: reported, not graded.
  for (const auto& d : drift) EXPECT_EQ(as_change(d).kind, "drift");
  EXPECT_EQ(as_change(drift[0]).check_id, "drift.field_vanished");
}

TEST(ContractDrift, AnUnchangedHistoryReportsNothing) {
  std::vector<run_record> runs;
  for (int day = 1; day <= 5; ++day)
    runs.push_back(run("r" + std::to_string(day), "2026-12-0" + std::to_string(day) + "T06:00:00Z", shape(fields, {"booting", "active"})));
  EXPECT_TRUE(diff_drift({}, runs).empty());
  EXPECT_NE(render_reliability_markdown(compute_reliability(runs)).find("Contract drift: none"), std::string::npos);
  // A word read in any earlier run is not new; an instance list that is empty this time loses no field.
  runs.push_back(run("r6", "2026-12-06T06:00:00Z", shape(fields, {"booting"})));
  auto empty_list = shape(fields, {"active"});
  json list = {{"instances", json::array()}};
  contract_recorder rec;
  rec.answer("list", 200, &list);
  empty_list.operations["list"] = rec.shape().operations.at("list");
  runs.push_back(run("r7", "2026-12-07T06:00:00Z", empty_list));
  EXPECT_TRUE(diff_drift({}, runs).empty()) << kinds(diff_drift({}, runs)).front();
  // A field that comes and goes with state (an address only once running) is no contract.
  std::vector<run_record> flapping;
  for (int day = 1; day <= 4; ++day)
    flapping.push_back(run("f" + std::to_string(day), "2026-12-0" + std::to_string(day) + "T06:00:00Z",
                           shape(day % 2 == 1 ? fields : std::vector<std::string>{"id", "status", "price"}, {"active"})));
  EXPECT_TRUE(diff_drift({}, flapping).empty()) << kinds(diff_drift({}, flapping)).front();
  // Runs from before the measurement compare nothing of it.
  run_record old = run("r0", "2026-11-30T06:00:00Z", {});
  old.footer = json{{"record", "footer"}, {"measurements", json::object()}};
  EXPECT_TRUE(drift_between({&old}, runs.back()).empty());
}

TEST(ContractDrift, FieldsAppearingOperationsGoneAndCatalogueJumps) {
  const auto before = run("r1", "2026-12-01T06:00:00Z", shape(fields, {"active"}));
  const auto after =
      run("r2", "2026-12-02T06:00:00Z", shape({"id", "status", "ip", "price", "gpu_vendor"}, {"active"}, 404), selection(10, 9, 3.99));
  EXPECT_EQ(kinds(drift_between({&before}, after)),
            (std::vector<std::string>{"operation_gone get get", "status_new get 404", "field_appeared list /instances/*/gpu_vendor",
                                      "capacity_jump list_offers rows with capacity", "price_jump list_offers cheapest launchable row"}));
  // Within the thresholds, the catalogue did not jump.
  const auto near = run("r3", "2026-12-03T06:00:00Z", shape(fields, {"active"}), selection(10, 3, 2.60));
  EXPECT_TRUE(drift_between({&before}, near).empty()) << kinds(drift_between({&before}, near)).front();
  // An operation that answered 404 before too (an unknown id) is not gone for answering only 404 now.
  auto both = shape(fields, {"active"});
  both.operations["get"].statuses = {200, 404};
  const auto with_404 = run("r4", "2026-12-04T06:00:00Z", both);
  EXPECT_EQ(kinds(drift_between({&before}, with_404)), std::vector<std::string>{"status_new get 404"});
  EXPECT_EQ(kinds(drift_between({&with_404}, after)),
            (std::vector<std::string>{"field_appeared list /instances/*/gpu_vendor", "capacity_jump list_offers rows with capacity",
                                      "price_jump list_offers cheapest launchable row"}));
  // OLD and NEW: NEW's latest against OLD's runs.
  EXPECT_EQ(diff_drift({before}, {after}).size(), 5u);
}

// A field read only with types no earlier run read it with is reported (a price once a string,
// now a number); one that is null until there is a value, or that gained a type beside its old
// one, is not.
TEST(ContractDrift, AFieldThatChangedTypeIsReported) {
  const auto with = [](const json& price, const json& ip) {
    contract_recorder rec;
    json instance = {{"id", "i-1"}, {"price", price}, {"ip", ip}};
    rec.answer("get", 200, &instance);
    return rec.shape();
  };
  const auto r1 = run("r1", "2026-12-01T06:00:00Z", with("2.49", nullptr));
  const auto r2 = run("r2", "2026-12-02T06:00:00Z", with("2.49", "203.0.113.7"));
  const auto r3 = run("r3", "2026-12-03T06:00:00Z", with(2.49, nullptr));
  EXPECT_TRUE(drift_between({&r1}, r2).empty()) << kinds(drift_between({&r1}, r2)).front();
  const auto drift = drift_between({&r1, &r2}, r3);
  ASSERT_EQ(kinds(drift), std::vector<std::string>{"field_type_changed get /price"});
  EXPECT_EQ(drift[0].before, "string");
  EXPECT_EQ(drift[0].after, "number");
  EXPECT_NE(drift[0].text().find("field /price changed type in get answers: number now, string in every earlier run"), std::string::npos)
      << drift[0].text();
  // An integer and a fraction are one type; a run whose price was read both ways changes nothing.
  const auto r4 = run("r4", "2026-12-04T06:00:00Z", with(3, nullptr));
  EXPECT_TRUE(drift_between({&r3}, r4).empty()) << kinds(drift_between({&r3}, r4)).front();
  auto both = with("2.49", nullptr);
  both.operations["get"].types["/price"].insert("number");
  EXPECT_TRUE(drift_between({&r1}, run("r5", "2026-12-05T06:00:00Z", both)).empty());
  // Read back from the footer, and bounded: a hostile member of types is dropped, not trusted.
  const auto s = with("2.49", nullptr);
  EXPECT_EQ(json(s).get<contract_shape>(), s);
  json hostile = s;
  hostile["operations"]["get"]["types"]["/not-a-field"] = {"string"};
  hostile["operations"]["get"]["types"]["/price"] = 7;
  const auto read = hostile.get<contract_shape>();
  EXPECT_FALSE(read.operations.at("get").types.contains("/not-a-field"));
  EXPECT_FALSE(read.operations.at("get").types.contains("/price"));
}
