// Declared vs measured transparency in the scorecard, and the developer-experience timings.

#include <neograde/reports/compare.hpp>
#include <neograde/reports/html.hpp>
#include <neograde/reports/scorecard.hpp>
#include <neograde/reports/transparency.hpp>

#include <gtest/gtest.h>

#include <fstream>

using namespace neograde::reports;
using nlohmann::json;

namespace {

// The index and every provider's page, one after the other (provider details are on the pages).
std::string site_text(const std::vector<scorecard>& cards, const std::string& generated_at) {
  const auto site = render_html_site(cards, generated_at);
  std::string all = site.index;
  for (const auto& p : site.providers) all += p.html;
  return all;
}

json fixture(const std::string& name) {
  std::ifstream in(std::string(NEOGRADE_SMOKE_FIXTURES) + "/" + name + ".json");
  return json::parse(in);
}

// A run of `provider` declaring `transparency`, with a hardware record of the fixture smoke
// document (none when `smoke` is empty) and the footer's measurements.
run_record run(const std::string& provider, json transparency, const std::string& smoke, json measurements = json::object(),
               const std::string& source = "live", const std::string& started = "2026-11-20T10:00:00Z") {
  run_record r{{{"record", "header"},
                {"provider", provider},
                {"display_name", provider + " Cloud"},
                {"provider_kind", "neocloud"},
                {"transparency", std::move(transparency)},
                {"source", source},
                {"base_url", "https://api." + provider + ".example"},
                {"started_at", started}},
               {},
               json{{"record", "footer"}, {"measurements", std::move(measurements)}}};
  if (!smoke.empty()) r.hardware.push_back({{"status", "pass"}, {"reason", "r"}, {"smoke", fixture(smoke)}});
  return r;
}

const claim_row& claim(const scorecard& card, const std::string& which) {
  for (const auto& c : card.transparency_claims)
    if (c.claim == which) return c;
  static const claim_row none{.claim = "absent"};
  return none;
}

json owns(const std::string& machine) {
  return {{"hardware", "owns"}, {"hardware_source", "s"}, {"machine", machine}, {"machine_source", "m"}};
}

}  // namespace

TEST(Transparency, BareMetalClaimedAndAKvmGuestFoundIsAContradiction) {
  const auto card = build_scorecard(run("p", owns("bare_metal"), "fingerprint-kvm-guest"));
  const auto& m = claim(card, "machine");
  EXPECT_EQ(m.verdict, "contradicted") << m.measured;
  EXPECT_EQ(m.declared, "bare_metal");
  EXPECT_EQ(m.declared_source, "m");
  EXPECT_NE(m.measured.find("KVM"), std::string::npos) << m.measured;
  // The same record under a VM claim is consistent, and on bare metal the bare-metal claim is.
  EXPECT_EQ(claim(build_scorecard(run("p", owns("vm"), "fingerprint-kvm-guest")), "machine").verdict, "consistent");
  EXPECT_EQ(claim(build_scorecard(run("p", owns("bare_metal"), "fingerprint-bare-metal")), "machine").verdict, "consistent");
  // Without a smoke record nothing is measured: unverified, never a guess.
  EXPECT_EQ(claim(build_scorecard(run("p", owns("bare_metal"), "")), "machine").verdict, "unverified");
}

TEST(Transparency, NoClaimsWhereTheSpecSaysNothing) {
  EXPECT_TRUE(build_scorecard(run("p", nullptr, "fingerprint-kvm-guest")).transparency_claims.empty());
}

