#include <neograde/conformance/catalogue.hpp>

#include <algorithm>

namespace neograde::conformance {

const std::vector<check_descriptor>& catalogue() {
  constexpr auto critical = severity::critical, high = severity::high, medium = severity::medium, low = severity::low;
  constexpr auto must = requirement_level::must, should = requirement_level::should;
  static const std::vector<check_descriptor> checks{
      {"auth.credentials.missing_rejected", "auth", critical, must,
       "Sends a request without credentials and expects 401 or 403 with the error envelope.",
       "A request without credentials MUST be rejected with 401 or 403 and the provider's error envelope.",
       "RFC 9110 §15.5.2 (401), §15.5.4 (403); provider auth docs", "auth_missing_accepted"},
      {"auth.credentials.invalid_rejected", "auth", critical, must,
       "Sends a well-formed but unknown API key and expects 401 or 403 with the error envelope.",
       "A request with invalid credentials MUST be rejected with 401 or 403 and the provider's error envelope.",
       "RFC 9110 §15.5.2 (401), §15.5.4 (403); provider auth docs", "invalid_key_accepted"},
      {"schema.offers.matches_schema", "schema", high, must,
       "Lists offers and validates the response against the spec's response schema.",
       "The offers listing MUST match its documented schema.",
       "provider API reference (spec operations.list_offers.response_schema)", "offers_schema_drift"},
      {"lifecycle.instance.launch_returns_id", "lifecycle", critical, must,
       "Launches the cheapest offer with capacity and expects the instance id in the response.",
       "A successful launch MUST return the id of the instance it created.",
       "provider API reference (launch)", "launch_without_id"},
      {"lifecycle.instance.visible_in_get", "lifecycle", high, must,
       "Reads the launched instance by id.",
       "A launched instance MUST be readable by its id.",
       "provider API reference (get instance)", "get_not_found"},
      {"lifecycle.instance.visible_in_list", "lifecycle", high, must,
       "Lists instances and looks for the launched one.",
       "A launched instance MUST appear in the instance list.",
       "provider API reference (list instances)", "list_omits_instances"},
      {"lifecycle.instance.reaches_running", "lifecycle", high, must,
       "Polls the launched instance until its status maps to running, timing it against the spec.",
       "A launched instance MUST reach a running state within the provider's expected time to running.",
       "spec timing.time_to_running_s; dstack#1976 (pod stuck provisioning with no terminal state)",
       "stuck_booting"},
      {"lifecycle.instance.running_has_address", "lifecycle", high, must,
       "Checks that the running instance reports an address.",
       "A running instance MUST report an address the buyer can reach.",
       "recorded RunPod payloads (RUNNING before ssh exists); dstack lambdalabs (IP valid once not booting)",
       "no_address"},
      {"lifecycle.instance.terminate_accepted", "lifecycle", critical, must,
       "Terminates the launched instance.",
       "A terminate request for an owned instance MUST be accepted.",
       "provider API reference (terminate); skypilot#4392 (terminate answered 500, instances leaked)",
       "terminate_500"},
      {"lifecycle.instance.gone_after_terminate", "lifecycle", critical, must,
       "Polls get and list after terminate until the instance is terminated or 404, and never running again.",
       "After terminate, an instance MUST become terminated or unknown within the expected time to gone, "
       "and MUST NOT be seen running again.",
       "spec timing.time_to_gone_s; dstack#1551 (instance kept billing after terminate); skypilot#10517",
       "ghost_after_terminate"},
      {"errors.envelope.on_client_errors", "errors", medium, must,
       "Provokes client errors (unknown id, unknown path, bad key) and validates each body against the error envelope.",
       "Every 4xx response MUST carry the provider's error envelope with a JSON content type.",
       "provider error documentation (spec errors.envelope_schema); RFC 9457", "html_errors"},
      {"errors.request.malformed_json_is_4xx", "errors", high, must,
       "Sends a truncated JSON body and expects a 4xx.",
       "A malformed request body MUST be answered with 4xx, never 5xx or 2xx.",
       "RFC 9110 §15.5.1 (400); Schemathesis negative_data_rejection", "malformed_json_500"},
      {"errors.instance.unknown_id_is_404", "errors", medium, must,
       "Reads an instance id that does not exist and expects 404.",
       "Reading an instance that does not exist MUST answer 404 (or 410), not success.",
       "RFC 9110 §15.5.5 (404)", "unknown_id_200"},
      {"validation.launch.unknown_instance_type_rejected", "validation", high, must,
       "Launches an instance type that does not exist and expects a 4xx.",
       "A launch for an instance type that does not exist MUST be rejected with 4xx.",
       "Schemathesis negative_data_rejection; provider API reference (launch)", "unknown_type_accepted"},
      {"http.path.unknown_is_404", "http", low, should,
       "Requests a path the API does not have and expects 404.",
       "A request for an unknown path SHOULD get 404.",
       "RFC 9110 §15.5.5 (404)", "unknown_path_200"},
      {"http.method.unsupported_is_405_with_allow", "http", low, must,
       "Sends PATCH to the read-only offers path and expects 405 with an Allow header.",
       "An unsupported method SHOULD get 405, and a 405 MUST carry an Allow header.",
       "RFC 9110 §15.5.6 (405), §10.2.1 (Allow)", "no_allow_header"},
  };
  return checks;
}

const check_descriptor* find_check(std::string_view id) {
  const auto& all = catalogue();
  auto it = std::find_if(all.begin(), all.end(), [&](const auto& c) { return c.id == id; });
  return it == all.end() ? nullptr : &*it;
}

}  // namespace neograde::conformance
