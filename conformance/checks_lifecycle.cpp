// The instance lifecycle: launch -> visible -> running -> addressed -> terminate -> gone.
// One scenario decides several checks; a step that cannot run because an earlier one failed is
// skipped with the reason. Whatever happens, what the run created is torn down.

#include "context.hpp"

#include <algorithm>
#include <thread>

namespace neograde::conformance::detail {
namespace {

using steady = std::chrono::steady_clock;

constexpr const char* launch_id = "lifecycle.instance.launch_returns_id";
constexpr const char* get_id = "lifecycle.instance.visible_in_get";
constexpr const char* list_id = "lifecycle.instance.visible_in_list";
constexpr const char* running_id = "lifecycle.instance.reaches_running";
constexpr const char* address_id = "lifecycle.instance.running_has_address";
constexpr const char* terminate_id = "lifecycle.instance.terminate_accepted";
constexpr const char* gone_id = "lifecycle.instance.gone_after_terminate";
constexpr const char* all_ids[] = {launch_id, get_id, list_id, running_id, address_id, terminate_id, gone_id};

// A public key for the run's SSH key. Nobody holds its private half: the emulator and the
// checks never log in; remote execution (a later stage) registers its own key.
constexpr const char* run_public_key =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHVHtN3Yc0SJ7Wz5k0u2m3Fh3Cj0m2Qk4XH7rW0b9c1e neograde";

double seconds_since(steady::time_point t) { return std::chrono::duration<double>(steady::now() - t).count(); }

// Terminates everything this run created, even when a check failed or threw: the instance it
// knows of, any instance carrying the run's name prefix, and the run's SSH key.
class teardown {
 public:
  explicit teardown(context& ctx) : ctx_(ctx) {}
  teardown(const teardown&) = delete;
  teardown& operator=(const teardown&) = delete;
  ~teardown() {
    try {
      if (instance_ && !confirmed_gone_) (void)ctx_.client.terminate(*instance_);
      if (auto all = ctx_.client.list(); all.value)
        for (const auto& i : *all.value)
          if (i.name.starts_with(ctx_.prefix()) && i.state != instance_state::terminated && i.id != instance_.value_or(""))
            (void)ctx_.client.terminate(i.id);
      if (key_id_) (void)ctx_.client.delete_ssh_key(*key_id_);
    } catch (...) {
      // A destructor must not throw; the leak check of live mode reports what is left.
    }
  }
  void instance(std::string id) { instance_ = std::move(id); }
  void key(std::string id) { key_id_ = std::move(id); }
  void gone() { confirmed_gone_ = true; }

 private:
  context& ctx_;
  std::optional<std::string> instance_;
  std::optional<std::string> key_id_;
  bool confirmed_gone_ = false;
};

class scenario {
 public:
  explicit scenario(context& ctx) : ctx_(ctx) {}

  void run() {
    if (!ctx_.opts.allow_spend) {
      skip_all(outcome::skipped, "launches an instance: needs --allow-spend against a non-loopback host");
      return;
    }
    teardown cleanup(ctx_);
    try {
      steps(cleanup);
    } catch (const std::exception& e) {
      skip_all(outcome::errored, std::string("the harness failed: ") + e.what());
    }
  }

 private:
  void emit(check_outcome o) {
    decided_.push_back(o.check_id);
    ctx_.emit(std::move(o));
  }

  // Decides every check of the scenario not yet decided.
  void skip_all(outcome result, const std::string& reason) {
    for (const char* id : all_ids)
      if (std::find(decided_.begin(), decided_.end(), id) == decided_.end()) emit(make(id, result, reason));
  }

  void sleep() { std::this_thread::sleep_for(ctx_.poll_interval()); }

