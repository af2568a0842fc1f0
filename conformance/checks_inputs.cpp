// Negative inputs for every operation that takes a body: broken bodies (errors.request.*) and a
// body per constraint its request schema declares (validation.request.schema_constraints_enforced),
// each expecting 4xx, with the results grouped per operation.

#include "context.hpp"

#include <neograde/conformance/needs.hpp>

#include <neograde/core/json_util.hpp>
#include <neograde/core/schema_mutations.hpp>

#include <algorithm>
#include <map>

namespace neograde::conformance::detail {
namespace {

std::string name_of(operation_id op) { return nlohmann::json(op).get<std::string>(); }

// One request of a grouped check: the operation it went to, what was wrong with it ("/quantity
// above its maximum 1 (2)"; empty when the check sends one kind), and its answer.
struct probe {
  std::string op;
  std::string what;
  call_result r;
};

// What a 4xx-expecting probe got, when it is not a pass: "accepted (HTTP 200)", "HTTP 500".
std::optional<std::string> problem_of(const call_result& r) {
  if (!r.response) return "no answer (" + r.describe() + ")";
  if (is_client_error(r)) return std::nullopt;
  if (r.status() >= 200 && r.status() < 300)
    // A GraphQL API may answer an error with 200 and an errors member (the spec's in-body errors).
    return r.success ? "accepted (HTTP " + std::to_string(r.status()) + ")"
                     : "HTTP " + std::to_string(r.status()) + " with an error in its body, not a 4xx";
  return "HTTP " + std::to_string(r.status());
}

// "launch: /quantity above its maximum 1 (2) accepted (HTTP 200), /name ... HTTP 500; terminate: ...":
// the probes `pick` selects, grouped per operation in the order first met, each with `say`.
template <typename Pick, typename Say>
std::string grouped(const std::vector<probe>& probes, Pick pick, Say say) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> items;
  for (const auto& p : probes) {
    if (!pick(p)) continue;
    if (!items.contains(p.op)) order.push_back(p.op);
    items[p.op].push_back(say(p));
  }
  std::string out;
  for (const auto& op : order) {
    out += (out.empty() ? "" : "; ") + op + ":";
    for (std::size_t i = 0; i < items[op].size(); ++i) out += (i == 0 ? " " : ", ") + items[op][i];
  }
  return out;
}

// The verdict of a check whose every probe expects 4xx: fail when one got anything else (2xx:
// accepted; 5xx), the failures grouped per operation; otherwise pass, or the provider condition
// or harness error that kept it from being decided. `untried`: what was not sent, and why.
check_outcome all_4xx(std::string id, const std::vector<probe>& probes, const std::vector<std::string>& untried) {
  std::string not_tried;
  for (const auto& u : untried) not_tried += (not_tried.empty() ? "" : "; ") + u;
  const auto note = not_tried.empty() ? std::string() : " (not tried: " + not_tried + ")";
  auto label = [](const probe& p) { return p.what.empty() ? std::string() : p.what + " "; };
  auto sent = [](const probe& p) { return !p.r.not_sent; };
  auto failed = [](const probe& p) { return !p.r.not_sent && p.r.response && p.r.status() != 429 && problem_of(p.r); };
  std::vector<exchange> evidence;
  for (const auto& p : probes)
    if (failed(p)) evidence.push_back(p.r.evidence);
  if (!evidence.empty()) {
    const auto n = evidence.size();
    const auto reason = std::to_string(n) + " of " + std::to_string(std::count_if(probes.begin(), probes.end(), sent)) +
                        " not refused with 4xx: " + grouped(probes, failed, [&](const probe& p) { return label(p) + *problem_of(p.r); });
    return make(std::move(id), outcome::fail, reason + note, std::move(evidence));
  }
  for (const auto& p : probes)
    if (sent(p)) evidence.push_back(p.r.evidence);
  for (const auto& p : probes) {
    if (p.r.not_sent) continue;
    if (!p.r.response) return make(std::move(id), outcome::errored, p.op + ": " + p.r.describe(), std::move(evidence));
    if (p.r.status() == 429) return make(std::move(id), outcome::rate_limited, p.op + ": " + p.r.describe(), std::move(evidence));
  }
  if (evidence.empty()) {
    for (const auto& p : probes)
      if (p.r.not_sent) return make(std::move(id), outcome::skipped, p.r.describe() + note);
    return make(std::move(id), outcome::skipped, "nothing was sent" + note);
  }
  // Every probe's answer, per operation: the status alone when the check sends one kind, a count
  // per status otherwise.
  auto reason = std::to_string(evidence.size()) + " refused with 4xx: ";
  if (std::all_of(probes.begin(), probes.end(), [](const probe& p) { return p.what.empty(); }))
    reason += grouped(probes, sent, [](const probe& p) { return "HTTP " + std::to_string(p.r.status()); });
  else
    reason += grouped(probes, sent, [](const probe& p) { return p.what + " " + std::to_string(p.r.status()); });
  return make(std::move(id), outcome::pass, reason + note, std::move(evidence));
}

// Whatever a probe that should have been refused created: a launched instance is terminated at
// once; an SSH key is deleted after the check (see forget_keys).
void undo(context& ctx, operation_id op, const call_result& r, const std::string& client_id, bool& key_made) {
  if (!r.response || r.status() < 200 || r.status() >= 300) return;
  if (op == operation_id::launch) {
    if (auto created = ctx.client.launched_id(r, client_id)) (void)ctx.client.terminate(*created);
  } else if (op == operation_id::ssh_keys_add) {
    key_made = true;
  }
}

// Deletes the SSH keys the check's refused-by-design registrations made anyway: named with the
// run's prefix, or carrying the run's own public key, but not the run's key itself.
void forget_keys(context& ctx) {
  if (ctx.spec.operation(operation_id::ssh_keys_list) == nullptr || ctx.spec.operation(operation_id::ssh_keys_delete) == nullptr) return;
  auto keys = ctx.client.list_ssh_keys();
  if (!keys.value) return;
  for (const auto& k : *keys.value)
    if (k.id != ctx.ssh_key_id && !k.id.empty() &&
        (k.name.starts_with(ctx.prefix()) || (!ctx.public_key.empty() && k.public_key == ctx.public_key)))
      (void)ctx.client.delete_ssh_key(k.id);
}

// In live mode a launch that should be refused but is not creates a billed instance: only with
// a spare one in the budget, the first being the lifecycle's. Why not, when not.
std::optional<std::string> no_spare_instance(const context& ctx) {
  const auto& ledger = ctx.client.ledger();
  if (!ledger.live() || ledger.rules().budget.max_instances - ledger.launched() >= 2) return std::nullopt;
  return "live mode: a launch accepted by mistake would create a billed instance, and the budget (--max-instances " +
         std::to_string(ledger.rules().budget.max_instances) + ") keeps it for the lifecycle";
}

}  // namespace

