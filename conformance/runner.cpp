#include <neograde/conformance/catalogue.hpp>
#include <neograde/conformance/runner.hpp>

#include "context.hpp"

#include <neograde/clients/url.hpp>

#include <random>

namespace neograde::conformance {

bool is_loopback_url(const std::string& url) {
  auto u = http::parse_url(url);
  return u && http::is_loopback(*u);
}

std::string new_run_id() {
  std::random_device rd;
  std::string id;
  for (int i = 0; i < 8; ++i) id += "0123456789abcdef"[rd() % 16];
  return id;
}

std::optional<preflight_failure> preflight(const provider_spec& spec, const run_options& options) {
  provider_client client(spec, options.base_url, options.api_key, options.http);
  auto r = client.call(operation_id::list_offers);
  if (r.transport) return preflight_failure{"cannot reach " + options.base_url + ": " + r.transport->message()};
  if (r.status() == 401 || r.status() == 403)
    return preflight_failure{"the API key was rejected by " + options.base_url + " (" + r.describe() +
                             "); set " + spec.auth.env + " or pass --api-key"};
  return std::nullopt;
}

run_report run(const provider_spec& spec, const run_options& options) {
  run_report report;
  provider_client client(spec, options.base_url, options.api_key, options.http);
  // One request first, so that the target's identity (emulator or not) is known.
  (void)client.call(operation_id::list_offers);
  report.source = client.target_is_emulator() ? result_source::emulated : result_source::live;
  report.time_scale = client.target_is_emulator() ? client.emulator_time_scale() : 1.0;
  if (options.on_start) options.on_start(report.source, report.time_scale);

  detail::context ctx{spec, options, client, report.time_scale, {}, report.measurements,
                      json_schema(spec.errors.envelope_schema)};
  // A check's duration is the time since the previous outcome was decided.
  auto last = std::chrono::steady_clock::now();
  ctx.emit = [&](check_outcome o) {
    const auto now = std::chrono::steady_clock::now();
    o.duration_ms = std::chrono::duration<double, std::milli>(now - last).count();
    last = now;
    const auto* d = find_check(o.check_id);
    // A SHOULD-level requirement missed is a warning (Autobahn's NON-STRICT), not a failure.
    if (d != nullptr && d->requirement == requirement_level::should && o.result == outcome::fail) o.result = outcome::warn;
    // A deviation the spec declares (with its source) is reported as such, not graded.
    if (const auto* dev = spec.deviation_for(o.check_id); dev != nullptr && (o.result == outcome::fail || o.result == outcome::warn)) {
      o.reason = "known deviation: " + dev->reason + " (" + dev->source + "); observed: " + o.reason;
      o.result = outcome::skipped;
    }
    if (options.on_outcome && d != nullptr) options.on_outcome(*d, o);
    report.outcomes.push_back(std::move(o));
  };
  detail::run_request_checks(ctx);
  detail::run_lifecycle(ctx);
  return report;
}

}  // namespace neograde::conformance
