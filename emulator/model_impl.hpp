#pragma once
// The emulated provider's state, and its behaviour by concept, each in its own file:
//   model.cpp       construction and the public class (one request at a time, under the lock)
//   routing.cpp     a request to its operation: paths, methods, static routes, selection by body
//   graphql.cpp     GraphQL requests: the client's query, its variables, selections and filters
//   accounts.cpp    who is asking (every auth scheme, OAuth2 tokens) and each account's SSH keys
//   instances.cpp   the instance state machine: launch, read, list, terminate, restart, actions
//   offers.cpp      the catalogue and the capacity left in it
//   rate_limit.cpp  the token bucket per credential and its headers
//   render.cpp      responses: errors, provider objects, pages
//   billing.cpp     what each account is billed, and the billing answers (issue 22)
//   steps.cpp       the follow-up steps of a multi-step create (bids, a lease, a start)
// Private to the emulator library.

#include <neograde/emulator/model.hpp>

#include "section.hpp"

#include <neograde/core/graphql.hpp>
#include <neograde/core/json_schema.hpp>
#include <neograde/core/template.hpp>

#include <nlohmann/json.hpp>

#include <bitset>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace neograde::emulator {

struct emu_instance {
  std::string id;
  std::string name;
  std::string type;
  // Its catalogue entry (the supplier's, where several sell the type); null for an instance of a
  // type the catalogue lacks (unknown_type_accepted).
  const emu_instance_type* entry = nullptr;
  std::string region;
  std::vector<std::string> ssh_keys;
  std::vector<std::string> tags;  // what the launch sent as {{run_tag}} (DigitalOcean's tags)
  std::string ip;
  std::vector<std::string> ports;  // container ports the launch asked to publish: "10022/tcp"
  clock::time_point requested;     // the launch request (billing_from_request bills from here)
  clock::time_point boot_done;
  std::optional<clock::time_point> terminated_at;
  std::optional<clock::time_point> restart_until;
  // Powered off (a stop) from off_from, and on again (a start) from on_from, while off.
  std::optional<clock::time_point> off_from, on_from;
  // A multi-step create: created waiting for the step that starts it (boot_done is then set),
  // with the launch's variables, which the steps' answers render.
  bool waiting = false;
  template_vars vars;
  std::map<std::string, nlohmann::json> members;  // emulator.steps' instance_members of the steps served
  mutable unsigned long running_reads = 0;        // for the flapping quirk
};

struct emu_key {
  std::string id;
  std::string name;
  std::string public_key;
};

struct account {
  std::vector<emu_instance> instances;  // in creation order
  std::vector<emu_key> keys;
};

struct bucket {
  double tokens = 0;
  clock::time_point last;
};

enum class phase { waiting, booting, running, restarting, stopping, stopped, starting, terminating, terminated, gone };

// What an action on instances does (terminate, restart, stop, start share the request's shape).
enum class act_kind { terminate, restart, stop, start };

// One offer row as the emulator renders it, with the enclosing item's fields (`^` pointers).
struct emu_row {
  std::map<std::string, nlohmann::json> parent;
  nlohmann::json object;
};

// A request value as one string: a string, an integer some clients send as a number, or the
// first of an array.
[[nodiscard]] std::string first_string(const nlohmann::json& v);
[[nodiscard]] std::vector<std::string> all_strings(const nlohmann::json& v);
[[nodiscard]] std::string parent_pointer(const std::string& ptr);
// The variables a path template names in its query part ("/v2/droplets?tag_name={tag}": tag), with
// the values the request's query gives them (the first of a repeated name); one it does not give is
// absent.
[[nodiscard]] std::map<std::string, std::string> query_bindings(const std::string& path_template, const std::string& raw_query);
[[nodiscard]] std::string header_of(const http::request& req, std::string_view name);
// Whether `body` carries every literal member of `selectors` (pointer, value): what selects an
// operation, or a launch step, among requests sharing a method and path.
[[nodiscard]] bool carries(const std::optional<nlohmann::json>& body, const std::vector<std::pair<std::string, nlohmann::json>>& selectors);
// GraphQL: the operation a client's request runs, its root field that names the spec's
// operation, and the variable the spec's own query passes as each argument of that field.
[[nodiscard]] std::optional<graphql::operation> client_operation(const nlohmann::json& body);
[[nodiscard]] std::optional<graphql::field> root_field(const operation_spec& op, const graphql::operation& operation);
[[nodiscard]] std::map<std::string, std::string> argument_variables(const operation_spec& op);