// An operation whose body replaces the account's whole key set (the spec's replaces_key_set):
// a broken body the provider accepted would replace the user's keys, so outside the emulator
// it is not probed.
bool replaces_account_keys(const context& ctx, const operation_spec& op) { return op.replaces_key_set && !ctx.emulated(); }

// errors.request.*: "A malformed / empty / wrongly typed body MUST be answered with 4xx", sent
// to every operation that takes a body; the launch only when the run may spend (a broken body
// should launch nothing, but a broken provider might: what it launches is terminated at once).
void broken_bodies(context& ctx, std::vector<call_result>& samples) {
  const std::tuple<const char*, const char*, const char*> cases[] = {
      {"errors.request.malformed_json_is_4xx", R"({"name": "neograde", "truncated": )", "a malformed JSON body"},
      {"errors.request.empty_body_is_4xx", "", "a missing JSON body"},
      {"errors.request.non_object_body_is_4xx", R"(["neograde"])", "a non-object JSON body"},
  };
  for (const auto& [id, body, what] : cases) {
    if (!ctx.applies(id)) continue;  // no operation takes a body the run may send
    std::vector<probe> probes;
    std::vector<std::string> untried;
    bool key_made = false;
    for (const auto& [op_id, op] : ctx.spec.operations) {
      if (!op.body && !op.request_schema) continue;
      if (replaces_account_keys(ctx, op)) {
        untried.push_back(name_of(op_id) + ", " + replaces_key_set_why);
        continue;
      }
      // A read-only audit sends nothing to an operation that creates, not even a body that should
      // be refused (needs.cpp's no_body_operation predicts the same).
      if ((op_id == operation_id::launch && !ctx.spend.allowed) || (op_id == operation_id::ssh_keys_add && ctx.spend.read_only)) {
        untried.push_back(name_of(op_id) + ", " + ctx.spend.refusal);
        continue;
      }
      auto r = deliberately(ctx.client.raw(op.method, ctx.path_of(op), body, "application/json", auth_mode::key, op_id),
                            std::string(what) + " to " + name_of(op_id));
      undo(ctx, op_id, r, {}, key_made);
      if (r.response) samples.push_back(r);
      probes.push_back({.op = name_of(op_id), .what = {}, .r = std::move(r)});
    }
    if (key_made) forget_keys(ctx);
    ctx.emit(all_4xx(id, probes, untried));
  }
}

