#pragma once
// The provider spec model: one JSON file per provider (specs/providers/<id>.json), validated
// against specs/schema/provider-spec.schema.json when loaded. Clients, checks and the emulator
// are driven by it; none of them knows a provider by name.

#include <neograde/core/types.hpp>

#include <boost/system/result.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neograde {

// Where a canonical field lives in a provider object: a JSON pointer, and for arrays the
// pointer inside each element ("" for the element itself).
struct field_path {
  std::string pointer;
  std::optional<std::string> each;
  // An address list (ip with `each`): a boolean in each element saying the address is public.
  std::string public_flag;
  double scale = 1;         // canonical number = provider number * scale
  bool as_string = false;   // the provider writes the number as a decimal string
  bool as_integer = false;  // the provider writes the value (an id) as a JSON integer
  bool omit_null = false;   // an absent value is left out rather than written as null
  // Words for a quantity, from none upwards (RunPod's availability NONE, LOW, MEDIUM, HIGH):
  // the first reads as zero, each later one as its position; the emulator writes them back.
  std::vector<std::string> levels;
  // Further numbers added to this one, each times a factor (Cudo prices a machine per GPU, per
  // vCPU and per GiB): canonical = (value + sum(term value * times)) * scale.
  struct term {
    std::string pointer;
    double times = 1;
  };
  std::vector<term> plus;
  // Further pointers to the same value, each read where every one before it is absent or null: a
  // value the provider writes in one of several documented places (Prime Intellect prices a
  // community_cloud row in communityPrice with onDemand null, a secure_cloud row the other way).
  std::vector<std::string> alternatives;

  // The value at the first of pointer and alternatives that holds one (not absent, not null),
  // through `at` (a pointer to a const nlohmann::json*, nullptr where absent); else the pointer's.
  template <class At>
  [[nodiscard]] const nlohmann::json* read(const At& at) const {
    const nlohmann::json* first = at(pointer);
    if (first != nullptr && !first->is_null()) return first;
    for (const auto& p : alternatives)
      if (const nlohmann::json* v = at(p); v != nullptr && !v->is_null()) return v;
    return first;
  }
  // Where a writer puts the value in `obj`: the first of pointer and alternatives that `obj` does
  // not already set to null (a row's static object naming the place its price is not).
  [[nodiscard]] const std::string& written_at(const nlohmann::json& obj) const;
};

enum class auth_scheme { unknown, bearer, basic_username, header, query, oauth2_client_credentials, hmac_sha256 };
NLOHMANN_JSON_SERIALIZE_ENUM(auth_scheme, {
                                              {auth_scheme::unknown, "unknown"},
                                              {auth_scheme::bearer, "bearer"},
                                              {auth_scheme::basic_username, "basic_username"},
                                              {auth_scheme::header, "header"},
                                              {auth_scheme::query, "query"},
                                              {auth_scheme::oauth2_client_credentials, "oauth2_client_credentials"},
                                              {auth_scheme::hmac_sha256, "hmac_sha256"},
                                          })

// One way a provider accepts credentials. Composite credentials ("client_id:client_secret" for
// OAuth2, "access_key:secret_key" for HMAC) travel as one key string with a colon.
struct auth_method {
  auth_scheme type = auth_scheme::unknown;
  std::string header = "Authorization";  // header: the header carrying the key
  std::string prefix;                    // header: text before the key ("" for a bare key)
  std::string param;                     // query: the query parameter carrying the key
  std::string token_path;                // oauth2: client-credentials token endpoint, relative to the base URL
  // hmac_sha256: the string to sign and the Authorization value, with {path_prefix}, {path},
  // {query} (sorted k=v joined by &), {method}, {timestamp}, {access_key} and {signature}.
  std::string timestamp_header;
  std::string string_to_sign;
  std::string authorization;
  std::string path_prefix;
};

