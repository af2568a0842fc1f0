#pragma once
// The lifecycle's checks as functions of what the driver recorded (lifecycle_record.hpp) and the
// spec: nothing here sends a request, reads a clock or keeps state, so that each verdict can be
// tested from a record written by hand (tests/conformance/lifecycle_judges_test.cpp).

#include "context.hpp"
#include "lifecycle_record.hpp"

#include <neograde/core/measurements.hpp>

#include <optional>
#include <string>
#include <vector>

namespace neograde::conformance::detail::lifecycle {

inline constexpr const char* launch_id = "lifecycle.instance.launch_returns_id";
inline constexpr const char* capacity_id = "capacity.offers.advertised_is_launchable";
inline constexpr const char* refusal_form_id = "errors.launch.refusal_is_documented_error";
inline constexpr const char* launch_schema_id = "schema.launch.matches_schema";
inline constexpr const char* get_id = "lifecycle.instance.visible_in_get";
inline constexpr const char* list_id = "lifecycle.instance.visible_in_list";
inline constexpr const char* filter_id = "lifecycle.instance.filter_selects_exactly";
inline constexpr const char* running_id = "lifecycle.instance.reaches_running";
inline constexpr const char* address_id = "lifecycle.instance.running_has_address";
inline constexpr const char* order_id = "lifecycle.instance.matches_order";
inline constexpr const char* underlying_id = "transparency.instance.underlying_provider_as_listed";
inline constexpr const char* price_id = "billing.instance.price_as_listed";
inline constexpr const char* consistent_id = "schema.instance.consistent_across_endpoints";
inline constexpr const char* iso_get_id = "isolation.instance.get_denied";
inline constexpr const char* iso_list_id = "isolation.instance.list_hidden";
inline constexpr const char* iso_terminate_id = "isolation.instance.terminate_denied";
inline constexpr const char* iso_restart_id = "isolation.instance.restart_denied";
inline constexpr const char* iso_leak_id = "isolation.instance.no_existence_leak";
inline constexpr const char* restart_id = "lifecycle.instance.restart_returns_to_running";
inline constexpr const char* stop_id = "lifecycle.instance.stop_reaches_stopped";
inline constexpr const char* start_id = "lifecycle.instance.start_returns_to_running";
inline constexpr const char* bulk_id = "lifecycle.instance.bulk_delete_exact_set";
inline constexpr const char* each_once_id = "pagination.list.each_once";
inline constexpr const char* page_size_id = "pagination.list.size_honoured";
inline constexpr const char* page_metadata_id = "pagination.list.metadata_truthful";
inline constexpr const char* offers_walk_id = "pagination.offers.walk_ends";
inline constexpr const char* many_id = "lifecycle.instance.terminate_many";
inline constexpr const char* terminate_id = "lifecycle.instance.terminate_accepted";
inline constexpr const char* terminate_schema_id = "schema.terminate.matches_schema";
inline constexpr const char* gone_id = "lifecycle.instance.gone_after_terminate";
inline constexpr const char* idempotent_id = "lifecycle.instance.terminate_idempotent";
inline constexpr const char* transition_id = "lifecycle.instance.no_illegal_transition";

// schema.*.matches_schema: the accepted answer against the operation's response schema.
[[nodiscard]] check_outcome judge_response_schema(const char* id, const provider_spec& spec, operation_id op, const call_result& r);

// The launch: its verdicts so far, in order, and what the rest of the lifecycle gets when it
// cannot go on (`rest`, with why).
struct launch_verdict {
  std::vector<check_outcome> decided;
  std::optional<outcome> rest;
  std::string rest_reason;
};
[[nodiscard]] launch_verdict judge_launch(const launch_record& launch, const provider_spec& spec);
[[nodiscard]] std::vector<exchange> launch_evidence(const launch_record& launch);

[[nodiscard]] check_outcome judge_visible_in_get(const visibility_record& v);
[[nodiscard]] check_outcome judge_visible_in_list(const visibility_record& v);

// An action followed to its end: pass when it completed ("action N done after t s; " as message)
// or none is declared.
struct action_verdict {
  outcome result = outcome::pass;
  std::string message;
  exchange last;
};
[[nodiscard]] action_verdict judge_action(const action_record& a, const provider_spec& spec, operation_id op, const std::string& what);

// Why a wait for running stopped before its deadline (an undocumented or a stopped status), or "".
[[nodiscard]] std::string running_gave_up(const running_wait& w);
[[nodiscard]] check_outcome judge_reaches_running(const lifecycle_record& rec, const provider_spec& spec);
[[nodiscard]] check_outcome judge_running_has_address(const running_wait& w);

// What of the instance compared differs from its order: type, region where compared, name, SSH key,
// and every launch parameter the instance shows.
[[nodiscard]] std::vector<std::string> delivered_otherwise(const order_compared& c, const provider_spec& spec,
                                                           const std::string& ssh_key_name);
// lifecycle.instance.matches_order on what was compared (nullopt: nothing was); `one_type` says
// why only the lifecycle's instance was, if so.
[[nodiscard]] std::optional<check_outcome> judge_matches_order(const lifecycle_record& rec, const provider_spec& spec,
                                                               const std::string& orders, const std::string& one_type);
// What of an order the instance was compared on, and the launch parameters it does not show.
[[nodiscard]] std::string order_read_back(const order_compared& c, const provider_spec& spec, const std::string& ssh_key_name);
// billing.instance.price_as_listed on what was compared (nullopt: nothing was): the hourly price
// each instance states against its row's, within the provider's rounding (compare_price,
// clients/delivered.hpp).
[[nodiscard]] std::optional<check_outcome> judge_price_as_listed(const lifecycle_record& rec, const provider_spec& spec);
[[nodiscard]] check_outcome judge_underlying_provider(const order_compared& c, const provider_spec& spec);
[[nodiscard]] check_outcome judge_consistent(const consistency_record& c);

// isolation.instance.*, in the order get, leak, list, restart, terminate (those that apply).
[[nodiscard]] std::vector<check_outcome> judge_isolation(const isolation_record& i, const provider_spec& spec);
[[nodiscard]] bool terminated_by_other(const isolation_record& i);

[[nodiscard]] check_outcome judge_restart(const restart_record& r, const std::vector<instance_read>& reads, const provider_spec& spec);

// The reads of the lifecycle's instance: whether one ran, and the first fall back to pending
// without a restart (lifecycle.instance.no_illegal_transition).
[[nodiscard]] bool ever_running(const std::vector<instance_read>& reads);
[[nodiscard]] check_outcome judge_no_illegal_transition(const std::vector<instance_read>& reads);

[[nodiscard]] check_outcome judge_terminate_many(const many_record& m);

// lifecycle.instance.stop_reaches_stopped and start_returns_to_running, by the instance's state
// after the action (with the same address rule as a first run: running_has_address's).
[[nodiscard]] check_outcome judge_stop(const power_record& p, const provider_spec& spec);
[[nodiscard]] bool stopped(const power_record& p);
[[nodiscard]] check_outcome judge_start(const power_record& p, const provider_spec& spec);

// lifecycle.instance.bulk_delete_exact_set: every instance carrying the tag gone, the other left
// (gone as instance_gone decides, clients/effect.hpp).
[[nodiscard]] bool deleted(const std::optional<instance>& read);
[[nodiscard]] check_outcome judge_bulk_delete(const bulk_record& b);

// pagination.list.*: each_once, size_honoured, metadata_truthful.
[[nodiscard]] std::vector<check_outcome> judge_pagination(const walk_record& w, const provider_spec& spec);
[[nodiscard]] check_outcome judge_page_metadata(const walk_record& w, const pagination_spec& pg);
// The first page of a walk whose metadata (total, more flag, next token, links) says something
// untrue about it, as the failure of check `id`; `noun` names what the pages list ("instances").
[[nodiscard]] std::optional<check_outcome> untrue_page(const std::string& id, const std::vector<page_read>& pages,
                                                       const pagination_spec& pg, const std::string& noun);

// pagination.offers.walk_ends: the offer catalogue walked one row per page (issue 39 point 6).
[[nodiscard]] check_outcome judge_offers_walk(const offers_walk_record& w, const pagination_spec& pg);

// lifecycle.instance.filter_selects_exactly: decided by the tagged read alone (nullopt: the read by
// a tag no instance carries decides), then by both.
[[nodiscard]] std::optional<check_outcome> judge_filter_tagged(const filter_record& f);
[[nodiscard]] check_outcome judge_filter(const filter_record& f);

// capacity.offers.advertised_is_launchable over the rows tried (nullopt: none), with
// advertised_rows_launched; `note` says why no more were tried.
[[nodiscard]] measurement::advertised_rows advertised_rows_launched(const lifecycle_record& rec);
[[nodiscard]] double capacity_refusal_rate(const lifecycle_record& rec);
[[nodiscard]] std::optional<check_outcome> judge_capacity(const lifecycle_record& rec, const std::string& note);
// errors.launch.refusal_is_documented_error over the rows tried: each refusal a 4xx with a JSON body.
[[nodiscard]] check_outcome judge_refusal_form(const lifecycle_record& rec);

[[nodiscard]] bool terminate_accepted(const terminate_record& t);
[[nodiscard]] check_outcome judge_terminate_accepted(const terminate_record& t, const provider_spec& spec);
[[nodiscard]] check_outcome judge_terminate_idempotent(const terminate_record& t);

// One read after terminate: running again, gone everywhere, unreadable (an undocumented word).
struct gone_state {
  bool running_again = false, gone = false, unreadable = false;
  std::string ghost;  // the status the list shows it running with
  std::string note;   // what get and the list said
  std::vector<exchange> evidence;
};
[[nodiscard]] gone_state read_after_terminate(const gone_read& r, const provider_spec& spec, bool has_get);
[[nodiscard]] check_outcome judge_gone(const terminate_record& t, const provider_spec& spec, double scale);

}  // namespace neograde::conformance::detail::lifecycle
