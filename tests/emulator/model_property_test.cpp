// The emulated Lambda API as a state machine: RapidCheck generates random sequences of launch,
// get, list, terminate, restart and the passing of time, each checked against a model of what the
// documented API must answer. (Instance ids come from the system, so the sequence is driven here
// rather than with rc::state's id-free commands.)

#include <neograde/emulator/model.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <map>

using namespace neograde;
using namespace neograde::emulator;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

enum class phase { booting, active, restarting, terminating, terminated };

// What the documented API must show: each instance's phase and the time left in it.
struct model {
  std::map<std::string, phase> instances;
  std::map<std::string, std::chrono::seconds> left;  // until the next phase
  int a10_in_us_east = 0;                            // live instances using the 4 slots there
};

struct system_under_test {
  clock::time_point now = clock::now();
  provider_model emu;
  explicit system_under_test(const provider_spec& spec)
      : emu(spec, [this] {
          model_options o;
          o.api_keys = {"k"};
          o.rate_limit = false;
          o.now = [this] { return now; };
          return o;
        }()) {}
  http::response call(const std::string& method, const std::string& path, const json& body = nullptr) {
    return emu.handle({method, "/api/v1" + path, {{"Authorization", "Bearer k"}}, body.is_null() ? "" : body.dump()});
  }
};

}  // namespace

// rc::state needs apply() to be deterministic on the model; ids are the emulator's, so the
// sequence is driven in two layers: RapidCheck picks operations, and the test keeps the model in
// step with the ids the emulator returned.
RC_GTEST_PROP(LambdaModelProperty, RandomOperationSequencesMatchTheModel, ()) {
  constexpr int capacity = 4;  // gpu_1x_a10 in us-east-1, from the spec's emulator catalogue
  system_under_test s(test::spec("lambda"));
  RC_ASSERT(s.call("POST", "/ssh-keys", {{"name", "key"}, {"public_key", "ssh-ed25519 AAAA x"}}).status == 200);
  model m;
  const auto steps = *rc::gen::inRange(1, 40);
  for (int step = 0; step < steps; ++step) {
    const int choice = *rc::gen::inRange(0, 6);
    std::vector<std::string> ids;
    for (const auto& [id, p] : m.instances) ids.push_back(id);
    if (choice == 0) {  // launch
      auto r = s.call("POST", "/instance-operations/launch",
                      {{"region_name", "us-east-1"}, {"instance_type_name", "gpu_1x_a10"}, {"ssh_key_names", {"key"}}, {"name", "n"}});
      if (m.a10_in_us_east >= capacity) {
        RC_ASSERT(r.status == 400);
        RC_ASSERT(json::parse(r.body)["error"]["code"] == "instance-operations/launch/insufficient-capacity");
      } else {
        RC_ASSERT(r.status == 200);
        const auto id = json::parse(r.body)["data"]["instance_ids"][0].get<std::string>();
        RC_ASSERT(!m.instances.contains(id));
        m.instances[id] = phase::booting;
        m.left[id] = 90s;
        ++m.a10_in_us_east;
      }
    } else if (choice == 1 && !ids.empty()) {  // terminate
      const auto id = *rc::gen::elementOf(ids);
      auto r = s.call("POST", "/instance-operations/terminate", {{"instance_ids", {id}}});
      if (m.instances[id] == phase::terminated) {
        RC_ASSERT(r.status == 404 || r.status == 200);
      } else {
        RC_ASSERT(r.status == 200);
        if (m.instances[id] != phase::terminating) {
          m.instances[id] = phase::terminating;
          m.left[id] = 20s;
        }
      }
    } else if (choice == 2 && !ids.empty()) {  // restart
      const auto id = *rc::gen::elementOf(ids);
      auto r = s.call("POST", "/instance-operations/restart", {{"instance_ids", {id}}});
      if (m.instances[id] == phase::active) {
        RC_ASSERT(r.status == 200);
        m.instances[id] = phase::restarting;
        m.left[id] = 90s;
      } else {
        RC_ASSERT(r.status == 400 || r.status == 404);
      }
    } else if (choice == 3) {  // time passes, less than any single delay so each phase is seen
      const auto dt = std::chrono::seconds(*rc::gen::inRange(1, 19));
      s.now += dt;
      for (auto& [id, p] : m.instances) {
        if (p == phase::terminated) continue;
        m.left[id] -= dt;
        if (m.left[id] > 0s) continue;
        if (p == phase::booting || p == phase::restarting) p = phase::active;
        else if (p == phase::terminating) {
          p = phase::terminated;
          --m.a10_in_us_east;
        }
      }
    } else if (choice == 4) {  // list: exactly the instances not terminated
      auto r = s.call("GET", "/instances");
      RC_ASSERT(r.status == 200);
      std::set<std::string> listed;
      const auto doc = json::parse(r.body);
      for (const auto& i : doc["data"]) listed.insert(i["id"].get<std::string>());
      std::set<std::string> expected;
      for (const auto& [id, p] : m.instances)
        if (p != phase::terminated) expected.insert(id);
      RC_ASSERT(listed == expected);
    } else if (!ids.empty()) {  // get: the documented status word for the phase
      const auto id = *rc::gen::elementOf(ids);
      auto r = s.call("GET", "/instances/" + id);
      if (m.instances[id] == phase::terminated && r.status == 404) continue;  // gone after its linger
      RC_ASSERT(r.status == 200);
      const auto status = json::parse(r.body)["data"]["status"].get<std::string>();
      static const std::map<phase, std::string> words{{phase::booting, "booting"},
                                                      {phase::active, "active"},
                                                      {phase::restarting, "booting"},
                                                      {phase::terminating, "terminating"},
                                                      {phase::terminated, "terminated"}};
      const auto p = m.instances[id];
      RC_ASSERT(status == words.at(p));
      // An address once running; it stays through a restart.
      RC_ASSERT(json::parse(r.body)["data"]["ip"].is_string() == (p == phase::active || p == phase::restarting));
    }
  }
  // Capacity: the offers listing says us-east-1 has room exactly when fewer than 4 run there.
  const auto catalogue = json::parse(s.call("GET", "/instance-types").body);
  const auto& offers = catalogue["data"]["gpu_1x_a10"]["regions_with_capacity_available"];
  bool listed = false;
  for (const auto& r : offers) listed = listed || r["name"] == "us-east-1";
  RC_ASSERT(listed == (m.a10_in_us_east < capacity));
}