struct auth_spec {
  std::vector<auth_method> schemes;  // every scheme the provider accepts; the client uses the first
  std::string env;                   // environment variable holding the key
};

// A kind of error the provider answers with, e.g. "not_found": {404, "global/object-does-not-exist"}.
struct error_kind {
  int status = 0;
  std::string code;
  std::string message;
};

struct error_spec {
  std::string content_type;
  nlohmann::json envelope_schema;
  std::string code_pointer;
  std::string message_pointer;
  nlohmann::json body_template;                // how the provider renders an error (emulator)
  std::optional<std::string> in_success_body;  // errors reported inside 2xx bodies (GraphQL "/errors")
  std::map<std::string, error_kind> kinds;
  std::vector<std::string> no_capacity_codes;  // provider conditions, not defects
  std::vector<std::string> quota_codes;
  // A launch refused, or an instance stopped, for lack of funds: a provider condition
  // (insufficient_funds), by code or by a case-insensitive part of the message.
  std::vector<std::string> funds_codes;
  std::vector<std::string> funds_messages;
  // Case-insensitive parts of an error message that mark a capacity refusal whatever its code
  // (DigitalOcean answers every validation error "unprocessable_entity").
  std::vector<std::string> no_capacity_messages;
  // Case-insensitive parts of an error message that blame the run's configuration, not the
  // provider (Spheron's 400 "Team ID is required for authenticated deployments" when no team id
  // was given): a launch refused so is errored, never failed.
  std::vector<std::string> configuration_messages;
  // Where it is established that the provider documents no error responses at all (its API
  // reference lists only successes): the checks that hold errors to a documented envelope or code
  // are then not applicable, and `kinds` is only what the emulator answers. Empty: documented.
  std::string not_documented;
};

enum class operation_id {
  unknown,
  list_offers,
  launch,
  get,
  list,
  terminate,
  restart,
  // The instance powered off and on again, as the provider documents it (DigitalOcean's droplet
  // actions power_off and power_on): stop leaves it in the spec's stopped state, start running.
  stop,
  start,
  // Every instance carrying a tag, terminated in one request (DigitalOcean's DELETE
  // /v2/droplets?tag_name=): the path binds {tag}; the run sends only its own tag.
  terminate_tagged,
  ssh_keys_list,
  ssh_keys_add,
  ssh_keys_delete,
  get_many,  // the instances named by a list of ids, in one read (Prime Intellect's /pods/status?pod_ids=)
  history,   // the account's terminated instances (Prime Intellect's /pods/history)
};
NLOHMANN_JSON_SERIALIZE_ENUM(operation_id, {
                                               {operation_id::unknown, "unknown"},
                                               {operation_id::list_offers, "list_offers"},
                                               {operation_id::launch, "launch"},
                                               {operation_id::get, "get"},
                                               {operation_id::list, "list"},
                                               {operation_id::terminate, "terminate"},
                                               {operation_id::restart, "restart"},
                                               {operation_id::stop, "stop"},
                                               {operation_id::start, "start"},
                                               {operation_id::terminate_tagged, "terminate_tagged"},
                                               {operation_id::ssh_keys_list, "ssh_keys_list"},
                                               {operation_id::ssh_keys_add, "ssh_keys_add"},
                                               {operation_id::ssh_keys_delete, "ssh_keys_delete"},
                                               {operation_id::get_many, "get_many"},
                                               {operation_id::history, "history"},
                                           })

