// The account a developer meets (issue 40.4): an observation record round-trips through its
// schema, an invalid one is refused with where and why, and a card shows it labelled OBSERVED with
// who and when in Markdown, HTML and JSON, apart from the measured results and outside the score.
#include <neograde/reports/observation.hpp>

#include <neograde/core/json_schema.hpp>
#include <neograde/reports/html.hpp>
#include <neograde/reports/scorecard.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

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

json file(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

const std::string example = std::string(NEOGRADE_OBSERVATION_EXAMPLES) + "/bodgewell.json";

scorecard card(const std::string& id) {
  run_record r{{{"record", "header"},
                {"provider", id},
                {"display_name", "Bodgewell GPU"},
                {"fictional", true},
                {"source", "emulated"},
                {"base_url", "http://127.0.0.1:1/v1"},
                {"started_at", "2026-11-29T00:00:00Z"},
                {"spec_version", "1.0.0"},
                {"suite_version", "0.1.0"}},
               {{{"record", "outcome"},
                 {"check_id", "auth.key.required"},
                 {"category", "auth"},
                 {"severity", "critical"},
                 {"outcome", "pass"},
                 {"reason", "401"},
                 {"evidence", json::array()}},
                {{"record", "outcome"},
                 {"check_id", "lifecycle.instance.reaches_running"},
                 {"category", "lifecycle"},
                 {"severity", "high"},
                 {"outcome", "fail"},
                 {"reason", "never ran"},
                 {"evidence", json::array()}}},
               json{{"record", "footer"}, {"measurements", json::object()}},
               {}};
  return build_scorecard(r);
}

// What read_observation refuses `doc` with ("" when it reads it).
std::string refusal(const json& doc) {
  try {
    (void)read_observation(doc, "obs.json");
    return "";
  } catch (const observation_error& e) {
    return e.what();
  }
}

}  // namespace

TEST(Observation, RoundTripsThroughTheSchema) {
  const auto doc = file(example);
  const neograde::json_schema schema(file(NEOGRADE_OBSERVATION_SCHEMA));
  for (const auto& v : schema.validate(doc)) ADD_FAILURE() << v.pointer << ": " << v.message;
  const auto o = read_observation(doc, example);
  EXPECT_EQ(o.provider, "bodgewell");
  EXPECT_EQ(o.observed_at, "2026-11-20");
  EXPECT_EQ(o.credits_promised_usd, 50);
  EXPECT_EQ(o.credits_received_usd, 0);
  ASSERT_EQ(o.evidence.size(), 2u);
  EXPECT_EQ(o.evidence[1].read_at, "2026-11-21");
  // The record, written back, is the document it was read from, and valid in turn.
  EXPECT_EQ(json(o), doc) << json(o).dump(2);
  EXPECT_TRUE(schema.validate(json(o)).empty());
  EXPECT_EQ(read_observation(json(o), "again"), o);
  // The file reader finds it, alone or in its directory.
  EXPECT_EQ(read_observations(example), std::vector{o});
  EXPECT_EQ(read_observations(NEOGRADE_OBSERVATION_EXAMPLES).front(), o);
  // Optional members absent, credits promised as none: still a record.
  auto bare = doc;
  bare.erase("notes");
  bare["signup"].erase("notes");
  bare["signup"].erase("api_key_obtained");
  bare["credits"] = {{"promised_usd", nullptr}, {"received_usd", nullptr}};
  const auto b = read_observation(bare, "bare");
  EXPECT_EQ(json(b), bare);
  EXPECT_EQ(credits_text(b), "promised none, received not known");
}

