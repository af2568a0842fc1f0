#include <neograde/emulator/model.hpp>

#include <neograde/core/base64.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/core/signing.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include <ctime>
#include <set>

using namespace neograde;
using namespace neograde::emulator;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

class LambdaModel : public ::testing::Test {
 protected:
  explicit LambdaModel(quirk_set quirks = {}) {
    model_options o;
    o.api_keys = {"key-a", "key-b"};
    o.quirks = std::move(quirks);
    o.now = [this] { return now_; };
    model_ = std::make_unique<provider_model>(spec_, o);
  }

  http::response call(const std::string& method, const std::string& path, const std::string& body = {}, const std::string& key = "key-a") {
    http::request r{method, "/api/v1" + path, {}, body};
    if (!key.empty()) r.headers.emplace_back("Authorization", "Bearer " + key);
    return model_->handle(r);
  }
  static json body(const http::response& r) { return json::parse(r.body); }
  static std::string header(const http::response& r, const std::string& name) {
    for (const auto& [k, v] : r.headers)
      if (k == name) return v;
    return {};
  }

  std::string add_key(const std::string& key = "key-a") {
    auto r = call("POST", "/ssh-keys", R"({"name":"k","public_key":"ssh-ed25519 AAAA x"})", key);
    EXPECT_EQ(r.status, 200) << r.body;
    return body(r)["data"]["id"];
  }
  std::string launch(const std::string& type = "gpu_1x_a10", const std::string& region = "us-east-1", const std::string& key = "key-a") {
    auto r = call("POST", "/instance-operations/launch",
                  json{{"region_name", region}, {"instance_type_name", type}, {"ssh_key_names", {"k"}}, {"name", "n"}}.dump(), key);
    EXPECT_EQ(r.status, 200) << r.body;
    return r.status == 200 ? body(r)["data"]["instance_ids"][0].get<std::string>() : "";
  }
  std::string status_of(const std::string& id) { return body(call("GET", "/instances/" + id))["data"]["status"]; }

  const provider_spec& spec_ = test::spec("lambda");
  clock::time_point now_ = clock::now();
  std::unique_ptr<provider_model> model_;
};

// A provider's model with bearer keys ("key-a" alone unless others are given); call() with key ""
// sends no credentials.
struct bearer_model {
  explicit bearer_model(const provider_spec& spec, std::vector<std::string> keys = {"key-a"}) : model(spec, options(std::move(keys))) {}
  static model_options options(std::vector<std::string> keys) {
    model_options o;
    o.api_keys = std::move(keys);
    return o;
  }
  http::response call(const std::string& method, const std::string& path, const std::string& body = {}, const std::string& key = "key-a") {
    http::request r{method, path, {}, body};
    if (!key.empty()) r.headers.emplace_back("Authorization", "Bearer " + key);
    return model.handle(r);
  }
  provider_model model;
};

// A variant of Lambda's spec (its JSON edited by a test), played with the key "key-a"; call()
// sends under Lambda's /api/v1 with the key, launch() adds a key and launches a gpu_1x_a10 in
// us-east-1, returning the instance's id.
struct lambda_variant {
  explicit lambda_variant(const json& doc, std::function<clock::time_point()> now = {})
      : spec(parse_spec(doc.dump(), "lambda", spec_checks::model_only).value()), model(spec, options(std::move(now))) {}
  static model_options options(std::function<clock::time_point()> now) {
    model_options o;
    o.api_keys = {"key-a"};
    o.now = std::move(now);
    return o;
  }
  http::response call(const std::string& method, const std::string& path, const std::string& body = {}) {
    return model.handle(http::request{method, "/api/v1" + path, {{"Authorization", "Bearer key-a"}}, body});
  }
  std::string launch() {
    EXPECT_EQ(call("POST", "/ssh-keys", R"({"name":"k","public_key":"ssh-ed25519 AAAA x"})").status, 200);
    const auto r =
        call("POST", "/instance-operations/launch",
             json{{"region_name", "us-east-1"}, {"instance_type_name", "gpu_1x_a10"}, {"ssh_key_names", {"k"}}, {"name", "n"}}.dump());
    EXPECT_EQ(r.status, 200) << r.body;
    return r.status == 200 ? json::parse(r.body)["data"]["instance_ids"][0].get<std::string>() : "";
  }
  provider_spec spec;
  provider_model model;
};
}  // namespace

TEST_F(LambdaModel, MissingCredentialsAre401WithEnvelope) {
  auto r = call("GET", "/instances", "", "");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(body(r)["error"]["code"], "global/invalid-api-key");
  EXPECT_FALSE(header(r, "WWW-Authenticate").empty());
  EXPECT_EQ(header(r, "X-Neograde-Emulator"), "lambda");
}

TEST_F(LambdaModel, BasicAuthWithTheKeyAsUserNameIsAccepted) {
  http::request r{"GET", "/api/v1/instances", {{"Authorization", "Basic " + base64_encode("key-a:")}}, {}};
  EXPECT_EQ(model_->handle(r).status, 200);
  r.headers = {{"Authorization", "Basic " + base64_encode("nope:")}};
  EXPECT_EQ(model_->handle(r).status, 401);
}

TEST_F(LambdaModel, AccountsAreIsolated) {
  add_key();
  auto id = launch();
  EXPECT_EQ(call("GET", "/instances/" + id, "", "key-b").status, 404);
  EXPECT_TRUE(body(call("GET", "/instances", "", "key-b"))["data"].empty());
  EXPECT_EQ(call("POST", "/instance-operations/terminate", json{{"instance_ids", {id}}}.dump(), "key-b").status, 404);
  EXPECT_EQ(status_of(id), "booting");
}

TEST_F(LambdaModel, UnknownPathIs404AndWrongMethodIs405WithAllow) {
  EXPECT_EQ(call("GET", "/nowhere").status, 404);
  auto r = call("DELETE", "/instance-types");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(header(r, "Allow"), "GET");
}

// HEAD is GET without content, carrying the length GET's content has (RFC 9110 §9.3.2, §8.6), as
// most servers send it; errors too. OPTIONS is a 204, which has no length at all.
TEST_F(LambdaModel, HeadCarriesTheLengthOfGetAndNoContent) {
  add_key();
  (void)launch();
  const auto get = call("GET", "/instances");
  const auto head = call("HEAD", "/instances");
  ASSERT_EQ(get.status, 200) << get.body;
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty()) << head.body;
  EXPECT_GT(get.body.size(), 20u);
  EXPECT_EQ(header(head, "Content-Length"), std::to_string(get.body.size()));
  EXPECT_TRUE(header(get, "Content-Length").empty()) << "GET's length is the transport's to set";
  const auto unknown = call("HEAD", "/no-such-thing");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_TRUE(unknown.body.empty());
  EXPECT_EQ(header(unknown, "Content-Length"), std::to_string(call("GET", "/no-such-thing").body.size()));
  const auto options = call("OPTIONS", "/instances");
  EXPECT_EQ(options.status, 204);
  EXPECT_TRUE(header(options, "Content-Length").empty());
}

TEST(ModelHead, WithoutContentLengthWhenSwitchedOff) {
  model_options o;
  o.api_keys = {"key-a"};
  o.head_content_length = false;
  provider_model model(test::spec("lambda"), o);
  const auto head = model.handle({"HEAD", "/api/v1/instances", {{"Authorization", "Bearer key-a"}}, {}});
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
  for (const auto& [k, v] : head.headers) EXPECT_NE(k, "Content-Length") << v;
}

TEST_F(LambdaModel, MalformedAndInvalidBodiesAre400) {
  auto r = call("POST", "/instance-operations/launch", "{\"region_name\": ");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(body(r)["error"]["code"], "global/invalid-parameters");
  // quantity above 1 is rejected, as skypilot#7084 observed.
  r = call("POST", "/instance-operations/launch",
           R"({"region_name":"us-east-1","instance_type_name":"gpu_1x_a10","ssh_key_names":["k"],"quantity":2})");
  EXPECT_EQ(r.status, 400);
}

TEST_F(LambdaModel, InstanceBootsRunsTerminatesAndIsGone) {
  add_key();
  auto id = launch();
  EXPECT_EQ(status_of(id), "booting");
  EXPECT_TRUE(body(call("GET", "/instances/" + id))["data"]["ip"].is_null());
  now_ += 91s;
  EXPECT_EQ(status_of(id), "active");
  EXPECT_TRUE(body(call("GET", "/instances/" + id))["data"]["ip"].is_string());
  auto t = call("POST", "/instance-operations/terminate", json{{"instance_ids", {id}}}.dump());
  ASSERT_EQ(t.status, 200);
  EXPECT_EQ(body(t)["data"]["terminated_instances"][0]["id"], id);
  EXPECT_EQ(status_of(id), "terminating");
  now_ += 21s;
  EXPECT_EQ(status_of(id), "terminated");
  EXPECT_TRUE(body(call("GET", "/instances"))["data"].empty());
  EXPECT_EQ(model_->live_instances(), 0u);
  now_ += 61s;
  EXPECT_EQ(call("GET", "/instances/" + id).status, 404);
}

