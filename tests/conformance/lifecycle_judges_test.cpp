// The lifecycle's checks judged from records written by hand (conformance/lifecycle_judges.hpp):
// each verdict follows from what the driver saw and the spec alone, with no provider, emulator or
// clock, so that each check is shown to pass and to fail on the record that decides it.

#include <neograde/conformance/catalogue.hpp>
#include <neograde/conformance/needs.hpp>

#include "../../conformance/lifecycle_judges.hpp"

#include "../support/specs.hpp"

#include <gtest/gtest.h>

using namespace neograde;
using namespace neograde::conformance::detail;
using namespace neograde::conformance::detail::lifecycle;
using neograde::conformance::applicability;
using neograde::conformance::find_check;
using neograde::conformance::run_conditions;

namespace {

call_result answered(int status, bool success, nlohmann::json body = nullptr) {
  call_result r;
  r.response = http::response{status, {}, body.is_null() ? std::string() : body.dump()};
  if (!body.is_null()) r.json = std::move(body);
  r.success = success;
  return r;
}

instance read_as(instance_state state, std::string word) {
  instance i;
  i.id = "i-1";
  i.state = state;
  i.provider_status = std::move(word);
  return i;
}

bool says(const check_outcome& o, const std::string& text) { return o.reason.find(text) != std::string::npos; }

}  // namespace

// The lifecycle's checks are skipped by the catalogue's needs, in the order the run asks them:
// spending, then the second account, then the operations the API lacks.
TEST(LifecycleNeeds, SpendingThenSecondAccountThenOperations) {
  const auto& spec = test::spec("hyperbolic");  // no get, no restart
  run_conditions run{.spend = {.allowed = false, .refusal = "--allow-spend was not given"}, .second_account = false};
  auto why = [&](const char* id, const provider_spec& sp) { return applicability(*find_check(id), sp, run); };
  auto o = why(get_id, spec);
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->reason.find("launches an instance: --allow-spend was not given") != std::string::npos) << o->reason;
  run.spend.allowed = true;
  o = why(iso_get_id, spec);
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->reason.find("needs a second account") != std::string::npos) << o->reason;
  run.second_account = true;
  ASSERT_TRUE(why(iso_get_id, spec));
  EXPECT_TRUE(why(iso_get_id, spec)->reason.find("no get-by-id operation") != std::string::npos);
  ASSERT_TRUE(why(restart_id, spec));
  EXPECT_TRUE(why(restart_id, spec)->reason.find("no restart operation") != std::string::npos);
  EXPECT_FALSE(why(iso_list_id, spec));
  // With every operation, nothing is unmet.
  EXPECT_FALSE(why(get_id, test::spec("lambda")));
  EXPECT_FALSE(why(restart_id, test::spec("lambda")));
}

TEST(JudgeLaunch, AnIdPassesAnAnswerWithoutOneFailsAndTheRestIsSkipped) {
  const auto& spec = test::spec("lambda");
  launch_record l{.offer_found = true};
  l.order.instance_type = "gpu_1x_h100";
  l.result.call = answered(200, true, nlohmann::json::object());
  l.result.value = "i-1";
  auto v = judge_launch(l, spec);
  EXPECT_FALSE(v.rest);
  ASSERT_FALSE(v.decided.empty());
  EXPECT_EQ(v.decided.back().check_id, launch_id);
  EXPECT_EQ(v.decided.back().result, outcome::pass);
  l.result.value.reset();
  l.result.problem = "no id at /data/instance_ids/0";
  v = judge_launch(l, spec);
  EXPECT_EQ(v.decided.back().result, outcome::fail);
  EXPECT_EQ(v.rest, outcome::skipped);
  EXPECT_EQ(v.rest_reason, "depends on the launch returning an id");
  l.offer_found = false;
  v = judge_launch(l, spec);
  EXPECT_TRUE(v.decided.empty());
  EXPECT_EQ(v.rest, outcome::no_capacity);
}

