#pragma once
// The spec's `emulator` section, and the few raw parts of its operations the emulator reads,
// parsed once when a model is built: requests read these, never the spec's JSON. The loader has
// validated them against the schema, so the members it requires are read as required here.

#include <neograde/core/billing.hpp>
#include <neograde/core/spec.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace neograde::emulator {

struct emu_instance_type {
  std::string name;
  std::optional<std::string> description;
  nlohmann::json price_per_hour_usd;          // the number as written: an integer stays one
  std::map<std::string, long> capacity;       // per region
  nlohmann::json object;                      // static members of its offer rows
  std::map<std::string, std::string> params;  // launch parameters its rows carry and a launch sends back
  nlohmann::json parent_object;               // with offer_fields.rows: static members of the enclosing item
};

struct emu_phases {
  std::string waiting;  // created, not yet started by a launch step (the booting word unless the spec has one)
  std::string booting;
  std::string running;
  std::string restarting;  // the booting word unless the spec has one
  std::string stopping;    // powering off: the running word unless the spec has one
  std::string starting;    // powering on again: the restarting word unless the spec has one
  std::string stopped;     // powered off: the first documented stopped word unless the spec names one (empty: none)
  std::string terminating;
  std::string terminated;
};

struct emu_rate_limit {
  double per_second = 1;
  double burst = 1;
  // The headers it declares (beside the 429's body).
  bool retry_after = false;
  bool ratelimit = false;                // RateLimit
  bool ratelimit_policy = false;         // RateLimit-Policy
  bool ratelimit_x = false;              // ratelimit-limit/-remaining/-reset
  std::optional<std::string> text_body;  // a 429 in plain text instead of the envelope
};

enum class id_style { hex32, integer, uuid, client };

// How an instance id the provider could never issue is refused (with id_style integer only).
struct emu_malformed_id {
  std::string kind;
  std::string message;
};

// Docker -p options at `from` in a launch body, published at `into` in the instance.
struct emu_published_ports {
  std::string from;
  std::string into;
  long first_host_port = 41235;
};

struct emu_route {
  std::string method;
  std::string path;
  int status = 200;
  std::optional<nlohmann::json> body;  // a string: a plain-text answer
  bool anonymous = false;
};

// A further catalogue read (emulator.offer_reads: Prime Intellect's multi-node availability),
// answered like list_offers with the instance types it names.
struct emu_offer_read {
  std::string path;
  std::vector<std::string> types;
};

// A GraphQL list filter: the argument at `argument` (input.id, split at the dots) must equal the
// member at `pointer` in each item kept.
struct emu_graphql_filter {
  std::vector<std::string> argument;
  std::string pointer;
};

// How one of the launch's follow-up steps is served (emulator.steps, by step name).
struct emu_step {
  double ready_after_s = 0;               // a wait step: no element until this long after the create
  std::optional<nlohmann::json> element;  // a wait step: the element it then answers (a template)
  bool starts_instance = false;           // the step moves the instance from waiting to booting
  std::optional<nlohmann::json> answer;   // the step's answer (a template); none: the get answer
  // Members the instance's objects carry once the step was served (Akash's lease under
  // /leases/0), by pointer: templates rendered at each read with the instance's variables, what
  // the step's request sent, and {{status}} (the instance's status word of the moment).
  std::map<std::string, nlohmann::json> instance_members;
};

struct emulator_section {
  std::map<std::string, nlohmann::json> regions;  // name -> the provider's region object
  std::vector<emu_instance_type> instance_types;
  nlohmann::json instance_template = nlohmann::json::object();
  nlohmann::json ssh_key_template = nlohmann::json::object();  // static members of every SSH key object
  emu_phases phases;
  double boot_s = 0;
  double terminate_s = 0;
  double stop_s = 0;   // a stop takes this long (provider seconds) to power the instance off
  double start_s = 0;  // a start takes this long to run again (boot_s unless the spec says)
  double gone_after_s = 60;
  double token_lifetime_s = 3600;
  std::optional<emu_rate_limit> rate_limit;
  id_style ids = id_style::hex32;
  std::map<operation_id, nlohmann::json> response_templates;
  std::vector<emu_route> routes;
  bool trailing_slash_optional = false;
  bool redirect_slashes = false;  // a path missing (or adding) a served one's trailing slash: 307 to it (FastAPI)
  // Per operation, the static members of the instance objects it answers, in place of
  // instance_template; those objects carry only the members it has.
  std::map<operation_id, nlohmann::json> instance_templates;
  std::vector<emu_offer_read> offer_reads;
  bool absent_as_null = false;
  std::optional<emu_malformed_id> malformed_id;
  nlohmann::json unaddressed;  // what an instance without an address reports there (null)
  std::string unaddressed_at;  // where it is written, if not at the address (RunPod's /runtime)
  std::string ssh_command;     // where a running instance states `ssh user@host -p port`
  std::optional<emu_published_ports> published_ports;
  std::map<std::string, nlohmann::json> graphql_roots;  // root field -> its static data
  std::map<operation_id, std::vector<emu_graphql_filter>> graphql_filters;
  std::optional<billing_spec> billing;  // the spec's billing section, if it declares one
  double opening_balance = 100;         // emulator.billing: each account's balance before any charge
  nlohmann::json billing_template = nlohmann::json::object();
  std::map<std::string, emu_step> steps;  // by the launch step's name

  [[nodiscard]] const emu_instance_type* find_type(const std::string& name) const;
  // The entry named `name` whose launch parameters are the ones `sent` carries (an aggregator
  // sells the same type from several suppliers, told apart by a parameter); else the first so named.
  [[nodiscard]] const emu_instance_type* find_type(const std::string& name, const std::map<std::string, std::string>& sent) const;
};

// Throws std::invalid_argument when a member the schema requires is missing (a spec without an
// emulator section).
[[nodiscard]] emulator_section parse_emulator_section(const provider_spec& spec);

}  // namespace neograde::emulator
