#include "commands.hpp"
#include "concurrent.hpp"
#include "options.hpp"
#include "run_report.hpp"

#include <neograde/emulator/emulator.hpp>
#include <neograde/gpu_smoke/sha256.hpp>
#include <neograde/clients/session.hpp>
#include <neograde/core/clock.hpp>
#include <neograde/reports/scorecard.hpp>

#include <algorithm>
#include <map>
#include <iostream>
#include <memory>

namespace neograde::embedded {
std::string_view demo_hardware_bare_metal();
std::string_view demo_hardware_kvm_guest();
std::string_view demo_hardware_container_on_vm();
}  // namespace neograde::embedded

namespace neograde::app {
namespace {

// The demo has no instance to run the GPU smoke test on: each provider's running instance gets a
// fixture smoke record (tests/gpu_smoke/fixtures), labelled as one. For a real provider it is the
// fixture that matches what its spec declares (so that nothing is found that no one measured); a
// fictional provider may name another (emulator.demo_hardware) to demonstrate a contradiction.
// The GPU hashes are re-keyed per provider, so that no two providers appear to share a GPU; a
// fictional reseller's by the provider it resells (emulator.demo_gpus_of).
nlohmann::json demo_hardware(const provider_spec& spec) {
  const auto& t = spec.provider.transparency;
  const auto machine = t.is_object() ? t.value("machine", "") : "";
  auto name = spec.emulator.value(  // demo_hardware: fictional providers only (core/spec.cpp)
      "demo_hardware", machine == "bare_metal"  ? "bare-metal"
                       : machine == "container" ? "container-on-vm"
                                                : "kvm-guest");
  const auto text = name == "bare-metal"        ? embedded::demo_hardware_bare_metal()
                    : name == "container-on-vm" ? embedded::demo_hardware_container_on_vm()
                                                : embedded::demo_hardware_kvm_guest();
  // Only the fingerprint stands in: no GPU of the emulated instance was measured, so the fixture's
  // measurements are not shown as if they were.
  nlohmann::json doc = {{"fingerprint", nlohmann::json::parse(text).at("fingerprint")}};
  for (auto& gpu : doc["fingerprint"]["gpus"])
    for (const char* key : {"uuid_hash", "serial_hash"})
      if (gpu.contains(key) && gpu[key]["value"].is_string())
        gpu[key]["value"] = gpu_smoke::to_hex(gpu_smoke::hmac_sha256(
            "neograde-demo:" + spec.emulator.value("demo_gpus_of", spec.provider.id), gpu[key]["value"].get<std::string>()));
  return doc;
}

}  // namespace

command add_demo(CLI::App& app) {
  struct options {
    std::string out = "neograde-out";
    double time_scale = 0.01;
    std::vector<std::string> only;
    std::vector<std::string> quirks;  // provider:quirk
    int jobs = 0;                     // 0: default_jobs
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand("demo", "Grade every provider in the catalogue against its embedded emulator (all results EMULATED)");
  cmd->add_option("--out", o->out, "Output directory")->capture_default_str();
  cmd->add_option("--time-scale", o->time_scale, "Emulator time scale (delays multiplied by it)")->capture_default_str();
  cmd->add_option("--only", o->only, "Grade only this provider (repeatable)");
  cmd->add_option("--quirk", o->quirks, "PROVIDER:QUIRK: switch a quirk on in one provider's emulator (repeatable)");
  cmd->add_option("--jobs", o->jobs, "Providers graded at once (default: all of them, up to " + std::to_string(max_default_jobs) + ")")
      ->check(CLI::Range(1, 1024));
  return [o] {
    const std::filesystem::path out = o->out;
    std::filesystem::create_directories(out);
    const auto paths = catalogue_specs();
    if (paths.empty()) throw usage_error("no provider specs found (set NEOGRADE_SPECS_DIR)");
    std::multimap<std::string, std::string> extra_quirks;
    for (const auto& pq : o->quirks) {
      const auto colon = pq.find(':');
      if (colon == std::string::npos || !emulator::is_known_quirk(pq.substr(colon + 1)))
        throw usage_error("--quirk takes PROVIDER:QUIRK with a known quirk (see `neograde checks --quirks`): " + pq);
      extra_quirks.emplace(pq.substr(0, colon), pq.substr(colon + 1));
    }
    std::vector<provider_spec> specs;
    for (const auto& path : paths) {
      auto spec = load_spec_or_throw(path.string());
      if (o->only.empty() || std::find(o->only.begin(), o->only.end(), spec.provider.id) != o->only.end()) specs.push_back(std::move(spec));
    }
    if (specs.empty()) throw usage_error("--only names no provider of the catalogue (see `neograde providers`)");

    // Each provider against an emulator of its own, all at once (at most --jobs).
    std::vector<std::filesystem::path> dirs;
    for (const auto& spec : specs) dirs.push_back(out / "providers" / spec.provider.id);
    std::vector<run_summary> summaries(specs.size());
    const int jobs = o->jobs > 0 ? o->jobs : default_jobs(specs.size());
    const auto errors = run_concurrently(specs.size(), jobs, [&](std::size_t i) {
      const auto& spec = specs[i];
      // The run and its emulator share a clock that moves only when the run sleeps (the tests'
      // virtual clock): boots, polls, deadlines and the rate limit's refills then come out the same
      // on any machine, however busy, and nothing really waits (issue 39).
      virtual_clock time;
      emulator::model_options model;
      model.now = [&time] { return time.now(); };
      model.api_keys = emulator::make_api_keys(spec, 2, "demokey");
      model.time_scale = o->time_scale;
      for (const auto& q : spec.emulator.value("default_quirks", std::vector<std::string>{})) model.quirks.insert(q);
      for (auto [it, end] = extra_quirks.equal_range(spec.provider.id); it != end; ++it) model.quirks.insert(it->second);
      emulator::emulator emu(spec, model);
      emu.start();
      // Loopback: the session allows spending, since nothing costs money.
      session s(spec, {.base_url = emu.base_url(),
                       .api_key = model.api_keys[0],
                       .second_api_key = model.api_keys[1],
                       .http = {.sleep = [&time](std::chrono::milliseconds d) { time.sleep(d); }},
                       .clock = &time});
      if (s.unusable()) throw usage_error(spec.provider.id + "'s emulator: " + s.unusable()->message);
      summaries[i] = run_and_report(s, {.hardware_fixture = demo_hardware(spec)}, nlohmann::json::object(), dirs[i], jobs > 1);
      emu.stop();
    });
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
    for (std::size_t i = 0; i < specs.size(); ++i)
      std::cout << specs[i].provider.id << ": " << summaries[i].scorecard.tier << " ("
                << reports::score_text(summaries[i].scorecard, "null") << "), " << summaries[i].failed << " failed"
                << (specs[i].provider.fictional ? " [fictional provider]" : "") << "\n";
    const auto html = write_combined_report(dirs, out);
    std::cout << "All results are EMULATED. Report: " << html.string() << " (also index.md, junit.xml, matrix.csv)\n";
    return exit_ok;
  };
}

}  // namespace neograde::app