TEST(Transparency, TheReportMatchesAGpuAcrossProviders) {
  // p claims to own its GPUs; the same physical GPUs were rented from q (a marketplace) before.
  json market = {{"hardware", "marketplace"}, {"hardware_source", "s"}};
  const auto cards =
      merge_scorecards({run("p", owns("bare_metal"), "fingerprint-seen-elsewhere", json::object(), "live", "2026-11-20T10:00:00Z"),
                        run("q", market, "fingerprint-bare-metal", json::object(), "live", "2026-11-02T09:00:00Z")});
  ASSERT_EQ(cards.size(), 2u);
  const auto& p = claim(cards[0], "hardware");
  EXPECT_EQ(p.verdict, "contradicted") << p.measured;
  EXPECT_NE(p.measured.find("q"), std::string::npos) << p.measured;
  EXPECT_NE(p.measured.find("2026-11-02"), std::string::npos) << p.measured;
  EXPECT_EQ(claim(cards[1], "hardware").verdict, "consistent") << claim(cards[1], "hardware").measured;
  // One run alone cannot see the other provider.
  EXPECT_EQ(claim(build_scorecard(run("p", owns("bare_metal"), "fingerprint-seen-elsewhere")), "hardware").verdict, "unverified");
  // Nor can a run of another source: an emulated GPU is not a live one.
  const auto mixed = merge_scorecards(
      {run("p", owns("bare_metal"), "fingerprint-seen-elsewhere"), run("q", market, "fingerprint-bare-metal", json::object(), "emulated")});
  EXPECT_NE(claim(mixed[0].provider.id == "p" ? mixed[0] : mixed[1], "hardware").verdict, "contradicted");
}

TEST(Transparency, TheAddressOwnerAgainstTheDeclaredRegistrants) {
  auto with_owner = [](const std::string& org) {
    json owner = {{"status", "found"}, {"query_url", "https://rdap.example/ip/2d00::1"}};
    owner["organisation"]["name"] = org;
    return json{{"address_owner", owner}};
  };
  auto t = owns("vm");
  t["address_registrants"] = {"P Cloud Inc"};
  const auto mine = build_scorecard(run("p", t, "", with_owner("P CLOUD INC")));
  EXPECT_EQ(claim(mine, "address").verdict, "consistent") << claim(mine, "address").measured << " " << mine.measurements.dump();
  EXPECT_EQ(claim(build_scorecard(run("p", t, "", with_owner("Someone Else LLC"))), "address").verdict, "unverified");
  // Registered to an organisation another provider's spec declares as its own: p claims to own its
  // hardware, so that contradicts it; for a reseller it is what reselling looks like.
  auto q = json{{"hardware", "owns"}, {"hardware_source", "s"}, {"address_registrants", {"Q Holdings"}}};
  auto cards = merge_scorecards({run("p", t, "", with_owner("Q Holdings")), run("q", q, "")});
  EXPECT_EQ(claim(cards[0], "address").verdict, "contradicted") << claim(cards[0], "address").measured;
  t["hardware"] = "resells";
  cards = merge_scorecards({run("p", t, "", with_owner("Q Holdings")), run("q", q, "")});
  EXPECT_EQ(claim(cards[0], "address").verdict, "consistent");
  // A failed lookup is recorded, not judged.
  const auto failed = build_scorecard(run("p", t, "", {{"address_owner", {{"status", "error"}, {"error", "timed out"}}}}));
  EXPECT_EQ(claim(failed, "address").verdict, "unverified");
  EXPECT_NE(claim(failed, "address").measured.find("timed out"), std::string::npos);
}

TEST(Transparency, HostileRecordsNeverThrow) {
  for (const json& fp : {json(42), json("x"), json::array(), json{{"gpus", 7}, {"host", {{"virtualisation", "kvm"}}}}}) {
    auto r = run("p", owns("bare_metal"), "");
    r.hardware.push_back({{"smoke", {{"fingerprint", fp}}}});
    r.footer = json{
        {"measurements", {{"address_owner", {{"status", 5}, {"organisation", "x"}}}, {"developer_experience", {{"launch_refused", 3}}}}}};
    scorecard card;
    ASSERT_NO_THROW(card = build_scorecard(r));
    EXPECT_NE(claim(card, "machine").verdict, "contradicted");
    ASSERT_NO_THROW((void)render_markdown(card));
    ASSERT_NO_THROW((void)site_text({card}, "now"));
  }
}