TEST_F(LambdaModel, RestartReturnsToActive) {
  add_key();
  auto id = launch();
  EXPECT_EQ(call("POST", "/instance-operations/restart", json{{"instance_ids", {id}}}.dump()).status, 400);
  now_ += 91s;
  ASSERT_EQ(call("POST", "/instance-operations/restart", json{{"instance_ids", {id}}}.dump()).status, 200);
  EXPECT_EQ(status_of(id), "booting");
  now_ += 91s;
  EXPECT_EQ(status_of(id), "active");
}

TEST_F(LambdaModel, CapacityIsFiniteAndRefusedWith400) {
  add_key();
  launch("gpu_1x_h100_pcie", "us-west-1");  // the only one
  auto offers = body(call("GET", "/instance-types"))["data"];
  EXPECT_TRUE(offers["gpu_1x_h100_pcie"]["regions_with_capacity_available"].empty());
  auto r = call("POST", "/instance-operations/launch",
                R"({"region_name":"us-west-1","instance_type_name":"gpu_1x_h100_pcie","ssh_key_names":["k"]})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(body(r)["error"]["code"], "instance-operations/launch/insufficient-capacity");
}

TEST_F(LambdaModel, UnknownTypeRegionAndKeyAreRejected) {
  add_key();
  auto bad = [&](const std::string& type, const std::string& region, const std::string& key) {
    return call("POST", "/instance-operations/launch",
                json{{"region_name", region}, {"instance_type_name", type}, {"ssh_key_names", {key}}}.dump())
        .status;
  };
  EXPECT_EQ(bad("gpu_9x_nothing", "us-east-1", "k"), 400);
  EXPECT_EQ(bad("gpu_1x_a10", "mars-1", "k"), 400);
  EXPECT_EQ(bad("gpu_1x_a10", "us-east-1", "no-such-key"), 400);
  EXPECT_EQ(model_->live_instances(), 0u);
}

TEST_F(LambdaModel, SshKeysAddListDeleteAndGeneratedPrivateKey) {
  auto id = add_key();
  EXPECT_EQ(body(call("GET", "/ssh-keys"))["data"].size(), 1u);
  auto gen = call("POST", "/ssh-keys", R"({"name":"generated"})");
  ASSERT_EQ(gen.status, 200);
  EXPECT_TRUE(body(gen)["data"]["private_key"].is_string());
  EXPECT_EQ(call("POST", "/ssh-keys", R"({"name":"k","public_key":"x"})").status, 400);  // duplicate name
  EXPECT_EQ(call("DELETE", "/ssh-keys/" + id).status, 200);
  EXPECT_EQ(call("DELETE", "/ssh-keys/" + id).status, 404);
  EXPECT_EQ(body(call("GET", "/ssh-keys"))["data"].size(), 1u);
}

TEST_F(LambdaModel, RateLimitAnswers429WithRetryAfter) {
  // The spec allows 20 requests/s with a burst of 60; time is frozen, so the 61st is refused.
  for (int i = 0; i < 60; ++i) ASSERT_EQ(call("GET", "/instances").status, 200) << i;
  auto r = call("GET", "/instances");
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(header(r, "Retry-After"), "1");
  EXPECT_TRUE(body(r)["error"].is_object());
  now_ += 1s;
  EXPECT_EQ(call("GET", "/instances").status, 200);
}

// RunPod v2 and DigitalOcean document their rate-limit headers on every authenticated
// response, not only on the 429: the emulator sends them where its bucket stands.
TEST(RateLimitHeaders, EveryAuthenticatedAnswerSaysWhereTheBucketStands) {
  for (const bool limited : {true, false}) {
    model_options o;
    o.api_keys = {"key-a"};
    o.rate_limit = limited;
    const auto now = clock::now();
    o.now = [now] { return now; };
    const auto header = [](const http::response& r, std::string_view name) {
      for (const auto& [k, v] : r.headers)
        if (k == name) return v;
      return std::string();
    };
    provider_model runpod(test::spec("runpod"), o);
    const http::request pods{"GET", runpod.base_path() + "/pods", {{"Authorization", "Bearer key-a"}}, {}};
    auto first = runpod.handle(pods);
    ASSERT_EQ(first.status, 200) << first.body;
    auto second = runpod.handle(pods);
    EXPECT_EQ(header(first, "RateLimit").substr(0, 13), limited ? "\"burst\";r=59;" : "\"burst\";r=60;");
    EXPECT_EQ(header(second, "RateLimit").substr(0, 13), limited ? "\"burst\";r=58;" : "\"burst\";r=60;");
    EXPECT_EQ(header(first, "RateLimit-Policy").substr(0, 13), "\"burst\";q=60;");
    EXPECT_TRUE(header(first, "Retry-After").empty());
    const http::request anonymous{"GET", runpod.base_path() + "/pods", {}, {}};
    EXPECT_TRUE(header(runpod.handle(anonymous), "RateLimit").empty()) << "a 401 is nobody's bucket";

    o.api_keys = {"key-do"};
    provider_model digitalocean(test::spec("digitalocean"), o);
    const http::request droplets{"GET", digitalocean.base_path() + "/v2/droplets", {{"Authorization", "Bearer key-do"}}, {}};
    auto r = digitalocean.handle(droplets);
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_FALSE(header(r, "ratelimit-limit").empty());
    EXPECT_EQ(std::stol(header(r, "ratelimit-remaining")), std::stol(header(r, "ratelimit-limit")) - (limited ? 1 : 0));
    EXPECT_FALSE(header(r, "ratelimit-reset").empty());
  }
}

class LambdaModelHtmlErrors : public LambdaModel {
 protected:
  LambdaModelHtmlErrors() : LambdaModel({"html_errors"}) {}
};

TEST_F(LambdaModelHtmlErrors, ErrorsBecomeHtmlPages) {
  auto r = call("GET", "/instances/nope");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(header(r, "Content-Type").rfind("text/html", 0), 0u);
}

TEST(SignedRequests, ATimestampFarFromNowIsRefusedNotOverflowed) {
  // Found by fuzzing: a timestamp in year 4052 overflowed the clock arithmetic of the replay
  // window check.
  model_options o;
  o.api_keys = make_api_keys(test::spec("crusoe"), 1);
  provider_model model(test::spec("crusoe"), o);
  for (const char* stamp : {"4052-11-29T18:01:07Z", "0007-01-01T00:00:00Z", "2026-13-45T99:99:99Z"}) {
    http::request r{"GET", model.base_path() + "/capacities", {{"X-Crusoe-Timestamp", stamp}, {"Authorization", "Bearer 1.0:a:b"}}, {}};
    EXPECT_EQ(model.handle(r).status, 401) << stamp;
  }
}

// DigitalOcean's reboot answers an action that completes later: GET /v2/actions/{id} reads
// in-progress until the droplet is back, then completed; another account cannot read it.
TEST(ModelActions, ARestartActionCompletesWhenTheInstanceIsBack) {
  const auto& spec = test::spec("digitalocean");
  auto now = clock::now();
  model_options o;
  o.api_keys = {"key-a", "key-b"};
  o.now = [&] { return now; };
  provider_model model(spec, o);
  auto call = [&](const std::string& method, const std::string& path, const std::string& body = {}, const std::string& key = "key-a") {
    http::request r{method, path, {{"Authorization", "Bearer " + key}}, body};
    return model.handle(r);
  };
  auto launched = call("POST", "/v2/droplets", R"({"name": "n", "region": "tor1", "size": "gpu-h100x1-80gb", "image": "gpu-h100x1-base"})");
  ASSERT_EQ(launched.status, 202) << launched.body;
  const auto droplet = json::parse(launched.body)["droplet"]["id"].dump();
  now += 1h;  // booted
  auto reboot = call("POST", "/v2/droplets/" + droplet + "/actions", R"({"type": "reboot"})");
  ASSERT_EQ(reboot.status, 201) << reboot.body;
  const auto action = json::parse(reboot.body)["action"];
  EXPECT_EQ(action["status"], "in-progress");
  ASSERT_TRUE(action["id"].is_number_integer());
  const auto path = "/v2/actions/" + action["id"].dump();
  EXPECT_EQ(json::parse(call("GET", path).body)["action"]["status"], "in-progress");
  EXPECT_EQ(call("GET", path, {}, "key-b").status, 404);
  EXPECT_EQ(call("GET", "/v2/actions/1").status, 404);
  now += 1h;
  auto done = call("GET", path);
  EXPECT_EQ(done.status, 200);
  EXPECT_EQ(json::parse(done.body)["action"]["status"], "completed");
  EXPECT_EQ(json::parse(done.body)["action"]["id"], action["id"]);
}

// DigitalOcean's power_off leaves the droplet off and its action completed; power_on reads off
// until the droplet runs again; each is refused where the droplet is not in the state it acts on.
// DELETE /v2/droplets?tag_name= archives exactly the droplets carrying the tag.
TEST(ModelActions, PowerOffAndOnChangeTheStatusAndDeleteByTagTakesExactlyTheTagged) {
  const auto& spec = test::spec("digitalocean");
  auto now = clock::now();
  model_options o;
  o.api_keys = {"key-a"};
  o.now = [&] { return now; };
  provider_model model(spec, o);
  auto call = [&](const std::string& method, const std::string& path, const std::string& body = {}) {
    http::request r{method, path, {{"Authorization", "Bearer key-a"}}, body};
    return model.handle(r);
  };
  auto launch = [&](const std::string& tag) {
    auto r = call("POST", "/v2/droplets",
                  R"({"name": "n", "region": "tor1", "size": "gpu-h100x1-80gb", "image": "gpu-h100x1-base", "tags": [")" + tag + "\"]}");
    EXPECT_EQ(r.status, 202) << r.body;
    return json::parse(r.body)["droplet"]["id"].dump();
  };
  auto status = [&](const std::string& id) {
    auto r = call("GET", "/v2/droplets/" + id);
    return r.status == 200 ? json::parse(r.body)["droplet"]["status"].get<std::string>() : std::to_string(r.status);
  };
  const auto a = launch("t"), b = launch("t"), c = launch("t-other");
  now += 1h;  // booted
  auto action = [&](const std::string& id, const char* type) {
    return call("POST", "/v2/droplets/" + id + "/actions", json{{"type", type}}.dump());
  };
  EXPECT_EQ(action(a, "power_on").status, 422);  // not off
  auto off = action(a, "power_off");
  ASSERT_EQ(off.status, 201) << off.body;
  EXPECT_EQ(status(a), "off");
  EXPECT_EQ(json::parse(call("GET", "/v2/actions/" + json::parse(off.body)["action"]["id"].dump()).body)["action"]["status"], "completed");
  EXPECT_EQ(action(a, "power_off").status, 422);  // already off
  ASSERT_EQ(action(a, "power_on").status, 201);
  EXPECT_EQ(status(a), "off");  // powering on
  now += 1h;
  EXPECT_EQ(status(a), "active");

  EXPECT_EQ(call("DELETE", "/v2/droplets?tag_name=t").status, 204);
  EXPECT_EQ(status(a), "404");
  EXPECT_EQ(status(b), "404");
  EXPECT_EQ(status(c), "active");
}