TEST(JudgeReachesRunning, AnUndocumentedWordAStoppedOneAndTheDeadlineFailEachWithItsReason) {
  const auto& spec = test::spec("lambda");
  lifecycle_record rec;
  rec.running = {.how = running_wait::end::running, .seen = read_as(instance_state::running, "active"), .after_s = 42};
  auto o = judge_reaches_running(rec, spec);
  EXPECT_EQ(o.result, outcome::pass);
  EXPECT_EQ(o.measurements["time_to_running_s"], 42.0);
  rec.running = {.how = running_wait::end::undocumented, .last_status = "hibernating", .count = 3, .after_s = 30};
  o = judge_reaches_running(rec, spec);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "status \"hibernating\" is not in the documented vocabulary and persisted over 3 polls")) << o.reason;
  rec.running = {.how = running_wait::end::stopped, .last_status = "off", .count = 1, .after_s = 30};
  EXPECT_TRUE(says(judge_reaches_running(rec, spec), "\"off\", documented as stopped, read 1 time(s) in a row"));
  rec.running = {.how = running_wait::end::deadline, .last_status = "booting", .after_s = 600};
  o = judge_reaches_running(rec, spec);
  EXPECT_TRUE(says(o, "status \"booting\" after 600")) << o.reason;
  EXPECT_TRUE(says(o, "the spec expects running within")) << o.reason;
}

TEST(JudgeNoIllegalTransition, RunningBackToPendingFailsUnlessARestartWasAskedFor) {
  std::vector<instance_read> reads{
      {instance_state::pending, "booting"}, {instance_state::running, "active"}, {instance_state::pending, "booting"}};
  auto o = judge_no_illegal_transition(reads);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "back to \"booting\" without a restart")) << o.reason;
  reads.back().restarting = true;
  EXPECT_EQ(judge_no_illegal_transition(reads).result, outcome::pass);
  EXPECT_TRUE(ever_running(reads));
  EXPECT_FALSE(ever_running({{instance_state::pending, "booting"}}));
}

// A list that lags the get reads booting after the get read active, yet goes forward in its own
// order: not a transition. Booting again in the list's own order is one.
TEST(JudgeNoIllegalTransition, ALaggingListIsASequenceOfItsOwn) {
  instance_read got{instance_state::running, "active"};
  instance_read listed_booting{instance_state::pending, "booting"};
  listed_booting.listed = true;
  instance_read listed_active{instance_state::running, "active"};
  listed_active.listed = true;
  std::vector<instance_read> reads{got, listed_booting, listed_active};
  EXPECT_EQ(judge_no_illegal_transition(reads).result, outcome::pass);
  reads.push_back(listed_booting);
  EXPECT_EQ(judge_no_illegal_transition(reads).result, outcome::fail);
  reads.pop_back();
  reads.push_back({instance_state::pending, "booting"});
  EXPECT_EQ(judge_no_illegal_transition(reads).result, outcome::fail);
}

// A list that lags a restart reads it once the restart is over: no transition, since its running
// read came before the restart was asked for; booting again after a running read made since is one.
TEST(JudgeNoIllegalTransition, AListLaggingARestartIsNoTransition) {
  instance_read listed_active{.state = instance_state::running, .provider_status = "active", .listed = true};
  instance_read listed_restarting{.state = instance_state::pending, .provider_status = "rebooting", .listed = true, .restarts_before = 1};
  std::vector<instance_read> reads{listed_active, listed_restarting};
  EXPECT_EQ(judge_no_illegal_transition(reads).result, outcome::pass) << judge_no_illegal_transition(reads).reason;
  listed_active.restarts_before = 1;
  reads.push_back(listed_active);
  reads.push_back(listed_restarting);
  const auto o = judge_no_illegal_transition(reads);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "back to \"rebooting\"")) << o.reason;
}

