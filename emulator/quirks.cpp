#include <neograde/emulator/quirks.hpp>

#include <algorithm>
#include <array>

namespace neograde::emulator {

namespace {

constexpr std::array<quirk_info, quirk_count> quirks{{
    {quirk::auth_missing_accepted, "auth_missing_accepted", "requests without credentials are served as the first account"},
    {quirk::invalid_key_accepted, "invalid_key_accepted", "any API key is accepted, as the first account"},
    {quirk::malformed_json_500, "malformed_json_500", "a request body that is not JSON gets HTTP 500 instead of 400"},
    {quirk::malformed_launch_500, "malformed_launch_500",
     "a malformed JSON body sent to the launch operation gets HTTP 500 while other operations answer 400"},
    {quirk::out_of_range_accepted, "out_of_range_accepted",
     "a launch skips the numeric minimum and maximum of its request schema and launches anyway"},
    {quirk::html_errors, "html_errors", "error responses are text/html pages instead of the JSON envelope"},
    {quirk::unknown_type_accepted, "unknown_type_accepted", "launch accepts an instance type that does not exist"},
    {quirk::unknown_id_200, "unknown_id_200", "reading an unknown instance id answers 200 with an empty object"},
    {quirk::unknown_path_200, "unknown_path_200", "unknown paths answer 200 with an empty JSON object"},
    {quirk::no_allow_header, "no_allow_header", "405 responses carry no Allow header"},
    {quirk::offers_schema_drift, "offers_schema_drift", "offer prices are strings instead of numbers"},
    {quirk::launch_without_id, "launch_without_id", "launch creates the instance but returns no id"},
    {quirk::get_not_found, "get_not_found", "reading an existing instance by id answers 404"},
    {quirk::list_omits_instances, "list_omits_instances", "the instance list is always empty"},
    {quirk::tag_filter_ignored, "tag_filter_ignored", "the list's filter by tag is ignored: every instance is listed"},
    {quirk::stuck_booting, "stuck_booting", "instances never leave the booting phase"},
    {quirk::no_address, "no_address", "running instances report no IP address"},
    {quirk::terminate_500, "terminate_500", "terminate answers 500 and does nothing"},
    {quirk::ghost_after_terminate, "ghost_after_terminate", "terminated instances stay listed as running (and billed)"},
    {quirk::malformed_auth_500, "malformed_auth_500", "a malformed Authorization header (a scheme without a token) gets HTTP 500"},
    {quirk::query_key_accepted, "query_key_accepted", "an API key in the query string (?api_key=) is accepted"},
    {quirk::no_www_authenticate, "no_www_authenticate", "401 responses carry no WWW-Authenticate header"},
    {quirk::scheme_case_sensitive, "scheme_case_sensitive", "the auth scheme name is matched case-sensitively (\"bearer\" is refused)"},
    {quirk::cross_tenant_read, "cross_tenant_read", "any account can read any account's instance by id"},
    {quirk::cross_tenant_list, "cross_tenant_list", "the instance list shows every account's instances"},
    {quirk::cross_tenant_actions, "cross_tenant_actions", "any account can terminate or restart any account's instance"},
    {quirk::existence_leak_403, "existence_leak_403", "another account's instance answers 403 where an unknown id answers 404"},
    {quirk::cross_tenant_keys, "cross_tenant_keys", "the SSH key list shows every account's keys"},
    {quirk::stack_traces, "stack_traces", "error bodies carry a stack trace, a file path and SQL"},
    {quirk::head_500, "head_500", "HEAD requests get HTTP 500"},
    {quirk::options_500, "options_500", "OPTIONS requests get HTTP 500"},
    {quirk::success_text_plain, "success_text_plain", "successful JSON responses are labelled text/plain"},
    {quirk::empty_body_500, "empty_body_500", "an empty request body gets HTTP 500"},
    {quirk::non_object_body_500, "non_object_body_500", "a JSON body that is not an object gets HTTP 500"},
    {quirk::undocumented_error_code, "undocumented_error_code", "errors carry a code the provider does not document"},
    {quirk::terminate_unknown_500, "terminate_unknown_500", "terminating an unknown instance id gets HTTP 500"},
    {quirk::restart_unknown_500, "restart_unknown_500", "restarting an unknown instance id gets HTTP 500"},
    {quirk::key_delete_unknown_200, "key_delete_unknown_200", "deleting an unknown SSH key id answers 200"},
    {quirk::no_date_header, "no_date_header", "responses carry no Date header"},
    {quirk::instance_schema_drift, "instance_schema_drift", "instance addresses are numbers instead of strings"},
    {quirk::launch_schema_drift, "launch_schema_drift", "the launch response nests the id in an object the schema does not allow"},
    {quirk::terminate_schema_drift, "terminate_schema_drift",
     "terminate and restart answer an empty object instead of the documented body"},
    {quirk::unknown_status_word, "unknown_status_word", "booting instances report a status word the provider does not document"},
    {quirk::status_words_upper_case, "status_words_upper_case",
     "every status word is upper-cased (\"ACTIVE\" for a documented \"active\"), so none is documented"},
    {quirk::list_get_disagree, "list_get_disagree", "the list reports another instance type than get for the same instance"},
    {quirk::negative_price, "negative_price", "offers carry negative prices"},
    {quirk::duplicate_offers, "duplicate_offers", "every offer is listed twice"},
    {quirk::wrong_type_delivered, "wrong_type_delivered", "the instance delivered is another type than the one ordered"},
    {quirk::flapping, "flapping",
     "a running instance reads as booting (a documented word of a pending instance) on every third read, without a restart"},
    {quirk::restart_stuck, "restart_stuck", "a restarted instance never comes back to running"},
    {quirk::action_never_completes, "action_never_completes",
     "an accepted action (a restart; a create or delete answered with an operation) reports in progress forever, whatever the instance "
     "does"},
    {quirk::terminate_first_only, "terminate_first_only", "terminating several ids at once terminates only the first"},
    {quirk::key_not_listed, "key_not_listed", "added SSH keys never appear in the key list"},
    {quirk::key_delete_ignored, "key_delete_ignored", "deleting an SSH key answers success but keeps the key"},
    {quirk::phantom_capacity, "phantom_capacity", "offers advertise capacity, yet every launch is refused for lack of capacity"},
    {quirk::capacity_refusal_500, "capacity_refusal_500",
     "the first row launched has no capacity after all, and every launch of it is refused with HTTP 500 and a text/plain body "
     "instead of the documented capacity error"},
    {quirk::partial_capacity, "partial_capacity",
     "offers advertise capacity in every row, yet only the first (type, region) row launched can launch again; every other launch "
     "is refused for lack of capacity"},
    {quirk::fixed_type_delivered, "fixed_type_delivered",
     "every launch delivers the same instance type (the first one launched, the cheapest in a run), whatever is ordered"},
    {quirk::validation_500, "validation_500", "a request body that fails validation gets HTTP 500 instead of 400"},
    {quirk::missing_field_accepted, "missing_field_accepted", "a launch missing required fields is accepted with defaults"},
    {quirk::long_name_500, "long_name_500", "an instance name over 64 characters gets HTTP 500"},
    {quirk::unicode_500, "unicode_500", "a non-ASCII instance name gets HTTP 500"},
    {quirk::empty_key_name_accepted, "empty_key_name_accepted", "an SSH key with an empty name is accepted"},
    {quirk::unknown_region_accepted, "unknown_region_accepted", "a launch in a region that does not exist is accepted"},
    {quirk::unknown_image_accepted, "unknown_image_accepted",
     "a launch naming an image that does not exist is accepted (the image is silently replaced)"},
    {quirk::unknown_ssh_key_accepted, "unknown_ssh_key_accepted", "a launch naming an SSH key the account does not have is accepted"},
    {quirk::no_retry_after_header, "no_retry_after_header", "429 responses carry neither Retry-After nor RateLimit headers"},
    {quirk::no_rate_limit_headers_on_success, "no_rate_limit_headers_on_success",
     "successful responses carry none of the headers the spec declares on every response (the rate-limit headers)"},
    {quirk::rate_limit_text, "rate_limit_text", "429 responses are plain text instead of the error envelope"},
    {quirk::page_repeats, "page_repeats",
     "every page of a paginated read (the instance list, the offer catalogue) is the first page again: the page parameter or "
     "token is ignored"},
    {quirk::page_size_ignored, "page_size_ignored", "the page size parameter is ignored"},
    {quirk::page_total_wrong, "page_total_wrong",
     "the total count a page states counts every object twice (a client that walks until it has the total never ends)"},
    {quirk::next_link_on_last_page, "next_link_on_last_page",
     "the last page still says more follow (a next link, a next token or a more flag) and points past the end"},
    {quirk::slow_responses, "slow_responses", "read requests take longer than the spec's latency expectation"},
    {quirk::double_terminate_500, "double_terminate_500",
     "terminating an instance that is already terminating gets HTTP 500 (as skypilot#3410 saw)"},
    // billing (issue 22)
    {quirk::billing_continues_after_terminate, "billing_continues_after_terminate",
     "a terminated instance keeps being billed: the spend rate keeps it and its charges keep growing"},
    {quirk::billing_from_request, "billing_from_request",
     "instances are billed from the launch request instead of from the moment they run"},
    // DePIN networks and aggregators (issue 23)
    {quirk::underlying_provider_swapped, "underlying_provider_swapped",
     "an instance names another underlying provider than the offer it was launched from (an aggregator reselling other capacity "
     "than it listed)"},
    {quirk::deposit_not_released, "deposit_not_released",
     "the deposit a launch holds from the account's balance is kept after the instance is terminated"},
    {quirk::funds_refused_with_balance, "funds_refused_with_balance",
     "every launch is refused for lack of funds (the spec's insufficient_funds error), whatever the balance"},
    // deciding once, within the spec's timings (issue 36)
    {quirk::list_lags_get, "list_lags_get",
     "the instance list shows every instance as it was 3 s (provider time) earlier, so a launch or a terminate shows there 3 s after "
     "get shows it (an eventually consistent list: no provider document promises read-after-write on it; not a defect)"},
    {quirk::restart_ends_off, "restart_ends_off",
     "a restart ends with the instance stopped for good (the spec's documented stopped word, DigitalOcean's \"off\"); a restart action "
     "still completes"},
    {quirk::terminate_stuck, "terminate_stuck", "a terminate is accepted, but the instance stays terminating (and billed) for good"},
    {quirk::action_without_effect, "action_without_effect",
     "an action on an instance (a stop, a start, a restart) is answered with success and its action record reads completed at once, "
     "but the instance's state does not change"},
    {quirk::start_without_effect, "start_without_effect",
     "a start is answered with success and its action record reads completed at once, but the instance stays stopped"},
    {quirk::bulk_delete_partial, "bulk_delete_partial",
     "a terminate of every instance carrying a tag terminates only the oldest of them, answering success"},
    // what was delivered against what was ordered and listed (issue 39)
    {quirk::price_above_row, "price_above_row",
     "an instance states an hourly price 25 % above the offer row it was launched from (where the spec maps the instance's price)"},
    {quirk::gpu_count_doubled, "gpu_count_doubled",
     "an instance is built with twice the GPUs its launch ordered: it shows gpu_count doubled (where the spec maps gpu_count as a "
     "launch parameter and on the instance)"},
}};

// Row i describes quirk i, so that a quirk's row is found by its value.
static_assert([] {
  for (std::size_t i = 0; i < quirks.size(); ++i)
    if (quirks[i].id != static_cast<quirk>(i)) return false;
  return true;
}());

}  // namespace

std::span<const quirk_info> known_quirks() { return quirks; }

std::optional<quirk> quirk_named(std::string_view name) {
  const auto it = std::find_if(quirks.begin(), quirks.end(), [&](const auto& i) { return i.name == name; });
  if (it == quirks.end()) return std::nullopt;
  return it->id;
}

bool is_known_quirk(std::string_view name) { return quirk_named(name).has_value(); }

std::string_view quirk_name(quirk q) { return quirks.at(static_cast<std::size_t>(q)).name; }

}  // namespace neograde::emulator