// DigitalOcean reports a key's MD5 fingerprint, and dots-wrapper users name keys by it; the
// account endpoint clients validate a token with is served (emulator.routes).
TEST(ModelDigitalOcean, KeysCarryTheirFingerprintAndTheAccountIsServed) {
  const auto& spec = test::spec("digitalocean");
  bearer_model m(spec);
  auto call = [&](const std::string& method, const std::string& path, const std::string& body, const std::string& key) {
    return m.call(method, path, body, key);
  };
  // ssh-keygen -l -E md5 of this key: MD5:14:a2:7d:75:47:30:0c:0b:2a:6c:7d:e0:17:fa:65:cb
  auto added = call(
      "POST", "/v2/account/keys",
      R"({"name": "k", "public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHlngHXef6Ji0H/0TmcVoQz5Zr1GqDb+2RccHAdN1sRn test"})", "key-a");
  ASSERT_EQ(added.status, 201) << added.body;
  EXPECT_EQ(json::parse(added.body)["ssh_key"]["fingerprint"], "14:a2:7d:75:47:30:0c:0b:2a:6c:7d:e0:17:fa:65:cb");
  auto account = call("GET", "/v2/account", {}, "key-a");
  ASSERT_EQ(account.status, 200);
  EXPECT_EQ(json::parse(account.body)["account"]["status"], "active");
  EXPECT_EQ(call("GET", "/v2/account", {}, "").status, 401);  // not an anonymous route
}

// Documented endpoints clients call and checks do not are served statically (emulator.routes):
// with credentials where the real API asks for them, without where it does not (Cudo's
// machine types, which gpuhunt reads anonymously).
TEST_F(LambdaModel, DocumentedRoutesAreServedWithTheirCredentials) {
  auto images = call("GET", "/images");
  ASSERT_EQ(images.status, 200) << images.body;
  EXPECT_FALSE(body(images)["data"].empty());
  EXPECT_EQ(call("GET", "/images", {}, "").status, 401);
  EXPECT_EQ(call("POST", "/images", "{}").status, 404);  // only the documented method

  model_options o;
  o.api_keys = {"key-a"};
  provider_model cudo(test::spec("cudo"), o);
  auto anonymous = cudo.handle(http::request{"GET", "/v1/vms/machine-types", {}, {}});
  ASSERT_EQ(anonymous.status, 200) << anonymous.body;
  EXPECT_TRUE(json::parse(anonymous.body).contains("machineTypes"));
}

// Crusoe's signed timestamp is an RFC 3339 date-time in any of its forms: dstack and gpuhunt
// send "+00:00" where the emulator once accepted only "Z" (finding CRU-timestamp).
TEST(SignedRequests, AnyRfc3339FormOfNowIsAcceptedAndAnOffsetIsApplied) {
  const auto& spec = test::spec("crusoe");
  model_options o;
  o.api_keys = make_api_keys(spec, 1);
  provider_model model(spec, o);
  const auto credentials = split_credentials(o.api_keys[0]);
  const std::string access = credentials.first, secret = credentials.second;
  auto status_at = [&](const std::string& stamp) {
    const auto path = model.base_path() + "/capacities";
    auto auth = hmac_authorization(spec.auth.schemes.front(), access, secret, "GET", "/capacities", "", stamp);
    http::request r{"GET", path, {{"X-Crusoe-Timestamp", stamp}, {"Authorization", auth.value_or("")}}, {}};
    return model.handle(r).status;
  };
  auto format = [](std::time_t t, const char* f) {
    char buf[64];
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::strftime(buf, sizeof buf, f, &tm);
    return std::string(buf);
  };
  const auto now = std::time(nullptr);
  EXPECT_EQ(status_at(format(now, "%Y-%m-%dT%H:%M:%SZ")), 200);
  EXPECT_EQ(status_at(format(now, "%Y-%m-%dT%H:%M:%S+00:00")), 200);
  EXPECT_EQ(status_at(format(now, "%Y-%m-%d %H:%M:%S.123456+00:00")), 200);
  EXPECT_EQ(status_at(format(now + 7200, "%Y-%m-%dT%H:%M:%S+02:00")), 200);  // the same instant, two hours east
  EXPECT_EQ(status_at(format(now, "%Y-%m-%dT%H:%M:%S+02:00")), 401);         // two hours ago
  EXPECT_EQ(status_at(format(now, "%Y-%m-%dT%H:%M:%S")), 401);               // no zone: not RFC 3339
}

// Crusoe answers a create with {operation} and serves the operation alone, IN_PROGRESS until the
// VM runs, then SUCCEEDED, with the VM id the create carried (finding CRU-operations: dstack
// waits on it after every create).
TEST(ModelActions, ACrusoeCreateOperationIsReadAloneUntilItSucceeds) {
  const auto& spec = test::spec("crusoe");
  auto now = clock::now();
  model_options o;
  o.api_keys = make_api_keys(spec, 1);
  o.now = [&] { return now; };
  provider_model model(spec, o);
  const auto credentials = split_credentials(o.api_keys[0]);
  auto call = [&](const std::string& method, const std::string& rel, const std::string& body) {
    char stamp[32];
    const auto t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    auto auth = hmac_authorization(spec.auth.schemes.front(), credentials.first, credentials.second, method, rel, "", stamp);
    return model.handle(
        http::request{method, model.base_path() + rel, {{"X-Crusoe-Timestamp", stamp}, {"Authorization", auth.value_or("")}}, body});
  };
  const std::string project = "/projects/" + spec.variables.at("project_id");
  auto created = call("POST", project + "/compute/vms/instances",
                      R"({"name": "n", "type": "a40.1x", "location": "us-northcentral1-a", "ssh_public_key": "ssh-ed25519 AAAA x"})");
  ASSERT_EQ(created.status, 200) << created.body;
  const auto operation = json::parse(created.body)["operation"];
  EXPECT_EQ(operation["state"], "IN_PROGRESS");
  const auto path = project + "/compute/vms/instances/operations/" + operation["operation_id"].get<std::string>();
  auto read = call("GET", path, {});
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(json::parse(read.body)["state"], "IN_PROGRESS");  // the operation alone, not wrapped
  now += 1h;
  read = call("GET", path, {});
  EXPECT_EQ(json::parse(read.body)["state"], "SUCCEEDED");
  EXPECT_EQ(json::parse(read.body)["metadata"]["id"], operation["metadata"]["id"]);
}

// Voltage Park's lists carry the SDK's whole envelope (finding VP-list-envelope).
TEST(ModelPagination, VoltageParkListsSayWhetherEarlierPagesExist) {
  const auto& spec = test::spec("voltagepark");
  model_options o;
  o.api_keys = {"key-a"};
  provider_model model(spec, o);
  auto list = [&](const std::string& query) {
    auto r =
        model.handle(http::request{"GET", model.base_path() + "/organization/ssh-keys?" + query, {{"Authorization", "Bearer key-a"}}, {}});
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body);
  };
  auto first = list("limit=1&offset=0");
  EXPECT_EQ(first["has_previous"], false);
  EXPECT_EQ(first["total_result_count"], 0);
  EXPECT_EQ(list("limit=1&offset=1")["has_previous"], true);
}