TEST(JudgeRestart, RunningAgainPassesAndSaysWhetherADepartureWasSeen) {
  const auto& spec = test::spec("lambda");
  restart_record r{.request = answered(200, true), .action = {}, .wait = {.how = running_wait::end::running}, .after_s = 12};
  std::vector<instance_read> reads{{.state = instance_state::running}};
  auto o = judge_restart(r, reads, spec);
  EXPECT_EQ(o.result, outcome::pass);
  EXPECT_TRUE(says(o, "not seen leaving running")) << o.reason;
  reads.push_back({.state = instance_state::pending, .own_restart = true});
  o = judge_restart(r, reads, spec);
  EXPECT_TRUE(says(o, "(seen leaving running)")) << o.reason;
  EXPECT_EQ(o.measurements["departure_seen"], true);
  r.wait = {.how = running_wait::end::deadline, .last_status = "rebooting"};
  o = judge_restart(r, reads, spec);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "status \"rebooting\" 12")) << o.reason;
  r.request = answered(500, false);
  EXPECT_EQ(judge_restart(r, reads, spec).result, outcome::fail);
}

TEST(JudgeTerminateMany, UndocumentedWordsAndInstancesLeftFail) {
  many_record m{.binds_array = true, .extra = {"a", "b"}};
  m.terminate = answered(200, true);
  EXPECT_EQ(judge_terminate_many(m).result, outcome::pass);
  m.alive = 2;
  m.end = poll_end::undocumented;
  m.undocumented = 3;
  m.word = "zombie";
  auto o = judge_terminate_many(m);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "status \"zombie\" is not in the documented vocabulary and persisted over 3 polls")) << o.reason;
  m.end = poll_end::deadline;
  EXPECT_TRUE(says(judge_terminate_many(m), "2 of 2 instances still running"));
  m.extra = {"a"};
  EXPECT_EQ(judge_terminate_many(m).result, outcome::no_capacity);
  m.binds_array = false;
  EXPECT_TRUE(says(judge_terminate_many(m), "not applicable"));
}

TEST(JudgeGone, AGhostInTheListFailsAfterTheDeadlineAndAbsenceEverywherePasses) {
  const auto& spec = test::spec("lambda");
  terminate_record t{.has_get = true, .after_s = 300};
  gone_read g;
  g.get.call = answered(404, false);
  g.list.call = answered(200, true);
  g.list.value = std::vector<instance>{read_as(instance_state::running, "active")};
  g.entry = g.list.value->front();
  t.last = g;
  auto o = judge_gone(t, spec, 1.0);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "a ghost that may still bill")) << o.reason;
  t.last->entry.reset();
  t.last->list.value = std::vector<instance>{};
  o = judge_gone(t, spec, 1.0);
  EXPECT_EQ(o.result, outcome::pass) << o.reason;
  EXPECT_EQ(o.measurements["time_to_gone_s"], 300.0);
  t.last->get.call = answered(200, true);
  t.last->get.value = read_as(instance_state::running, "active");
  EXPECT_TRUE(says(judge_gone(t, spec, 1.0), "not gone: get reports the instance running after terminate"));
  t.last->get.value = read_as(instance_state::unknown, "zombie");
  t.end = poll_end::undocumented;
  t.undocumented = 3;
  EXPECT_TRUE(says(judge_gone(t, spec, 1.0), "an undocumented status persisted over 3 polls"));
}

TEST(JudgeCapacity, ARowAdvertisedAndRefusedFailsOneTheCatalogueDoesNotAdvertiseIsNoted) {
  lifecycle_record rec;
  EXPECT_FALSE(judge_capacity(rec, ""));
  rec.rows.push_back({.key = "a", .launched = true});
  rec.rows.push_back({.key = "b",
                      .why = "refused for lack of capacity, which the catalogue does not advertise: not judged",
                      .refused_for_capacity = true,
                      .judged = false});
  auto o = judge_capacity(rec, "no other row");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->result, outcome::pass);
  EXPECT_TRUE(says(*o, "1 of 2 advertised row(s) tried launched")) << o->reason;
  EXPECT_DOUBLE_EQ(capacity_refusal_rate(rec), 0.5);
  rec.rows.back().judged = true;
  o = judge_capacity(rec, "");
  EXPECT_EQ(o->result, outcome::fail);
  EXPECT_EQ(o->measurements["advertised_rows_launched"]["tried"], 2);
}

