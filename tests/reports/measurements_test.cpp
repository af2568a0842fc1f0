// The footer's typed measurements as tables a person reads, in the Markdown and HTML scorecards
// (reports/measurements.hpp), never as raw JSON.
#include <neograde/reports/html.hpp>
#include <neograde/reports/measurements.hpp>
#include <neograde/reports/scorecard.hpp>

#include <neograde/core/measurements.hpp>

#include <gtest/gtest.h>

using namespace neograde;
using namespace neograde::reports;
using nlohmann::json;

namespace {

// The footer's measurements as a run writes them, every typed one present.
json footer_measurements() {
  json m = {{"time_to_running_s", 1.5}, {"latency_read_ms", {{"p50", 2.0}, {"p95", 9.0}}}};
  m[measurement::spend::key] = measurement::spend{.live = false, .allowed = true, .instances_created = 6, .estimated_usd = 3.05};
  m[measurement::rate_limit::key] = measurement::rate_limit{.probed = false, .met_in_traffic = 2, .probe_met = false};
  m[measurement::offer_selection::key] = measurement::offer_selection{
      .explanation = "a100 at $0.9/h: the cheapest of 2 launchable row(s)",
      .rows = 3,
      .unavailable = 1,
      .chosen = measurement::chosen_offer{.instance_type = "a100", .region = "us-east-1", .price_per_hour_usd = 0.9}};
  m[measurement::advertised_rows::key] = measurement::advertised_rows{
      .tried = 2,
      .launched = 1,
      .share = 0.5,
      .rows = {{.row = "a100", .launched = true}, {.row = "h100", .launched = false, .why = "refused: no capacity"}},
      .advertised = 2};
  m[measurement::billing::key] = measurement::billing{
      .scope = "instance",
      .price_per_hour_usd = 0.9,
      .increment_s = 60.0,
      .billed_from = "running",
      .readings = {{.phase = "running", .at = "2026-12-03T00:00:00Z", .amount = 0.25, .spend_rate_usd_per_hour = 0.9}}};
  m[measurement::developer_experience::key] = measurement::developer_experience{.launch_attempts = 1, .launch_succeeded = true};
  return m;
}

const measurement_table* table(const std::vector<measurement_table>& all, const std::string& key) {
  for (const auto& t : all)
    if (t.key == key) return &t;
  return nullptr;
}

std::string row(const measurement_table& t, const std::string& label) {
  for (const auto& [l, v] : t.rows)
    if (l == label) return v;
  return "(no row " + label + ")";
}

run_record run_with(json measurements) {
  return {{{"record", "header"}, {"provider", "p"}, {"display_name", "P Cloud"}, {"source", "emulated"}},
          {},
          json{{"record", "footer"}, {"measurements", std::move(measurements)}}};
}

}  // namespace

TEST(MeasurementTables, EveryTypedMeasurementButDeveloperExperienceIsATable) {
  const auto all = measurement_tables(footer_measurements());
  ASSERT_EQ(all.size(), 5u);
  EXPECT_FALSE(table(all, "developer_experience"));  // its own section (developer_experience_rows)
  const auto* spend = table(all, "spend");
  ASSERT_TRUE(spend);
  EXPECT_EQ(row(*spend, "Instances created"), "6");
  EXPECT_EQ(row(*spend, "Estimated cost"), "$3.05");
  EXPECT_EQ(row(*spend, "Spending allowed"), "yes");
  const auto* rl = table(all, "rate_limit");
  ASSERT_TRUE(rl);
  EXPECT_EQ(row(*rl, "Probed (--probe-rate-limit)"), "no");
  EXPECT_EQ(row(*rl, "429s met in the run's own traffic"), "2");
  const auto* offer = table(all, "offer_selection");
  ASSERT_TRUE(offer);
  EXPECT_EQ(row(*offer, "Chosen"), "a100 in us-east-1 at $0.9/h");
  EXPECT_EQ(row(*offer, "Set aside"), "1 without capacity");
  const auto* rows = table(all, "advertised_rows_launched");
  ASSERT_TRUE(rows);
  EXPECT_EQ(row(*rows, "Launched"), "1 (50%)");
  EXPECT_EQ(row(*rows, "Row h100"), "not launched: refused: no capacity");
  const auto* billing = table(all, "billing");
  ASSERT_TRUE(billing);
  EXPECT_EQ(row(*billing, "Billing increment"), "60 s");
  EXPECT_EQ(row(*billing, "Reading running"), "at 2026-12-03T00:00:00Z: amount $0.25, spend rate $0.9/h");
  EXPECT_TRUE(measurement_tables(json::object()).empty());
  EXPECT_TRUE(measurement_tables(json{{"spend", "junk"}}).empty());
}

TEST(MeasurementTables, MarkdownCardShowsTablesNotRawJson) {
  const auto md = render_markdown(build_scorecard(run_with(footer_measurements())));
  EXPECT_NE(md.find("| time_to_running_s | 1.5 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| latency_read_ms.p95 | 9.0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("### Spend\n\n| | |\n|---|---|\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| Estimated cost | $3.05 |"), std::string::npos) << md;
  EXPECT_NE(md.find("### Offer selection"), std::string::npos) << md;
  EXPECT_NE(md.find("| Row h100 | not launched: refused: no capacity |"), std::string::npos) << md;
  // No measurement is printed as a JSON object or array any more.
  EXPECT_EQ(md.find("{\""), std::string::npos) << md;
  EXPECT_EQ(md.find("[{"), std::string::npos) << md;
}

TEST(MeasurementTables, HtmlCardShowsTheSameTables) {
  const auto html = render_html_site({build_scorecard(run_with(footer_measurements()))}, "2026-12-03T00:00:00Z").providers.at(0).html;
  EXPECT_NE(html.find("<h4>Billing</h4>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>Estimated cost</th><td>$3.05</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<code>latency_read_ms.p95</code>"), std::string::npos);
  // The typed ones are not flattened into the generic table as well.
  EXPECT_EQ(html.find("<code>spend.estimated_usd</code>"), std::string::npos);
  EXPECT_EQ(html.find("<code>advertised_rows_launched.rows</code>"), std::string::npos);
}