// Vast.ai's offer search is served without credentials (not with a made-up key), and its paths
// with or without the trailing slash its own CLI adds (findings VAST-noauth, VAST-trailing-slash).
TEST(ModelLeniency, VastServesItsPublicSearchAndTrailingSlashes) {
  const auto& spec = test::spec("vastai");
  bearer_model m(spec);
  auto call = [&](const std::string& method, const std::string& path, const std::string& body, const std::string& key) {
    return m.call(method, path, body, key);
  };
  const std::string search = R"({"type": "on-demand", "limit": 10})";
  EXPECT_EQ(call("POST", "/api/v0/bundles/", search, "").status, 200);
  EXPECT_EQ(call("POST", "/api/v0/bundles/", search, "made-up").status, 401);
  EXPECT_EQ(call("GET", "/api/v1/instances", {}, "").status, 401);  // an account's data stays private
  EXPECT_EQ(call("GET", "/api/v1/instances/", {}, "key-a").status, 200);
  EXPECT_EQ(call("GET", "/api/v1/instances", {}, "key-a").status, 200);
  // An unknown (or gone) instance reads as {"instances": null}, as vast-cli and dstack expect.
  auto absent = call("GET", "/api/v0/instances/424242/", {}, "key-a");
  EXPECT_EQ(absent.status, 200);
  EXPECT_TRUE(json::parse(absent.body)["instances"].is_null()) << absent.body;
  auto names = call("GET", "/api/v0/gpu_names/unique/", {}, "");  // what vast-cli reads at start-up
  ASSERT_EQ(names.status, 200);
  EXPECT_FALSE(json::parse(names.body)["gpu_names"].empty());
  // An id that is not an integer is refused for its form, as documented (emulator.malformed_id).
  for (const auto& [method, path] : {std::pair{"GET", "/api/v0/instances/neograde-none/"},
                                     {"DELETE", "/api/v0/instances/x1/"},
                                     {"PUT", "/api/v0/instances/reboot/abc/"}}) {
    auto r = call(method, path, {}, "key-a");
    EXPECT_EQ(r.status, 400) << method << " " << path << ": " << r.body;
    EXPECT_EQ(json::parse(r.body)["error"], "invalid_args") << r.body;
  }
  // Key registration vast-cli calls (finding VAST-ssh), with the trailing slash it adds.
  auto key = call("POST", "/api/v0/ssh/", R"({"ssh_key": "ssh-ed25519 AAAA x"})", "key-a");
  EXPECT_EQ(key.status, 200) << key.body;
  EXPECT_TRUE(json::parse(key.body)["key"].contains("public_key")) << key.body;
  EXPECT_EQ(call("POST", "/api/v0/ssh/", R"({"ssh_key": "x"})", "").status, 401);  // not anonymous
}

// The ports a launch asks Vast.ai to publish, as Docker -p options in env (dstack asks for
// `-p 10022:10022` and reads ports['10022/tcp'][0]['HostPort'], finding VAST-ports), are in the
// instance's ports map beside SSH's 22/tcp, each on a host port of its own.
TEST(ModelLeniency, VastPublishesThePortsALaunchAsksFor) {
  const auto& spec = test::spec("vastai");
  bearer_model m(spec);
  // A Vast.ai offer is one machine: each launch rents another.
  std::vector<std::string> asks;
  for (const auto& t : spec.emulator.at("instance_types")) asks.push_back("/api/v0/asks/" + t.at("name").get<std::string>() + "/");
  ASSERT_GE(asks.size(), 3u);
  for (const auto& env : {json{{"-p 10022:10022", "1"}, {"-e FOO", "bar"}}, json("-e FOO=bar -p 10022:10022 -p 8080/udp")}) {
    auto launched =
        m.call("PUT", asks.at(env.is_string() ? 1 : 0), json{{"image", "vastai/base-image"}, {"label", "ports"}, {"env", env}}.dump());
    ASSERT_EQ(launched.status, 200) << launched.body;
    const auto id = json::parse(launched.body)["new_contract"].dump();
    auto got = m.call("GET", "/api/v0/instances/" + id + "/");
    ASSERT_EQ(got.status, 200) << got.body;
    const auto ports = json::parse(got.body)["instances"]["ports"];
    ASSERT_TRUE(ports.contains("10022/tcp")) << ports;
    EXPECT_TRUE(ports.contains("22/tcp")) << ports;
    const auto host = ports["10022/tcp"][0]["HostPort"].get<std::string>();
    EXPECT_NE(host, ports["22/tcp"][0]["HostPort"].get<std::string>());
    EXPECT_EQ(ports.contains("8080/udp"), env.is_string()) << ports;
    EXPECT_FALSE(ports.contains("FOO/tcp")) << "an environment variable is not a port: " << ports;
  }
  // Without a request, the template's map alone.
  auto plain = m.call("PUT", asks.at(2), R"({"image": "vastai/base-image", "label": "plain"})");
  ASSERT_EQ(plain.status, 200) << plain.body;
  auto got = m.call("GET", "/api/v0/instances/" + json::parse(plain.body)["new_contract"].dump() + "/");
  EXPECT_EQ(json::parse(got.body)["instances"]["ports"].size(), 1u) << got.body;
}

// Vast.ai's SSH keys are the account's own (finding VAST-ssh-static), as vast-cli's create,
// show and delete ssh-key send them (vastai/api/keys.py): the key created is the key sent, the
// list is the account's (404 when it has none, as documented), another account sees none of it.
TEST(ModelVast, SshKeysAreAResourceOfTheAccount) {
  bearer_model m(test::spec("vastai"), {"key-a", "key-b"});
  auto call = [&](const std::string& method, const std::string& path, const std::string& body, const std::string& key) {
    return m.call(method, path, body, key);
  };
  const std::string mine = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHlngHXef6Ji0H/0TmcVoQz5Zr1GqDb+2RccHAdN1sRn mine";
  EXPECT_EQ(call("GET", "/api/v0/ssh/", {}, "key-a").status, 404);  // no keys yet
  auto added = call("POST", "/api/v0/ssh/", json{{"ssh_key", mine}}.dump(), "key-a");
  ASSERT_EQ(added.status, 200) << added.body;
  const auto key = json::parse(added.body);
  EXPECT_EQ(key["success"], true);
  EXPECT_EQ(key["key"]["public_key"], mine) << added.body;
  ASSERT_TRUE(key["key"]["id"].is_number_integer()) << added.body;
  const auto id = key["key"]["id"].dump();
  auto listed = call("GET", "/api/v0/ssh/", {}, "key-a");
  ASSERT_EQ(listed.status, 200) << listed.body;
  const auto keys = json::parse(listed.body);
  ASSERT_TRUE(keys.is_array() && keys.size() == 1) << listed.body;
  EXPECT_EQ(keys[0]["key"], mine);  // the list names the public half `key`
  EXPECT_EQ(keys[0]["id"].dump(), id);
  EXPECT_EQ(call("GET", "/api/v0/ssh/", {}, "key-b").status, 404) << "another account's keys are listed";
  EXPECT_GE(call("DELETE", "/api/v0/ssh/" + id + "/", {}, "key-b").status, 400) << "another account deleted the key";
  auto deleted = call("DELETE", "/api/v0/ssh/" + id + "/", {}, "key-a");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_EQ(json::parse(deleted.body), (json{{"success", true}}));
  EXPECT_EQ(call("GET", "/api/v0/ssh/", {}, "key-a").status, 404);
  EXPECT_EQ(call("POST", "/api/v0/ssh/", "{}", "key-a").status, 400);  // ssh_key is required
}

// Every offer carries the fields gpuhunt's Vast.ai provider reads from it unconditionally
// (src/gpuhunt/providers/vastai.py: cpu_cores and storage_cost among them; finding
// VAST-offer-fields).
TEST(ModelVast, OffersCarryWhatGpuhuntReads) {
  bearer_model m(test::spec("vastai"));
  auto r = m.call("POST", "/api/v0/bundles/", R"({"rentable": {"eq": true}, "rented": {"eq": false}})", "");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto offers = json::parse(r.body)["offers"];
  ASSERT_FALSE(offers.empty());
  for (const auto& offer : offers)
    for (const char* field : {"id", "cpu_cores", "cpu_ram", "cpu_cores_effective", "disk_space", "gpu_name", "gpu_ram", "dph_base",
                              "storage_cost", "num_gpus", "min_bid", "geolocation"})
      EXPECT_TRUE(offer.contains(field) && !offer[field].is_null()) << field << " missing from " << offer.dump();
}