struct provider_model::impl {
  const provider_spec& spec;
  model_options opts;
  emulator_section emu;             // the spec's emulator section, read once
  std::bitset<quirk_count> quirks;  // opts.quirks, resolved once
  std::string base_path;
  std::map<operation_id, json_schema> request_schemas;
  std::optional<json_schema> unbounded_launch_schema;  // with out_of_range_accepted: the launch schema without numeric bounds
  // Per operation, the literal strings and booleans of its body template, by pointer: what
  // selects it among operations sharing a method and path.
  std::map<operation_id, std::vector<std::pair<std::string, nlohmann::json>>> body_selectors;
  // Per launch step (by index), the same for a step that shares its method and path with an
  // operation (Scaleway's poweron and its stop, start and terminate: POST .../servers/{id}/action
  // with {"action": ...}); empty for a step alone on its path.
  std::vector<std::vector<std::pair<std::string, nlohmann::json>>> step_selectors;
  std::vector<bool> step_shares_path;  // per launch step: an operation has its method and path
  // GraphQL operations: which variable the spec's own query passes as each argument of its root
  // field (`pod(input: $input)`: input -> input), read once from the spec.
  std::map<operation_id, std::map<std::string, std::string>> graphql_argument_variables;
  // The launch body template's placeholders (name -> pointer), and whether the launch must name a
  // region (the template sends one and the request schema requires it).
  std::map<std::string, std::string> launch_placeholders;
  bool launch_requires_region = false;
  std::map<std::string, std::size_t> tenant_of_key;
  mutable std::mutex mu;
  std::vector<account> accounts;
  std::map<std::string, bucket> buckets;
  std::mt19937_64 rng{0x6e656f67726164ULL};  // deterministic ids for reproducible runs
  unsigned next_ip = 10;
  std::size_t created = 0;  // instances ever launched, over all accounts
  // Authenticated requests routed to an operation that creates (launch, SSH key add), answered
  // or refused, and SSH keys ever added: what proves a read-only audit sent no create.
  std::size_t create_requests = 0;
  std::size_t keys_created = 0;
  // The first row launched ("type@region") and type delivered: what partial_capacity and
  // fixed_type_delivered keep to, whatever later launches order.
  std::optional<std::string> first_row, first_type;
  std::optional<std::string> row_refused_500;  // capacity_refusal_500: the row refused
  unsigned long slow_counter = 0;
  long long next_integer_id = 31'415'900;
  // Actions that complete later (an operation's `action`): the account, the completion time and
  // the answer that started it (a read renders that answer with the status of the moment).
  struct emu_action {
    std::size_t account = 0;
    clock::time_point done;
    nlohmann::json answer;
  };
  std::map<std::string, emu_action> actions;
  long long next_action_id = 2'718'281'900;
  std::map<std::string, std::pair<std::size_t, clock::time_point>> tokens;  // OAuth2 access tokens

  impl(const provider_spec& s, model_options o);

  [[nodiscard]] bool has(quirk q) const { return quirks.test(static_cast<std::size_t>(q)); }
  [[nodiscard]] clock::duration scaled(double seconds) const;

