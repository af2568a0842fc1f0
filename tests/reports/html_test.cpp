#include <neograde/reports/html.hpp>

#include <neograde/reports/scorecard.hpp>

#include <gtest/gtest.h>

#include <regex>

using namespace neograde::reports;
using nlohmann::json;

namespace {

json outcome(const std::string& id, const std::string& severity, const std::string& result, const std::string& reason = "r") {
  return {{"record", "outcome"},      {"check_id", id},    {"category", id.substr(0, id.find('.'))},
          {"severity", severity},     {"outcome", result}, {"reason", reason},
          {"evidence", json::array()}};
}

json exchange(const std::string& url, const std::string& body = "{}") {
  return {{"method", "GET"},
          {"url", url},
          {"status", 200},
          {"error", ""},
          {"request_body", ""},
          {"request_headers", json::array({json::array({"Accept", "application/json"}), json::array({"Authorization", "<redacted>"})})},
          {"response_headers", json::array({json::array({"Content-Type", "application/json"})})},
          {"response_body", body}};
}

scorecard card(const std::string& id, const std::string& name, std::vector<json> outcomes, std::string source = "emulated") {
  run_record r{
      {{"record", "header"},
       {"provider", id},
       {"display_name", name},
       {"source", source},
       {"base_url", "https://api." + id + ".example/v1"},
       {"docs_url", "https://docs." + id + ".example"},
       {"started_at", "2026-11-29T00:00:00Z"},
       {"spec_version", "1.0.0"},
       {"suite_version", "0.1.0"}},
      std::move(outcomes),
      json{{"record", "footer"}, {"measurements", {{"time_to_running_s", 1.5}, {"latency_read_ms", {{"p50", 2.0}, {"p95", 9.0}}}}}},
      {}};
  return build_scorecard(r);
}

// The text of the section with this id, up to its end.
std::string section(const std::string& page, const std::string& id) {
  const auto start = page.find("id=\"" + id + "\"");
  if (start == std::string::npos) return "";
  return page.substr(start, page.find("</section>", start) - start);
}

// The index and every provider's page, one after the other: what a reader can reach.
std::string site_text(const std::vector<scorecard>& cards, const std::string& generated_at) {
  const auto site = render_html_site(cards, generated_at);
  std::string all = site.index;
  for (const auto& p : site.providers) all += p.html;
  return all;
}

std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + needle.size())) ++n;
  return n;
}

}  // namespace

TEST(HtmlReport, EmulatedCardsCarryTheBannerFirst) {
  const auto page = site_text({card("p", "P Cloud", {outcome("a.x.y", "high", "pass")})}, "2026-11-30T12:00:00Z");
  const auto banner = section(page, "provenance");
  EXPECT_NE(banner.find("class=\"banner emulated\""), std::string::npos);
  EXPECT_NE(banner.find("EMULATED"), std::string::npos);
  EXPECT_NE(banner.find("NOT a rating of the real providers"), std::string::npos);
  EXPECT_NE(banner.find("2026-11-30T12:00:00Z"), std::string::npos);
  EXPECT_NE(banner.find("p 1.0.0"), std::string::npos);  // spec versions
  EXPECT_LT(page.find("id=\"provenance\""), page.find("id=\"leaderboard\""));
  EXPECT_LT(page.find("id=\"provenance\""), page.find("<h2"));
}

// One banner, whatever the sources: a sentence for each source present, and per provider only what
// differs (a live run's URL); the old page had one paragraph per provider before the leaderboard.
TEST(HtmlReport, OneBannerForEverySource) {
  const auto page = render_html({card("a", "A", {}, "live"), card("b", "B", {}, "emulated"), card("c", "C", {}, "emulated")}, "now");
  const auto banner = section(page, "provenance");
  EXPECT_EQ(count(page, "class=\"banner"), 1u);
  EXPECT_NE(banner.find("class=\"banner mixed\""), std::string::npos);
  EXPECT_EQ(count(banner, "<li class=\"emulated\">EMULATED (2 providers)"), 1u);
  EXPECT_NE(
      banner.find("<li class=\"live\">LIVE (1 provider): measured against the providers&#39; services: A at https://api.a.example/v1"),
      std::string::npos);
  // The emulated providers are not named one by one: nothing sets them apart.
  EXPECT_EQ(banner.find(">B<"), std::string::npos);
  EXPECT_EQ(banner.find(" B,"), std::string::npos);
  EXPECT_EQ(banner.find("C."), std::string::npos);
}