// How a list walks its pages. page: page number and size; offset: offset and limit; token: a
// continuation token read from each response.
struct pagination_spec {
  std::string style;  // page | offset | token
  std::string size_param;
  int size = 20;
  std::string page_param;  // page
  int first_page = 1;
  std::string offset_param;       // offset
  std::string token_param;        // token: the request parameter carrying the token
  std::string next_pointer;       // token: where the next token is; null/absent/empty at the end
  std::string more_pointer;       // optional: a boolean saying whether more pages follow
  std::string previous_pointer;   // optional: a boolean saying whether earlier pages exist
  std::string total_pointer;      // optional: where the provider states the total count
  nlohmann::json end_token;       // token: what the last page carries as its next token (null or "")
  std::string next_link_pointer;  // optional: the URL of the next page; absent, null or "" on the last page
  std::string last_link_pointer;  // optional: the URL of the last page
  // Where the provider documents what its pages say about the walk (the total, the more flag,
  // the next token, the links); "" when it does not, and pagination.list.metadata_truthful
  // does not apply.
  std::string metadata_source;
};

// An operation answered with an action that completes later (DigitalOcean's droplet actions):
// where its id is in the answer, where to read it, and its status words.
struct action_spec {
  std::string id_pointer;      // in the operation's answer
  std::string path;            // GET template with {action_id}
  std::string status_pointer;  // in the answer (and in the read, unless read_item)
  // Where the action object sits in the answer when the read answers that object alone
  // (Crusoe: {operation: {...}} then a bare operation); "" when the read has the answer's shape.
  std::string read_item;
  std::vector<std::string> in_progress;  // the first is what a new action reports
  std::vector<std::string> done;
  std::vector<std::string> failed;
  bool id_is_integer = false;  // the emulator writes the id as a JSON integer
  std::string source;
};

// A list filter by tag the provider documents (DigitalOcean's GET /v2/droplets?tag_name=): the
// list's path with `param=<tag>`, the run's tag (neograde-<run id>, what the launch sends as
// {{run_tag}}) selecting the run's instances.
struct tag_filter_spec {
  std::string param;
  bool alone = false;  // the parameter replaces the list's own query (DigitalOcean: not combinable with type)
  std::string source;
};

// get_many: the query parameter that names the instances to read, an array in OpenAPI's
// default form style (exploded): repeated, `pod_ids=a&pod_ids=b`.
struct ids_query_spec {
  std::string param;
  std::string source;
};

// A follow-up request of a multi-step create (the launch's `then`, docs/spec-format.md): Akash's
// bids, read until one arrives and chosen, then the lease that accepts it. Path and body are
// templates over the launch's variables, the instance id ({id}) and every variable bound so far.
struct launch_step {
  std::string name;
  std::string method;
  std::string path;
  std::optional<nlohmann::json> body;
  std::vector<int> success_status;
  // A wait step reads the collection at `items` again until it has an element (within the
  // spec's time to running), then takes the first, or the cheapest by the number at `price`
  // in each element.
  struct wait_spec {
    std::string items;
    bool cheapest = false;
    std::string price;
  };
  std::optional<wait_spec> wait_for;
  // Variables this step binds: name -> pointer in the chosen element (a wait step) or the answer.
  std::map<std::string, std::string> bind;
  std::string source;
};