// A refusal is judged by the form the driver found it in: none refused is not applicable; a
// refusal in the provider's documented form passes; one that is not (a text/plain 500) fails.
TEST(JudgeRefusalForm, ARefusalOutsideTheDocumentedFormFails) {
  lifecycle_record rec;
  rec.rows.push_back({.key = "a", .launched = true});
  auto o = judge_refusal_form(rec);
  EXPECT_EQ(o.result, outcome::skipped);
  EXPECT_TRUE(o.reason.starts_with("not applicable: ")) << o.reason;
  row_tried refused{.key = "b", .why = "refused for lack of capacity", .refused_for_capacity = true};
  refused.evidence.status = 400;
  rec.rows.push_back(refused);
  EXPECT_EQ(judge_refusal_form(rec).result, outcome::pass) << judge_refusal_form(rec).reason;
  refused.key = "c";
  refused.evidence.status = 500;
  refused.form_problem = "a server failure, a status the provider documents for no refusal";
  rec.rows.push_back(refused);
  o = judge_refusal_form(rec);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "the launch of c was refused with HTTP 500: a server failure")) << o.reason;
  ASSERT_EQ(o.evidence.size(), 1u);
  EXPECT_EQ(o.evidence.front().status, 500);
}

TEST(JudgeMatchesOrder, AnotherTypeDeliveredFails) {
  const auto& spec = test::spec("lambda");
  lifecycle_record rec;
  EXPECT_FALSE(judge_matches_order(rec, spec, "x", ""));
  order_compared c;
  c.ordered.instance_type = "gpu_1x_h100";
  c.got.instance_type = "gpu_1x_h100";
  rec.compared.push_back(c);
  EXPECT_EQ(judge_matches_order(rec, spec, "gpu_1x_h100", "")->result, outcome::pass);
  rec.compared.front().got.instance_type = "gpu_1x_a10";
  const auto o = judge_matches_order(rec, spec, "gpu_1x_h100", "");
  EXPECT_EQ(o->result, outcome::fail);
  EXPECT_TRUE(says(*o, "type \"gpu_1x_a10\" (ordered \"gpu_1x_h100\")")) << o->reason;
}

// Every launch parameter the request sent is read back where the API shows it (issue 39): a Prime
// Intellect pod built with twice the GPUs ordered fails; one the pod does not show (its cloudId) is
// named as not shown, and no count is printed as compared that was never read.
TEST(JudgeMatchesOrder, ALaunchParameterShownOtherwiseFailsOneNotShownIsNamed) {
  const auto& spec = test::spec("primeintellect");
  lifecycle_record rec;
  order_compared c;
  c.ordered.instance_type = c.got.instance_type = "A100_80GB";
  c.ordered.region = "US-KS-2";  // sent as dataCenterId; a pod does not show it
  c.ordered.params = {{"cloud_id", "NVIDIA A100 80GB PCIe"}, {"gpu_count", "1"}, {"socket", "PCIe"}, {"underlying_provider", "runpod"}};
  c.got.params = {{"gpu_count", "1"}, {"socket", "PCIe"}};
  rec.compared.push_back(c);
  auto o = judge_matches_order(rec, spec, c.ordered.key(), "");
  EXPECT_EQ(o->result, outcome::pass) << o->reason;
  EXPECT_TRUE(says(*o, "compared type, gpu_count, socket")) << o->reason;
  EXPECT_TRUE(says(*o, "what the order sent that the instance does not show: region, cloud_id")) << o->reason;
  rec.compared.front().got.params["gpu_count"] = "2";
  o = judge_matches_order(rec, spec, c.ordered.key(), "");
  EXPECT_EQ(o->result, outcome::fail);
  EXPECT_TRUE(says(*o, "gpu_count 2 (ordered 1)")) << o->reason;
  // Not stated on the instance: not judged, and not said to be compared.
  rec.compared.front().got.params.erase("gpu_count");
  o = judge_matches_order(rec, spec, c.ordered.key(), "");
  EXPECT_EQ(o->result, outcome::pass) << o->reason;
  EXPECT_TRUE(says(*o, "compared type, socket")) << o->reason;
  // A number written otherwise is the same number.
  rec.compared.front().got.params["gpu_count"] = "1.0";
  EXPECT_EQ(judge_matches_order(rec, spec, c.ordered.key(), "")->result, outcome::pass);
}

