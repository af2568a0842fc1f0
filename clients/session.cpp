#include <neograde/clients/session.hpp>

#include <neograde/clients/cassette.hpp>
#include <neograde/clients/run_names.hpp>
#include <neograde/clients/ssh.hpp>
#include <neograde/clients/url.hpp>
#include <neograde/core/errors.hpp>

#include <cstdlib>

namespace neograde {
namespace {

// The key every run registers when no SSH login is needed (it names no private key we hold).
constexpr const char* run_public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHVHtN3Yc0SJ7Wz5k0u2m3Fh3Cj0m2Qk4XH7rW0b9c1e neograde";

std::filesystem::path make_private_dir(const std::string& prefix) {
  auto base = std::filesystem::temp_directory_path() / (prefix + "XXXXXX");
  std::string tmpl = base.string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw config_error("cannot create a directory in " + base.parent_path().string());
  return tmpl;
}

}  // namespace

session::session(const provider_spec& spec, session_options options) : spec_(spec), options_(std::move(options)), http_(options_.http) {
  if (!http::parse_url(options_.base_url)) throw config_error("not an http(s) URL with a host: " + options_.base_url);
  if (options_.run_id.empty()) options_.run_id = new_run_id();
  clock_ = options_.clock != nullptr ? options_.clock : options_.replay ? options_.replay.get() : &real_clock();
  // A retry (429, 503) waits on the run's clock where that is not the real one (a test's or the
  // demo's virtual clock): a Retry-After then costs no real time, and a verdict does not depend
  // on how fast the machine is. On the real clock it stays a timer on the client's loop.
  if (!http_.sleep && !options_.replay && options_.clock != nullptr && options_.clock != &real_clock())
    http_.sleep = [clock = options_.clock](std::chrono::milliseconds d) { clock->sleep(d); };

  // The probe, on a client of its own: it is not part of what a run records or counts.
  if (!options_.replay) {
    provider_client probe(spec_, options_.base_url, options_.api_key, http_);
    probe_ = probe.call(probe_operation());
    probe_emulated_ = probe.target_is_emulator();
    probe_scale_ = probe.target_time_scale();
    auto unusable = [&](std::string why) { unusable_ = run_stop{.why = run_stop::kind::target_unusable, .message = std::move(why)}; };
    if (probe_->transport) unusable("cannot reach " + options_.base_url + ": " + probe_->transport->message());
    else if (probe_->status() == 401 || probe_->status() == 403)
      unusable("the API key was rejected by " + options_.base_url + " (" + probe_->describe() + "); set " + spec_.auth.env +
               " or pass --api-key");
  }

  // Spending: one rule for every command (spend.hpp), and one billed-time estimate.
  const bool live = is_live_target(options_.base_url, options_.treat_as_live);
  if (options_.purpose == session_purpose::sweep) {
    spend_ = {true, ""};  // a sweep only terminates, which costs nothing; the ledger journals it
    rules_ = {.live = true, .journal = options_.journal};
  } else {
    // A read-only audit creates nothing, whatever the flags and the target.
    spend_ = options_.read_only
                 ? read_only_permission()
                 : spend_permission_for(options_.base_url,
                                        effective_allow_spend(options_.base_url, options_.allow_spend, options_.treat_as_live),
                                        options_.treat_as_live);
    rules_ = {.live = live,
              .budget = options_.budget,
              .journal = options_.journal,
              .billed_seconds_per_instance = billed_seconds_estimate(spec_, options_.extra_hold_s)};
  }
  make_ledger();

  // The SSH key: the given identity's, a throw-away pair for the run, or the fixed public key.
  public_key_ = run_public_key;
  if (options_.ssh_identity) {
    ssh::key_pair key;
    if (options_.ssh_identity->empty()) {
      key_dir_ = make_private_dir("neograde-key-");
      key = ssh::generate_key(key_dir_ / "key", run_tag(options_.run_id));
    } else {
      key = ssh::existing_key(*options_.ssh_identity);
    }
    if (!key.error.empty()) throw config_error("--remote-exec: " + key.error);
    public_key_ = key.public_key;
    private_key_ = key.private_key;
  }

  if (options_.replay) replay_from(http_, options_.replay);
  if (!options_.record.empty()) {
    auto writer = std::make_shared<cassette_writer>(options_.record, cassette_header{.provider = spec_.provider.id,
                                                                                     .base_url = options_.base_url,
                                                                                     .run_id = options_.run_id,
                                                                                     .recorded_source = provenance(),
                                                                                     .accounts = options_.second_api_key.empty() ? 1 : 2});
    record_into(http_, writer);
    recording_clock_ = std::make_unique<recording_clock>(*clock_, std::move(writer));
    clock_ = recording_clock_.get();
  }
}

session::~session() {
  if (key_dir_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(key_dir_, ec);
}

std::string session::prefix() const { return run_name_prefix(options_.run_id); }

operation_id session::probe_operation() const {
  return spec_.operation(operation_id::list) != nullptr ? operation_id::list : operation_id::list_offers;
}

result_source session::provenance() const {
  if (options_.replay) return result_source::replay;
  return emulated() ? result_source::emulated : result_source::live;
}

bool session::emulated() const { return (primary_ && primary_->target_is_emulator()) || probe_emulated_; }

double session::time_scale() const { return primary_ && primary_->target_is_emulator() ? primary_->target_time_scale() : probe_scale_; }

void session::configure_http(const std::function<void(http::client_options&)>& change) {
  if (primary_) throw std::logic_error("session::configure_http after the run's clients were made");
  change(http_);
}

std::unique_ptr<provider_client> session::make_client(const std::string& key) const {
  auto client = std::make_unique<provider_client>(spec_, options_.base_url, key, http_);
  client->pins = options_.pins;
  client->clock = clock_;
  client->set_spend_ledger(ledger_);
  return client;
}

provider_client& session::primary() {
  if (!primary_) {
    primary_ = make_client(options_.api_key);
    if (!options_.second_api_key.empty()) second_ = make_client(options_.second_api_key);
  }
  return *primary_;
}

std::unique_ptr<provider_client> session::connection(bool second_account) {
  (void)primary();
  const auto& account = second_account ? second_ : primary_;
  if (!account) return nullptr;
  auto client = make_client(second_account ? options_.second_api_key : options_.api_key);
  client->same_target_as(*account);
  return client;
}

provider_client* session::second() {
  (void)primary();
  return second_.get();
}

const offer_selection& session::selection() {
  if (!selection_) selection_ = primary().choose_offer();
  return *selection_;
}

void session::make_ledger() {
  try {
    ledger_ = std::make_shared<spend_ledger>(spend_, rules_, options_.run_id, spec_.provider.id, options_.base_url);
  } catch (const std::exception& e) {
    // A journal that cannot be opened refuses spending; the run goes on read-only.
    spend_ = {false, std::string("the journal cannot be opened: ") + e.what()};
    ledger_ = std::make_shared<spend_ledger>(spend_, rules_, options_.run_id, spec_.provider.id, options_.base_url);
  }
  if (primary_) primary_->set_spend_ledger(ledger_);
  if (second_) second_->set_spend_ledger(ledger_);
}

void session::withdraw_spend(std::string why) {
  spend_ = {false, std::move(why)};
  make_ledger();
}

void session::pre_check() {
  if (!rules_.live || !spend_.allowed || options_.purpose == session_purpose::sweep) return;
  auto s = primary().choose_offer();
  if (!s.chosen) return withdraw_spend("the pre-check refused: " + s.explanation);
  if (!ledger_->estimate_usd(s.chosen->instance_type))
    return withdraw_spend("the pre-check refused: the offer " + s.chosen->key() + " has no price, so its cost cannot be bounded");
  if (auto no = ledger_->would_refuse(s.chosen->instance_type)) withdraw_spend("the pre-check refused: " + *no);
}

}  // namespace neograde