// What SkyPilot's Spheron back-end calls beside the lifecycle (findings SPH-teams, SPH-sshkeys;
// sky/provision/spheron/spheron_utils.py): the teams, whose first id is the team the launch
// names, and the account's SSH keys, created, listed, deleted and seen by no other account.
TEST(ModelSpheron, TeamsAndSshKeysAsItsOfficialClientCallsThem) {
  const auto& spec = test::spec("spheron");
  bearer_model m(spec, {"key-a", "key-b"});
  auto call = [&](const std::string& method, const std::string& path, const std::string& body, const std::string& key) {
    return m.call(method, m.model.base_path() + path, body, key);
  };
  auto teams = call("GET", "/teams", {}, "key-a");
  ASSERT_EQ(teams.status, 200) << teams.body;
  EXPECT_EQ(json::parse(teams.body).at(0).at("id"), spec.variables.at("team_id")) << teams.body;
  const std::string mine = "ssh-ed25519 AAAA mine";
  auto added =
      call("POST", "/ssh-keys", json{{"name", "skypilot-host-12345678"}, {"publicKey", mine}, {"teamId", "team-0e5c2f"}}.dump(), "key-a");
  ASSERT_EQ(added.status, 200) << added.body;
  const auto id = json::parse(added.body).at("id").get<std::string>();
  auto listed = call("GET", "/ssh-keys", {}, "key-a");
  ASSERT_EQ(listed.status, 200) << listed.body;
  const auto keys = json::parse(listed.body);
  ASSERT_EQ(keys.size(), 1u) << listed.body;
  EXPECT_EQ(keys[0]["publicKey"], mine);  // how add_ssh_key_to_spheron finds an existing key
  EXPECT_EQ(keys[0]["id"], id);
  EXPECT_TRUE(json::parse(call("GET", "/ssh-keys", {}, "key-b").body).empty()) << "another account's keys are listed";
  EXPECT_EQ(call("DELETE", "/ssh-keys/" + id, {}, "key-a").status, 200);
  EXPECT_TRUE(json::parse(call("GET", "/ssh-keys", {}, "key-a").body).empty());
}

// Cudo's key endpoints, which its own Python client and dstack's back-end call (finding
// CUDO-sshkeys): served from static routes, with credentials only.
TEST(ModelLeniency, CudoServesItsKeyEndpoints) {
  bearer_model m(test::spec("cudo"));
  auto listed = m.call("GET", "/v1/ssh-keys");
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_TRUE(json::parse(listed.body)["sshKeys"].is_array()) << listed.body;
  auto created = m.call("POST", "/v1/ssh-keys", R"({"publicKey": "ssh-ed25519 AAAA x"})");
  ASSERT_EQ(created.status, 200) << created.body;
  EXPECT_TRUE(json::parse(created.body).contains("id")) << created.body;
  EXPECT_EQ(m.call("DELETE", "/v1/ssh-keys/k1").status, 200);
  EXPECT_EQ(m.call("GET", "/v1/ssh-keys", {}, "").status, 401);
}

// Paperspace launches with the real template ids SkyPilot sends for each machine type
// (skypilot-org/skypilot sky/provision/paperspace/constants.py:13-29 @a6558be INSTANCE_TO_TEMPLATEID;
// finding PS-template-ids): the templates listed are those ids, and a template that does not list
// the machine type is still refused.
TEST(ModelLeniency, PaperspaceLaunchesWithTheTemplatesSkyPilotSends) {
  bearer_model m(test::spec("paperspace"));
  const auto base = m.model.base_path();
  auto launch = [&](const std::string& type, const std::string& template_id) {
    return m.call("POST", base + "/machines",
                  json{{"name", "ps"},
                       {"machineType", type},
                       {"templateId", template_id},
                       {"diskSize", 100},
                       {"region", "ny2"},
                       {"publicIpType", "dynamic"},
                       {"startOnCreate", true}}
                      .dump());
  };
  for (const auto& [type, template_id] : {std::pair{"A4000", "twnlo3zj"}, {"P4000", "twnlo3zj"}, {"H100", "tilqt47t"}}) {
    auto r = launch(type, template_id);
    EXPECT_EQ(r.status, 200) << type << " with " << template_id << ": " << r.body;
  }
  auto listed = m.call("GET", base + "/os-templates");
  ASSERT_EQ(listed.status, 200) << listed.body;
  std::set<std::string> ids;
  const auto templates = json::parse(listed.body);
  for (const auto& t : templates["items"]) ids.insert(t["id"].get<std::string>());
  EXPECT_EQ(ids, (std::set<std::string>{"twnlo3zj", "tilqt47t"})) << listed.body;
  EXPECT_EQ(launch("H100", "twnlo3zj").status, 400);
}

// RunPod serves its gpuTypes catalogue query to anyone, and nothing else without a key
// (finding RPG-noauth): the anonymous operation is told by the query it names.
TEST(ModelLeniency, RunPodServesOnlyItsCatalogueQueryAnonymously) {
  bearer_model m(test::spec("runpod-graphql"));
  const auto base = m.model.base_path();
  auto catalogue = m.call("POST", base + "/graphql", R"({"query": "query GpuTypes { gpuTypes { id displayName } }"})", "");
  EXPECT_EQ(catalogue.status, 200) << catalogue.body;
  auto pods = m.call("POST", base + "/graphql", R"({"query": "query Pods { myself { pods { id } } }"})", "");
  EXPECT_EQ(pods.status, 401) << pods.body;
}

// runpod-python and dstack write GraphQL arguments inline, not as variables; a client gets
// exactly the fields it selects, under its aliases (findings RPG-inline-args, RPG-selection).
TEST(ModelGraphql, InlineArgumentsAndExactlyTheSelectedFields) {
  bearer_model m(test::spec("runpod-graphql"));
  auto post = [&](const std::string& query) { return m.call("POST", m.model.base_path() + "/graphql", json{{"query", query}}.dump()); };
  auto created = post(R"(mutation { podFindAndDeployOnDemand(input: {cloudType: SECURE, gpuCount: 1, name: "rp",
      imageName: "runpod/pytorch:x", gpuTypeId: "NVIDIA GeForce RTX 4090", containerDiskInGb: 50, ports: "22/tcp",
      startSsh: true, supportPublicIp: true}) { id imageName desiredStatus } })");
  ASSERT_EQ(created.status, 200) << created.body;
  const auto pod = json::parse(created.body)["data"]["podFindAndDeployOnDemand"];
  ASSERT_TRUE(pod.is_object()) << created.body;
  EXPECT_EQ(pod.size(), 3u) << pod.dump();  // exactly the selection
  EXPECT_TRUE(pod.contains("imageName") && pod.contains("desiredStatus"));
  const auto id = pod["id"].get<std::string>();
  auto read = post("query { thePod: pod(input: {podId: \"" + id + "\"}) { id } }");
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(json::parse(read.body)["data"], (json{{"thePod", {{"id", id}}}}));
  EXPECT_EQ(post("query { pod(input: {podId: ").status, 400);  // a query that does not parse
}

// runpod-python's get_gpu asks gpuTypes(input: {id}) and takes the first of the list; an unknown
// id answers an empty list (finding RPG-gputype-filter, the spec's graphql.filters).
TEST(ModelGraphql, GpuTypesFilteredByTheClientsId) {
  bearer_model m(test::spec("runpod-graphql"));
  auto post = [&](const std::string& query, const json& variables = json::object()) {
    auto r = m.call("POST", m.model.base_path() + "/graphql", json{{"query", query}, {"variables", variables}}.dump());
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body)["data"]["gpuTypes"];
  };
  const auto all = post("query { gpuTypes { id } }");
  ASSERT_GT(all.size(), 1u);
  const auto id = all[1]["id"].get<std::string>();
  EXPECT_EQ(post("query { gpuTypes(input: {id: \"" + id + "\"}) { id } }"), json::array({{{"id", id}}}));
  EXPECT_EQ(post("query G($id: String) { gpuTypes(input: {id: $id}) { id } }", {{"id", id}}), json::array({{{"id", id}}}));
  EXPECT_EQ(post("query { gpuTypes(input: {id: \"Not a GPU\"}) { id } }"), json::array());
}

// gpuhunt reads RunPod's catalogue with the queries below, all without an API key: the catalogue
// roots beside gpuTypes (countryCodes, dataCenters, cpuFlavors), alone or together, and each
// type's lowestPrice and cluster fields (finding RPG-selection).
TEST(ModelGraphql, CatalogueRootsAndLowestPriceAsGpuhuntReadsThem) {
  bearer_model m(test::spec("runpod-graphql"));
  auto anonymous = [&](const std::string& query, const json& variables = json::object()) {
    auto r = m.call("POST", m.model.base_path() + "/graphql", json{{"query", query}, {"variables", variables}}.dump(), "");
    EXPECT_EQ(r.status, 200) << query << ": " << r.body;
    return json::parse(r.body)["data"];
  };
  // gpu_types_query
  const auto types = anonymous(R"(query GpuTypes { countryCodes dataCenters { id name listed __typename }
      gpuTypes { maxGpuCount id displayName memoryInGb secureCloud communityCloud __typename } })");
  ASSERT_TRUE(types["countryCodes"].is_array()) << types;
  EXPECT_FALSE(types["countryCodes"].empty());
  ASSERT_FALSE(types["dataCenters"].empty()) << types;
  EXPECT_EQ(types["dataCenters"][0].size(), 3u) << "id, name and listed, as selected: " << types["dataCenters"][0];
  EXPECT_TRUE(types["dataCenters"][0]["listed"].is_boolean());
  EXPECT_FALSE(types["gpuTypes"].empty());
  EXPECT_TRUE(types["gpuTypes"][0]["maxGpuCount"].is_number_integer());
  // query_pod_types, with lowestPrice's input as a variable
  const auto pods =
      anonymous(R"(query GpuTypes($lowestPriceInput: GpuLowestPriceInput, $gpuTypesInput: GpuTypeFilter) {
      gpuTypes(input: $gpuTypesInput) { lowestPrice(input: $lowestPriceInput) { minimumBidPrice uninterruptablePrice
      minVcpu minMemory stockStatus } id nodeGroupDatacenters { id } clusterPrice securePrice communityPrice memoryInGb } })",
                {{"gpuTypesInput", {{"cluster", false}}}, {"lowestPriceInput", {{"gpuCount", 2}, {"dataCenterId", "US-KS-2"}}}});
  ASSERT_FALSE(pods["gpuTypes"].empty()) << pods;
  for (const auto& t : pods["gpuTypes"]) {
    ASSERT_TRUE(t["lowestPrice"].is_object()) << t;
    EXPECT_EQ(t["lowestPrice"].size(), 5u) << t["lowestPrice"];
    EXPECT_TRUE(t["lowestPrice"]["minVcpu"].is_number()) << t;
    EXPECT_TRUE(t["nodeGroupDatacenters"].is_array()) << t;
    EXPECT_TRUE(t.contains("clusterPrice")) << t;
  }
  // cpu_data_centers_query and query_cpu_flavors: roots alone, no operation of the spec
  const auto dcs = anonymous("query CpuDataCenters { dataCenters { id listed } }");
  EXPECT_EQ(dcs.size(), 1u) << dcs;
  EXPECT_EQ(dcs["dataCenters"].size(), types["dataCenters"].size());
  const auto flavors = anonymous(R"(query CpuFlavors($dataCenterId: String!) { cpuFlavors { id displayName
      specifics(input: { dataCenterId: $dataCenterId }) { stockStatus securePrice } } })",
                                 {{"dataCenterId", "US-KS-2"}});
  EXPECT_TRUE(flavors["cpuFlavors"].is_array()) << flavors;
  // A root the spec does not serve is not answered as if it were a catalogue root.
  auto mixed = m.call("POST", m.model.base_path() + "/graphql", json{{"query", "query { dataCenters { id } myself { id } }"}}.dump(), "");
  EXPECT_EQ(mixed.status, 401) << mixed.body;
}