// A check that would compare nothing does not pass: where the instances show nothing of the order
// (Akash's carry id, address and status only), it does not apply.
TEST(JudgeMatchesOrder, NotApplicableWhereTheInstanceShowsNothingOfTheOrder) {
  run_conditions run{.spend = {.allowed = true}};
  const auto o = applicability(*find_check(order_id), test::spec("akash"), run);
  ASSERT_TRUE(o);
  EXPECT_NE(o->reason.find("not applicable: the instances show nothing of what a launch orders"), std::string::npos) << o->reason;
  EXPECT_FALSE(applicability(*find_check(order_id), test::spec("lambda"), run));
}

// The price an instance states against its row's (issue 39: a pod billed 25 % above its row), within
// the provider's rounding: half the last decimal it writes, at most half a cent.
TEST(JudgePriceAsListed, TwentyFivePercentAboveTheRowFailsTheProvidersRoundingPasses) {
  const auto& spec = test::spec("primeintellect");
  lifecycle_record rec;
  EXPECT_FALSE(judge_price_as_listed(rec, spec));
  order_compared c;
  c.ordered.instance_type = "A100_80GB";
  c.ordered.price_per_hour_usd = 1.6568;
  c.got.price_per_hour_usd = 1.6568;
  rec.compared.push_back(c);
  auto o = judge_price_as_listed(rec, spec);
  EXPECT_EQ(o->result, outcome::pass) << o->reason;
  rec.compared.front().got.price_per_hour_usd = 1.66;  // written to the cent
  EXPECT_EQ(judge_price_as_listed(rec, spec)->result, outcome::pass);
  rec.compared.front().got.price_per_hour_usd = 1.657;  // rounded to a tenth of a cent
  EXPECT_EQ(judge_price_as_listed(rec, spec)->result, outcome::pass);
  rec.compared.front().got.price_per_hour_usd = 1.658;  // written to a tenth of a cent, yet more than half of one off
  EXPECT_EQ(judge_price_as_listed(rec, spec)->result, outcome::fail);
  rec.compared.front().got.price_per_hour_usd = 1.6568 * 1.25;
  o = judge_price_as_listed(rec, spec);
  EXPECT_EQ(o->result, outcome::fail);
  EXPECT_TRUE(says(*o, "where its row listed 1.6568/h (+25.0 %")) << o->reason;
  EXPECT_FALSE(o->evidence.empty());
  // The second order is judged too.
  rec.compared.front().got.price_per_hour_usd = 1.6568;
  order_compared second = c;
  second.second = true;
  second.ordered.instance_type = "H100_80GB";
  second.ordered.price_per_hour_usd = 2.4068;
  second.got.price_per_hour_usd = 3.0;
  rec.compared.push_back(second);
  o = judge_price_as_listed(rec, spec);
  EXPECT_EQ(o->result, outcome::fail);
  EXPECT_TRUE(says(*o, "the second order")) << o->reason;
  // No price stated where the spec maps one: not judged.
  rec.compared.back().got.price_per_hour_usd.reset();
  EXPECT_EQ(judge_price_as_listed(rec, spec)->result, outcome::errored);
}

