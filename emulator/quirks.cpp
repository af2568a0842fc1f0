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
      {"malformed_auth_500", "a malformed Authorization header (a scheme without a token) gets HTTP 500"},
      {"query_key_accepted", "an API key in the query string (?api_key=) is accepted"},
      {"no_www_authenticate", "401 responses carry no WWW-Authenticate header"},
      {"scheme_case_sensitive", "the auth scheme name is matched case-sensitively (\"bearer\" is refused)"},
      {"cross_tenant_read", "any account can read any account's instance by id"},
      {"cross_tenant_list", "the instance list shows every account's instances"},
      {"cross_tenant_actions", "any account can terminate or restart any account's instance"},
      {"existence_leak_403", "another account's instance answers 403 where an unknown id answers 404"},
      {"cross_tenant_keys", "the SSH key list shows every account's keys"},
      {"stack_traces", "error bodies carry a stack trace, a file path and SQL"},
      {"head_500", "HEAD requests get HTTP 500"},
      {"options_500", "OPTIONS requests get HTTP 500"},
      {"success_text_plain", "successful JSON responses are labelled text/plain"},
      {"empty_body_500", "an empty request body gets HTTP 500"},
      {"non_object_body_500", "a JSON body that is not an object gets HTTP 500"},
      {"undocumented_error_code", "errors carry a code the provider does not document"},
      {"terminate_unknown_500", "terminating an unknown instance id gets HTTP 500"},
      {"restart_unknown_500", "restarting an unknown instance id gets HTTP 500"},
      {"key_delete_unknown_200", "deleting an unknown SSH key id answers 200"},
      {"no_date_header", "responses carry no Date header"},
      {"instance_schema_drift", "instance addresses are numbers instead of strings"},
      {"launch_schema_drift", "the launch response nests the id in an object the schema does not allow"},
      {"terminate_schema_drift", "terminate and restart answer an empty object instead of the documented body"},
      {"unknown_status_word", "booting instances report a status word the provider does not document"},
      {"status_words_upper_case", "every status word is upper-cased (\"ACTIVE\" for a documented \"active\"), so none is documented"},
      {"list_get_disagree", "the list reports another instance type than get for the same instance"},
      {"negative_price", "offers carry negative prices"},
      {"duplicate_offers", "every offer is listed twice"},
      {"wrong_type_delivered", "the instance delivered is another type than the one ordered"},
      {"flapping", "a running instance reads as booting on every other read, without a restart"},
      {"restart_stuck", "a restarted instance never comes back to running"},
      {"action_never_completes", "an accepted action (a restart) reports in progress forever, whatever the instance does"},
      {"terminate_first_only", "terminating several ids at once terminates only the first"},
      {"key_not_listed", "added SSH keys never appear in the key list"},
      {"key_delete_ignored", "deleting an SSH key answers success but keeps the key"},
      {"phantom_capacity", "offers advertise capacity, yet every launch is refused for lack of capacity"},
      {"validation_500", "a request body that fails validation gets HTTP 500 instead of 400"},
      {"missing_field_accepted", "a launch missing required fields is accepted with defaults"},
      {"long_name_500", "an instance name over 64 characters gets HTTP 500"},
      {"unicode_500", "a non-ASCII instance name gets HTTP 500"},
      {"empty_key_name_accepted", "an SSH key with an empty name is accepted"},
      {"unknown_region_accepted", "a launch in a region that does not exist is accepted"},
      {"no_retry_after_header", "429 responses carry neither Retry-After nor RateLimit headers"},
      {"rate_limit_text", "429 responses are plain text instead of the error envelope"},
      {"page_repeats", "every page of a paginated list is the first page again"},
      {"page_size_ignored", "the page size parameter is ignored"},
      {"slow_responses", "read requests take longer than the spec's latency expectation"},
      {"double_terminate_500", "terminating an instance that is already terminating gets HTTP 500 (as skypilot#3410 saw)"},
  };
  return quirks;
}

bool is_known_quirk(std::string_view name) {
  const auto& q = known_quirks();
  return std::any_of(q.begin(), q.end(), [&](const auto& i) { return i.name == name; });
}

}  // namespace neograde::emulator