TEST(Transparency, ContradictionsAndTimingsAreRendered) {
  json dx = {{"launch_requested_at", "2026-11-20T10:00:01Z"},
             {"time_to_running_s", 42.5},
             {"time_to_ssh_s", nullptr},
             {"time_to_first_kernel_s", nullptr},
             {"launch_attempts", 3},
             {"launch_refused", {{"capacity", 2}, {"quota", 0}, {"error", 0}}},
             {"launch_succeeded", true},
             {"api_answered", true}};
  const auto card = build_scorecard(run("p", owns("bare_metal"), "fingerprint-kvm-guest", {{"developer_experience", dx}}));
  const auto md = render_markdown(card);
  EXPECT_NE(md.find("## Transparency: declared vs measured"), std::string::npos);
  EXPECT_NE(md.find("**contradicted**"), std::string::npos);
  EXPECT_NE(md.find("- **Finding:** p Cloud declares machine `bare_metal`"), std::string::npos) << md;
  EXPECT_NE(md.find("| Time to running | 42.5 s |"), std::string::npos) << md;
  EXPECT_NE(md.find("3, one accepted; refused: 2 for capacity, 0 for quota, 0 for funds, 0 by an error"), std::string::npos) << md;
  EXPECT_NE(md.find("| Time to first SSH command | not measured (needs --remote-exec) |"), std::string::npos) << md;
  const auto html = site_text({card}, "now");
  EXPECT_NE(html.find("<h3>Transparency contradicted</h3>"), std::string::npos);
  EXPECT_NE(html.find("id=\"provider-p-transparency\""), std::string::npos);
  EXPECT_NE(html.find("<h3>Developer experience</h3>"), std::string::npos);
  // Consistent claims put nothing in the hall of shame.
  const auto clean = build_scorecard(run("p", owns("vm"), "fingerprint-kvm-guest"));
  EXPECT_EQ(site_text({clean}, "now").find("Transparency contradicted"), std::string::npos);
  EXPECT_EQ(render_markdown(clean).find("**Finding:**"), std::string::npos);
}

TEST(Transparency, ClaimsSurviveTheScorecardJson) {
  const auto card = build_scorecard(run("p", owns("bare_metal"), "fingerprint-kvm-guest"));
  ASSERT_FALSE(card.transparency_claims.empty());
  const auto back = json(card).get<scorecard>();
  ASSERT_EQ(back.transparency_claims.size(), card.transparency_claims.size());
  EXPECT_EQ(back.transparency_claims[0].verdict, card.transparency_claims[0].verdict);
  EXPECT_EQ(back.hardware.at(0).fingerprint, card.hardware.at(0).fingerprint);
  // A card written before issue 22 has neither key and still reads.
  auto old = json(card);
  old.erase("transparency_claims");
  old["hardware"][0].erase("fingerprint");
  old["hardware"][0].erase("origin");
  EXPECT_NO_THROW((void)old.get<scorecard>());
}

namespace {

// A run of a `kind` provider whose footer records the supply composition `supply` (none: null).
run_record supply_run(const std::string& kind, json transparency, json supply) {
  auto r = run("net", std::move(transparency), "", supply.is_null() ? json::object() : json{{"supply_composition", std::move(supply)}});
  r.header["provider_kind"] = kind;
  return r;
}

// Bodgenet's demo catalogue: three "community" rows from one centralised supplier, one from another.
json two_centralised_suppliers() {
  return {{"offers", 4},
          {"unattributed", 0},
          {"basis", "offers"},
          {"suppliers",
           {{{"name", "hyperlease-dc"}, {"offers", 3}, {"gpus", nullptr}, {"share", 0.75}},
            {{"name", "rackmonger-cloud"}, {"offers", 1}, {"gpus", nullptr}, {"share", 0.25}}}},
          {"largest_share", 0.75},
          {"largest_two_share", 1.0},
          {"hhi", 6250}};
}

json decentralised() {
  return {{"hardware", "owns"},
          {"hardware_source", "s"},
          {"supply", {{"claim", "decentralised"}, {"statement", "a community-powered data center"}, {"source", "landing page"}}}};
}

}  // namespace