// A price that disagrees with the row's is judged against the catalogue read again at once: the
// row repriced to the instance's price in between is not judged (a host may reprice its row between
// the run's read and its launch); still listed at the old price, or no longer priced, it fails.
TEST(JudgePriceAsListed, ARowRepricedBetweenTheReadAndTheLaunchIsNotJudged) {
  const auto& spec = test::spec("primeintellect");
  lifecycle_record rec;
  order_compared c;
  c.ordered.instance_type = "A100_80GB";
  c.ordered.price_per_hour_usd = 1.6568;
  c.got.price_per_hour_usd = 1.99;
  c.relisted = c.ordered;
  c.relisted->price_per_hour_usd = 1.99;
  c.relisted_evidence = exchange{.method = "GET", .url = "/availability/gpus"};
  rec.compared.push_back(c);
  auto o = judge_price_as_listed(rec, spec);
  EXPECT_EQ(o->result, outcome::skipped) << o->reason;
  EXPECT_TRUE(says(*o, "repriced between the read and the launch")) << o->reason;
  ASSERT_EQ(o->evidence.size(), 2U);
  EXPECT_EQ(o->evidence[1].url, "/availability/gpus");
  // Beside a row priced as listed, the run passes and says what it did not judge.
  order_compared right = c;
  right.got.price_per_hour_usd = 1.6568;
  right.relisted.reset();
  right.relisted_evidence.reset();
  rec.compared.push_back(right);
  o = judge_price_as_listed(rec, spec);
  EXPECT_EQ(o->result, outcome::pass) << o->reason;
  EXPECT_TRUE(says(*o, "not judged, repriced")) << o->reason;
  // Still listed at its old price after the launch: the instance is priced otherwise than listed.
  rec.compared.front().relisted->price_per_hour_usd = 1.6568;
  o = judge_price_as_listed(rec, spec);
  EXPECT_EQ(o->result, outcome::fail) << o->reason;
  EXPECT_TRUE(says(*o, "the catalogue read just after lists it at 1.6568/h")) << o->reason;
  // No longer listed: nothing shows the row repriced.
  rec.compared.front().relisted.reset();
  o = judge_price_as_listed(rec, spec);
  EXPECT_EQ(o->result, outcome::fail) << o->reason;
  EXPECT_TRUE(says(*o, "no longer prices the row")) << o->reason;
}

TEST(PriceNeeds, NotApplicableWithoutAPriceOnTheInstance) {
  run_conditions run{.spend = {.allowed = true}};
  const auto o = applicability(*find_check(price_id), test::spec("vastai"), run);
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->reason.starts_with("not applicable: ")) << o->reason;
  EXPECT_NE(o->reason.find("no hourly price on the instance"), std::string::npos) << o->reason;
  EXPECT_FALSE(applicability(*find_check(price_id), test::spec("primeintellect"), run));
}

TEST(JudgeIsolation, ADifferentAnswerForAnotherAccountsInstanceLeaksItsExistence) {
  const auto& spec = test::spec("lambda");
  isolation_record i{.has_get = true, .theirs = answered(403, false), .missing = answered(404, false)};
  i.listed.call = answered(200, true);
  i.listed.value = std::vector<instance>{};
  i.terminate = answered(403, false);
  const auto out = judge_isolation(i, spec);
  auto of = [&](const char* id) { return *std::find_if(out.begin(), out.end(), [&](auto& o) { return o.check_id == id; }); };
  EXPECT_EQ(of(iso_get_id).result, outcome::pass);
  EXPECT_EQ(of(iso_leak_id).result, outcome::fail);
  EXPECT_EQ(of(iso_list_id).result, outcome::pass);
  EXPECT_EQ(of(iso_terminate_id).result, outcome::pass);
  i.terminate = answered(200, true);
  EXPECT_TRUE(terminated_by_other(i));
}

TEST(JudgePageMetadata, ATotalThatDisagreesWithTheWalkFails) {
  pagination_spec pg;
  pg.metadata_source = "the provider's list document";
  pg.total_pointer = "/total";
  walk_record w;
  w.pages.push_back({answered(200, true, {{"total", 2}}), {"a"}});
  w.pages.push_back({answered(200, true, {{"total", 2}}), {"b"}});
  EXPECT_EQ(judge_page_metadata(w, pg).result, outcome::pass);
  w.pages[1].result.json = nlohmann::json{{"total", 5}};
  const auto o = judge_page_metadata(w, pg);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "page 2 of 2: the page states a total of 5")) << o.reason;
}

// A list page that answers the instances of the page before it again ignores the page parameter:
// each_once fails with both pages as evidence.
TEST(JudgePagination, ARepeatedPageIsShownWithThePageItRepeats) {
  const auto& spec = test::spec("digitalocean");
  walk_record w{.paginated = true, .expected = 2};
  w.paged.call = answered(200, true);
  w.paged.problem = "the provider served the same page twice";
  w.pages.push_back({answered(200, true, {{"droplets", {{{"id", 1}}}}}), {"1"}});
  w.pages.push_back({answered(200, true, {{"droplets", {{{"id", 1}}}}}), {"1"}});
  const auto out = judge_pagination(w, spec);
  const auto& o = *std::find_if(out.begin(), out.end(), [](const auto& c) { return c.check_id == each_once_id; });
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "page 2 answers the 1 instance(s) of page 1 again: the page parameter is ignored")) << o.reason;
  EXPECT_EQ(o.evidence.size(), 2u);
}

