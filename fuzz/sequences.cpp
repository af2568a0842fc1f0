// Stateful fuzzing with RapidCheck's state-machine testing (rc::state): random sequences of
// launch, get, list, restart, stop, start, terminate (one, or every instance carrying the
// sequence's tag), offer-page walks, SSH-key and cross-account operations, each checked against a
// model of the provider. The model names instances and keys by slot (the n-th launched),
// so that sequences are generated, replayed and shrunk without knowing the ids the provider
// will hand out; the system under test keeps the slot -> id mapping.

#include "engine.hpp"

#include <neograde/clients/delivered.hpp>
#include <neograde/clients/effect.hpp>
#include <neograde/clients/pages.hpp>
#include <neograde/clients/teardown.hpp>
#include <neograde/core/poll.hpp>
#include <neograde/core/template.hpp>

#include <rapidcheck/state.h>

#include <sstream>

namespace neograde::fuzz::detail {
namespace {

using clock = std::chrono::steady_clock;
constexpr int launches_per_sequence = 3;

struct model {
  std::vector<bool> terminated;   // per instance slot
  std::vector<bool> stopped;      // per instance slot: stopped last, not started since
  std::vector<bool> tagged;       // per instance slot: launched with the sequence's tag
  std::vector<bool> key_deleted;  // per key slot
  int launches = 0;
  bool tags = false;  // launches may carry the sequence's tag (the API deletes by tag)
};

// An instance slot a stop, a start or a delete by tag may act on.
bool alive(const model& m, std::size_t n) { return n < m.terminated.size() && !m.terminated[n]; }
bool any_tagged(const model& m) {
  for (std::size_t i = 0; i < m.tagged.size(); ++i)
    if (m.tagged[i] && alive(m, i)) return true;
  return false;
}

struct slot {
  std::optional<std::string> id;  // nullopt: the launch was refused for capacity, or skipped
  std::string type;
  offer row;  // the offer row launched, for what the instance shows of it
  std::optional<clock::time_point> terminated_at;
  bool seen_running = false;
  bool restarted = false;
  bool off = false;     // stopped by the sequence (its stopped state read), not started since
  bool tagged = false;  // launched with the sequence's tag
};

struct world {
  target& t;
  std::vector<slot> instances;
  std::vector<std::optional<std::string>> keys;  // key ids per slot
  std::vector<std::string> key_names;
  std::vector<std::string> steps;
  bool incomplete = false;
  std::string tag;  // what this sequence's tagged launches carry, where the API deletes by tag

