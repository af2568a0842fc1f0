#pragma once
// A conformance run against an emulator with a server in front of its model, for answers no
// emulator of a real provider gives by itself: what a real server answers that no document
// describes (a CORS preflight), or a documented answer changed on some paths only. The front
// answers a request itself, passes the model's answer on changed, or leaves it to the model.

#include <neograde/clients/session.hpp>
#include <neograde/conformance/runner.hpp>
#include <neograde/core/clock.hpp>
#include <neograde/emulator/emulator.hpp>

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace neograde::test {

// nullopt: the model answers as it would.
using emulator_front = std::function<std::optional<http::response>(const http::request&, emulator::provider_model&)>;

// The run and its emulator share a virtual clock, as in the mutation matrix (issue 19): delays
// shrink 500-fold and nothing depends on the machine's speed.
inline conformance::run_report run_behind_front(const provider_spec& spec, const emulator_front& front, emulator::quirk_set quirks = {}) {
  virtual_clock time;
  emulator::model_options m;
  m.api_keys = emulator::make_api_keys(spec, 2, "front");
  m.quirks = std::move(quirks);
  m.time_scale = 0.002;
  m.now = [&time] { return time.now(); };
  emulator::provider_model* model = nullptr;  // set before the server starts
  emulator::server_options server;
  server.intercept = [&](const http::request& req) { return front(req, *model); };
  emulator::emulator emu(spec, m, server);
  model = &emu.model();
  emu.start();
  session s(spec, {.base_url = emu.base_url(),
                   .api_key = m.api_keys[0],
                   .second_api_key = m.api_keys[1],
                   .run_id = "front000",
                   .http = {.sleep = [&time](std::chrono::milliseconds d) { time.sleep(d); }},
                   .clock = &time});
  return conformance::run(s, {});
}

inline const check_outcome& outcome_in(const conformance::run_report& r, const std::string& id) {
  for (const auto& o : r.outcomes)
    if (o.check_id == id) return o;
  throw std::runtime_error("no outcome for " + id);
}

// The path of a request in origin form, without its query.
inline std::string path_of(const http::request& req) { return req.url.substr(0, req.url.find('?')); }

}  // namespace neograde::test