namespace {

// A RunPod model on a clock the test moves, with one bearer key "key-a" (and "key-b").
struct runpod_model {
  explicit runpod_model(const std::string& spec) : model(test::spec(spec), options(this)) {}
  static model_options options(runpod_model* self) {
    model_options o;
    o.api_keys = {"key-a", "key-b"};
    o.instance_ssh_port = 34446;
    o.now = [self] { return self->now; };
    return o;
  }
  json call(const std::string& method, const std::string& path, const json& body = nullptr, const std::string& key = "key-a",
            int status = 200) {
    auto r = model.handle(http::request{method,
                                        model.base_path() + path,
                                        {{"Authorization", "Bearer " + key}, {"Content-Type", "application/json"}},
                                        body.is_null() ? "" : body.dump()});
    EXPECT_EQ(r.status, status) << method << " " << path << ": " << r.body;
    return json::parse(r.body, nullptr, false);
  }
  clock::time_point now = clock::now();
  provider_model model;
};

}  // namespace

// A v2 pod's runtime is null unless RUNNING, and a running pod states its 22/tcp mapping in full
// (PodRuntimePort {private, public, type, ip}) and ssh.direct {host, port, username, command},
// as the official listPods example shows them (finding RPV2-address; RunPod's MCP server reads
// them, runpod/docs api-reference-v2/openapi.json:4964-4994 @a900806).
TEST(ModelRunPodV2, RuntimeNullUntilRunningThenTheSshMappingInFull) {
  runpod_model m("runpod");
  const auto created = m.call("POST", "/pods",
                              {{"name", "p"},
                               {"gpu", {{"id", "NVIDIA GeForce RTX 4090"}, {"count", 1}}},
                               {"image", "runpod/pytorch:1.0.2-cu1281-torch280-ubuntu2404"},
                               {"ports", {"22/tcp"}}},
                              "key-a", 201);
  ASSERT_TRUE(created.contains("id")) << created;
  EXPECT_TRUE(created["runtime"].is_null()) << created;
  EXPECT_TRUE(created["ssh"]["direct"].is_null()) << created;
  const auto id = created["id"].get<std::string>();
  EXPECT_TRUE(m.call("GET", "/pods/" + id)["runtime"].is_null());
  m.now += 61s;
  const auto pod = m.call("GET", "/pods/" + id);
  ASSERT_EQ(pod["status"], "RUNNING") << pod;
  ASSERT_TRUE(pod["runtime"].is_object()) << pod;
  const auto ip = pod["runtime"]["ports"][0]["ip"];
  ASSERT_TRUE(ip.is_string()) << pod;
  EXPECT_EQ(pod["runtime"]["ports"], (json::array({{{"private", 22}, {"public", 34446}, {"type", "tcp"}, {"ip", ip}}})));
  EXPECT_EQ(pod["ssh"]["direct"],
            (json{{"host", ip}, {"port", 34446}, {"username", "root"}, {"command", "ssh root@" + ip.get<std::string>() + " -p 34446"}}));
  EXPECT_EQ(m.call("GET", "/pods")["pods"][0]["ssh"]["direct"], pod["ssh"]["direct"]);  // listPods alike
}

// GET/PUT /v2/account/ssh-keys as RunPod's MCP server calls them (get-ssh-keys, update-ssh-keys:
// @runpod/mcp-server 4.0.0; finding RPV2-sshkeys): the whole set replaced, per account.
TEST(ModelRunPodV2, AccountSshKeysAreOneSetReplacedWhole) {
  runpod_model m("runpod");
  const std::string a = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHlngHXef6Ji0H/0TmcVoQz5Zr1GqDb+2RccHAdN1sRn a";
  const std::string b = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILXGDN/SclOozk1xsDztpmhGiKkkrfQB9SKoO8dSIQQZ me@example.com";
  EXPECT_EQ(m.call("GET", "/account/ssh-keys"), (json{{"keys", json::array()}}));
  EXPECT_EQ(m.call("PUT", "/account/ssh-keys", {{"keys", {a, b}}}), (json{{"keys", {a, b}}}));
  EXPECT_EQ(m.call("PUT", "/account/ssh-keys", {{"keys", {b}}}), (json{{"keys", {b}}}));  // a replaced, not merged
  EXPECT_EQ(m.call("GET", "/account/ssh-keys"), (json{{"keys", {b}}}));
  EXPECT_EQ(m.call("GET", "/account/ssh-keys", nullptr, "key-b"), (json{{"keys", json::array()}}));  // another account's set
  (void)m.call("PUT", "/account/ssh-keys", {{"keys", {"not a key"}}}, "key-a", 400);
  EXPECT_EQ(m.call("PUT", "/account/ssh-keys", {{"keys", json::array()}}), (json{{"keys", json::array()}}));
  EXPECT_EQ(m.call("GET", "/account/ssh-keys"), (json{{"keys", json::array()}}));
}

// GraphQL runtime is null until the pod has initialised (dstack waits for runtime != null), then
// lists the 22/tcp mapping with every field runpod-python and dstack select, one entry public
// (finding RPG-runtime-ports); runpod-python's whole pod query is answered field for field
// (runpod/runpod-python runpod/api/queries/pods.py generate_pod_query @6e0cec0).
TEST(ModelRunPodGraphql, RuntimeNullUntilInitialisedThenEverySelectedPortField) {
  runpod_model m("runpod-graphql");
  auto post = [&](const std::string& query) { return m.call("POST", "/graphql", {{"query", query}})["data"]; };
  const auto created = post(R"(mutation { podFindAndDeployOnDemand(input: {cloudType: SECURE, gpuCount: 1, name: "rp",
      imageName: "runpod/pytorch:x", gpuTypeId: "NVIDIA GeForce RTX 4090", ports: "22/tcp", supportPublicIp: true})
      { id desiredStatus runtime { ports { ip isIpPublic privatePort publicPort type } } } })")["podFindAndDeployOnDemand"];
  ASSERT_TRUE(created.contains("id")) << created;
  EXPECT_EQ(created["desiredStatus"], "RUNNING");
  EXPECT_TRUE(created.contains("runtime") && created["runtime"].is_null()) << created;
  const auto id = created["id"].get<std::string>();
  const std::string query = "query pod { pod(input: {podId: \"" + id +
                            "\"}) { id containerDiskInGb costPerHr desiredStatus dockerArgs dockerId env gpuCount imageName "
                            "lastStatusChange machineId memoryInGb name podType port ports uptimeSeconds vcpuCount volumeInGb "
                            "volumeMountPath runtime { ports { ip isIpPublic privatePort publicPort type } } machine { "
                            "gpuDisplayName gpuAvailable maintenanceStart maintenanceEnd maintenanceNote } } }";
  auto pod = post(query)["pod"];
  EXPECT_EQ(pod.size(), 22u) << "every selected field: " << pod;
  EXPECT_TRUE(pod["runtime"].is_null()) << pod;
  m.now += 61s;
  pod = post(query)["pod"];
  ASSERT_TRUE(pod["runtime"].is_object()) << pod;
  EXPECT_EQ(pod["machine"].size(), 5u) << pod;
  std::size_t public_ssh = 0;
  for (const auto& port : pod["runtime"]["ports"]) {
    EXPECT_EQ(port.size(), 5u) << port;
    for (const auto* field : {"ip", "isIpPublic", "privatePort", "publicPort", "type"}) EXPECT_FALSE(port[field].is_null()) << port;
    if (port["isIpPublic"] == true && port["privatePort"] == 22 && port["type"] == "tcp" && port["publicPort"] == 34446) ++public_ssh;
  }
  EXPECT_EQ(public_ssh, 1u) << pod["runtime"];
}