struct operation_spec {
  operation_id id = operation_id::unknown;
  std::string method;
  std::string path;                    // template: "/instances/{id}"
  std::optional<nlohmann::json> body;  // template: strings "{{var}}" are substituted
  std::vector<int> success_status;
  std::optional<nlohmann::json> request_schema;
  std::optional<nlohmann::json> response_schema;
  std::optional<std::string> items;      // pointer to the collection in a list response
  bool items_are_object_values = false;  // the collection is an object keyed by name
  // With items_are_object_values: the canonical field each key is (Thunder Compute's instances,
  // keyed by id), written into an item that does not carry it.
  std::optional<std::string> keys_are;
  std::optional<std::string> item;               // pointer to the single object in a response
  std::map<std::string, field_path> fields;      // operation-specific fields, e.g. launch's instance_id
  bool text_response = false;                    // the body is plain text (e.g. a bare instance id)
  bool text_or_json = false;                     // ...or, sometimes, JSON read through `fields`/`item` (Verda)
  std::optional<std::string> graphql_operation;  // GraphQL: the operation name in the query
  std::optional<pagination_spec> pagination;
  std::optional<action_spec> action;          // the request is accepted now and completes later
  std::optional<tag_filter_spec> tag_filter;  // list: a filter by tag the provider documents
  std::optional<ids_query_spec> ids_query;    // get_many: the query parameter that names the instances
  bool anonymous = false;                     // the live API serves it without credentials (Vast.ai's and Cudo's catalogues)
  bool empty_response = false;                // success answers carry no body at all (io.net's deploy)
  // ssh_keys_add only: the body carries the account's whole key set ({{public_keys}}: RunPod's
  // PUT /v2/account/ssh-keys replaces every key). The client adds by sending the set it lists
  // with the key added and deletes by sending it with the key removed; the probes that send
  // broken bodies leave it alone outside the emulator, as one accepted would replace the
  // account's keys.
  bool replaces_key_set = false;
  // A list that answers an empty collection with an error (Vast.ai's GET /api/v0/ssh/ answers 404
  // "No SSH keys found"): that kind of errors.kinds, whose status the client reads as an empty
  // list and the emulator answers, with this message, when there is nothing to list. "": none.
  std::string empty_kind;
  std::string empty_message;
  // Launch only: the answer names no instance id by design, and the instance the launch named is
  // found in the list by its `name` field, in at most this many list reads (`id_from`); 0: the
  // answer must carry the id.
  int id_from_list_reads = 0;
  // launch only: variables bound from the create's answer (name -> pointer), and the steps that
  // follow the create, in order.
  std::map<std::string, std::string> bind;
  std::vector<launch_step> then;
};

// The least time an instance must run before the provider accepts its terminate (Spheron's 20
// minutes), and how the provider refuses one sent earlier (timing.minimum_runtime).
struct minimum_runtime_spec {
  double seconds = 0;
  int status = 400;                                // the refusal's HTTP status
  std::string pointer;                             // where its body says so ("/canTerminate"); empty: the status alone
  nlohmann::json equals = nullptr;                 // ...and the value there (false)
  std::optional<field_path> remaining;             // the time left, where the refusal says (scale: to seconds)
  nlohmann::json body = nlohmann::json::object();  // the emulator's refusal body (a template)
  std::string source;
};

struct timing_spec {
  double time_to_running_s = 600;
  double time_to_gone_s = 300;
  double poll_interval_s = 5;
  double latency_p95_ms = 2000;  // read operations slower than this at p95 are a warning
  std::optional<minimum_runtime_spec> minimum_runtime;
};

struct provider_info {
  std::string id;
  std::string display_name;
  std::string kind;  // neocloud | marketplace | aggregator | depin | hyperscaler
  bool fictional = false;
  std::string docs_url;
  std::string api_version;
  std::vector<std::string> notes;
  // Who owns the hardware, deprecations, rate limits, each with its source (docs/spec-format.md);
  // null when the spec says nothing.
  nlohmann::json transparency;
};

// A variable a run supplies (a project id, an image): where a live run takes it from, and what
// the emulator uses. Placeholder (emulator) values are never sent to a live host.
struct variable_decl {
  // Where a live run reads the value when the user gives none (Spheron's team id: the first team
  // of GET /api/teams, as its official client does): a GET of `path` (relative to the base URL)
  // and the value at `value` in the answer.
  struct discovery {
    std::string path;
    field_path value;
    std::string source;
  };
  std::optional<discovery> from;
  std::optional<std::string> emulator;       // the value the embedded emulator serves
  std::optional<std::string> default_value;  // a real value live runs use when nothing is set
  std::string env;                           // environment variable a live run reads
  bool required = false;                     // a live run cannot start without it
  std::string description;
  std::string source;
};

// A check the provider is known to miss by design, declared with its source, so that the check
// reports the deviation (skipped, with the reason) instead of being weakened.
struct deviation {
  std::string check_id;
  std::string reason;
  std::string source;
};