// What only some providers are is said once, naming just those: fictional ones, a read-only audit,
// a replay, replaced timings, a rate limit not probed.
TEST(HtmlReport, TheBannerNamesOnlyWhatDiffers) {
  auto fictional = card("bodge", "Bodgeworks", {});
  fictional.provider.fictional = true;
  auto audit = card("aud", "Audited", {}, "live");
  audit.read_only = true;
  auto replay = card("rep", "Replayed", {}, "replay");
  auto slow = card("slow", "Slow Timings", {});
  slow.timing_overrides = {{"time_to_gone_s", {{"value", 20}, {"spec", 300}}}};
  auto unprobed = card("unp", "Unprobed", {});
  unprobed.rate_limit = rate_limit_coverage{.probed = false, .met_in_traffic = 0};
  const auto page = render_html({card("plain", "Plain Cloud", {}), fictional, audit, replay, slow, unprobed}, "now");
  const auto banner = section(page, "provenance");
  EXPECT_EQ(count(page, "class=\"banner"), 1u);
  EXPECT_NE(banner.find("<li class=\"emulated\">EMULATED (4 providers)"), std::string::npos);
  EXPECT_NE(banner.find("<li class=\"fictional\">FICTIONAL PROVIDERS, which do not exist (neograde&#39;s demonstration of findings, "
                        "emulated with quirks switched on): Bodgeworks.</li>"),
            std::string::npos);
  EXPECT_NE(banner.find("<li class=\"audit\">A READ-ONLY AUDIT, in which nothing was launched and the checks that create something "
                        "were not run: Audited (live).</li>"),
            std::string::npos);
  EXPECT_NE(banner.find("<li class=\"replay\">REPLAY (1 provider): regraded from recorded runs; no request reached the providers: "
                        "Replayed.</li>"),
            std::string::npos);
  EXPECT_NE(banner.find("<li class=\"timings\">Timings replaced by the user, so not comparable with a run under the spec&#39;s "
                        "timings: Slow Timings.</li>"),
            std::string::npos);
  EXPECT_NE(banner.find("judged only the 429s the run met in its own traffic): Unprobed.</li>"), std::string::npos);
  EXPECT_EQ(banner.find("Plain Cloud"), std::string::npos);
  // The banner comes before everything else on the page.
  EXPECT_LT(page.find("id=\"provenance\""), page.find("id=\"leaderboard\""));
}

TEST(HtmlReport, LeaderboardGoesWorstToBestThenUnscored) {
  const auto good = card("good", "Good Cloud", {outcome("a.x.y", "high", "pass")});
  const auto bad = card("bad", "Bad Cloud", {outcome("a.x.y", "high", "fail")});
  const auto none = card("none", "Ungraded Cloud", {outcome("a.x.y", "high", "skipped")});
  const auto board = section(site_text({none, good, bad}, "now"), "leaderboard");
  ASSERT_NE(board.find("Good Cloud"), std::string::npos);
  EXPECT_LT(board.find("Bad Cloud"), board.find("Good Cloud"));
  EXPECT_LT(board.find("Good Cloud"), board.find("Ungraded Cloud"));
  EXPECT_NE(board.find("<a href=\"providers/bad.html\">Bad Cloud</a>"), std::string::npos);
}

// A marketplace is never ranked as though it were a neocloud: each kind has its own table, in
// kind order, ranked from 1 within it; every card names its kind.
TEST(HtmlReport, LeaderboardRanksWithinEachKind) {
  auto depin = card("net", "Mesh Network", {outcome("a.x.y", "high", "fail")});
  depin.provider.kind = "depin";
  auto market = card("mkt", "Market Place", {outcome("a.x.y", "high", "pass")});
  market.provider.kind = "marketplace";
  auto neo = card("neo", "Neo Cloud", {outcome("a.x.y", "high", "pass")});
  neo.provider.kind = "neocloud";
  auto odd = card("odd", "Odd Cloud", {outcome("a.x.y", "high", "fail")});
  odd.provider.kind = "";
  const auto page = site_text({depin, odd, market, neo}, "now");
  const auto board = section(page, "leaderboard");
  EXPECT_LT(board.find("<h3 class=\"kind\">Neoclouds"), board.find("Neo Cloud"));
  EXPECT_LT(board.find("Neo Cloud"), board.find("<h3 class=\"kind\">Marketplaces"));
  EXPECT_LT(board.find("Market Place"), board.find("<h3 class=\"kind\">DePIN networks"));
  EXPECT_LT(board.find("Mesh Network"), board.find("<h3 class=\"kind\">Other kinds"));
  EXPECT_EQ(count(board, "<td class=\"num\">1</td><td><a"), 4u);  // each is first of its kind
  EXPECT_EQ(count(board, "<table>"), count(board, "</table>"));
  EXPECT_NE(section(page, "provider-net").find("<span class=\"kind\">depin</span>"), std::string::npos);
  EXPECT_NE(section(page, "provider-odd").find("<span class=\"kind\">kind unknown</span>"), std::string::npos);
}