  // ---- routing.cpp ----
  // `advertised`: the rate-limit headers every authenticated answer carries.
  http::response dispatch(const http::request& req, header_list& advertised);
  [[nodiscard]] bool matches(const std::string& tmpl, const std::string& rel, std::map<std::string, std::string>& params) const;
  [[nodiscard]] bool anonymous_operation(const http::request& req, const std::string& rel) const;
  [[nodiscard]] bool body_selects(const operation_spec& op, const std::optional<nlohmann::json>& body) const;
  [[nodiscard]] std::optional<http::response> static_route(const std::string& method, const std::string& rel, bool anonymous) const;
  [[nodiscard]] bool serves_path(const std::string& rel) const;
  [[nodiscard]] std::optional<http::response> slash_redirect(const std::string& rel, const std::string& raw_query) const;
  [[nodiscard]] static std::vector<std::string> ids_in_query(const operation_spec& op, const std::string& raw_query);
  http::response serve(const operation_spec& op, account& acct, template_vars& vars, clock::time_point now, const std::string& raw_query);
  [[nodiscard]] http::response unknown_path() const;

  // ---- graphql.cpp ----
  [[nodiscard]] std::optional<http::response> static_graphql(const http::request& req, const std::string& rel) const;
  void add_static_roots(nlohmann::json& data, const graphql::operation& operation) const;
  [[nodiscard]] nlohmann::json variables_for(const operation_spec& op, const graphql::field& client, nlohmann::json variables) const;
  [[nodiscard]] http::response filtered(http::response r, const operation_spec& op, const graphql::field& root,
                                        const nlohmann::json& variables) const;
  [[nodiscard]] http::response selected(http::response r, const graphql::field& root, const graphql::operation& operation) const;

  // ---- accounts.cpp ----
  [[nodiscard]] std::optional<std::size_t> tenant(const std::string& key) const;
  [[nodiscard]] std::optional<std::size_t> credentials_of(const http::request& req, const std::string& rel_path,
                                                          const std::string& raw_query, clock::time_point now) const;
  [[nodiscard]] bool credentials_presented(const http::request& req, const std::string& raw_query) const;
  [[nodiscard]] std::optional<std::size_t> authenticate(const http::request& req, const std::string& rel_path, const std::string& raw_query,
                                                        clock::time_point now) const;
  http::response issue_token(const http::request& req, clock::time_point now);
  http::response list_keys(const operation_spec& op, account& acct, const std::string& raw_query);
  http::response add_key(const operation_spec& op, account& acct, const template_vars& vars);
  http::response delete_key(const operation_spec& op, account& acct, const std::string& id);

  // ---- instances.cpp ----
  [[nodiscard]] phase phase_of(const emu_instance& i, clock::time_point now) const;
  [[nodiscard]] std::vector<std::string> requested_ports(const nlohmann::json& body) const;
  [[nodiscard]] std::string other_type(const std::string& ordered) const;
  [[nodiscard]] std::string underlying_provider_of(const emu_instance_type* type) const;
  [[nodiscard]] std::string other_underlying_provider(const std::string& named) const;
  [[nodiscard]] long remaining(const emu_instance_type& type, const std::string& region, clock::time_point now) const;
  std::string new_hex(int n = 32);
  std::string new_instance_id();
  http::response launch(const operation_spec& op, account& acct, const template_vars& vars, clock::time_point now);
  emu_instance* find_instance(account& acct, const std::string& id, clock::time_point now, bool cross_tenant = false);
  std::optional<http::response> before_minimum_runtime(const emu_instance& inst, clock::time_point now);
  bool exists_elsewhere(const std::string& id, clock::time_point now);
  [[nodiscard]] std::optional<http::response> malformed(const std::string& id) const;
  http::response get(const operation_spec& op, account& acct, const std::string& id, clock::time_point now);
  http::response list(const operation_spec& op, account& acct, clock::time_point now, const std::string& raw_query);
  http::response get_many(const operation_spec& op, account& acct, const std::vector<std::string>& ids, clock::time_point now);
  http::response history(const operation_spec& op, account& acct, clock::time_point now, const std::string& raw_query);
  http::response act(const operation_spec& op, account& acct, const std::vector<std::string>& ids, act_kind kind, clock::time_point now);
  [[nodiscard]] std::optional<http::response> refuse_act(const emu_instance* inst, const std::string& id, act_kind kind,
                                                         clock::time_point now);
  // Sets what `kind` does to `inst` from `now`; when its action is done.
  clock::time_point apply(emu_instance& inst, act_kind kind, clock::time_point now);
  // terminate_tagged: every instance of the account carrying `tag`.
  http::response terminate_tagged(const operation_spec& op, account& acct, const std::string& tag, clock::time_point now);
  // The launch's follow-up steps (steps.cpp): the answer to a request one of them addresses.
  std::optional<http::response> serve_step(const std::string& method, const std::string& rel, const std::string& raw_query,
                                           const std::string& body, account& acct, clock::time_point now);
  http::response answer_step(const launch_step& step, emu_instance& inst, const template_vars& sent, clock::time_point now);
  [[nodiscard]] template_vars instance_vars(const emu_instance& i) const;
  void start_action(nlohmann::json& body, const operation_spec& op, const account& acct, clock::time_point done);
  http::response read_action(const operation_spec& op, std::size_t account_index, const std::string& id, clock::time_point now);

