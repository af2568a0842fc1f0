#pragma once
// A typed client for one provider, driven entirely by its spec: paths, bodies, auth and the
// mapping of responses onto canonical types all come from the spec.

#include <neograde/clients/http.hpp>
#include <neograde/clients/spend.hpp>
#include <neograde/core/clock.hpp>
#include <neograde/core/finding.hpp>
#include <neograde/core/measurements.hpp>
#include <neograde/core/spec.hpp>
#include <neograde/core/template.hpp>
#include <neograde/core/types.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace neograde {

// How a request authenticates: with the client's key, with none, with a made-up key, or with a
// credential header that is not well-formed (a scheme word and nothing after it).
enum class auth_mode { key, none, invalid, malformed, lowercase_scheme };

// The outcome of one API call, whatever it was: transport failure, error or success.
struct call_result {
  std::optional<http::response> response;
  std::optional<http::transport_error> transport;
  std::optional<std::string> not_sent;  // a create the spend ledger refused: why (nothing was sent)
  std::optional<nlohmann::json> json;   // the body, when it parsed as JSON
  std::optional<api_error> error;       // for non-success statuses, read through the envelope
  exchange evidence;                    // redacted request and response
  bool success = false;                 // status is one the operation declares as success

  [[nodiscard]] int status() const { return response ? response->status : 0; }
  [[nodiscard]] std::string content_type() const;
  // Human-readable summary: "HTTP 404 global/object-does-not-exist: ..." or the transport error.
  [[nodiscard]] std::string describe() const;
};

// Reads a response the way the client does for operation `op` (null: an undeclared request):
// the body as JSON, success by the declared statuses and the spec's in-body errors, the error
// envelope. Leaves `evidence` empty.
[[nodiscard]] call_result interpret_response(const provider_spec& spec, const operation_spec* op, http::response r);

template <class T>
struct typed_result {
  call_result call;
  std::optional<T> value;  // set when the call succeeded and the response could be mapped
  std::string problem;     // why value is empty, when the call succeeded but mapping failed
  // A multi-step create (the launch's `then`): each step's request and answer, in order (a wait
  // step's last read). `call` stays the create's; when a step fails, `problem` says which and
  // `value` keeps the instance id, so that the instance is still torn down.
  std::vector<exchange> steps;
};

// Whether `r`, an answer to the list `op`, is the error the spec says the list answers when there
// is nothing to list (operations.empty_answer: Vast.ai's 404 "No SSH keys found").
[[nodiscard]] bool answers_empty(const provider_spec& spec, operation_id op, const call_result& r);

struct launch_request {
  std::string instance_type;
  std::string region;
  std::string ssh_key_name;
  std::string name;
  std::map<std::string, std::string> params;  // the offer row's launch parameters
  std::string public_key;                     // the run's SSH public key ({{public_key}})
  std::string ssh_key_id;                     // the run's registered SSH key by the id its add answered ({{ssh_key_id}})
};

// Which offer row a run launches, and why: GPU rows only (when the spec can tell), with capacity,
// fitting the launch body (the spec's offer_requirements), priced when the provider prices, matching the pins, not already refused; the cheapest first.
struct offer_selection {
  std::optional<offer> chosen;
  std::string explanation;  // one sentence: what was chosen and why, or why nothing was
  std::size_t rows = 0, not_gpu = 0, unavailable = 0, misfit = 0, unpriced = 0, unpinned = 0, refused = 0;
  // Every row the catalogue listed (choose_offer), for the catalogue's measurements; not recorded.
  std::vector<offer> listed;
  // As the results header and footer record it (core/measurements.hpp).
  [[nodiscard]] measurement::offer_selection record() const;
  [[nodiscard]] nlohmann::json to_json() const { return record(); }
};
// The row of `rows`, a catalogue as listed, that is `row` as select_offer chose it (the same key),
// one with capacity first; nullopt when the catalogue no longer lists it.
[[nodiscard]] std::optional<offer> listed_row(const provider_spec& spec, const std::vector<offer>& rows, const offer& row);
[[nodiscard]] offer_selection select_offer(const provider_spec& spec, const std::vector<offer>& rows, const offer_pins& pins,
                                           const std::vector<std::string>& refused_keys = {});

class provider_client {
 public:
  provider_client(const provider_spec& spec, std::string base_url, std::string api_key, http::client_options options = {});
  // A client whose requests go over `loop` (async_call; the synchronous calls work too, outside
  // the loop's handlers). The loop must outlive the client.
  provider_client(http::event_loop& loop, const provider_spec& spec, std::string base_url, std::string api_key,
                  http::client_options options = {});