// The offer catalogue walked one row per page (issue 39 point 6): a page that answers the rows of
// the one before ignores the page parameter; a total that counts every row twice is a walk to it
// that never ends; a walk that ends, with a true total, passes.
TEST(JudgeOffersWalk, ARepeatedPageOrAnUnreachableTotalFails) {
  pagination_spec pg;
  pg.style = "page";
  pg.page_param = "page";
  pg.total_pointer = "/totalCount";
  pg.metadata_source = "the provider's catalogue document";
  auto page = [](int total, std::vector<std::string> rows) {
    return page_read{answered(200, true, {{"totalCount", total}}), std::move(rows)};
  };
  offers_walk_record w{.walked = {}, .pages = {page(2, {"a"}), page(2, {"b"}), page(2, {})}};
  w.walked.value = std::vector<nlohmann::json>{};
  auto o = judge_offers_walk(w, pg);
  EXPECT_EQ(o.result, outcome::pass) << o.reason;
  EXPECT_TRUE(says(o, "2 distinct row(s) over 3 page(s)")) << o.reason;

  for (auto& p : w.pages) p.result.json = nlohmann::json{{"totalCount", 4}};
  o = judge_offers_walk(w, pg);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o,
                   "page 1 of 2: the page states a total of 4 (/totalCount); the walk found 2 distinct offer rows: a client that "
                   "walks until it has the total never ends"))
      << o.reason;

  offers_walk_record repeated{.walked = {}, .pages = {page(2, {"a"}), page(2, {"a"})}};
  repeated.walked.problem = "the provider served the same page twice";
  o = judge_offers_walk(repeated, pg);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "page 2 answers the 1 row(s) of page 1 again: the page parameter is ignored")) << o.reason;
  EXPECT_EQ(o.evidence.size(), 2u);

  offers_walk_record overlapping{.walked = {}, .pages = {page(2, {"a"}), page(2, {"b"}), page(2, {"a"}), page(2, {})}};
  overlapping.walked.value = std::vector<nlohmann::json>{};
  o = judge_offers_walk(overlapping, pg);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "page 3 lists a row page 1 listed already")) << o.reason;

  offers_walk_record endless{.walked = {}, .pages = {page(2, {"a"}), page(2, {"b"})}};
  endless.walked.problem = "the walk did not end within 1000 pages";
  o = judge_offers_walk(endless, pg);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "did not end within 1000 pages")) << o.reason;
}

TEST(JudgeFilter, AnInstanceNotTheRunsOrAFilterIgnoredFails) {
  filter_record f{.declared = true, .param = "tag_name", .source = "docs", .tag = "neograde-run"};
  f.all.call = answered(200, true);
  f.all.value = std::vector<instance>{};
  f.ours = {"a"};
  f.tagged = answered(200, true);
  f.selected = {"a", "z"};
  auto o = judge_filter_tagged(f);
  ASSERT_TRUE(o);
  EXPECT_TRUE(says(*o, "shows instance z, which is not one of the run's")) << o->reason;
  f.selected = {"a"};
  EXPECT_FALSE(judge_filter_tagged(f));
  f.untagged = answered(200, true);
  EXPECT_EQ(judge_filter(f).result, outcome::pass);
  f.untagged_ids = {"a"};
  EXPECT_TRUE(says(judge_filter(f), "the filter is ignored"));
}