namespace {

// Prime Intellect's emulator as its own CLI (PrimeIntellect-ai/prime packages/prime/src/prime_cli
// @66fb4b7) and SkyPilot (sky/provision/primeintellect/utils.py @eb021ac) call it: paths without
// the trailing slash the document has, followed through FastAPI's 307, and the reads beside the
// lifecycle (status of many pods, history, SSH keys, multi-node availability).
class PrimeIntellectModel : public ::testing::Test {
 protected:
  PrimeIntellectModel() {
    model_options o;
    o.api_keys = {"key-a", "key-b"};
    o.now = [this] { return now_; };
    model_ = std::make_unique<provider_model>(spec_, o);
  }
  http::response call(const std::string& method, const std::string& target, const std::string& body = {},
                      const std::string& key = "key-a") {
    http::request r{method, target, {}, body};
    if (!key.empty()) r.headers.emplace_back("Authorization", "Bearer " + key);
    return model_->handle(r);
  }
  static std::string location(const http::response& r) {
    for (const auto& [k, v] : r.headers)
      if (k == "Location") return v;
    return {};
  }
  // What httpx (follow_redirects=True) and requests do with a 307: the same method and body to
  // the Location.
  http::response followed(const std::string& method, const std::string& target, const std::string& body = {},
                          const std::string& key = "key-a") {
    auto r = call(method, target, body, key);
    for (int hops = 0; r.status == 307 && hops < 3; ++hops) r = call(method, location(r), body, key);
    return r;
  }
  // prime pods create's body (commands/pods.py:808-835), for the A100 offer.
  std::string launch(const std::string& key = "key-a") {
    const json pod = {{"pod",
                       {{"name", "neograde-pi"},
                        {"cloudId", "NVIDIA A100 80GB PCIe"},
                        {"gpuType", "A100_80GB"},
                        {"socket", "PCIe"},
                        {"gpuCount", 1},
                        {"diskSize", 120},
                        {"vcpus", 14},
                        {"memory", 125},
                        {"image", "ubuntu_22_cuda_12"},
                        {"dataCenterId", "US-KS-2"},
                        {"maxPrice", nullptr},
                        {"country", nullptr},
                        {"security", nullptr},
                        {"jupyterPassword", nullptr},
                        {"autoRestart", false},
                        {"customTemplateId", nullptr},
                        {"envVars", nullptr}}},
                      {"provider", {{"type", "runpod"}}},
                      {"disks", nullptr},
                      {"team", nullptr}};
    auto r = followed("POST", "/api/v1/pods", pod.dump(), key);  // PodsClient.create, pods.py:207
    EXPECT_EQ(r.status, 200) << r.body;
    return r.status == 200 ? json::parse(r.body)["id"].get<std::string>() : "";
  }
  json read(const std::string& target, const std::string& key = "key-a") {
    auto r = followed("GET", target, {}, key);
    EXPECT_EQ(r.status, 200) << target << ": " << r.body;
    return r.status == 200 ? json::parse(r.body) : json();
  }

  const provider_spec& spec_ = test::spec("primeintellect");
  clock::time_point now_ = clock::now();
  std::unique_ptr<provider_model> model_;
};

}  // namespace

// FastAPI's redirect_slashes: a path lacking the document's trailing slash is answered 307 to the
// slashed path with the query kept, before credentials are read; the slashed path is served.
TEST_F(PrimeIntellectModel, AMissingTrailingSlashIsRedirectedWithItsQuery) {
  for (const auto* key : {"key-a", ""}) {
    auto r = call("GET", "/api/v1/pods?offset=0&limit=100", {}, key);  // PodsClient.list, pods.py:172
    EXPECT_EQ(r.status, 307) << r.body;
    EXPECT_EQ(location(r), "/api/v1/pods/?offset=0&limit=100");
    EXPECT_TRUE(r.body.empty());
  }
  EXPECT_EQ(location(call("POST", "/api/v1/pods", "{}")), "/api/v1/pods/");
  EXPECT_EQ(location(call("GET", "/api/v1/ssh_keys")), "/api/v1/ssh_keys/");  // SkyPilot utils.py:299-303
  // ...and a slash the served path does not have is taken away, as Starlette's router does.
  EXPECT_EQ(location(call("GET", "/api/v1/pods/status/?pod_ids=x")), "/api/v1/pods/status?pod_ids=x");
  EXPECT_EQ(call("GET", "/api/v1/pods/?offset=0&limit=100").status, 200);
  EXPECT_EQ(call("GET", "/api/v1/pods/", {}, "").status, 401);  // the served path still needs credentials
  EXPECT_EQ(call("GET", "/api/v1/nothing-here").status, 404);   // no served path is one slash away
  const auto listed = read("/api/v1/pods?offset=0&limit=100");
  EXPECT_EQ(listed["total_count"], 0) << listed;
  EXPECT_FALSE(launch().empty());
}

// GET /pods/status?pod_ids=a&pod_ids=b (pods.py:179-188, httpx repeating the list parameter) is the
// status read of those pods, not the pod named "status": each agrees with its single read, and
// sshConnection is null until the pod is ACTIVE, then root@<ip> -p 22 (what prime pods connect
// waits for, commands/pods.py:1052-1068).
TEST_F(PrimeIntellectModel, StatusOfManyPodsAgreesWithSingleReads) {
  const auto a = launch();
  const auto b = launch();
  const auto theirs = launch("key-b");
  const auto target = "/api/v1/pods/status?pod_ids=" + a + "&pod_ids=" + b + "&pod_ids=" + theirs + "&pod_ids=unknown";
  auto status = read(target);
  ASSERT_EQ(status["data"].size(), 2u) << status;  // another account's pod and an unknown id are left out
  EXPECT_EQ(status["data"][0]["podId"], a);
  EXPECT_EQ(status["data"][1]["podId"], b);
  EXPECT_EQ(status["data"][0]["status"], "PROVISIONING");
  EXPECT_TRUE(status["data"][0]["sshConnection"].is_null());
  now_ += 121s;
  status = read(target);
  ASSERT_EQ(status["data"].size(), 2u) << status;
  for (const auto& s : status["data"]) {
    const auto pod = read("/api/v1/pods/" + s["podId"].get<std::string>());
    EXPECT_EQ(s["status"], "ACTIVE");
    EXPECT_EQ(s["status"], pod["status"]);
    EXPECT_EQ(s["ip"], pod["ip"]);
    EXPECT_EQ(s["providerType"], pod["providerType"]);
    ASSERT_TRUE(s["sshConnection"].is_string()) << s;
    EXPECT_EQ(s["sshConnection"], "root@" + pod["ip"].get<std::string>() + " -p 22");
    EXPECT_EQ(s["sshConnection"], pod["sshConnection"]);
    std::set<std::string> members;
    for (const auto& [k, _] : s.items()) members.insert(k);
    EXPECT_EQ(members, (std::set<std::string>{"podId", "providerType", "status", "sshConnection", "ip", "installationStatus",
                                              "installationFailure", "installationProgress"}))
        << s;  // APIPodStatusResponse's members, not the pod's
  }
  EXPECT_EQ(read("/api/v1/pods/status")["data"], json::array());
}

// GET /pods/history?offset=0&limit=100 (pods.py:227-240) lists terminated pods with terminatedAt,
// also once they have left the list and the get; a running pod and another account's are not in it.
TEST_F(PrimeIntellectModel, HistoryListsTerminatedPodsAfterTheyAreGone) {
  const auto ended = launch();
  const auto running = launch();
  const auto theirs = launch("key-b");
  now_ += 3721s;
  EXPECT_EQ(read("/api/v1/pods/history?offset=0&limit=100")["data"], json::array());
  EXPECT_TRUE(read("/api/v1/pods/" + ended)["terminatedAt"].is_null());
  ASSERT_EQ(call("DELETE", "/api/v1/pods/" + ended).status, 200);
  ASSERT_EQ(call("DELETE", "/api/v1/pods/" + theirs, {}, "key-b").status, 200);
  EXPECT_TRUE(read("/api/v1/pods/" + ended)["terminatedAt"].is_string());
  now_ += 61s;
  EXPECT_EQ(call("GET", "/api/v1/pods/" + ended).status, 404);
  const auto history = read("/api/v1/pods/history?offset=0&limit=100");
  EXPECT_EQ(history["total_count"], 1) << history;
  ASSERT_EQ(history["data"].size(), 1u) << history;
  const auto& h = history["data"][0];
  EXPECT_EQ(h["id"], ended);
  EXPECT_EQ(h["name"], "neograde-pi");
  EXPECT_EQ(h["type"], "Instance");
  EXPECT_EQ(h["gpuName"], "A100_80GB");
  EXPECT_EQ(h["providerType"], "runpod");
  ASSERT_TRUE(h["terminatedAt"].is_string()) << h;
  EXPECT_EQ(h["terminatedAt"].get<std::string>().size(), 20u) << h;  // 2026-12-03T17:00:00Z
  EXPECT_NEAR(h["totalBilledPrice"].get<double>(), 1.6568 * 3721 / 3600, 0.01) << h;
  EXPECT_FALSE(h.contains("status")) << h;  // HistoryObj has none
  EXPECT_FALSE(h.contains("walletId")) << h;
  (void)running;
  EXPECT_EQ(read("/api/v1/pods/history", "key-b")["data"][0]["id"], theirs);
}