TEST(HtmlReport, MatrixHasACellPerProviderAndCheck) {
  const auto one = card("one", "One",
                        {outcome("auth.token.missing_is_401", "critical", "pass", "HTTP 401"),
                         outcome("lifecycle.instance.gone", "critical", "fail", "still running")});
  const auto two = card("two", "Two", {outcome("auth.token.missing_is_401", "critical", "rate_limited", "HTTP 429")});
  const auto matrix = section(site_text({one, two}, "now"), "matrix");
  EXPECT_NE(matrix.find("data-provider=\"one\""), std::string::npos);
  EXPECT_NE(matrix.find("data-provider=\"two\""), std::string::npos);
  EXPECT_EQ(count(matrix, "<td class="), 4u);  // 2 checks x 2 providers
  EXPECT_NE(matrix.find("<td class=\"pass\" title=\"HTTP 401\">pass</td>"), std::string::npos);
  EXPECT_NE(matrix.find("<td class=\"fail\" title=\"still running\">fail</td>"), std::string::npos);
  // A provider condition is an unknown status, its outcome kept beside it.
  EXPECT_NE(matrix.find("<td class=\"rate_limited\" title=\"HTTP 429\">unknown <span class=\"was\">(rate_limited)</span></td>"),
            std::string::npos);
  EXPECT_EQ(count(matrix, "<td class=\"absent\""), 1u);
  EXPECT_LT(matrix.find(">auth<"), matrix.find(">lifecycle<"));  // grouped by category, sorted
}

TEST(HtmlReport, EveryFailureAppearsWithItsReproductionAndEvidence) {
  std::vector<json> outcomes;
  for (int i = 0; i < 3; ++i) {
    auto o = outcome("errors.x." + std::to_string(i), "high", i == 2 ? "warn" : "fail");
    o["reproduce"] = "curl -sS 'https://api.p.example/v1/x" + std::to_string(i) + "' -H \"Authorization: Bearer $KEY\"";
    o["evidence"] = json::array({exchange("https://api.p.example/v1/x" + std::to_string(i))});
    outcomes.push_back(o);
  }
  const auto page = site_text({card("p", "P", outcomes)}, "now");
  const auto provider = section(page, "provider-p");
  for (int i = 0; i < 3; ++i) {
    const auto n = std::to_string(i);
    EXPECT_NE(provider.find("id=\"provider-p-failure-" + n + "\""), std::string::npos);
    EXPECT_NE(provider.find("<pre class=\"reproduce\">curl -sS &#39;https://api.p.example/v1/x" + n +
                            "&#39; -H &quot;Authorization: Bearer $KEY&quot;</pre>"),
              std::string::npos);
    EXPECT_NE(provider.find("GET https://api.p.example/v1/x" + n + "\nAccept: application/json\nAuthorization: &lt;redacted&gt;"),
              std::string::npos);
  }
  EXPECT_EQ(count(provider, "<details class=\"exchange\">"), 3u);
  EXPECT_EQ(count(section(page, "hall-of-shame"), "<tr data-provider="), 2u);  // fails only, not the warn
}

TEST(HtmlReport, HallOfShameIsOrderedBySeverity) {
  const auto a = card("a", "Alpha", {outcome("x.low.one", "low", "fail")});
  const auto b = card("b", "Beta", {outcome("x.crit.one", "critical", "fail"), outcome("x.med.one", "medium", "fail")});
  const auto shame = section(site_text({a, b}, "now"), "hall-of-shame");
  EXPECT_LT(shame.find("x.crit.one"), shame.find("x.med.one"));
  EXPECT_LT(shame.find("x.med.one"), shame.find("x.low.one"));
}