  void step(std::string s) { steps.push_back(std::move(s)); }
  [[noreturn]] void fail(const std::string& oracle, const std::string& operation, const call_result& r, std::string message) {
    throw violation_error{
        {.oracle = oracle, .operation = operation, .status = r.status(), .message = std::move(message), .evidence = r.evidence}};
  }
  // The oracles every response is held to.
  void judge(const std::string& operation, operation_id op, const call_result& r, expectation expect) {
    t.tally(r, operation);
    if (auto v = t.judge(operation, op, r, expect)) throw violation_error{std::move(*v)};
  }
  // Status over time: once running, an instance goes back to pending only through a restart.
  void follow(slot& s, const instance& inst, const std::string& operation, const call_result& r) {
    if (s.seen_running && !s.restarted && inst.state == instance_state::pending)
      fail("state_regressed", operation, r, "a running instance reads as \"" + inst.provider_status + "\" without a restart");
    if (inst.state == instance_state::running) s.seen_running = true, s.restarted = false;
  }
  // Delivered otherwise than ordered and listed: another type, a launch parameter shown otherwise
  // (twice the GPUs), a price beyond the provider's rounding of its row's (clients/delivered.hpp).
  void delivered(const slot& s, const instance& inst, const std::string& operation, const call_result& r) {
    const auto how = operation == "list" ? "listed as " : "reads as ";
    if (!inst.instance_type.empty() && inst.instance_type != s.type)
      fail("wrong_instance", operation, r, "ordered " + s.type + ", " + how + inst.instance_type);
    if (const auto wrong = params_shown_otherwise(inst, s.row, t.spec()); !wrong.empty())
      fail("wrong_instance", operation, r, "ordered " + s.row.key() + ", " + how + "delivered otherwise: " + wrong.front());
    if (const auto price = compare_price(inst, s.row, t.spec()); price && !price->as_listed())
      fail("wrong_instance", operation, r, "ordered " + s.row.key() + ", priced " + price->describe());
  }
  [[nodiscard]] std::chrono::milliseconds grace() const {
    return std::max(std::chrono::milliseconds(1), t.scaled(t.spec().timing.poll_interval_s));
  }
  // The provider seconds since `since` on the run's clock.
  [[nodiscard]] double provider_seconds_since(clock::time_point since) const {
    const double scale = t.session().time_scale();
    const double ms = static_cast<double>(std::chrono::duration_cast<std::chrono::milliseconds>(t.clock().now() - since).count());
    return scale > 0 ? ms / 1000 / scale : 0;
  }
  // Reads of an action's effect: the first at once, then spaced over `within_s` provider seconds
  // (the spec's time for it, on the run's clock), at most nine, the last at the end. A sequence
  // pays a bounded number of requests to learn whether an action did anything.
  template <class Look>
  void over(double within_s, Look look) {
    const auto since = t.clock().now();
    const auto window = t.scaled(within_s);
    // Rounded up, so that the ninth read is never before the window's end (a slow provider that
    // keeps its word is no finding).
    const auto gap = std::max(grace(), (window + std::chrono::milliseconds(7)) / 8);
    // The one poll loop (core/poll.hpp): a read is as of when it is sent, so on a clock several
    // lanes share, another lane's wait passing the window during a read does not end the reads.
    (void)poll_until(
        t.clock(),
        poll_limits{.deadline = since + window, .max_looks = 9, .interrupted = [this] { return t.primary().target_time_scale() == 0; }},
        [&](poll_look&) { return look() ? std::optional(true) : std::nullopt; },
        [&] {
          if (window >= std::chrono::seconds(10))
            t.waiting("up to " + std::to_string(window.count() / 1000) + " s for the effect of \"" +
                      (steps.empty() ? std::string("an action") : steps.back()) + "\" (the spec's time for it)");
          t.clock().sleep(gap);
        });
  }
  // A read of a live instance: its status word documented, the answer held to every oracle, the
  // instance readable.
  typed_result<instance> read(const slot& s) {
    auto r = t.primary().get(*s.id);
    if (r.value && !r.value->provider_status.empty() && !t.spec().states.contains(r.value->provider_status))
      fail("status_vocabulary", "get", r.call, "status \"" + r.value->provider_status + "\" is not in the documented vocabulary");
    judge("get", operation_id::get, r.call, expectation::any);
    if (!r.call.success) fail("lost_instance", "get", r.call, "a launched instance cannot be read: " + r.call.describe());
    return r;
  }
  // An accepted stop or start followed to its effect: the instance must read the spec's `goal`
  // state (read_toward, clients/effect.hpp: the conformance lifecycle's decision) within
  // `within_s`; undocumented words are the vocabulary's finding, a read that ends the instance
  // (failed, terminated) and a deadline with the instance elsewhere are no_effect's.
  void await(slot& s, instance_state goal, const std::string& operation, const call_result& accepted, double within_s) {
    const auto since = t.clock().now();
    std::string last = "(unread)";
    std::optional<call_result> last_read;
    bool reached = false;
    over(within_s, [&] {
      auto r = read(s);
      last_read = r.call;
      if (!r.value) return false;
      last = r.value->provider_status;
      const auto read = read_toward(goal, r.value->state);
      if (read == toward::ended) fail("no_effect", operation, r.call, "the " + operation + " ended the instance: status \"" + last + "\"");
      if (read == toward::reached && goal == instance_state::running) s.seen_running = true, s.restarted = false;
      return reached = read == toward::reached;
    });
    if (reached) return;
    const auto* goal_word = goal == instance_state::stopped ? "stopped" : "running";
    fail("no_effect", operation, last_read.value_or(accepted),
         "status \"" + last + "\" " + std::to_string(provider_seconds_since(since)) + " s after the " + operation +
             " was accepted; the spec expects its " + goal_word + " state within " + std::to_string(within_s) + " s");
  }
};

using command = rc::state::Command<model, world>;
using command_ptr = std::shared_ptr<const command>;

// Uniform over the slots whatever the generation size (RapidCheck scales ranges by size).
std::size_t pick(const std::vector<bool>& v) { return *rc::gen::resize(100, rc::gen::inRange<std::size_t>(0, v.size())); }

struct launch_instance : command {
  bool tagged;  // with the sequence's tag (drawn only where the API deletes by tag)
  explicit launch_instance(const model& m) : tagged(m.tags && *rc::gen::arbitrary<bool>()) {}
  void checkPreconditions(const model& m) const override { RC_PRE(m.launches < launches_per_sequence); }
  void apply(model& m) const override {
    m.terminated.push_back(false);
    m.stopped.push_back(false);
    m.tagged.push_back(tagged);
    ++m.launches;
  }
  void run(const model&, world& w) const override {
    w.instances.emplace_back();
    if (!w.t.may_launch() || w.t.offers.empty()) {
      w.incomplete = true;  // the instance cap is reached: the slot stays empty
      w.step("launch (skipped: instance cap)");
      return;
    }
    const auto& row = w.t.offers[static_cast<std::size_t>(w.t.launched()) % w.t.offers.size()];
    const auto& type = row.instance_type;
    const auto name = w.t.fresh_name("s");
    auto params = row.params;
    // Untagged, a launch carries the run's tag (provider_client): the delete by tag names the
    // sequence's own, so that it never acts on what another sequence or lane launched.
    if (tagged) params["run_tag"] = w.tag;
    w.step("launch " + row.key() + " as " + name + (tagged ? " tagged " + w.tag : ""));
    auto r = w.t.primary().launch({.instance_type = type,
                                   .region = row.region,
                                   .ssh_key_name = w.t.ssh_key_name,
                                   .name = name,
                                   .params = std::move(params),
                                   .public_key = w.t.session().public_key(),
                                   .ssh_key_id = w.t.ssh_key_id});
    if (r.call.not_sent) {
      w.incomplete = true;  // the spend budget said no: nothing was sent
      w.step("launch (" + r.call.describe() + ")");
      return;
    }
    if (r.call.success) w.t.count_launch();
    if (r.value) w.t.created.push_back(*r.value);
    // No capacity is not a defect. Where the spec cannot tell a capacity refusal from another
    // (it documents no capacity error), a refusal of the offer that launched before in this run
    // is taken as one.
    if (!r.call.success &&
        (provider_condition(r.call, w.t.spec()) ||
         (w.t.launched() > 0 && !w.t.spec().errors.kinds.contains("insufficient_capacity") && w.t.spec().errors.no_capacity_codes.empty())))
      return;
    w.judge("launch", operation_id::launch, r.call, expectation::accept);
    if (!r.value) w.fail("lost_instance", "launch", r.call, "the launch was accepted but names no instance: " + r.problem);
    w.instances.back().id = r.value;
    w.instances.back().type = type;
    w.instances.back().row = row;
    w.instances.back().tagged = tagged;
  }
  void show(std::ostream& os) const override { os << (tagged ? "launch tagged" : "launch"); }
};

// A launch that must fail (an instance type or a region that does not exist); it must leave
// nothing behind.
struct launch_refused : command {
  bool unknown_region;
  explicit launch_refused(const model&) : unknown_region(*rc::gen::arbitrary<bool>()) {}
  void checkPreconditions(const model& m) const override { RC_PRE(m.launches < launches_per_sequence); }
  void apply(model& m) const override { ++m.launches; }
  void run(const model&, world& w) const override {
    if (!w.t.may_launch() || w.t.offers.empty()) return;
    const auto name = w.t.fresh_name("x");
    const auto& row = w.t.offers.front();
    auto type = row.instance_type, region = row.region;
    // Only what the launch request carries can be unknown.
    const auto* launch = w.t.spec().operation(operation_id::launch);
    const auto sent = launch->body ? template_pointers(*launch->body) : std::map<std::string, std::string>{};
    const bool region_sent = sent.contains("region") || launch->path.find("{region}") != std::string::npos;
    const bool type_sent = sent.contains("instance_type") || launch->path.find("{instance_type}") != std::string::npos;
    if (!(unknown_region ? region_sent : type_sent)) return;
    (unknown_region ? region : type) = "neograde-no-such-" + std::string(unknown_region ? "region" : "type");
    w.step("launch " + type + " in " + region + " as " + name + " (must be refused)");
    auto r = w.t.primary().launch({.instance_type = type,
                                   .region = region,
                                   .ssh_key_name = w.t.ssh_key_name,
                                   .name = name,
                                   .params = row.params,
                                   .public_key = w.t.session().public_key(),
                                   .ssh_key_id = w.t.ssh_key_id});
    if (r.call.not_sent) {
      w.incomplete = true;  // the spend budget said no: nothing was sent
      w.step("launch (" + r.call.describe() + ")");
      return;
    }
    if (r.call.success) w.t.count_launch();
    if (r.value) w.t.created.push_back(*r.value);
    w.judge("launch", operation_id::launch, r.call, expectation::reject);
  }
  void show(std::ostream& os) const override { os << "launch with an unknown " << (unknown_region ? "region" : "type"); }
};

struct read_instance : command {
  std::size_t n;
  explicit read_instance(const model& m) : n(pick(m.terminated)) {}
  void checkPreconditions(const model& m) const override { RC_PRE(n < m.terminated.size()); }
  void run(const model& m, world& w) const override {
    auto& s = w.instances[n];
    if (!s.id) return;
    w.step("get instance " + std::to_string(n));
    const auto sent = w.t.clock().now();  // a read is as of when it is sent (over())
    auto r = w.t.primary().get(*s.id);
    // The status word first: a word outside the vocabulary also breaks the schema's enum.
    if (r.value && !r.value->provider_status.empty() && !w.t.spec().states.contains(r.value->provider_status))
      w.fail("status_vocabulary", "get", r.call, "status \"" + r.value->provider_status + "\" is not in the documented vocabulary");
    w.judge("get", operation_id::get, r.call, expectation::any);
    if (!m.terminated[n]) {
      if (!r.call.success) w.fail("lost_instance", "get", r.call, "a launched instance cannot be read: " + r.call.describe());
      if (!r.value) return;
      const auto& inst = *r.value;
      w.delivered(s, inst, "get", r.call);
      w.follow(s, inst, "get", r.call);
    } else if (r.value && r.value->state == instance_state::running && s.terminated_at && sent - *s.terminated_at > w.grace()) {
      w.fail("ghost_instance", "get", r.call, "a terminated instance still reads as running");
    }
  }
  void show(std::ostream& os) const override { os << "get instance " << n; }
};

struct list_instances : command {
  void run(const model& m, world& w) const override {
    w.step("list instances");
    const auto sent = w.t.clock().now();
    auto r = w.t.primary().list();
    w.judge("list", operation_id::list, r.call, expectation::any);
    if (!r.value) return;
    for (std::size_t i = 0; i < w.instances.size() && i < m.terminated.size(); ++i) {
      const auto& s = w.instances[i];
      if (!s.id) continue;
      auto it = std::find_if(r.value->begin(), r.value->end(), [&](const instance& x) { return x.id == *s.id; });
      if (!m.terminated[i] && it == r.value->end())
        w.fail("lost_instance", "list", r.call, "launched instance " + std::to_string(i) + " is not listed");
      if (it == r.value->end()) continue;
      if (m.terminated[i] && it->state == instance_state::running && s.terminated_at && sent - *s.terminated_at > w.grace())
        w.fail("ghost_instance", "list", r.call, "a terminated instance is still listed as running");
      if (!m.terminated[i]) w.delivered(s, *it, "list", r.call);
      if (!m.terminated[i]) w.follow(w.instances[i], *it, "list", r.call);
    }
    // Anything named by this target (the run, or this lane of it) that it has no id for was
    // created behind its back.
    for (const auto& x : *r.value) {
      if (!x.name.starts_with(w.t.prefix()) || x.state == instance_state::terminated || x.state == instance_state::stopping) continue;
      if (std::find(w.t.created.begin(), w.t.created.end(), x.id) == w.t.created.end())
        w.fail("leaked_instance", "list", r.call, "instance " + x.name + " exists though no launch returned it");
    }
  }
  void show(std::ostream& os) const override { os << "list instances"; }
};

struct terminate_instance : command {
  std::size_t n;
  explicit terminate_instance(const model& m) : n(pick(m.terminated)) {}
  void checkPreconditions(const model& m) const override { RC_PRE(n < m.terminated.size()); }
  void apply(model& m) const override { m.terminated[n] = true; }
  void run(const model& m, world& w) const override {
    auto& s = w.instances[n];
    if (!s.id) return;
    w.step("terminate instance " + std::to_string(n) + (m.terminated[n] ? " (again)" : ""));
    // A refusal before the spec's minimum runtime (Spheron) is waited out, as teardown does.
    auto r = terminate_after_minimum_runtime(w.t.primary(), *s.id, w.t.clock()).result;
    w.judge("terminate", operation_id::terminate, r, m.terminated[n] ? expectation::any : expectation::accept);
    if (!s.terminated_at) s.terminated_at = w.t.clock().now();
  }
  void show(std::ostream& os) const override { os << "terminate instance " << n; }
};

struct restart_instance : command {
  std::size_t n;
  explicit restart_instance(const model& m) : n(pick(m.terminated)) {}
  void checkPreconditions(const model& m) const override {
    const bool on = n < m.terminated.size() && !m.stopped[n];  // a stopped instance is started, not restarted
    RC_PRE(on);
  }
  void run(const model& m, world& w) const override {
    auto& s = w.instances[n];
    if (!s.id) return;
    w.step("restart instance " + std::to_string(n));
    const auto sent = w.t.clock().now();
    auto r = w.t.primary().restart(*s.id);
    w.judge("restart", operation_id::restart, r, expectation::any);
    if (m.terminated[n] && r.success && s.terminated_at && sent - *s.terminated_at > w.grace())
      w.fail("use_after_terminate", "restart", r, "a terminated instance accepted restart");
    if (r.success) s.restarted = true;
  }
  void show(std::ostream& os) const override { os << "restart instance " << n; }
};

// A stop of a running instance, judged by its effect: the instance reads the spec's stopped state
// within the spec's time to gone (as lifecycle.instance.stop_reaches_stopped judges it), whatever
// the answer and an action record say.
struct stop_instance : command {
  std::size_t n;
  explicit stop_instance(const model& m) : n(pick(m.terminated)) {}
  void checkPreconditions(const model& m) const override {
    const bool on = alive(m, n) && !m.stopped[n];
    RC_PRE(on);
  }
  void apply(model& m) const override { m.stopped[n] = true; }
  void run(const model&, world& w) const override {
    auto& s = w.instances[n];
    if (!s.id || s.off) return;
    // A stop acts on a running instance (the API refuses it otherwise, rightly): one still
    // booting is waited for, within the spec's time to running, as the lifecycle does.
    if (!s.seen_running) {
      w.step("read instance " + std::to_string(n) + " until it runs");
      w.over(w.t.spec().timing.time_to_running_s, [&] {
        auto r = w.read(s);
        if (r.value && r.value->state == instance_state::running) s.seen_running = true;
        return s.seen_running;
      });
      if (!s.seen_running) return;  // still booting is reaches_running's concern (conformance)
    }
    w.step("stop instance " + std::to_string(n));
    auto r = w.t.primary().stop(*s.id);
    w.judge("stop", operation_id::stop, r, expectation::any);
    if (!r.success) return;
    w.await(s, instance_state::stopped, "stop", r, w.t.spec().timing.time_to_gone_s);
    s.off = true;
    w.t.count_effect("stop");
  }
  void show(std::ostream& os) const override { os << "stop instance " << n; }
};

// A start of an instance the sequence stopped: it reads running again within the spec's time to
// running (lifecycle.instance.start_returns_to_running's decision); booting on the way is no
// regression.
struct start_instance : command {
  std::size_t n;
  explicit start_instance(const model& m) : n(pick(m.terminated)) {}
  void checkPreconditions(const model& m) const override {
    const bool off = alive(m, n) && m.stopped[n];
    RC_PRE(off);
  }
  void apply(model& m) const override { m.stopped[n] = false; }
  void run(const model&, world& w) const override {
    auto& s = w.instances[n];
    if (!s.id || !s.off) return;
    w.step("start instance " + std::to_string(n));
    auto r = w.t.primary().start(*s.id);
    w.judge("start", operation_id::start, r, expectation::any);
    if (!r.success) return;
    s.off = false;
    s.restarted = true;
    w.await(s, instance_state::running, "start", r, w.t.spec().timing.time_to_running_s);
    w.t.count_effect("start");
  }
  void show(std::ostream& os) const override { os << "start instance " << n; }
};

// One delete of every instance carrying the sequence's tag: each of them gone within the spec's
// time to gone, and every instance of the sequence launched without the tag still there
// (lifecycle.instance.bulk_delete_exact_set's set; gone as instance_gone decides, clients/effect.hpp).
struct terminate_tagged : command {
  void checkPreconditions(const model& m) const override { RC_PRE(any_tagged(m)); }
  void apply(model& m) const override {
    for (std::size_t i = 0; i < m.tagged.size(); ++i)
      if (m.tagged[i]) m.terminated[i] = true;
  }
  void run(const model& m, world& w) const override {
    std::vector<std::size_t> tagged, others;
    for (std::size_t i = 0; i < w.instances.size() && i < m.terminated.size(); ++i)
      if (w.instances[i].id && !m.terminated[i]) (m.tagged[i] ? tagged : others).push_back(i);
    if (tagged.empty()) return;
    w.step("delete every instance tagged " + w.tag);
    auto r = w.t.primary().terminate_tagged(w.tag);
    w.judge("terminate_tagged", operation_id::terminate_tagged, r, expectation::accept);
    if (!r.success) return;  // a provider condition (rate limit): nothing was deleted to judge
    const auto since = w.t.clock().now();
    std::optional<call_result> last;
    auto left = tagged;
    w.over(w.t.spec().timing.time_to_gone_s, [&] {
      std::vector<std::size_t> still;
      for (const auto i : left) {
        auto g = w.t.primary().get(*w.instances[i].id);
        w.judge("get", operation_id::get, g.call, expectation::any);
        last = g.call;
        if (instance_gone(g.value)) w.instances[i].terminated_at = w.t.clock().now();
        else
          still.push_back(i);
      }
      left = std::move(still);
      return left.empty();
    });
    if (!left.empty())
      w.fail("bulk_set", "terminate_tagged", last.value_or(r),
             std::to_string(left.size()) + " of the " + std::to_string(tagged.size()) + " instances tagged " + w.tag + " still there " +
                 std::to_string(w.provider_seconds_since(since)) + " s after " + r.describe() + " named the tag (instance " +
                 std::to_string(left.front()) + " among them)");
    for (const auto i : others) {
      auto g = w.t.primary().get(*w.instances[i].id);
      w.judge("get", operation_id::get, g.call, expectation::any);
      if (instance_gone(g.value))
        w.fail("bulk_set", "terminate_tagged", g.call,
               "instance " + std::to_string(i) + ", launched without the tag " + w.tag + ", is gone too after the delete by tag");
    }
    w.t.count_effect("terminate_tagged");
  }
  void show(std::ostream& os) const override { os << "delete tagged"; }
};

// The offer catalogue walked one row per page: the walk ends within the client's bound, no page
// repeats the one before nor lists a row of another, and what the pages say about the walk is
// true (offers_walk_fault, clients/pages.hpp: pagination.offers.walk_ends's decision).
struct walk_offers : command {
  void run(const model&, world& w) const override {
    w.step("walk the offers one row per page");
    std::vector<call_result> answers;
    auto r = w.t.primary().walk(operation_id::list_offers, 1, nullptr, &answers);
    for (const auto& a : answers) w.judge("list_offers", operation_id::list_offers, a, expectation::accept);
    const auto pages = read_pages(w.t.primary(), operation_id::list_offers, answers, true);
    if (auto fault = offers_walk_fault(r, pages, *w.t.spec().operation(operation_id::list_offers)->pagination))
      w.fail("page_walk", "list_offers", answers.empty() ? r.call : answers.back(), fault->message);
    if (r.value) w.t.count_effect("offer_walk");
  }
  void show(std::ostream& os) const override { os << "walk offers"; }
};

struct wait_a_while : command {
  void run(const model&, world& w) const override {
    w.step("wait");
    // Against an emulator without delays (time scale 0) nothing comes with time: no sleep.
    if (w.t.primary().target_time_scale() == 0) return;
    const auto pause = std::max(std::chrono::milliseconds(10), 2 * w.grace());
    if (pause >= std::chrono::seconds(5))
      w.t.waiting(std::to_string(pause.count() / 1000) + " s: a sequence's pause (twice the spec's poll interval)");
    w.t.clock().sleep(pause);
  }
  void show(std::ostream& os) const override { os << "wait"; }
};

// The second account reads, lists and acts on the first account's instance.
struct cross_account : command {
  std::size_t n;
  int action;
  explicit cross_account(const model& m) : n(pick(m.terminated)), action(*rc::gen::resize(100, rc::gen::inRange(0, 4))) {}
  void checkPreconditions(const model& m) const override {
    // RC_PRE captures its expression without short-circuiting: decide first.
    const bool alive = n < m.terminated.size() && !m.terminated[n];
    RC_PRE(alive);
  }
  void run(const model&, world& w) const override {
    auto& s = w.instances[n];
    auto* other = w.t.second();
    if (!s.id || other == nullptr) return;
    static const char* names[] = {"reads", "lists", "terminates", "restarts"};
    w.step("the second account " + std::string(names[action]) + " instance " + std::to_string(n));
    try {
      act(w, *other, *s.id);
    } catch (violation_error& e) {
      if (e.v.oracle == "negative_accepted") e.v.oracle = "cross_account";
      throw;
    }
  }
  void act(world& w, provider_client& other_client, const std::string& id) const {
    auto* other = &other_client;
    if (action == 0) {
      auto r = other->get(id);
      w.judge("get", operation_id::get, r.call, expectation::reject);
      // A missing id of the same shape: Vast.ai refuses a non-integer id with 400 for its form
      // alone, where a missing integer id answers 200 with a null object.
      auto none = other->get(absent_like(id));
      if (r.call.status() != none.call.status())
        w.fail("cross_account", "get", r.call,
               "another account's instance answers HTTP " + std::to_string(r.call.status()) +
                   " where a missing id of the same shape answers " + std::to_string(none.call.status()));
    } else if (action == 1) {
      auto r = other->list();
      w.judge("list", operation_id::list, r.call, expectation::any);
      if (r.value && std::any_of(r.value->begin(), r.value->end(), [&](const instance& x) { return x.id == id; }))
        w.fail("cross_account", "list", r.call, "another account's instance is in the list");
    } else {
      const bool restart = action == 3 && w.t.spec().operation(operation_id::restart) != nullptr;
      auto r = restart ? other->restart(id) : other->terminate(id);
      w.judge(restart ? "restart" : "terminate", restart ? operation_id::restart : operation_id::terminate, r, expectation::reject);
    }
  }
  void show(std::ostream& os) const override { os << "second account action " << action << " on instance " << n; }
};

struct add_key : command {
  void apply(model& m) const override { m.key_deleted.push_back(false); }
  void run(const model&, world& w) const override {
    const auto name = w.t.fresh_name("k");
    w.step("add SSH key " + name);
    auto r = w.t.primary().add_ssh_key(name, w.t.session().public_key());
    w.keys.emplace_back(r.value ? std::optional(r.value->id) : std::nullopt);
    w.key_names.push_back(name);
    w.judge("ssh_keys_add", operation_id::ssh_keys_add, r.call, expectation::accept);
  }
  void show(std::ostream& os) const override { os << "add key"; }
};

struct list_keys : command {
  void run(const model& m, world& w) const override {
    w.step("list SSH keys");
    auto r = w.t.primary().list_ssh_keys();
    w.judge("ssh_keys_list", operation_id::ssh_keys_list, r.call, expectation::any);
    if (!r.value) return;
    for (std::size_t i = 0; i < w.key_names.size() && i < m.key_deleted.size(); ++i) {
      const bool listed = std::any_of(r.value->begin(), r.value->end(),
                                      [&](const ssh_key& k) { return k.name == w.key_names[i] || (w.keys[i] && k.id == *w.keys[i]); });
      if (!m.key_deleted[i] && !listed) w.fail("key_model", "ssh_keys_list", r.call, "an added SSH key is not listed");
      if (m.key_deleted[i] && listed) w.fail("key_model", "ssh_keys_list", r.call, "a deleted SSH key is still listed");
    }
    if (auto* other = w.t.second()) {
      auto theirs = other->list_ssh_keys();
      if (theirs.value)
        for (const auto& k : *theirs.value)
          if (std::find(w.key_names.begin(), w.key_names.end(), k.name) != w.key_names.end())
            w.fail("cross_account", "ssh_keys_list", theirs.call, "another account's SSH key is in the list");
    }
  }
  void show(std::ostream& os) const override { os << "list keys"; }
};

struct delete_key : command {
  std::size_t n;
  explicit delete_key(const model& m) : n(pick(m.key_deleted)) {}
  void checkPreconditions(const model& m) const override { RC_PRE(n < m.key_deleted.size()); }
  void apply(model& m) const override { m.key_deleted[n] = true; }
  void run(const model& m, world& w) const override {
    if (n >= w.keys.size() || !w.keys[n]) return;
    w.step("delete SSH key " + std::to_string(n) + (m.key_deleted[n] ? " (again)" : ""));
    auto r = w.t.primary().delete_ssh_key(*w.keys[n]);
    w.judge("ssh_keys_delete", operation_id::ssh_keys_delete, r, m.key_deleted[n] ? expectation::reject : expectation::accept);
  }
  void show(std::ostream& os) const override { os << "delete key " << n; }
};

template <class C>
rc::Gen<command_ptr> make(const model& m) {
  return rc::gen::exec([m]() -> command_ptr {
    if constexpr (std::is_constructible_v<C, const model&>) return std::make_shared<const C>(m);
    else
      return std::make_shared<const C>();
  });
}

}  // namespace

struct sequences::impl {
  target& t;
  bool launches = false, restart = false, keys = false, cross = false;
  bool stop = false, start = false, bulk = false, walk = false;