// A stop is judged by the state it leaves the instance in: an action record that reads completed
// while the instance still runs is a failure (issue 39: DigitalOcean-shaped actions that change
// nothing), and the start is judged only after a stop that stopped.
TEST(JudgeStopAndStart, TheStateDecidesNotTheActionRecord) {
  const auto& spec = test::spec("digitalocean");
  action_record completed{.how = action_record::end::done, .id = "7", .last = {}, .after_s = 0};
  completed.last.value = "completed";
  power_record p{.stop = answered(201, true), .stop_action = completed};
  p.stopped = {.how = state_wait::end::deadline, .last_status = "active", .after_s = 0.24, .within_s = 0.24};
  auto o = judge_stop(p, spec);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "action 7 completed")) << o.reason;
  EXPECT_TRUE(says(o, "status \"active\"")) << o.reason;
  EXPECT_EQ(judge_start(p, spec).result, outcome::skipped);
  p.stopped = {.how = state_wait::end::reached, .last_status = "off", .after_s = 0};
  EXPECT_EQ(judge_stop(p, spec).result, outcome::pass);
  p.stopped.how = state_wait::end::undocumented;
  EXPECT_EQ(judge_stop(p, spec).result, outcome::fail);
  p.stopped.how = state_wait::end::reached;
  p.stop_action.how = action_record::end::deadline;
  p.stop_action.last.value = "in-progress";
  EXPECT_EQ(judge_stop(p, spec).result, outcome::fail);
  p.stop_action = completed;

  // The start: running with an address passes; stopped after its action completed, or running
  // without an address, fails.
  p.start = answered(201, true);
  p.start_action = completed;
  p.running = {.how = running_wait::end::stopped, .last_status = "off", .count = 1};
  o = judge_start(p, spec);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "documented as stopped")) << o.reason;
  p.running = {.how = running_wait::end::running, .seen = read_as(instance_state::running, "active"), .last_status = "active"};
  o = judge_start(p, spec);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "no address")) << o.reason;
  // A provider the spec declares states no address (running_has_address a deviation) is judged
  // by running again alone: the address is that check's finding, not the start's.
  auto addressless = spec;
  addressless.deviations.push_back({.check_id = address_id, .reason = "a group carries no address", .source = "test"});
  o = judge_start(p, addressless);
  EXPECT_EQ(o.result, outcome::pass) << o.reason;
  EXPECT_TRUE(says(o, "no address, as declared")) << o.reason;
  p.running.seen->ip = "198.51.100.7";
  EXPECT_EQ(judge_start(p, spec).result, outcome::pass);
  p.start = answered(422, false);
  EXPECT_EQ(judge_start(p, spec).result, outcome::fail);
}

// A bulk delete by tag passes only when every tagged instance is gone and the other left alone.
TEST(JudgeBulkDelete, ExactlyTheTaggedSet) {
  bulk_record b{.tag = "neograde-0a1b2c3d", .tagged = {"a", "b"}, .control_id = "c", .control_tag = "neograde-0a1b2c3d-other"};
  b.request = answered(204, true);
  b.control_after = read_as(instance_state::running, "active");
  EXPECT_EQ(judge_bulk_delete(b).result, outcome::pass);
  b.gone.alive = {"b"};
  auto o = judge_bulk_delete(b);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "1 of the 2 instances tagged neograde-0a1b2c3d still there")) << o.reason;
  b.gone.alive.clear();
  b.control_after.reset();
  o = judge_bulk_delete(b);
  EXPECT_EQ(o.result, outcome::fail);
  EXPECT_TRUE(says(o, "but so is c")) << o.reason;
  b.control_after = read_as(instance_state::terminated, "archive");
  EXPECT_EQ(judge_bulk_delete(b).result, outcome::fail);
  b.request = answered(500, false);
  EXPECT_EQ(judge_bulk_delete(b).result, outcome::fail);
  b.tagged = {"a"};
  EXPECT_EQ(judge_bulk_delete(b).result, outcome::no_capacity);
  b.not_sent = "refused by the budget";
  EXPECT_EQ(judge_bulk_delete(b).result, outcome::skipped);
}

// Stop and start apply where the spec declares them and documents a stopped word; the bulk
// delete where the API deletes by tag and the launch tags the run's instances.
TEST(LifecycleNeeds, StopStartAndBulkDeleteWhereDeclared) {
  const run_conditions run{.spend = {.allowed = true}};
  auto applies = [&](const char* id, const char* provider) { return !applicability(*find_check(id), test::spec(provider), run); };
  for (const char* id : {stop_id, start_id, bulk_id}) {
    EXPECT_TRUE(applies(id, "digitalocean")) << id;
    EXPECT_FALSE(applies(id, "lambda")) << id;
  }
}
