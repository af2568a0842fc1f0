#include <neograde/emulator/quirks.hpp>

#include <algorithm>

namespace neograde::emulator {

const std::vector<quirk_info>& known_quirks() {
  static const std::vector<quirk_info> quirks{
      {"auth_missing_accepted", "requests without credentials are served as the first account"},
      {"invalid_key_accepted", "any API key is accepted, as the first account"},
      {"malformed_json_500", "a request body that is not JSON gets HTTP 500 instead of 400"},
      {"html_errors", "error responses are text/html pages instead of the JSON envelope"},
      {"unknown_type_accepted", "launch accepts an instance type that does not exist"},
      {"unknown_id_200", "reading an unknown instance id answers 200 with an empty object"},
      {"unknown_path_200", "unknown paths answer 200 with an empty JSON object"},
      {"no_allow_header", "405 responses carry no Allow header"},
      {"offers_schema_drift", "offer prices are strings instead of numbers"},
      {"launch_without_id", "launch creates the instance but returns no id"},
      {"get_not_found", "reading an existing instance by id answers 404"},
      {"list_omits_instances", "the instance list is always empty"},
      {"stuck_booting", "instances never leave the booting phase"},
      {"no_address", "running instances report no IP address"},
      {"terminate_500", "terminate answers 500 and does nothing"},
      {"ghost_after_terminate", "terminated instances stay listed as running (and billed)"},
  };
  return quirks;
}

bool is_known_quirk(std::string_view name) {
  const auto& q = known_quirks();
  return std::any_of(q.begin(), q.end(), [&](const auto& i) { return i.name == name; });
}

}  // namespace neograde::emulator