  [[nodiscard]] const provider_spec& spec() const { return spec_; }
  [[nodiscard]] const std::string& base_url() const { return base_url_; }

  // One declared operation with template variables ({id} in the path, {{var}} in the body).
  // `query` is appended to the path ("page=2&per_page=20").
  [[nodiscard]] call_result call(operation_id op, const template_vars& vars = {}, auth_mode auth = auth_mode::key,
                                 const std::string& query = {});
  // call() without blocking (a client made on a loop): `done` receives on the loop what call()
  // would return. One call at a time per client; the client must outlive it. An OAuth2 token is
  // fetched (blocking) when none is held, and not fetched again on a 401 as call() does.
  void async_call(operation_id op, std::function<void(call_result)> done, const template_vars& vars = {}, auth_mode auth = auth_mode::key,
                  const std::string& query = {});
  // The variables call() renders `op` with: `given`, the spec's fixed variables, and for a
  // launch the run's tag.
  [[nodiscard]] template_vars call_vars(operation_id op, const template_vars& given) const;
  // The body call() sends for `op` with `vars` (as call_vars gives them), if the operation has one.
  [[nodiscard]] std::optional<nlohmann::json> request_body(operation_id op, const template_vars& vars) const;
  // A request outside the declared operations (unknown paths, wrong methods, broken bodies).
  // `as`: read the response as this operation's (its success statuses); unknown: 200 only.
  [[nodiscard]] call_result raw(const std::string& method, const std::string& path, const std::string& body = {},
                                const std::string& content_type = {}, auth_mode auth = auth_mode::key,
                                operation_id as = operation_id::unknown);

  // Every offer row of the (possibly paginated) catalogue.
  [[nodiscard]] typed_result<std::vector<offer>> list_offers();
  [[nodiscard]] typed_result<std::string> launch(const launch_request& req);
  // The template variables a launch of `req` sends (the spec's fixed variables come on top).
  [[nodiscard]] template_vars launch_vars(const launch_request& req) const;
  // The offer row a run launches (select_offer over list_offers, with this client's pins);
  // `refused` lists row keys already refused for capacity.
  [[nodiscard]] offer_selection choose_offer(const std::vector<std::string>& refused = {});
  offer_pins pins;
  // The run's clock: a launch's wait steps poll on it (null: the real one).
  run_clock* clock = nullptr;
  // When the provider first accepted a terminate of `id` sent through this client (on `clock`);
  // nullopt: never. The teardown does not wait the time to gone again past it (issue 36).
  [[nodiscard]] std::optional<run_clock::time_point> terminate_accepted_at(const std::string& id) const;
  // The instance id a successful launch response carries (or the client-chosen id it used).
  [[nodiscard]] std::optional<std::string> launched_id(const call_result& r, const std::string& client_id) const;
  // A launch answered without an id by design (the spec's launch `id_from`): the id of the one
  // listed instance carrying `name`, in the spec's number of list reads; journaled once found.
  [[nodiscard]] typed_result<std::string> id_by_name(typed_result<std::string> launched, const std::string& name);
  // Reads one instance; for providers without get-by-id, finds it in the list.
  [[nodiscard]] typed_result<instance> get(const std::string& id);
  // Walks every page when the list is paginated.
  [[nodiscard]] typed_result<std::vector<instance>> list();
  [[nodiscard]] call_result terminate(const std::string& id);
  [[nodiscard]] call_result restart(const std::string& id);
  [[nodiscard]] call_result stop(const std::string& id);
  [[nodiscard]] call_result start(const std::string& id);
  // Every instance carrying `tag`, terminated in one request (terminate_tagged). Only ever sent
  // with a tag the run gave its own instances: the provider terminates whatever carries it.
  [[nodiscard]] call_result terminate_tagged(const std::string& tag);
  // Operations answered with an action that completes later (the spec's `action`): the action id
  // an accepted answer carries, and the action's status word as read now.
  [[nodiscard]] std::optional<std::string> action_id(operation_id op, const call_result& accepted) const;
  [[nodiscard]] typed_result<std::string> action_status(operation_id op, const std::string& id);
  [[nodiscard]] typed_result<std::vector<ssh_key>> list_ssh_keys();
  [[nodiscard]] typed_result<ssh_key> add_ssh_key(const std::string& name, const std::string& public_key);
  [[nodiscard]] call_result delete_ssh_key(const std::string& id);
  // Whether a key can be deleted: an ssh_keys_delete operation, or a key set replaced whole
  // (the spec's replaces_key_set), sent without the key.
  [[nodiscard]] bool deletes_ssh_keys() const;