  [[nodiscard]] model initial() const { return model{.tags = bulk}; }

  rc::Gen<command_ptr> next(const model& m) const {
    std::vector<std::pair<std::size_t, rc::Gen<command_ptr>>> g;
    const bool any = !m.terminated.empty();
    if (launches && m.launches < launches_per_sequence) {
      g.emplace_back(4, make<launch_instance>(m));
      g.emplace_back(1, make<launch_refused>(m));
    }
    if (any) {
      g.emplace_back(4, make<read_instance>(m));
      g.emplace_back(2, make<terminate_instance>(m));
      if (restart) g.emplace_back(1, make<restart_instance>(m));
      if (stop) g.emplace_back(2, make<stop_instance>(m));
      if (start && std::find(m.stopped.begin(), m.stopped.end(), true) != m.stopped.end()) g.emplace_back(2, make<start_instance>(m));
      if (bulk && any_tagged(m)) g.emplace_back(2, make<terminate_tagged>(m));
      if (cross && std::find(m.terminated.begin(), m.terminated.end(), false) != m.terminated.end())
        g.emplace_back(2, make<cross_account>(m));
    }
    if (launches) g.emplace_back(2, make<list_instances>(m));
    if (walk) g.emplace_back(1, make<walk_offers>(m));
    // Time must pass for what happens after a terminate or a boot to show.
    const bool terminated = std::find(m.terminated.begin(), m.terminated.end(), true) != m.terminated.end();
    g.emplace_back(terminated || any ? 3 : 1, make<wait_a_while>(m));
    if (keys) {
      g.emplace_back(2, make<add_key>(m));
      g.emplace_back(1, make<list_keys>(m));
      if (!m.key_deleted.empty()) g.emplace_back(2, make<delete_key>(m));
    }
    return weighted(std::move(g));
  }

