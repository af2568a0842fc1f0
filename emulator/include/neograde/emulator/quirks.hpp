#pragma once
// Named misbehaviours the emulator can switch on, so that every check can be shown to fail.

#include <cstddef>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>

namespace neograde::emulator {

// Every quirk the emulator implements, in the order known_quirks() lists them.
enum class quirk {
  auth_missing_accepted,
  invalid_key_accepted,
  malformed_json_500,
  malformed_launch_500,
  out_of_range_accepted,
  html_errors,
  unknown_type_accepted,
  unknown_id_200,
  unknown_path_200,
  no_allow_header,
  offers_schema_drift,
  launch_without_id,
  get_not_found,
  list_omits_instances,
  tag_filter_ignored,
  stuck_booting,
  no_address,
  terminate_500,
  ghost_after_terminate,
  malformed_auth_500,
  query_key_accepted,
  no_www_authenticate,
  scheme_case_sensitive,
  cross_tenant_read,
  cross_tenant_list,
  cross_tenant_actions,
  existence_leak_403,
  cross_tenant_keys,
  stack_traces,
  head_500,
  options_500,
  success_text_plain,
  empty_body_500,
  non_object_body_500,
  undocumented_error_code,
  terminate_unknown_500,
  restart_unknown_500,
  key_delete_unknown_200,
  no_date_header,
  instance_schema_drift,
  launch_schema_drift,
  terminate_schema_drift,
  unknown_status_word,
  status_words_upper_case,
  list_get_disagree,
  negative_price,
  duplicate_offers,
  wrong_type_delivered,
  flapping,
  restart_stuck,
  action_never_completes,
  terminate_first_only,
  key_not_listed,
  key_delete_ignored,
  phantom_capacity,
  capacity_refusal_500,
  partial_capacity,
  fixed_type_delivered,
  validation_500,
  missing_field_accepted,
  long_name_500,
  unicode_500,
  empty_key_name_accepted,
  unknown_region_accepted,
  unknown_image_accepted,
  unknown_ssh_key_accepted,
  no_retry_after_header,
  no_rate_limit_headers_on_success,
  rate_limit_text,
  page_repeats,
  page_size_ignored,
  page_total_wrong,
  next_link_on_last_page,
  slow_responses,
  double_terminate_500,
  // billing (issue 22)
  billing_continues_after_terminate,
  billing_from_request,
  // DePIN networks and aggregators (issue 23)
  underlying_provider_swapped,
  deposit_not_released,
  funds_refused_with_balance,
  // deciding once, within the spec's timings (issue 36)
  list_lags_get,
  restart_ends_off,
  terminate_stuck,
  // actions judged by their effect, and bulk operations by the set they act on (issue 39)
  action_without_effect,
  start_without_effect,
  bulk_delete_partial,
  // what was delivered against what was ordered and listed (issue 39)
  price_above_row,
  gpu_count_doubled,
};
inline constexpr std::size_t quirk_count = static_cast<std::size_t>(quirk::gpu_count_doubled) + 1;

struct quirk_info {
  quirk id;
  std::string_view name;
  std::string_view description;
};

// The one table of quirks: names and descriptions, in enum order.
[[nodiscard]] std::span<const quirk_info> known_quirks();

[[nodiscard]] bool is_known_quirk(std::string_view name);
// nullopt for a name no quirk has.
[[nodiscard]] std::optional<quirk> quirk_named(std::string_view name);
[[nodiscard]] std::string_view quirk_name(quirk q);

// Quirks by name, as options and command lines give them.
using quirk_set = std::set<std::string, std::less<>>;

}  // namespace neograde::emulator