  // ---- offers.cpp ----
  std::vector<emu_row> offer_rows(const emu_instance_type& t, clock::time_point now);
  // `read`: one of emulator.offer_reads, answered with its types; none: list_offers, without them.
  http::response list_offers(const operation_spec& op, clock::time_point now, const std::string& raw_query,
                             const emu_offer_read* read = nullptr);
  [[nodiscard]] http::response availability(clock::time_point now) const;

  // ---- rate_limit.cpp ----
  [[nodiscard]] double refill_rate() const;
  [[nodiscard]] header_list rate_headers(long remaining, long reset_s) const;
  std::optional<http::response> throttle(const http::request& req, clock::time_point now, header_list& advertised);

  // ---- billing.cpp ----
  [[nodiscard]] double instance_charge(const emu_instance& i, clock::time_point now) const;
  [[nodiscard]] double charged_usd(const emu_instance& i, clock::time_point now) const;
  [[nodiscard]] double spend_rate(const account& acct, clock::time_point now) const;
  // The billing answer, when the request is the spec's billing read (a REST path); GraphQL
  // answers get the figures written in by with_billing.
  [[nodiscard]] std::optional<http::response> billing_read(const http::request& req, const std::string& rel, const std::string& raw_query,
                                                           const account& acct, clock::time_point now) const;
  [[nodiscard]] http::response with_billing(http::response r, const account& acct, clock::time_point now) const;
  void write_billing(nlohmann::json& doc, const account& acct, const emu_instance* one, clock::time_point now,
                     bool only_where_present) const;

  // ---- render.cpp ----
  [[nodiscard]] http::response json_response(int status, const nlohmann::json& body) const;
  [[nodiscard]] http::response error_response(const std::string& kind, const std::string& message = {}) const;
  void write_field(nlohmann::json& obj, const std::map<std::string, field_path>& fields, const std::string& name,
                   const nlohmann::json& value) const;
  [[nodiscard]] std::string phase_word(phase p) const;
  [[nodiscard]] std::string documented_phase_word(phase p) const;
  [[nodiscard]] std::string pending_word() const;
  nlohmann::json render_instance(const emu_instance& i, phase p, operation_id from = operation_id::get);
  void render_ssh(nlohmann::json& obj, const emu_instance& i) const;
  [[nodiscard]] nlohmann::json render_key(const emu_key& k, operation_id from) const;
  [[nodiscard]] nlohmann::json response_template(const operation_spec& op) const;
  http::response page_of(const operation_spec& op, nlohmann::json items, const std::string& raw_query);
  void write_action(nlohmann::json& body, const action_spec& a, const std::string& id, const std::string& status) const;
  [[nodiscard]] static template_vars vars_from_body(const nlohmann::json& tmpl, const nlohmann::json& body);
};

}  // namespace neograde::emulator