  // Runs one sequence against a fresh world, and cleans up what it made.
  sequence_run execute(const std::vector<command_ptr>& cmds) {
    world w{t, {}, {}, {}, {}, false, bulk ? t.fresh_name("g") : std::string()};
    sequence_run out;
    try {
      rc::state::runAll(cmds, initial(), w);
      out.complete = !w.incomplete;
    } catch (violation_error& e) {
      out.found = std::move(e.v);
      out.complete = true;
    } catch (const budget_spent&) {
      out.complete = false;
    } catch (const rc::detail::CaseResult&) {
      out.complete = false;  // a shrink whose preconditions no longer hold
    }
    for (std::size_t i = 0; i < w.steps.size(); ++i) out.steps += std::to_string(i + 1) + ". " + w.steps[i] + "\n";
    try {
      for (const auto& s : w.instances)
        if (s.id && !s.terminated_at) (void)t.primary().terminate(*s.id);
      for (const auto& k : w.keys)
        if (k) (void)t.primary().delete_ssh_key(*k);
    } catch (const budget_spent&) {
      // the final teardown sweeps what is left
    }
    return out;
  }
};

sequences::sequences(target& t) : impl_(std::make_unique<impl>(impl{t})) {
  const auto& spec = t.spec();
  impl_->launches = t.may_launch() && !t.offers.empty() && spec.operation(operation_id::get) != nullptr;
  impl_->restart = spec.operation(operation_id::restart) != nullptr;
  impl_->keys = spec.operation(operation_id::ssh_keys_add) != nullptr && spec.operation(operation_id::ssh_keys_list) != nullptr &&
                spec.operation(operation_id::ssh_keys_delete) != nullptr;
  impl_->cross = t.second() != nullptr;
  // Stop and start, and the delete by tag, where the spec declares them and sequences launch; a
  // stop alone too (Jarvislabs' pause: its resume is another instance), its effect a stopped word.
  impl_->stop = impl_->launches && spec.operation(operation_id::stop) != nullptr && !spec.first_word(instance_state::stopped).empty();
  impl_->start = impl_->stop && spec.operation(operation_id::start) != nullptr;
  impl_->bulk = impl_->launches && spec.operation(operation_id::terminate_tagged) != nullptr;
  const auto* offers = spec.operation(operation_id::list_offers);
  impl_->walk = offers != nullptr && offers->pagination && !offers->pagination->size_param.empty();
}

sequences::~sequences() = default;

bool sequences::available() const { return impl_->launches || impl_->keys || impl_->walk; }

sequence_run sequences::run_one(const rc::Random& random, int size, int shrink_runs, std::mutex& rc_mu) {
  auto& d = *impl_;
  auto gen = rc::state::gen::commands(d.initial(), [&d](const model& m) { return d.next(m); });
  std::unique_lock rc_lock(rc_mu);
  const auto shrinkable = gen(random, size);
  auto commands = shrinkable.value();
  rc_lock.unlock();
  auto first = d.execute(commands);
  if (!first.found) return first;
  first.found->detected_after = d.t.requests();
  // Shrink: keep the first candidate that fails the same way, then shrink that; stop at the
  // re-run budget or when the request budget is spent.
  const auto signature = first.found->signature();
  auto best = first;
  rc_lock.lock();
  auto shrinks = shrinkable.shrinks();
  int runs = 0;
  while (auto candidate = shrinks.next()) {
    if (runs++ >= shrink_runs || d.t.spent()) break;
    commands = candidate->value();
    rc_lock.unlock();
    auto attempt = d.execute(commands);
    rc_lock.lock();
    if (attempt.found && attempt.found->signature() == signature) {
      attempt.found->detected_after = first.found->detected_after;
      best = std::move(attempt);
      shrinks = candidate->shrinks();
    }
  }
  return best;
}

}  // namespace neograde::fuzz::detail
