#pragma once
// What a check needs to be judged, as its catalogue row declares it (Schemathesis declares a
// check's needs beside it): spending, a second account, an operation or a section of the spec.
// Deciding whether a run meets them is conformance's (neograde/conformance/needs.hpp), so that the
// runner and preflight decide alike from the one declaration.

#include <string>

namespace neograde {

enum class operation_id;  // core/spec.hpp

// A part of the spec a check needs, beyond an operation being declared.
enum class spec_section {
  none,
  ssh_keys,                // ssh_keys_add and ssh_keys_list
  ssh_key_names,           // the SSH keys have a name field
  ssh_key_delete,          // a key can be deleted (ssh_keys_delete, or a key-set replace with its list)
  response_schema,         // `op` declares a response schema
  offer_price,             // the offers map price_per_hour_usd
  instance_price,          // the instances map price_per_hour_usd
  order_shown,             // the instances show something of what a launch orders (type, region, name, SSH keys, a launch parameter)
  underlying_provider,     // offers and instances both map underlying_provider
  launch_sends,            // the launch body sends the variable `variable`
  launch_refuses_unknown,  // operations.launch.refuses_unknown cites the refusal of `variable`
  tag_filter,              // the list declares a filter by tag
  paginated_by_size,       // `op` (the instance list where none is named) is paginated with a page size
  pagination_metadata,     // the list's pagination declares metadata
  terminate_takes_ids,     // the terminate body binds {{id}} in a one-element array
  stopped_state,           // the spec maps a provider status word to stopped
  headers_on_every_response,
  read_operation,       // an operation is a GET (a GraphQL API reads by POST)
  error_codes,          // the errors carry documented codes
  errors_documented,    // the provider documents its error responses (errors.not_documented unset)
  key_outside_query,    // no documented auth scheme puts the key in the query string
  named_auth_scheme,    // the first auth scheme is an Authorization scheme with a name
  billing_read,         // a billing read (billing.read); without one the billing checks have nothing to read
  billing_amount,       // the billing read carries an amount
  billing_increment,    // the billing declares an increment
  billing_deposit,      // the billing declares a deposit
  billing_balance,      // the billing read carries the account's balance
  billing_stop_signal,  // a spend rate (account scope) or an increment: a charge after terminate shows
};

struct check_need {
  enum class kind {
    spending,          // creates something billable or sends launches: the run's spend permission
    second_account,    // --second-api-key
    operation,         // the spec declares `op`
    section,           // the spec declares `section`
    single_key,        // the credential is one key (not an id:secret pair)
    delays,            // against the emulator, a time scale above 0 (billed time is told by it)
    rate_limit_probe,  // judged without the probe only on a 429 met by chance: predicted, never skipped on
    body_operation,    // an operation that takes a JSON body the run may send one to (the launch only when
                       // spending; a replace of the account's key set only on the emulator)
    check,             // the check `variable` names applies (delete_removes needs the key visible_after_add registers)
  };
  kind what = kind::section;
  operation_id op{};  // operation, section response_schema and paginated_by_size
  spec_section section = spec_section::none;
  std::string variable;  // launch_sends, launch_refuses_unknown; check: the check id
  // The skip's reason when the need is not met, where the check words it otherwise than the need's
  // usual text; for spending, what the check does ("launches an instance"), before the refusal.
  std::string why;
};

}  // namespace neograde