TEST(HtmlReport, HostileTextIsEscaped) {
  auto c = card("p", "P", {outcome("a.x.y", "high", "fail", "<script>alert(1)</script>")});
  c.provider.id = "p\"><img src=x onerror='alert(1)'>";
  c.provider.display_name = "O'Brien & <b>Sons</b>";
  c.checks.at(0).check_id = "a.\"x\".<y>";
  c.failures.at(0).evidence = json::array({exchange("https://x\"/><script>", "</pre><script>alert(2)</script>")});
  const auto page = site_text({c}, "<now>");
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>Sons"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("O&#39;Brien &amp; &lt;b&gt;Sons&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(page.find("data-provider=\"p&quot;&gt;&lt;img src=x onerror=&#39;alert(1)&#39;&gt;\""), std::string::npos);
  // Every id and in-page anchor is reduced to [a-z0-9-].
  const std::regex id_attr(R"re(\bid="([^"]*)")re"), anchor(R"re(href="#([^"]*)")re");
  const std::regex safe("[a-z0-9-]+");
  for (const auto* re : {&id_attr, &anchor})
    for (auto it = std::sregex_iterator(page.begin(), page.end(), *re); it != std::sregex_iterator(); ++it)
      EXPECT_TRUE(std::regex_match((*it)[1].str(), safe)) << (*it)[1].str();
}

TEST(HtmlReport, ThePageRequestsNothing) {
  auto with_evidence = outcome("a.x.y", "high", "fail");
  with_evidence["evidence"] = json::array({exchange("http://127.0.0.1:8080/v1/instances")});
  with_evidence["reproduce"] = "curl https://api.p.example/v1";
  const auto page = site_text({card("p", "P", {with_evidence}), card("q", "Q", {}, "live")}, "now");
  ASSERT_NE(page.find("https://docs.p.example"), std::string::npos);  // shown as text
  const std::regex fetches(R"re((\b(src|href|xlink:href|action|srcset)\s*=\s*["']?\s*(https?:)?//)|(url\s*\()|(@import))re",
                           std::regex::icase);
  EXPECT_FALSE(std::regex_search(page, fetches));
  EXPECT_EQ(page.find("<script"), std::string::npos);
  // Links stay within the report: an anchor, a provider's page beside the index, or back to it.
  const std::regex any_href(R"re(href\s*=\s*"([^"]*)")re"),
      local(R"re(#[a-z0-9-]+|(providers/)?[a-z0-9-]+\.html(#[a-z0-9-]+)?|\.\./index\.html)re");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), any_href); it != std::sregex_iterator(); ++it)
    EXPECT_TRUE(std::regex_match((*it)[1].str(), local)) << (*it)[1].str();
}

// A request sent wrong on purpose is labelled in its summary, escaped like the rest.
TEST(HtmlReport, DeliberateEvidenceIsLabelled) {
  auto o = outcome("a.x.y", "high", "fail");
  auto e = exchange("https://api.p.example/v1");
  e["deliberate"] = "a <non-object> JSON body";
  o["evidence"] = json::array({e, exchange("https://api.p.example/v2")});
  const auto page = site_text({card("p", "P", {o})}, "now");
  EXPECT_NE(page.find("(deliberately invalid: a &lt;non-object&gt; JSON body)"), std::string::npos);
  EXPECT_EQ(page.find("deliberately invalid", page.find("deliberately invalid") + 1), std::string::npos);  // only the marked one
}

// A run under timings the user replaced says so under its banner.
TEST(HtmlReport, ReplacedTimingsAreShown) {
  auto c = card("p", "P", {});
  EXPECT_EQ(site_text({c}, "now").find("non-standard"), std::string::npos);
  c.timing_overrides = {{"time_to_gone_s", {{"value", 20}, {"spec", 300}}}};
  EXPECT_NE(site_text({c}, "now").find("non-standard, set by the user: time_to_gone_s 20 s (spec: 300 s)"), std::string::npos);
}