TEST(TransparencySupply, AConcentratedCommunityIsAContradictionOnTheCard) {
  const auto card = build_scorecard(supply_run("depin", decentralised(), two_centralised_suppliers()));
  const auto& s = claim(card, "supply");
  EXPECT_EQ(s.verdict, "contradicted") << s.measured;
  EXPECT_EQ(s.declared_source, "landing page");
  EXPECT_NE(s.measured.find("largest 75% (hyperlease-dc), largest two 100%, HHI 6,250"), std::string::npos) << s.measured;
  const auto md = render_markdown(card);
  EXPECT_NE(md.find("- **Finding:** net Cloud declares supply `decentralised supply"), std::string::npos) << md;
  // The composition as a small table of its own, never JSON in a cell.
  EXPECT_NE(md.find("### Supply composition"), std::string::npos) << md;
  EXPECT_NE(md.find("| Supplier hyperlease-dc | 3 offer rows, 75% |"), std::string::npos) << md;
  EXPECT_NE(md.find("| Herfindahl-Hirschman index | 6250 of 10000 (above 1800: highly concentrated) |"), std::string::npos) << md;
  EXPECT_EQ(md.find("supply_composition."), std::string::npos) << "flattened as untyped JSON: " << md;
  const auto html = site_text({card}, "now");
  EXPECT_NE(html.find("<h4>Supply composition</h4>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>Supplier rackmonger-cloud</th><td>1 offer row, 25%</td></tr>"), std::string::npos);
  EXPECT_EQ(html.find("{&quot;name"), std::string::npos);
  EXPECT_NE(html.find("<h3>Transparency contradicted</h3>"), std::string::npos);
  // The same card through its JSON keeps the row and the measurement.
  const auto back = json(card).get<scorecard>();
  EXPECT_EQ(claim(back, "supply").verdict, "contradicted");
}

TEST(TransparencySupply, SpreadSupplyIsConsistentAndNoClaimIsUnverified) {
  json spread = {{"offers", 10},         {"unattributed", 0},        {"basis", "gpus"}, {"suppliers", json::array()},
                 {"largest_share", 0.1}, {"largest_two_share", 0.2}, {"hhi", 1000}};
  for (int i = 0; i < 10; ++i)
    spread["suppliers"].push_back({{"name", "node-" + std::to_string(i)}, {"offers", 1}, {"gpus", 1}, {"share", 0.1}});
  EXPECT_EQ(claim(build_scorecard(supply_run("depin", decentralised(), spread)), "supply").verdict, "consistent");
  // No claim: the composition is shown, unverified.
  const auto unclaimed = build_scorecard(supply_run("depin", {{"hardware", "marketplace"}, {"hardware_source", "s"}}, spread));
  EXPECT_EQ(claim(unclaimed, "supply").verdict, "unverified");
  EXPECT_EQ(claim(unclaimed, "supply").declared, "");
  EXPECT_NE(claim(unclaimed, "supply").measured.find("10 suppliers"), std::string::npos);
  // An aggregator whose catalogue names no supplier: the row is there, unverified, saying why.
  const auto unnamed = build_scorecard(supply_run("aggregator", decentralised(), nullptr));
  EXPECT_EQ(claim(unnamed, "supply").verdict, "unverified");
  EXPECT_NE(claim(unnamed, "supply").measured.find("names no supplier"), std::string::npos);
  // A neocloud that claims nothing and lists no supplier has no supply row at all.
  EXPECT_EQ(claim(build_scorecard(supply_run("neocloud", owns("vm"), nullptr)), "supply").claim, "absent");
}

TEST(TransparencySupply, HostileRecordsNeverThrow) {
  for (const json& supply : {json(42), json("x"), json{{"suppliers", "x"}, {"hhi", 1e300}},
                             json{{"suppliers", {{{"name", 7}, {"share", -3}}, nullptr}}, {"largest_share", "all"}}}) {
    for (const json& declared : {json(5), json{{"claim", "count"}, {"at_least", 1e300}}, json{{"claim", "decentralised"}, {"max_hhi", "x"}},
                                 json{{"claim", "named_suppliers"}, {"suppliers", 3}}}) {
      const auto r = supply_run("depin", {{"hardware", "owns"}, {"hardware_source", "s"}, {"supply", declared}}, supply);
      scorecard card;
      ASSERT_NO_THROW(card = build_scorecard(r));
      EXPECT_NE(claim(card, "supply").claim, "absent");
      ASSERT_NO_THROW((void)render_markdown(card));
      ASSERT_NO_THROW((void)site_text({card}, "now"));
    }
  }
}
