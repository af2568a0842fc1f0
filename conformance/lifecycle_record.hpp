#pragma once
// What the lifecycle's driver saw (lifecycle_driver.cpp), step by step: the requests it sent with
// their answers, the statuses it read and when, in provider-clock seconds from the step's start.
// The lifecycle's checks are judged from this record alone (lifecycle_judges.hpp), as the observed
// checks are judged from what the run saw; the tests build records by hand.

#include <neograde/clients/pages.hpp>
#include <neograde/clients/provider_client.hpp>
#include <neograde/core/poll.hpp>

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace neograde::conformance::detail {

// What the run was: the names it gives, the key it registers, how fast its target runs.
struct lifecycle_run {
  std::string prefix;        // the run's name prefix
  std::string ssh_key_name;  // the run's SSH key, when one was registered
  double scale = 1.0;        // the emulator's time scale; 1 against real providers
  bool second_account = false;
  bool spending_allowed = true;
  std::string spending_refusal;  // why not, when not
};

// An advertised row the run tried to launch, for capacity.offers.advertised_is_launchable.
struct row_tried {
  std::string key;
  bool launched = false;
  std::string why;  // why not, when not
  bool refused_for_capacity = false;
  bool judged = true;  // a refusal of a row whose capacity the catalogue does not advertise is not
  exchange evidence;
  std::optional<exchange> reread;  // the catalogue read after a capacity refusal, still advertising the row
  // Why a refusal is not in the form the provider documents for its refusals (a 5xx it documents
  // for none, a body that is not its JSON error envelope); nothing when it is, or when launched.
  std::optional<std::string> form_problem;
};

// The main launch: the row ordered, the answer, and what billing knew before.
struct launch_record {
  bool offer_found = false;  // some offer listed capacity
  offer order;
  typed_result<std::string> result;
  bool found_by_name = false;                  // the answer named no id and the list read found it by name
  std::optional<std::string> funds_available;  // refused for funds, yet billing said they were there: why
  exchange billing_before;                     // billing's read before the launch
};

// One read of the lifecycle's instance, for the transition watch and the restart's departure.
struct instance_read {
  instance_state state = instance_state::unknown;
  std::string provider_status;
  exchange evidence;
  bool restarting = false;   // a restart was asked for (by the run or by the second account)
  bool own_restart = false;  // during the run's own restart
  bool listed = false;       // read in the list, which may lag the get: each is a sequence of its own
  int restarts_before = 0;   // restarts asked for before this read (a list lagging a restart is no transition)
};

// Following the action an accepted operation answered with (the spec's `action`).
struct action_record {
  enum class end { none, no_id, unreadable, done, failed, undocumented, deadline };
  end how = end::none;  // none: the operation declares no action
  std::string id;
  typed_result<std::string> last;  // the last status read
  double after_s = 0;              // provider-clock seconds from the operation to the last read
};

// Waiting for an instance to run.
struct running_wait {
  enum class end { running, ended, undocumented, stopped, deadline };
  end how = end::deadline;
  std::optional<instance> seen;  // the last read (running when how == running)
  std::string last_status = "unknown";
  exchange last;
  int count = 0;       // the undocumented or stopped reads in a row that ended it
  double after_s = 0;  // seconds from the wait's start to its end
};

struct visibility_record {
  std::string id;
  bool has_get = false;
  typed_result<instance> get;  // the last read by id
  typed_result<std::vector<instance>> list;
  bool listed = false;  // the list showed the instance
};

// An instance compared with its order (matches_order).
struct order_compared {
  instance got;
  offer ordered;
  std::string name;  // launched with
  bool compare_region = false;
  exchange evidence;
  bool second = false;  // the second order, of another type
  // Where the instance's price disagreed with its row's: the row as the catalogue, read again at
  // once, lists it now (nullopt: no longer listed or not read), and that read.
  std::optional<offer> relisted;
  std::optional<exchange> relisted_evidence;
};

struct consistency_record {
  typed_result<instance> get;
  typed_result<std::vector<instance>> list;
  std::optional<instance> entry;  // the instance as listed
};

struct isolation_record {
  bool has_get = false;
  call_result theirs, missing;  // the second account's get, and its get of an id that names nothing
  typed_result<std::vector<instance>> listed;
  bool listed_visible = false;
  bool has_restart = false;
  call_result restart;
  call_result terminate;
  std::optional<instance> after;  // the instance read after the second account's terminate
  exchange after_evidence;
};

struct restart_record {
  call_result request;
  action_record action;
  running_wait wait;
  double after_s = 0;
};

// Waiting for an instance to reach the spec's stopped state (after a stop).
struct state_wait {
  enum class end { reached, ended, undocumented, deadline };
  end how = end::deadline;
  std::optional<instance> seen;  // the last read
  std::string last_status = "unknown";
  exchange last;
  int count = 0;        // the undocumented reads in a row that ended it
  double after_s = 0;   // seconds from the wait's start to its end
  double within_s = 0;  // the seconds it was given (the spec's time to gone, on the run's scale)
};

// A stop of the running instance (lifecycle.instance.stop_reaches_stopped), and the start after it
// (lifecycle.instance.start_returns_to_running): each judged by the instance's state, not by the
// answer or the action record alone.
struct power_record {
  call_result stop;
  action_record stop_action;
  state_wait stopped;
  call_result start;
  action_record start_action;
  running_wait running;
};

// Reading instances after one request terminated them, until none is left, the time to gone
// passes, or every one left reads an undocumented word too often in a row.
struct gone_wait {
  poll_end end = poll_end::deadline;
  std::vector<std::string> alive;  // instances still there at the end
  int undocumented = 0;
  std::string word;  // the undocumented status read
  exchange last;
  double after_s = 0;
};

// A terminate of every instance carrying the run's tag (lifecycle.instance.bulk_delete_exact_set):
// the run's instances that carried it, and one tagged otherwise, which must be left alone.
struct bulk_record {
  std::string tag;
  std::vector<std::string> tagged;      // the run's instances carrying the tag when it was sent
  std::optional<std::string> not_sent;  // a launch the budget refused: the launch as described
  std::string control_id;               // launched with control_tag instead, where it could be
  std::string control_tag;
  std::string no_control;  // why there is none
  call_result request;
  gone_wait gone;
  std::optional<instance> control_after;  // the other instance read after the wait (none: not found)
  exchange control_evidence;
};

struct many_record {
  bool binds_array = false;
  std::vector<std::string> extra;       // the two more instances launched
  std::optional<std::string> not_sent;  // the budget allowed no more: the launch as described
  call_result terminate;
  bool waited = false;  // the terminate was accepted and the instances were read
  poll_end end = poll_end::deadline;
  std::size_t alive = 0;  // instances still there at the end
  int undocumented = 0;
  std::string word;  // the undocumented status read
  exchange last;
};

struct walk_record {
  bool paginated = false;  // the list is paginated by size
  typed_result<std::vector<nlohmann::json>> paged;
  std::vector<std::size_t> sizes;
  std::size_t found = 0, distinct = 0;  // instances found walking, and distinct ones
  std::size_t expected = 0;
  int walks = 0;
  double after_s = 0;            // seconds after the launches, at the last walk
  std::vector<page_read> pages;  // the list's successful answers during the last walk
};

// The offer catalogue walked one row per page (pagination.offers.walk_ends): the walk, and every
// answer of it, each with its rows as their JSON text.
struct offers_walk_record {
  typed_result<std::vector<nlohmann::json>> walked;
  std::vector<page_read> pages;
};

struct filter_record {
  bool declared = false;
  std::string param, source, tag, replaced;  // replaced: the list's own query the filter replaces
  typed_result<std::vector<instance>> all;
  std::set<std::string> ours;  // the run's instances in the unfiltered list
  call_result tagged;
  std::set<std::string> selected;
  bool none_read = false;  // the list by a tag no instance carries was read
  call_result untagged;
  std::set<std::string> untagged_ids;
};

// The rows after the lifecycle's, and the second order (issue 21).
struct further_record {
  std::string no_more;   // why no further row was tried
  std::string one_type;  // why the order check compared one type only
  std::string orders;    // the orders compared, for the verdict
  bool second_compared = false;
};

// One read of an instance after its terminate: get (where the API has it) and the list.
struct gone_read {
  typed_result<instance> get;
  typed_result<std::vector<instance>> list;
  std::optional<instance> entry;  // as listed
};

struct terminate_record {
  patient_terminate patient;
  bool by_other = false;  // the second account had terminated it
  call_result again;
  action_record action;
  bool has_get = false;
  std::optional<gone_read> last;  // the last read of the gone wait
  poll_end end = poll_end::deadline;
  int undocumented = 0;
  double after_s = 0;  // seconds after the terminate, at the end
};

// The whole run of the lifecycle.
struct lifecycle_record {
  lifecycle_run run;
  launch_record launch;
  std::vector<row_tried> rows;
  std::optional<std::size_t> advertised;  // launchable rows advertised, once counted
  std::optional<visibility_record> visible;
  action_record launch_action;
  running_wait running;
  std::vector<order_compared> compared;
  std::optional<isolation_record> isolation;
  // The lifecycle's instance once launched, and whether a restart of it was asked for: every read
  // of it the run makes (get or list, by the driver or by any other check) is kept in `reads`, in
  // order (read_statuses, checks_observed.cpp), so that the transition watch sees them all.
  std::string instance_id;
  enum class restart_phase { none, other, own } restarting = restart_phase::none;
  int restarts_asked = 0;
  std::vector<instance_read> reads;
  further_record further;
  terminate_record terminate;
};

}  // namespace neograde::conformance::detail