// validation.request.schema_constraints_enforced: "A body that breaks a constraint its request
// schema declares MUST be refused with 4xx." For every operation with a request schema and a
// body, the body the client sends (with the run's variables), once per constraint on a value it
// carries, broken there alone.
void schema_constraints(context& ctx) {
  const char* id = "validation.request.schema_constraints_enforced";
  std::vector<probe> probes;
  std::vector<std::string> untried;
  std::size_t constrained = 0;
  bool key_made = false;
  const auto target = ctx.spend.allowed ? launchable_offer(ctx) : std::nullopt;
  const auto none = "neograde-none-" + ctx.session.run_id();
  for (const auto& entry : ctx.spec.operations) {
    // Not a structured binding: the lambda below captures the operation (clang 14).
    const auto op_id = entry.first;
    const auto& op = entry.second;
    if (!op.request_schema || !op.body) continue;
    if (replaces_account_keys(ctx, op)) {
      untried.push_back(name_of(op_id) + ", " + replaces_key_set_why);
      continue;
    }
    // The variables of the i-th body: the client's own for a launch of the target row, a fresh
    // name (and client id) each, ids that name nothing elsewhere.
    auto vars_for = [&](std::size_t i) {
      const auto name = ctx.prefix() + "cons" + std::to_string(i);
      auto vars = op_id == operation_id::launch ? launch_vars_for(ctx, target) : template_vars{};
      vars["name"] = name;
      vars["client_id"] = name;
      vars.emplace("public_key", ctx.public_key);
      vars.emplace("id", none);
      return ctx.client.call_vars(op_id, vars);
    };
    const auto base = ctx.client.request_body(op_id, vars_for(0));
    if (!base) continue;
    const auto mutations = constraint_mutations(*op.request_schema, *base);
    if (mutations.empty()) continue;
    ++constrained;
    const auto op_name = name_of(op_id);
    const bool creates = op_id == operation_id::launch || op_id == operation_id::ssh_keys_add;
    if (creates && !ctx.spend.allowed) {
      untried.push_back(op_name + ", " + ctx.spend.refusal);
      continue;
    }
    if (op_id == operation_id::launch && !target) {
      untried.push_back("launch, no offer row to launch");
      continue;
    }
    if (auto v = json_schema(*op.request_schema).validate(*base); !v.empty()) {
      untried.push_back(op_name + ", the body the client sends breaks its own schema at " +
                        (v.front().pointer.empty() ? "/" : v.front().pointer) + " (" + v.front().message + ")");
      continue;
    }
    // Live, the member that names the instances acted on is left alone: an emptied id list
    // might mean "every instance" to a broken API.
    const auto pointers = template_pointers(*op.body);
    const auto id_at = pointers.contains("id") ? pointers.at("id") : std::string();
    const bool acts =
        op_id == operation_id::terminate || op_id == operation_id::restart || op_id == operation_id::stop || op_id == operation_id::start;
    for (std::size_t i = 0; i < mutations.size(); ++i) {
      const auto& m = mutations[i];
      if (acts && ctx.client.ledger().live() && !id_at.empty() && id_at.starts_with(m.pointer)) {
        untried.push_back(op_name + " " + m.describe() + ", live mode: the member names the instances acted on");
        continue;
      }
      if (op_id == operation_id::launch)
        if (auto why = no_spare_instance(ctx)) {
          untried.push_back(std::to_string(mutations.size() - i) + " launch bodies, " + *why);
          break;
        }
      // The mutation on a body of its own name: an instance launched by mistake is told apart.
      const auto vars = vars_for(i + 1);
      auto body = *ctx.client.request_body(op_id, vars);
      set_pointer(body, m.pointer, m.value);
      auto r =
          deliberately(ctx.client.raw(op.method, render_path(op.path, vars), dump_json(body), "application/json", auth_mode::key, op_id),
                       "a body with " + m.describe());
      undo(ctx, op_id, r, vars.at("client_id").get<std::string>(), key_made);
      probes.push_back({.op = op_name, .what = m.describe(), .r = std::move(r)});
    }
  }
  if (key_made) forget_keys(ctx);
  if (constrained == 0) return ctx.emit(not_applicable(id, "no request schema declares a constraint on a value the client sends"));
  ctx.emit(all_4xx(id, probes, untried));
}

}  // namespace neograde::conformance::detail
