#pragma once
// Canonical, provider-independent types. Provider responses are mapped onto these by the
// JSON pointers declared in each spec.

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neograde {

// The canonical lifecycle states every provider's status vocabulary maps onto.
enum class instance_state { unknown, pending, running, stopping, stopped, terminated, failed };

NLOHMANN_JSON_SERIALIZE_ENUM(instance_state, {
                                                 {instance_state::unknown, "unknown"},
                                                 {instance_state::pending, "pending"},
                                                 {instance_state::running, "running"},
                                                 {instance_state::stopping, "stopping"},
                                                 {instance_state::stopped, "stopped"},
                                                 {instance_state::terminated, "terminated"},
                                                 {instance_state::failed, "failed"},
                                             })

[[nodiscard]] std::string to_string(instance_state s);
[[nodiscard]] instance_state instance_state_from_string(std::string_view s);

// Where an instance is reached over SSH, as its provider states it (the spec's `ssh` section).
struct ssh_endpoint {
  std::string host;
  int port = 22;
  std::string user;
  std::string from;  // which declaration it came from ("/ssh/direct/host, /ssh/direct/port")
};

struct instance {
  std::string id;
  std::string name;
  std::string provider_status;  // the provider's own word
  instance_state state = instance_state::unknown;
  std::optional<std::string> ip;
  // How `ip` was chosen where the instance lists several addresses (clients/endpoint.hpp); "" for one.
  std::string address_choice;
  std::optional<ssh_endpoint> ssh;  // unset: the spec declares no SSH endpoint, or none is stated yet
  std::string region;
  std::string instance_type;
  std::vector<std::string> ssh_key_names;
  std::string underlying_provider;  // whose capacity it is, where an aggregator's API says (instance field underlying_provider)
  // What it is billed per hour, where the API states it on the instance (instance field
  // price_per_hour_usd: Prime Intellect's priceHr).
  std::optional<double> price_per_hour_usd;
  // The launch parameters the API shows on it: each instance field named as an offer's launch
  // parameter (Prime Intellect's gpuCount, mapped as gpu_count in both), as text.
  std::map<std::string, std::string> params;
};

// One launchable row of a provider's catalogue: an instance type in a region, with whatever
// else the launch needs (a template id, a GPU key, a data centre), read through the spec's
// offer fields (docs/spec-format.md, "Offers").
struct offer {
  std::string instance_type;
  std::string region;  // "" when the row names none (the provider places it, or the spec's region variable)
  std::string description;
  std::optional<double> price_per_hour_usd;
  std::optional<bool> gpu;                    // whether it has a GPU; nullopt when the spec cannot tell
  bool available = true;                      // capacity advertised
  std::map<std::string, std::string> params;  // launch parameters, sent as {{name}} in the launch body
  std::string misfit;                         // why the launch body cannot fit this row (the spec's offer_requirements); "" when it can
  // Whose capacity the row is, where an aggregator's catalogue names it (offer field
  // underlying_provider; also a launch parameter, as some launch bodies repeat it).
  std::string underlying_provider;

  // The row's full identity: type, region, supplier and parameters ("a100 @ us-east-1 from
  // lambda {template_id=t1}"; the supplier only where no parameter carries it).
  [[nodiscard]] std::string key() const;
};

// What the user pinned (--instance-type, --region): offer selection keeps only matching rows.
struct offer_pins {
  std::string instance_type;
  std::string region;
};

struct ssh_key {
  std::string id;
  std::string name;
  std::string public_key;
};

// An error as the provider reported it, read through the spec's error envelope pointers.
struct api_error {
  int http_status = 0;
  std::string code;
  std::string message;
};

}  // namespace neograde