// A header the provider documents on every response (DigitalOcean's ratelimit-limit), with where.
struct declared_header {
  std::string name;
  std::string source;
};

// Where an instance's SSH endpoint is (docs/spec-format.md, "SSH"): the documented default user
// and port, and the places an instance object states its host, port and user, tried in order.
// The first that yields a host or a port is the endpoint; what it leaves out is the instance's
// address, the default port and the default user.
struct ssh_spec {
  std::string user;  // the provider's documented login user
  int port = 22;
  struct endpoint {
    // Pointers into the instance object, or into each entry with `entries`; "" for none.
    std::string host, port, user;
    // A string in ssh's command-line form, "[ssh ][user@]host[ -p port]" (Prime Intellect's
    // sshConnection "root@1.2.3.4 -p 22"); parsed by parse_ssh_connection.
    std::string connection;
    // A port-mapping array (RunPod's runtime.ports): the entries whose members equal `where`
    // (pointer -> value: {"/privatePort": 22}); `public_flag` a boolean in each entry saying its
    // address is public. Among those, select_address's order chooses.
    std::string entries;
    std::map<std::string, nlohmann::json> where;
    std::string public_flag;
    std::string source;
  };
  std::vector<endpoint> endpoints;
  std::string source;
};

// The parts of an ssh command line: "ssh -p 2222 root@host", "root@1.2.3.4 -p 22", "host".
struct ssh_connection_parts {
  std::string user;
  std::string host;
  std::optional<int> port;
};
[[nodiscard]] std::optional<ssh_connection_parts> parse_ssh_connection(std::string_view text);

struct provider_spec {
  std::filesystem::path file;
  std::string spec_version;
  provider_info provider;
  std::string base_url;
  auth_spec auth;
  error_spec errors;
  std::map<std::string, instance_state> states;  // provider status word -> canonical state
  timing_spec timing;
  std::map<std::string, field_path> instance_fields;
  std::map<std::string, field_path> offer_fields;
  std::map<std::string, field_path> ssh_key_fields;
  std::map<operation_id, operation_spec> operations;
  // Path and body variables, e.g. a project id: as loaded, the emulator's values (or the
  // defaults); a live run replaces them with resolve_variables' answer.
  std::map<std::string, std::string> variables;
  std::map<std::string, variable_decl> variable_decls;  // every variable, fixed ones included
  // What a null or absent status word means (Vast.ai's null actual_status: pending); unset: unknown.
  std::optional<instance_state> absent_state;
  std::vector<deviation> deviations;
  // Headers the provider documents on every response, successes included
  // (http.response.declared_headers checks them on every success the run saw).
  std::vector<declared_header> headers_on_every_response;
  // What a catalogue row must satisfy for the launch body to fit it (Cudo's vCPU-per-GPU bounds
  // against the fixed vCPUs the launch sends, Hyperbolic's machine type); rows that do not fit
  // are never launched.
  struct offer_requirement {
    field_path at;  // in the row ("^" for the enclosing item)
    std::optional<double> at_least, at_most;
    std::optional<nlohmann::json> equals;  // a string, boolean or number the row must state
    std::string why;
  };
  std::vector<offer_requirement> offer_requirements;
  // Capacity published apart from the catalogue (Verda's GET /instance-availability): items that
  // each name a region and the instance types available there, joined to the rows by type.
  struct offer_availability_spec {
    std::string path;    // a GET relative to the base URL
    std::string items;   // pointer to the item array ("" for a bare array)
    std::string region;  // pointer in an item to its region
    std::string types;   // pointer in an item to the array of available type names
  };
  std::optional<offer_availability_spec> offer_availability;
  std::optional<ssh_spec> ssh;  // where instances are reached; unset: the address, port 22, no documented user
  nlohmann::json emulator;      // interpreted by the emulator only
  nlohmann::json raw;