  void steps(teardown& cleanup) {
    auto& client = ctx_.client;
    // The cheapest offer that lists capacity.
    auto offers = client.list_offers();
    if (!offers.value) {
      if (auto c = provider_condition(offers.call, ctx_.spec)) return skip_all(*c, "listing offers: " + offers.call.describe());
      return skip_all(outcome::errored, "offers could not be listed: " + offers.call.describe() + offers.problem);
    }
    // Offers without a region field are taken as available where the spec's "region" variable
    // says (or wherever the provider places them).
    const bool offers_have_regions = ctx_.spec.offer_fields.contains("regions_available");
    std::optional<offer> chosen;
    for (auto o : *offers.value) {
      if (!offers_have_regions) {
        auto it = ctx_.spec.variables.find("region");
        o.regions_available = {it == ctx_.spec.variables.end() ? std::string() : it->second};
      }
      if (o.regions_available.empty()) continue;
      if (!chosen || o.price_per_hour_usd.value_or(1e9) < chosen->price_per_hour_usd.value_or(1e9)) chosen = o;
    }
    if (!chosen) return skip_all(outcome::no_capacity, "no offer lists available capacity");

    std::string key_name;
    if (ctx_.spec.operation(operation_id::ssh_keys_add) != nullptr) {
      key_name = ctx_.prefix() + "key";
      auto key = client.add_ssh_key(key_name, run_public_key);
      if (!key.value) return skip_all(outcome::errored, "the run's SSH key could not be registered: " + key.call.describe());
      cleanup.key(key.value->id);
    }

    // launch_returns_id
    const auto launched_at = steady::now();
    auto launch = client.launch({chosen->instance_type, chosen->regions_available.front(), key_name, ctx_.prefix() + "lc"});
    if (!launch.call.success) {
      if (auto c = provider_condition(launch.call, ctx_.spec)) {
        emit(make(launch_id, *c, launch.call.describe(), {launch.call.evidence}));
        return skip_all(*c, "the launch met a provider condition: " + launch.call.describe());
      }
      emit(make(launch_id, launch.call.response ? outcome::fail : outcome::errored,
                "launching " + chosen->instance_type + " in " + chosen->regions_available.front() +
                    " (advertised as available) failed: " + launch.call.describe(),
                {launch.call.evidence}));
      return skip_all(outcome::skipped, "depends on a successful launch");
    }
    if (!launch.value) {
      emit(make(launch_id, outcome::fail, launch.problem, {launch.call.evidence}));
      return skip_all(outcome::skipped, "depends on the launch returning an id");
    }
    const std::string id = *launch.value;
    cleanup.instance(id);
    emit(make(launch_id, outcome::pass, "launched " + chosen->instance_type + " as " + id, {launch.call.evidence}));

    // visible_in_get: allow a few polls for eventual consistency.
    const bool has_get = ctx_.spec.operation(operation_id::get) != nullptr;
    if (!has_get) {
      emit(make(get_id, outcome::skipped, "the API has no get-by-id operation; the list is polled instead"));
    } else {
      typed_result<instance> got;
      for (int i = 0; i < 5; ++i) {
        got = client.get(id);
        if (got.value && got.value->id == id) break;
        sleep();
      }
      if (got.value && got.value->id == id) emit(make(get_id, outcome::pass, "status " + got.value->provider_status, {got.call.evidence}));
      else emit(make(get_id, outcome::fail, "the instance could not be read by id: " + got.call.describe() + got.problem, {got.call.evidence}));
    }

    // visible_in_list
    {
      typed_result<std::vector<instance>> listed;
      auto present = [&] {
        return listed.value && std::any_of(listed.value->begin(), listed.value->end(), [&](auto& i) { return i.id == id; });
      };
      for (int i = 0; i < 5; ++i) {
        listed = client.list();
        if (present()) break;
        sleep();
      }
      if (present()) emit(make(list_id, outcome::pass, "listed", {listed.call.evidence}));
      else emit(make(list_id, outcome::fail, "the instance is missing from the list (" +
                                                 std::to_string(listed.value ? listed.value->size() : 0) + " listed)",
                     {listed.call.evidence}));
    }

    // reaches_running and running_has_address
    std::optional<instance> running;
    exchange last;
    std::string last_status = "unknown";
    const auto run_deadline = launched_at + ctx_.scaled(ctx_.spec.timing.time_to_running_s);
    while (steady::now() < run_deadline) {
      auto seen = observe(id);
      last = seen.second;
      if (seen.first) {
        last_status = seen.first->provider_status;
        if (seen.first->state == instance_state::running) {
          running = seen.first;
          break;
        }
        if (seen.first->state == instance_state::failed || seen.first->state == instance_state::terminated) break;
      }
      sleep();
    }
    if (running) {
      const double ttr = seconds_since(launched_at);
      ctx_.measurements["time_to_running_s"] = ttr;
      auto o = make(running_id, outcome::pass, "running after " + std::to_string(ttr) + " s", {last});
      o.measurements["time_to_running_s"] = ttr;
      emit(std::move(o));
      if (running->ip) emit(make(address_id, outcome::pass, "address " + *running->ip, {last}));
      else emit(make(address_id, outcome::fail, "the instance reports running but no address", {last}));
    } else {
      const double limit = ctx_.spec.timing.time_to_running_s;
      emit(make(running_id, outcome::fail,
                "status \"" + last_status + "\" after " + std::to_string(seconds_since(launched_at)) +
                    " s; the spec expects running within " + std::to_string(limit * ctx_.scale) + " s",
                {last}));
      emit(make(address_id, outcome::skipped, "the instance never reached running"));
    }

    // terminate_accepted
    auto term = client.terminate(id);
    const auto terminated_at = steady::now();
    if (!term.success) {
      emit(make(terminate_id, term.response ? outcome::fail : outcome::errored, "terminate failed: " + term.describe(),
                {term.evidence}));
      return skip_all(outcome::skipped, "terminate was not accepted");
    }
    emit(make(terminate_id, outcome::pass, "HTTP " + std::to_string(term.status()), {term.evidence}));

    // gone_after_terminate: terminated or 404 in get, not running in list, never running again.
    const auto gone_deadline = terminated_at + ctx_.scaled(ctx_.spec.timing.time_to_gone_s);
    std::string state_note;
    std::vector<exchange> ev;
    for (;;) {
      auto got = has_get ? client.get(id) : typed_result<instance>{};
      auto listed = client.list();
      ev = has_get ? std::vector<exchange>{got.call.evidence, listed.call.evidence} : std::vector<exchange>{listed.call.evidence};
      if (got.value && got.value->state == instance_state::running)
        return emit(make(gone_id, outcome::fail, "get reports the instance running again after terminate", ev));
      std::optional<instance> entry;
      if (listed.value)
        for (const auto& i : *listed.value)
          if (i.id == id) entry = i;
      if (entry && entry->state == instance_state::running)
        return emit(make(gone_id, outcome::fail, "the list still shows the instance running (\"" + entry->provider_status +
                                                     "\") after terminate: a ghost that may still bill", ev));
      const bool gone_in_get = !has_get || got.call.status() == 404 || got.call.status() == 410 ||
                               (got.value && got.value->state == instance_state::terminated);
      const bool gone_in_list = listed.value && (!entry || entry->state == instance_state::terminated);
      if (gone_in_get && gone_in_list) {
        cleanup.gone();
        const double ttg = seconds_since(terminated_at);
        ctx_.measurements["time_to_gone_s"] = ttg;
        auto o = make(gone_id, outcome::pass, "gone after " + std::to_string(ttg) + " s", ev);
        o.measurements["time_to_gone_s"] = ttg;
        return emit(std::move(o));
      }
      state_note = (has_get ? "get: " + got.call.describe() : std::string("get: n/a")) + (got.value ? " status \"" + got.value->provider_status + "\"" : "") +
                   "; list: " + (entry ? "status \"" + entry->provider_status + "\"" : listed.value ? "absent" : listed.call.describe());
      if (steady::now() >= gone_deadline) break;
      sleep();
    }
    emit(make(gone_id, outcome::fail,
              "not gone " + std::to_string(seconds_since(terminated_at)) + " s after terminate (" + state_note + ")", ev));
  }

  // The instance as get reports it, or as the list reports it when get does not work.
  std::pair<std::optional<instance>, exchange> observe(const std::string& id) {
    auto got = ctx_.client.get(id);
    if (got.value) return {got.value, got.call.evidence};
    auto listed = ctx_.client.list();
    if (listed.value)
      for (const auto& i : *listed.value)
        if (i.id == id) return {i, listed.call.evidence};
    return {std::nullopt, got.call.evidence};
  }

  context& ctx_;
  std::vector<std::string> decided_;
};

}  // namespace

void run_lifecycle(context& ctx) { scenario(ctx).run(); }

}  // namespace neograde::conformance::detail
