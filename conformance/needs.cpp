#include <neograde/conformance/catalogue.hpp>
#include <neograde/conformance/needs.hpp>

#include <neograde/clients/oracles.hpp>
#include <neograde/core/billing.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/core/template.hpp>

#include <algorithm>
#include <set>

namespace neograde::conformance {
namespace {

std::string op_name(operation_id op) { return op == operation_id::get ? "get-by-id" : nlohmann::json(op).get<std::string>(); }

bool launch_sends(const provider_spec& spec, const std::string& variable) {
  const auto* op = spec.operation(operation_id::launch);
  return op != nullptr && op->body && template_pointers(*op->body).contains(variable);
}

// Whether the terminate body names the instances in a one-element array around {{id}}: one
// request can then terminate several.
bool terminate_takes_ids(const provider_spec& spec) {
  const auto* op = spec.operation(operation_id::terminate);
  bool binds_array = false;
  if (op != nullptr && op->body)
    for (const auto& [name, ptr] : template_pointers(*op->body))
      if (name == "id") {
        const auto* node = find_pointer(*op->body, ptr.substr(0, ptr.rfind('/')));
        binds_array = node != nullptr && node->is_array() && node->size() == 1;
      }
  return binds_array;
}

// Why the spec lacks `n`'s section, or nullopt when it has it; in the words the checks used.
std::optional<std::string> missing_section(const check_need& n, const provider_spec& spec) {
  const auto* list = spec.operation(operation_id::list);
  const auto billing = billing_read_of(spec);
  auto unless = [](bool has, std::string why) { return has ? std::nullopt : std::optional<std::string>(std::move(why)); };
  switch (n.section) {
    case spec_section::none: return std::nullopt;
    case spec_section::ssh_keys:
      return unless(spec.operation(operation_id::ssh_keys_add) != nullptr && spec.operation(operation_id::ssh_keys_list) != nullptr,
                    "the API has no SSH key operations");
    case spec_section::ssh_key_names: return unless(spec.ssh_key_fields.contains("name"), "the provider's SSH keys have no names");
    case spec_section::ssh_key_delete: {
      // As provider_client::deletes_ssh_keys: a delete operation, or a replace of the key set.
      const auto* add = spec.operation(operation_id::ssh_keys_add);
      return unless(spec.operation(operation_id::ssh_keys_delete) != nullptr ||
                        (add != nullptr && add->replaces_key_set && spec.operation(operation_id::ssh_keys_list) != nullptr),
                    "the API has no SSH key delete operation");
    }
    case spec_section::response_schema: {
      const auto* op = spec.operation(n.op);
      return unless(op != nullptr && op->response_schema.has_value(), "the spec declares no response schema");
    }
    case spec_section::offer_price: return unless(spec.offer_fields.contains("price_per_hour_usd"), "the spec maps no offer price");
    case spec_section::order_shown: {
      // As lifecycle.instance.matches_order compares: the order's attributes, and any offer field
      // that is a launch parameter (not one with a meaning of its own) mapped on the instance too.
      static const std::set<std::string> offer_attributes{
          "rows",   "instance_type", "description", "price_per_hour_usd", "regions_available",
          "region", "gpu",           "available",   "underlying_provider"};
      bool shown = false;
      for (const char* f : {"instance_type", "region", "name", "ssh_key_names"}) shown = shown || spec.instance_fields.contains(f);
      for (const auto& [name, field] : spec.offer_fields)
        shown = shown || (!offer_attributes.contains(name) && spec.instance_fields.contains(name));
      return unless(shown, "the instances show nothing of what a launch orders (no type, region, name, SSH key or launch parameter)");
    }
    case spec_section::instance_price:
      return unless(spec.instance_fields.contains("price_per_hour_usd"), "the spec maps no hourly price on the instance");
    case spec_section::underlying_provider:
      return unless(spec.offer_fields.contains("underlying_provider") && spec.instance_fields.contains("underlying_provider"),
                    "the spec maps no underlying provider on both offers and instances");
    case spec_section::launch_sends: return unless(launch_sends(spec, n.variable), "the launch request sends no {{" + n.variable + "}}");
    case spec_section::launch_refuses_unknown: {
      const auto* refused = find_pointer(spec.raw, "/operations/launch/refuses_unknown");
      return unless(
          refused != nullptr && refused->contains(n.variable),
          "the spec cites no documentation that the provider refuses an unknown " + n.variable + " (operations.launch.refuses_unknown)");
    }
    case spec_section::tag_filter:
      return unless(list != nullptr && list->tag_filter.has_value(), "the spec declares no list filter by tag");
    case spec_section::paginated_by_size: {
      const auto id = n.op == operation_id::unknown ? operation_id::list : n.op;
      const auto* op = spec.operation(id);
      return unless(op != nullptr && op->pagination && !op->pagination->size_param.empty(),
                    id == operation_id::list ? std::string("the instance list is not paginated by size")
                                             : "the " + op_name(id) + " read is not paginated by size");
    }
    case spec_section::pagination_metadata:
      return unless(list != nullptr && list->pagination && !list->pagination->metadata_source.empty(),
                    "the spec declares no pagination metadata");
    case spec_section::terminate_takes_ids: return unless(terminate_takes_ids(spec), "terminate takes one id per request");
    case spec_section::stopped_state:
      return unless(!spec.first_word(instance_state::stopped).empty(), "the spec documents no stopped status word");
    case spec_section::headers_on_every_response:
      return unless(!spec.headers_on_every_response.empty(), "the spec declares no header on every response");
    case spec_section::read_operation:
      return unless(std::any_of(spec.operations.begin(), spec.operations.end(), [](const auto& o) { return o.second.method == "GET"; }),
                    "no read request was made");
    case spec_section::error_codes:
      return unless(!error_oracle(spec).documented_codes().empty(), "the provider's errors carry a message, not a documented code");
    case spec_section::errors_documented:
      return unless(spec.errors.not_documented.empty(), "the provider documents no error responses (" + spec.errors.not_documented + ")");
    case spec_section::key_outside_query:
      for (const auto& m : spec.auth.schemes)
        if (m.type == auth_scheme::query) return "the provider documents query-string keys (" + m.param + ")";
      return std::nullopt;
    case spec_section::named_auth_scheme: {
      const auto type = spec.auth.schemes.empty() ? auth_scheme::unknown : spec.auth.schemes.front().type;
      return unless(type == auth_scheme::bearer || type == auth_scheme::basic_username || type == auth_scheme::oauth2_client_credentials,
                    "the provider's credentials are not an Authorization scheme with a name");
    }
    case spec_section::billing_read:
      return unless(billing.has_value(), billing_of(spec) ? "the spec declares billing rules (an increment, minimums) but no billing read"
                                                          : "the spec declares no billing");
    case spec_section::billing_amount: return unless(billing && billing->amount, "the billing read carries no amount, only a spend rate");
    case spec_section::billing_increment:
      return unless(billing && billing->increment_s, "the spec declares no billing increment, so the billed time cannot be bounded");
    case spec_section::billing_deposit: return unless(billing && billing->deposit, "the spec declares no deposit");
    case spec_section::billing_balance:
      return unless(billing && billing->reads_balance(),
                    "the billing read carries no account balance, where a deposit held and returned shows");
    case spec_section::billing_stop_signal:
      return unless(billing && ((billing->spend_rate && !billing->per_instance) || billing->increment_s),
                    "the spec declares neither a spend rate nor a billing increment: a charge after terminate cannot be told from a "
                    "last increment billed whole");
  }
  return std::nullopt;
}

// Why no operation takes a JSON body the run may send broken ones to, if none does; as
// checks_inputs.cpp's broken_bodies words it.
std::optional<std::string> no_body_operation(const provider_spec& spec, const run_conditions& run) {
  std::optional<std::string> untried;
  for (const auto& [op_id, op] : spec.operations) {
    if (!op.body && !op.request_schema) continue;
    if (op.replaces_key_set && !run.emulated) {
      if (!untried) untried = nlohmann::json(op_id).get<std::string>() + ", " + replaces_key_set_why;
      continue;
    }
    // As checks_inputs.cpp's broken_bodies: a read-only audit sends no body to the SSH key add either.
    if ((op_id == operation_id::launch && !run.spend.allowed) || (op_id == operation_id::ssh_keys_add && run.spend.read_only)) {
      if (!untried) untried = nlohmann::json(op_id).get<std::string>() + ", " + run.spend.refusal;
      continue;
    }
    return std::nullopt;
  }
  return untried ? "the only operation with a JSON body is the launch, and " + *untried : "the API has no operation that takes a JSON body";
}

}  // namespace

run_conditions conditions_of(const session& s, const run_options& options, const spend_permission& spend) {
  const bool emulated = s.emulated();
  return {.spend = spend,
          .second_account = !s.options().second_api_key.empty(),
          .single_key = s.options().api_key.find(':') == std::string::npos,
          .emulated = emulated,
          .time_scale = s.time_scale(),
          .probes_rate_limit = options.probe_rate_limit || (emulated && options.probe_emulator)};
}

std::optional<unmet_need> applicability(const check_descriptor& check, const provider_spec& spec, const run_conditions& run) {
  auto not_applicable = [](const std::string& why) { return unmet_need{.reason = "not applicable: " + why}; };
  for (const auto& n : check.needs) {
    switch (n.what) {
      case check_need::kind::spending:
        if (!run.spend.allowed) return unmet_need{.reason = spend_skip_reason(run.spend, n.why)};
        break;
      case check_need::kind::second_account:
        if (!run.second_account) return not_applicable(n.why.empty() ? "needs a second account (--second-api-key)" : n.why);
        break;
      case check_need::kind::operation:
        if (spec.operation(n.op) == nullptr)
          return not_applicable(n.why.empty() ? "the API has no " + op_name(n.op) + " operation" : n.why);
        break;
      case check_need::kind::section:
        if (auto why = missing_section(n, spec)) return not_applicable(n.why.empty() ? *why : n.why);
        break;
      case check_need::kind::single_key:
        if (!run.single_key) return not_applicable(n.why.empty() ? "the credential is not a single key" : n.why);
        break;
      case check_need::kind::delays:
        if (run.emulated && run.time_scale <= 0)
          return not_applicable(n.why.empty() ? "the emulator runs without delays (time scale 0): billed time cannot be told" : n.why);
        break;
      case check_need::kind::rate_limit_probe:
        if (!run.probes_rate_limit)
          return unmet_need{.reason =
                                "judged only on a 429 the run happens to meet: the rate-limit probe runs only with --probe-rate-limit "
                                "against a real provider",
                            .certain = false};
        break;
      case check_need::kind::body_operation:
        if (auto why = no_body_operation(spec, run)) {
          // Left untried only because the audit launches nothing: not run, rather than not applicable.
          if (run.spend.read_only && why->ends_with(run.spend.refusal))
            return unmet_need{.reason = spend_skip_reason(run.spend, "every operation that takes a JSON body creates something")};
          return not_applicable(n.why.empty() ? *why : n.why);
        }
        break;
      case check_need::kind::check: {
        const auto* of = find_check(n.variable);
        const auto unmet = of == nullptr ? std::optional<unmet_need>(unmet_need{}) : applicability(*of, spec, run);
        if (!unmet) break;
        const auto why = n.why.empty() ? "needs " + n.variable : n.why;
        // What a read-only audit does not run, the checks that build on it are not run either.
        if (run.spend.read_only && unmet->reason.starts_with(run.spend.refusal))
          return unmet_need{.reason = spend_skip_reason(run.spend, why)};
        return not_applicable(why);
      }
    }
  }
  return std::nullopt;
}

}  // namespace neograde::conformance