TEST(Observation, AnInvalidRecordIsRefusedSayingWhereAndWhy) {
  const auto doc = file(example);
  auto without = [&](const char* key) {
    auto d = doc;
    d.erase(key);
    return d;
  };
  auto with = [&](const json::json_pointer& at, json value) {
    auto d = doc;
    d[at] = std::move(value);
    return d;
  };
  EXPECT_EQ(refusal(doc), "");
  for (const auto& [bad, where] : std::vector<std::pair<json, std::string>>{
           {without("observed_by"), "obs.json: not a valid observation"},
           {without("evidence"), "obs.json"},
           {with(json::json_pointer("/observed_at"), "last week"), "/observed_at"},
           {with(json::json_pointer("/credits/received_usd"), -5), "/credits/received_usd"},
           {with(json::json_pointer("/verification/0"), "retina_scan"), "/verification/0"},
           {with(json::json_pointer("/evidence/0/url"), "javascript:alert(1)"), "/evidence/0/url"},
           {with(json::json_pointer("/evidence/0/read_at"), 20261120), "/evidence/0/read_at"},
           {with(json::json_pointer("/signup/steps"), 2.5), "/signup/steps"},
           {with(json::json_pointer("/score"), 100), "obs.json"},  // nothing outside the schema, a score least of all
           {with(json::json_pointer("/observation_version"), 2), "/observation_version"},
           {json::array(), "obs.json"}}) {
    const auto why = refusal(bad);
    EXPECT_NE(why.find(where), std::string::npos) << bad.dump() << "\n-> " << why;
    EXPECT_NE(why.find("not a valid observation"), std::string::npos) << why;
  }
  // Files: not JSON, or a directory without records.
  const auto dir = std::filesystem::temp_directory_path() / ("neograde-observation-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  EXPECT_THROW((void)read_observations(dir), observation_error);
  std::ofstream(dir / "broken.json") << "{\"provider\": ";
  try {
    (void)read_observations(dir);
    ADD_FAILURE() << "a broken file was read";
  } catch (const observation_error& e) {
    EXPECT_NE(std::string(e.what()).find("broken.json: not JSON"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)read_observations(dir / "missing.json"), observation_error);
  std::filesystem::remove_all(dir);
}

TEST(Observation, AppearsLabelledOnTheCardAndNeverInTheScore) {
  const auto o = read_observation(file(example), example);
  std::vector<scorecard> cards{card("bodgewell"), card("lambda")};
  const auto score = cards[0].score;
  const auto tier = cards[0].tier;
  auto stranger = o;
  stranger.provider = "nobody";
  const auto unmatched = attach_observations(cards, {o, stranger});
  ASSERT_EQ(unmatched.size(), 1u);
  EXPECT_EQ(unmatched[0].provider, "nobody");
  ASSERT_EQ(cards[0].observations.size(), 1u);
  EXPECT_TRUE(cards[1].observations.empty());
  EXPECT_EQ(cards[0].score, score);
  EXPECT_EQ(cards[0].tier, tier);
  const std::string label = "OBSERVED by Example Person (fictional example) on 2026-11-20";
  EXPECT_EQ(observed_label(o).rfind(label, 0), 0u) << observed_label(o);
  EXPECT_NE(observed_label(o).find("not part of the score"), std::string::npos);

  const auto md = render_markdown(cards[0]);
  EXPECT_NE(md.find("## Developer experience: OBSERVED"), std::string::npos) << md;
  EXPECT_NE(md.find("> **" + label), std::string::npos) << md;
  EXPECT_NE(md.find("| Free credits | promised $50, received $0: $50 short of the promise"), std::string::npos) << md;
  EXPECT_NE(md.find("| Verification asked for | email, phone, payment_card, manual_review |"), std::string::npos) << md;
  EXPECT_NE(md.find("<https://bodgewell.example/pricing> (read 2026-11-20)"), std::string::npos) << md;
  EXPECT_EQ(render_markdown(cards[1]).find("OBSERVED"), std::string::npos);

  const auto page = site_text(cards, "now");
  const auto at = page.find("<div class=\"observations\" id=\"provider-bodgewell-observed\">");
  ASSERT_NE(at, std::string::npos) << page;
  const auto block = page.substr(at, page.find("</div>\n</div>", at) - at);
  EXPECT_NE(block.find("<div class=\"banner observed\"><p class=\"headline\">" + label), std::string::npos) << block;
  EXPECT_NE(block.find("data-observed-by=\"Example Person (fictional example)\" data-observed-at=\"2026-11-20\""), std::string::npos);
  EXPECT_NE(block.find("<a href=\"https://bodgewell.example/pricing\" rel=\"noreferrer nofollow\">"), std::string::npos) << block;
  EXPECT_NE(block.find("promised $50, received $0: $50 short of the promise"), std::string::npos) << block;
  // Inside bodgewell's section, after its measured developer experience and before its checks.
  EXPECT_LT(page.find("id=\"provider-bodgewell\""), at);
  EXPECT_EQ(page.find("-observed\"", page.find("-observed\"") + 1), std::string::npos);  // once, and for bodgewell alone

  // The card's JSON keeps it apart and valid; read back, it is the same card.
  const json doc = cards[0];
  ASSERT_TRUE(doc.contains("observations"));
  EXPECT_EQ(doc["observations"][0], file(example));
  // (This card is a sketch of one: of the published schema, only what it says of observations is asked here.)
  const neograde::json_schema schema(file(NEOGRADE_SCORECARD_SCHEMA));
  auto faults_in_observations = [&](const json& d) {
    std::string out;
    for (const auto& v : schema.validate(d))
      if (v.pointer.rfind("/observations", 0) == 0) out += v.pointer + ": " + v.message + "\n";
    return out;
  };
  EXPECT_EQ(faults_in_observations(doc), "");
  EXPECT_EQ(doc.get<scorecard>().observations, cards[0].observations);
  EXPECT_FALSE(json(cards[1]).contains("observations"));
  auto broken = doc;
  broken["observations"][0]["observed_by"] = "";
  EXPECT_NE(faults_in_observations(broken), "");
  EXPECT_THROW((void)broken.get<scorecard>(), scorecard_format_error);
}