// SkyPilot's get_or_add_ssh_key (utils.py:299-322): list, add one named skypilot-<suffix>, each
// without the trailing slash; the key is the account's own until deleted.
TEST_F(PrimeIntellectModel, SshKeysAreAnAccountResource) {
  EXPECT_EQ(read("/api/v1/ssh_keys")["data"], json::array());
  const std::string pub = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPrimeIntellectTestKey user@host";
  auto added = followed("POST", "/api/v1/ssh_keys", json{{"name", "skypilot-1a2b3c4d"}, {"publicKey", pub}}.dump());
  ASSERT_EQ(added.status, 200) << added.body;
  const auto key = json::parse(added.body);
  EXPECT_EQ(key["name"], "skypilot-1a2b3c4d");
  EXPECT_EQ(key["publicKey"], pub);
  for (const char* member : {"id", "userId", "isPrimary", "isUserKey", "createdAt", "updatedAt"})  // APISSHKeyConfig's required
    EXPECT_TRUE(key.contains(member)) << member << " in " << key;
  const auto listed = read("/api/v1/ssh_keys");
  ASSERT_EQ(listed["data"].size(), 1u) << listed;
  EXPECT_EQ(listed["data"][0]["publicKey"], pub);
  EXPECT_EQ(listed["total_count"], 1);
  EXPECT_EQ(read("/api/v1/ssh_keys", "key-b")["data"], json::array());
  EXPECT_EQ(followed("POST", "/api/v1/ssh_keys", json{{"name", "k"}}.dump()).status, 422);  // publicKey is required
  EXPECT_EQ(call("DELETE", "/api/v1/ssh_keys/" + key["id"].get<std::string>(), {}, "key-b").status, 404);
  EXPECT_EQ(call("DELETE", "/api/v1/ssh_keys/" + key["id"].get<std::string>()).status, 200);
  EXPECT_EQ(read("/api/v1/ssh_keys")["data"], json::array());
}

// AvailabilityClient.get reads /availability/gpus and /availability/multi-node page by page
// (availability.py:109-128, 165-166): the multi-node read has the catalogue's shape and lists
// the emulator's multi-node offers, of which it sells none.
TEST_F(PrimeIntellectModel, MultiNodeAvailabilityIsTheCataloguesMultiNodeOffers) {
  const auto single = read("/api/v1/availability/gpus?page=1&page_size=100");
  EXPECT_EQ(single["items"].size(), 3u) << single;
  EXPECT_EQ(single["totalCount"], 3);
  const auto multi = read("/api/v1/availability/multi-node?page=1&page_size=100");
  EXPECT_EQ(multi["items"], json::array()) << multi;
  EXPECT_EQ(multi["totalCount"], 0) << multi;
}

// A field of the enclosing item (offer_fields "^/...") is written in the provider's unit, as a
// row's own are: Shadeform prices an instance type in integer cents beside its availability
// rows (hourly_price), which a catalogue with rows read as the dollars it meant.
TEST(EmulatorOfferRows, AnEnclosingItemsPriceIsWrittenInItsScale) {
  auto doc = test::spec_json("spheron");
  doc["offer_fields"]["price_per_hour_usd"] = {{"pointer", "^/priceCents"}, {"scale", 0.01}};
  auto spec = parse_spec(doc.dump(), "spheron", spec_checks::model_only);
  ASSERT_TRUE(spec.has_value()) << spec.error().what();
  model_options o;
  o.api_keys = {"key-a"};
  provider_model model(*spec, o);
  const auto r = model.handle(http::request{"GET", "/api/gpu-offers?page=1&limit=100", {}, {}});
  ASSERT_EQ(r.status, 200) << r.body;
  const auto items = json::parse(r.body)["data"];
  ASSERT_FALSE(items.empty());
  // The first type sells at 0.62 USD an hour: 62 cents, an integer.
  EXPECT_EQ(items[0]["priceCents"], 62) << items[0];
  EXPECT_TRUE(items[0]["priceCents"].is_number_integer());
}

// What the states already say is not written again (issue 41.4): without `phases`, an instance is
// played through the words the states document (the first by name of each state: Lambda's pending
// words are booting and unhealthy, its terminated words preempted and terminated), and without
// `regions` the emulator serves the regions its types have capacity in.
TEST(EmulatorDefaults, PhasesComeFromTheStatesAndRegionsFromTheCapacity) {
  auto doc = test::spec_json("lambda");
  doc["emulator"].erase("phases");
  doc["emulator"].erase("regions");
  auto now = clock::now();
  lambda_variant lambda(doc, [&] { return now; });
  const auto id = lambda.launch();  // in us-east-1: refused as an unknown region if the default were not the capacity's
  ASSERT_FALSE(id.empty());
  const auto status = [&] { return json::parse(lambda.call("GET", "/instances/" + id).body)["data"]["status"].get<std::string>(); };
  EXPECT_EQ(status(), "booting");
  now += 91s;
  EXPECT_EQ(status(), "active");
  ASSERT_EQ(lambda.call("POST", "/instance-operations/terminate", json{{"instance_ids", {id}}}.dump()).status, 200);
  EXPECT_EQ(status(), "preempted");
}

// A spec whose states name no running word, and whose emulator names none either, cannot be played.
TEST(EmulatorDefaults, NoRunningWordAnywhereIsRefusedWithTheReason) {
  auto doc = test::spec_json("lambda");
  doc["emulator"].erase("phases");
  doc["states"].erase("active");
  auto spec = parse_spec(doc.dump(), "lambda", spec_checks::model_only);
  ASSERT_TRUE(spec.has_value()) << spec.error().what();
  try {
    provider_model model(*spec, model_options{});
    FAIL() << "a spec with no running word was played";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no running word"), std::string::npos) << e.what();
  }
}

namespace {

// Lambda with its terminate naming the instance in the query, as Jarvislabs' and Denvr's do.
nlohmann::json lambda_terminating_by_query() {
  auto doc = test::spec_json("lambda");
  doc["operations"]["terminate"] = {{"method", "POST"},
                                    {"path", "/instance-operations/destroy?instance_id={id}"},
                                    {"source", "a test's variant of Lambda's terminate, the id in the query"}};
  return doc;
}

}  // namespace

// An instance named in the query (Jarvislabs' POST templates/vm/destroy?machine_id={id}, Denvr's
// GET .../GetServer?Id={id}): the template's query part binds the variable as a path would.
TEST(EmulatorQueryVariables, AnIdInTheQueryNamesTheInstance) {
  lambda_variant lambda(lambda_terminating_by_query());
  const auto id = lambda.launch();
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(lambda.call("POST", "/instance-operations/destroy?instance_id=no-such-instance").status, 404);
  EXPECT_EQ(lambda.model.live_instances(), 1u);
  const auto t = lambda.call("POST", "/instance-operations/destroy?instance_id=" + id);
  EXPECT_EQ(t.status, 200) << t.body;
  EXPECT_EQ(json::parse(lambda.call("GET", "/instances/" + id).body)["data"]["status"], "terminating");
}

// A query is read decoded, as a web framework reads it: an id sent percent-encoded names the
// instance (a client that encodes every value is no less right); a malformed escape is read as
// written, and names nothing.
TEST(EmulatorQueryVariables, AQueryValueIsReadDecoded) {
  lambda_variant lambda(lambda_terminating_by_query());
  const auto id = lambda.launch();
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(lambda.call("POST", "/instance-operations/destroy?instance_id=%G1" + id).status, 404);
  char first[4];
  std::snprintf(first, sizeof first, "%%%02X", static_cast<unsigned char>(id.front()));
  const auto t = lambda.call("POST", "/instance-operations/destroy?instance%5Fid=" + std::string(first) + id.substr(1));
  EXPECT_EQ(t.status, 200) << t.body;
  EXPECT_EQ(json::parse(lambda.call("GET", "/instances/" + id).body)["data"]["status"], "terminating");
}

// A region under a parent that holds more (Latitude.sh's /attributes/site), where the emulator has
// no region object to write, is written beside the parent's other members: the empty object was
// written over the whole parent, wiping them.
TEST(EmulatorRegions, ARegionUnderAParentKeepsItsSiblings) {
  auto doc = test::spec_json("lambda");
  doc["instance_fields"]["region"] = "/placement/site";
  doc["emulator"]["instance_template"]["placement"] = {{"rack", "r1"}};
  for (auto& [name, region] : doc["emulator"]["regions"].items()) region = json::object();
  lambda_variant lambda(doc);
  const auto id = lambda.launch();
  ASSERT_FALSE(id.empty());
  const auto inst = json::parse(lambda.call("GET", "/instances/" + id).body)["data"];
  EXPECT_EQ(inst["placement"]["rack"], "r1") << inst;
  EXPECT_EQ(inst["placement"]["site"], "us-east-1") << inst;
}