// A run that did not probe the rate limit says so under its banner (issue 21 point 3).
TEST(HtmlReport, ARunThatDidNotProbeTheRateLimitSaysSo) {
  auto c = card("p", "P", {});
  EXPECT_EQ(site_text({c}, "now").find("not probed"), std::string::npos);
  c.rate_limit = rate_limit_coverage{.probed = false, .met_in_traffic = 0};
  EXPECT_NE(site_text({c}, "now").find("Rate limit not probed: the rate-limit checks judged only the 0 429(s)"), std::string::npos);
}

TEST(HtmlReport, LargeBodiesAreCut) {
  auto o = outcome("a.x.y", "high", "fail");
  o["evidence"] = json::array({exchange("https://api.p.example/v1", std::string(10000, 'z'))});
  const auto page = site_text({card("p", "P", {o})}, "now");
  EXPECT_NE(page.find(std::string(4000, 'z')), std::string::npos);
  EXPECT_EQ(page.find(std::string(4001, 'z')), std::string::npos);
  EXPECT_NE(page.find("cut at 4000 of 10000 bytes"), std::string::npos);

  std::string wide(3999, 'z');
  for (int i = 0; i < 1000; ++i) wide += "日本";  // three bytes each: the cut falls inside one
  o["evidence"] = json::array({exchange("https://api.p.example/v1", wide)});
  const auto cut = site_text({card("p", "P", {o})}, "now");
  EXPECT_NE(cut.find("cut at 3999 of " + std::to_string(wide.size()) + " bytes"), std::string::npos);
  EXPECT_NO_THROW((void)json(cut).dump());  // dump() throws on invalid UTF-8
}

TEST(HtmlReport, ChartsShowMeasurementsAndHardware) {
  auto plain = card("p", "P", {outcome("a.x.y", "high", "pass")});
  auto charts = section(site_text({plain}, "now"), "charts");
  EXPECT_NE(charts.find("<svg"), std::string::npos);
  EXPECT_NE(charts.find(">1.5 s</text>"), std::string::npos);
  EXPECT_NE(charts.find(">P p95</text>"), std::string::npos);
  EXPECT_NE(charts.find("No hardware was measured"), std::string::npos);

  plain.hardware = {{.status = "fail",
                     .reason = "slow",
                     .gpus = {{.index = json_number{0},
                               .name = "H100",
                               .sku = "h100",
                               .measurements = {{.name = "hbm_triad",
                                                 .value = json_number{1812.0},
                                                 .unit = "GB/s",
                                                 .pct_of_datasheet = json_number{54.1},
                                                 .verdict = "fail"}}}},
                     .problems = {{.id = "gpu.hbm_triad", .gpu = json_number{0}, .verdict = "fail", .message = "54.1%"}}}};
  const auto page = site_text({plain}, "now");
  charts = section(page, "charts");
  EXPECT_EQ(charts.find("No hardware was measured"), std::string::npos);
  EXPECT_NE(charts.find("<rect class=\"bar fail\""), std::string::npos);
  EXPECT_NE(charts.find(">54.1 %</text>"), std::string::npos);
  EXPECT_NE(section(page, "provider-p").find("<td class=\"num\">54.1%</td>"), std::string::npos);
}

// What a card carries as recorded (measurements, evidence, the instance) may hold anything.
TEST(HtmlReport, WrongTypedFieldsRenderWithoutThrowing) {
  scorecard hostile{.source = "3", .tier_capped_by = {""}, .runs = 0};
  hostile.timing_overrides = json::array({1});
  hostile.measurements = json::parse(R"({"nested": {"deep": {"deeper": {"deepest": {"x": 1}}}}, "bad": "text", "n": null})");
  hostile.checks = {{}, {.check_id = "a.b.c", .outcome = "[]", .reason = "7"}};
  hostile.failures = {
      {.evidence = "x"},
      {.outcome = "fail", .evidence = json::parse(R"([1, {"request_headers": [[1, 2], "h", []], "response_headers": {"X": 1},
                                                       "status": "200", "response_body": 7}])")}};
  hostile.hardware = {{.instance = "i"}, {.instance = json::array(), .gpus = {{.measurements = {{}}}}, .problems = {{}}}};
  hostile.categories = {{"a", {}}, {"b", {.counts = {{"pass", 1}}}}};
  hostile.provider.transparency = json::array({1});
  const std::vector<scorecard> cards{hostile, scorecard{}, card("p", "P", {outcome("a.b.c", "high", "pass")})};
  std::string page;
  EXPECT_NO_THROW(page = site_text(cards, "now"));
  EXPECT_NE(page.find("id=\"leaderboard\""), std::string::npos);
  EXPECT_NE(page.find("</html>"), std::string::npos);
  EXPECT_NO_THROW((void)site_text({}, ""));
  EXPECT_NO_THROW((void)render_html({}, ""));
}