  // Mapping of provider objects onto canonical types, through the spec's field pointers.
  // `from`: the operation that returned the object (its own fields override the spec's).
  [[nodiscard]] instance to_instance(const nlohmann::json& obj, operation_id from = operation_id::get) const;
  // The offer rows one catalogue item stands for (several with `rows` or `regions_available`).
  [[nodiscard]] std::vector<offer> to_offers(const nlohmann::json& obj) const;
  [[nodiscard]] ssh_key to_ssh_key(const nlohmann::json& obj, operation_id from) const;
  // Every item of a (possibly paginated) collection operation. `page_size` overrides the spec's
  // page size; `page_sizes` receives the number of items of each page, `answers` every answer
  // (to judge the pages against each other: clients/pages.hpp).
  [[nodiscard]] typed_result<std::vector<nlohmann::json>> walk(operation_id op, int page_size = 0,
                                                               std::vector<std::size_t>* page_sizes = nullptr,
                                                               std::vector<call_result>* answers = nullptr);

  // The elements of a collection at `pointer` (an array, or an object's values).
  [[nodiscard]] std::vector<nlohmann::json> collection(const nlohmann::json& doc, const std::string& pointer, bool object_values) const;
  // The items of an answer to `op`: its `items` collection, an object's values where the spec says
  // the collection is keyed, each given its key as the `keys_are` field where it does not carry it.
  [[nodiscard]] std::vector<nlohmann::json> collection(const nlohmann::json& doc, const operation_spec& op) const;

  // Set when the target identified itself as neograde's emulator (a response header).
  [[nodiscard]] bool target_is_emulator() const { return emulator_; }
  [[nodiscard]] double emulator_time_scale() const { return time_scale_; }
  // What the answers so far say the target is, in one place: emulated (at its time scale) or
  // live (at the provider's own time, scale 1).
  [[nodiscard]] result_source target_source() const { return emulator_ ? result_source::emulated : result_source::live; }
  [[nodiscard]] double target_time_scale() const { return emulator_ ? time_scale_ : 1.0; }
  // Takes what another client of the same target has learnt of it (emulator, time scale).
  void same_target_as(const provider_client& other) {
    emulator_ = other.emulator_;
    time_scale_ = other.time_scale_;
  }

  [[nodiscard]] http::client& transport() { return http_; }

  // Every create request (launch) is admitted, journaled and counted by this ledger; one ledger
  // may serve several clients of a run. Default (or null): creates are free on loopback and
  // refused anywhere else.
  void set_spend_ledger(std::shared_ptr<spend_ledger> ledger);
  [[nodiscard]] spend_ledger& ledger() const { return *ledger_; }

  // Sees every declared operation's result (checks scan them: schemas, status words, latency).
  std::function<void(operation_id, const call_result&)> observer;

 private:
  provider_client(http::event_loop* loop, const provider_spec& spec, std::string base_url, std::string api_key,
                  http::client_options options);
  // A declared operation's request, built and admitted, before auth; what call() sends.
  struct pending_call {
    operation_id id;
    const operation_spec* op;
    template_vars vars;
    http::request req;
  };
  // The request of call(op, given, ..., query), or the result when nothing is sent.
  std::variant<pending_call, call_result> begin_call(operation_id op, const template_vars& given, const std::string& query);
  // The ledger's record of a create and the observer, once `out` came back.
  call_result end_call(const pending_call& p, call_result out);
  // `req` with the credentials `auth` says (headers or query parameter).
  http::request authorize(http::request req, auth_mode auth);
  call_result finish(boost::system::result<http::response, http::transport_error> res, const operation_spec* op);
  call_result send(http::request req, const operation_spec* op, auth_mode auth);
  header_list auth_headers(auth_mode auth, const http::request& req);
  std::optional<std::string> access_token(bool refresh);
  // A multi-step create: the launch's `then` steps after the create of `out.value`, with the
  // launch's variables; a failed step sets `out.problem` (and `out.call` to the create's).
  void follow_launch_steps(typed_result<std::string>& out, template_vars vars);
  call_result send_step(const launch_step& step, const template_vars& vars);
  // The rows joined to the spec's offer_availability (a region per row, capacity where listed).
  typed_result<std::vector<offer>> join_availability(std::vector<offer> rows);

  const provider_spec& spec_;
  std::string base_url_;
  std::string api_key_;
  http::event_loop* loop_ = nullptr;
  http::client http_;
  bool emulator_ = false;
  double time_scale_ = 1.0;
  std::shared_ptr<spend_ledger> ledger_;
  std::optional<std::string> token_;  // OAuth2 access token, while valid
  std::chrono::steady_clock::time_point token_expiry_;
  std::map<std::string, run_clock::time_point> terminate_accepted_;  // by instance id
};

}  // namespace neograde