  [[nodiscard]] const operation_spec* operation(operation_id id) const;
  [[nodiscard]] instance_state canonical_state(const std::string& provider_status) const;
  // The first status word (by name) the states map to `state`; empty where none does.
  [[nodiscard]] std::string first_word(instance_state state) const;
  [[nodiscard]] const deviation* deviation_for(const std::string& check_id) const;
  // The instance fields of the objects operation `id` returns: instance_fields, with the
  // operation's own `fields` in their place (TensorDock's list nests name and status).
  [[nodiscard]] std::map<std::string, field_path> instance_fields_of(operation_id id) const;
  // ssh_key_fields, with the operation's own `fields` over them (Vast.ai lists a key's public
  // half as `key`, where its create answers `public_key`).
  [[nodiscard]] std::map<std::string, field_path> ssh_key_fields_of(operation_id id) const;
  // The fields of the items operation `id` lists: offer_fields for the catalogue, the SSH key's
  // for the key list, the instance's otherwise.
  [[nodiscard]] std::map<std::string, field_path> item_fields_of(operation_id id) const;
};

// The variables a run sends. Live: `--set` values, then the environment, then the spec's
// default; a required variable with none of them is `missing` ("CRUSOE_PROJECT_ID (project_id)").
// Not live: `--set` values, then the emulator's value. `getenv` defaults to the process environment.
struct resolved_variables {
  std::map<std::string, std::string> values;
  std::vector<std::string> missing;  // "project_id (set CRUSOE_PROJECT_ID or --set project_id=...)"
  std::vector<std::string> unknown;  // --set names the spec does not declare
  // Required, not given, and read from the API before the run (variable_decl::from).
  std::vector<std::string> to_discover;
};
[[nodiscard]] resolved_variables resolve_variables(const provider_spec& spec, const std::map<std::string, std::string>& sets, bool live,
                                                   const std::function<std::optional<std::string>(const std::string&)>& getenv = {});

// The p95 latency a target is held to: the spec's, on the emulator's time scale, but never below
// 100 ms (loopback timing under load is not the provider's).
[[nodiscard]] std::chrono::milliseconds latency_threshold(const provider_spec& spec, double time_scale);

// A spec that could not be loaded: which file, where in it (JSON pointer), and why.
struct spec_error {
  std::string file;
  std::string pointer;
  std::string message;
  [[nodiscard]] std::string what() const;
};

[[noreturn]] void throw_exception_from_error(const spec_error& e, const boost::source_location& loc);

// What loading checks beyond the format and the model: by default it refuses what the spec lint
// calls an error (spec_lint.hpp: a placeholder nothing binds, a phase word that is no status, an
// offer field at a member the documented answer lacks); `neograde spec lint` reads without it,
// to list every finding rather than the first.
enum class spec_checks { lint, model_only };

[[nodiscard]] boost::system::result<provider_spec, spec_error> load_spec(const std::filesystem::path& file,
                                                                         spec_checks checks = spec_checks::lint);

// Parses and validates a spec already in memory; `origin` names it in errors.
[[nodiscard]] boost::system::result<provider_spec, spec_error> parse_spec(std::string_view text, const std::string& origin,
                                                                          spec_checks checks = spec_checks::lint);

// Directories searched for specs by name, in order: $NEOGRADE_SPECS_DIR, then the installed
// <prefix>/share/neograde/specs/providers beside <prefix>/bin, or (in a build tree) the source tree.
[[nodiscard]] std::vector<std::filesystem::path> spec_search_path();

// "lambda" -> <dir>/lambda.json from the search path; a path (with '/' or ".json") as-is.
[[nodiscard]] std::optional<std::filesystem::path> resolve_spec(const std::string& name_or_path);

// Every spec file in the first existing directory of the search path, sorted by name.
[[nodiscard]] std::vector<std::filesystem::path> catalogue_specs();

// The meta-schema, as embedded at build time.
[[nodiscard]] const nlohmann::json& spec_meta_schema();

}  // namespace neograde