// Each provider has a page beside the index (providers/<id>.html), linked from the leaderboard, the
// matrix and the hall of shame, with its grade, what failed and why (evidence, curl line), its
// badge and its checks; the index no longer carries every provider's evidence.
TEST(HtmlReport, EachProviderHasAPageLinkedFromTheIndex) {
  auto failing = outcome("auth.token.missing_is_401", "critical", "fail", "HTTP 200 without a token");
  failing["reproduce"] = "curl -sS https://api.bad.example/v1/instances";
  failing["evidence"] = json::array({exchange("https://api.bad.example/v1/instances")});
  const auto bad = card("bad", "Bad Cloud", {failing, outcome("a.x.y", "low", "skipped", "not applicable: nothing to page")});
  const auto live = card("bad", "Bad Cloud", {outcome("a.x.y", "low", "pass")}, "live");
  const auto site = render_html_site({bad, live}, "now", "", {{{"bad", "live"}, "<p class=\"trend-here\">trend</p>"}});
  ASSERT_EQ(site.providers.size(), 2u);
  EXPECT_EQ(site.providers[0].path, "providers/bad.html");
  EXPECT_EQ(site.providers[1].path, "providers/bad-live.html");  // each source its own page
  const auto board = section(site.index, "leaderboard");
  EXPECT_NE(board.find("<a href=\"providers/bad.html\">"), std::string::npos);
  EXPECT_NE(board.find("<a href=\"providers/bad-live.html\">"), std::string::npos);
  EXPECT_NE(section(site.index, "hall-of-shame").find("href=\"providers/bad.html#provider-bad-failure-0\""), std::string::npos);
  EXPECT_EQ(site.index.find("class=\"provider\""), std::string::npos);
  EXPECT_EQ(site.index.find("<pre class=\"reproduce\">"), std::string::npos);

  const auto& page = site.providers[0].html;
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("<a href=\"../index.html\">"), std::string::npos);
  EXPECT_NE(page.find("<section class=\"provider\" id=\"provider-bad\" data-provider=\"bad\">"), std::string::npos);
  EXPECT_LT(page.find("id=\"provider-bad-grade\""), page.find("id=\"provider-bad-findings\""));
  EXPECT_NE(page.find("<pre class=\"reproduce\">curl -sS https://api.bad.example/v1/instances</pre>"), std::string::npos);
  EXPECT_NE(page.find("<details class=\"exchange\">"), std::string::npos);
  EXPECT_NE(page.find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"neograde-badge\""), std::string::npos);
  EXPECT_NE(page.find("<tr><td class=\"na\">not applicable</td><td class=\"num\">1</td><td>skipped 1</td></tr>"), std::string::npos);
  EXPECT_EQ(page.find("trend-here"), std::string::npos);  // the history goes on its own provider's page
  EXPECT_NE(site.providers[1].html.find("<p class=\"trend-here\">trend</p>"), std::string::npos);
  // One section per page, closed once: nothing inside it ends it early.
  EXPECT_EQ(count(page, "<section"), 1u);
  EXPECT_EQ(count(page, "</section>"), 1u);
  EXPECT_NE(page.find("id=\"provider-bad-checks\""), std::string::npos);
}

// The statuses a reader knows, the outcome kept beside them where they differ.
TEST(HtmlReport, ChecksShowTheStatusBesideTheOutcome) {
  const auto c =
      card("p", "P",
           {outcome("a.x.pass", "high", "pass"), outcome("a.x.warn", "low", "warn"),
            outcome("a.x.na", "low", "skipped", "not applicable: no 429 met"), outcome("a.x.skip", "low", "skipped", "needs two accounts"),
            outcome("a.x.err", "low", "errored"), outcome("a.x.cap", "low", "no_capacity")});
  const auto page = render_html_site({c}, "now").providers.at(0).html;
  const auto matrix = section(render_html({c}, "now"), "matrix");
  EXPECT_NE(matrix.find(">pass</td>"), std::string::npos);
  EXPECT_NE(matrix.find("<td class=\"warn\" title=\"r\">fail <span class=\"was\">(warn)</span></td>"), std::string::npos);
  EXPECT_NE(matrix.find("<td class=\"na\" title=\"not applicable: no 429 met\">not applicable</td>"), std::string::npos);
  EXPECT_NE(matrix.find("<td class=\"skipped\" title=\"needs two accounts\">unknown <span class=\"was\">(skipped)</span></td>"),
            std::string::npos);
  EXPECT_NE(matrix.find(">unknown <span class=\"was\">(errored)</span></td>"), std::string::npos);
  EXPECT_NE(matrix.find(">unknown <span class=\"was\">(no_capacity)</span></td>"), std::string::npos);
  EXPECT_NE(page.find("<tr><td class=\"fail\">fail</td><td class=\"num\">1</td><td>warn 1</td></tr>"), std::string::npos);
  EXPECT_NE(page.find("<tr><td class=\"other\">unknown</td><td class=\"num\">3</td><td>errored 1, no_capacity 1, skipped 1</td></tr>"),
            std::string::npos);
  const auto board = section(render_html({c}, "now"), "leaderboard");
  EXPECT_NE(board.find("<td class=\"num\">1</td><td class=\"num\">1 <span class=\"was\">(1 warn)</span></td><td class=\"num\">1</td>"
                       "<td class=\"num\">3</td>"),
            std::string::npos);
}

// Measurements are tables of words: nested objects as dotted rows, arrays of objects as tables of
// their own, strings without quotes; no cell holds JSON text.
TEST(HtmlReport, NoMeasurementIsShownAsJson) {
  auto c = card("p", "P", {outcome("a.x.y", "high", "pass")});
  c.measurements = json::parse(R"({
    "catalogue": {"listed": false, "why": "HTTP 500", "price_usd_per_hour": {"min": 0.5, "max": 2}},
    "api_traffic": {"requests": 12, "by_class": {"2xx": 10, "5xx": 2}, "statuses": [200, 500], "latency_ms": {"p50": 3}},
    "address_owner": {"status": "found", "entities": [{"role": "registrant", "name": "Acme"}, {"role": "abuse", "tags": ["a", "b"]}]},
    "odd": [{"deep": {"deeper": {"x": 1}}}, 3], "empty": {}, "flag": true})");
  const auto page = render_html_site({c}, "now").providers.at(0).html;
  EXPECT_NE(page.find("<tr><td><code>catalogue.why</code></td><td class=\"num\">HTTP 500</td></tr>"), std::string::npos);
  EXPECT_NE(page.find("<tr><td><code>catalogue.listed</code></td><td class=\"num\">no</td></tr>"), std::string::npos);
  EXPECT_NE(page.find("<tr><td><code>api_traffic.statuses</code></td><td class=\"num\">200, 500</td></tr>"), std::string::npos);
  // Columns in the order first met (a JSON object's members are read sorted by name).
  EXPECT_NE(page.find("<h4><code>address_owner.entities</code></h4>\n<table class=\"grid\">\n<thead><tr><th>name</th><th>role</th>"
                      "<th>tags</th></tr></thead>\n<tbody>\n<tr><td>Acme</td><td>registrant</td><td></td></tr>\n"
                      "<tr><td></td><td>abuse</td><td>a, b</td></tr>"),
            std::string::npos);
  const std::regex cell(R"re(<t[dh][^>]*>([^<]*)<)re");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), cell); it != std::sregex_iterator(); ++it) {
    const auto text = (*it)[1].str();
    EXPECT_EQ(text.find("{&quot;"), std::string::npos) << text;
    EXPECT_EQ(text.find("[{"), std::string::npos) << text;
    EXPECT_EQ(text.find("&quot;:"), std::string::npos) << text;
    EXPECT_FALSE(!text.empty() && (text[0] == '{' || text[0] == '[')) << text;
  }
  const auto md = render_markdown(c);
  EXPECT_NE(md.find("| catalogue.why | HTTP 500 |"), std::string::npos) << md;
  EXPECT_NE(md.find("### address_owner.entities\n\n| name | role | tags |\n|---|---|---|\n| Acme | registrant |  |\n"), std::string::npos)
      << md;
  EXPECT_EQ(md.find("{\""), std::string::npos) << md;
  EXPECT_EQ(md.find("[{"), std::string::npos) << md;
  EXPECT_EQ(md.find("\":"), std::string::npos) << md;
}
