// Where a delivered instance is reached: the address chosen among those listed (never a
// special-purpose one while a global one is listed), and the SSH endpoint read as each
// provider's API states it, from JSON shaped as the documents and the providers' own clients
// show, and through each emulator.

#include <neograde/clients/endpoint.hpp>

#include <neograde/clients/provider_client.hpp>
#include <neograde/emulator/emulator.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>

using namespace neograde;
using nlohmann::json;

namespace {

std::string chosen(const std::vector<address_candidate>& c) {
  auto s = select_address(c);
  return s ? c[s->index].address : "(none)";
}

}  // namespace

TEST(SelectAddress, AGlobalAddressWinsOverEverySpecialPurposeOneListedBeforeIt) {
  for (const char* special : {"10.1.2.3", "172.16.0.9", "192.168.1.1", "100.64.0.1", "100.127.255.254", "127.0.0.1", "169.254.1.1",
                              "0.0.0.1", "198.51.100.7", "::1", "fe80::1", "fc00::1", "fd12::1", "::ffff:10.0.0.1", "2001:db8::1"}) {
    EXPECT_EQ(chosen({{special, std::nullopt}, {"203.0.114.9", std::nullopt}}), "203.0.114.9") << special;
    EXPECT_EQ(chosen({{special, true}, {"2a00:1450::1", false}}), "2a00:1450::1") << special << ": a public flag does not beat the class";
  }
}

TEST(SelectAddress, TheOnlyAddressListedIsAcceptedWhateverItIs) {
  // The emulator tests' loopback sshd: listed alone, it is the address.
  auto s = select_address({{"127.0.0.1", std::nullopt}});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 0u);
  EXPECT_NE(s->why.find("the only address listed"), std::string::npos) << s->why;
  EXPECT_EQ(chosen({{"", std::nullopt}, {"10.0.0.1", std::nullopt}}), "10.0.0.1");
  EXPECT_FALSE(select_address({}));
  EXPECT_FALSE(select_address({{"", true}}));
}

TEST(SelectAddress, AmongSpecialPurposeAddressesTheOneMarkedPublicThenTheFirst) {
  EXPECT_EQ(chosen({{"100.65.0.7", false}, {"127.0.0.1", true}}), "127.0.0.1");
  EXPECT_EQ(chosen({{"10.0.0.1", std::nullopt}, {"192.168.0.1", std::nullopt}}), "10.0.0.1");
  // Between two global addresses, the public flag decides; otherwise the order listed.
  EXPECT_EQ(chosen({{"203.0.114.1", false}, {"203.0.114.2", true}}), "203.0.114.2");
  EXPECT_EQ(chosen({{"203.0.114.1", std::nullopt}, {"203.0.114.2", std::nullopt}}), "203.0.114.1");
}

TEST(SelectAddress, TheWhySaysWhatWasPassedOver) {
  auto s = select_address({{"100.65.3.4", false}, {"194.26.196.10", true}});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 1u);
  EXPECT_NE(s->why.find("194.26.196.10 of 2 listed: the first global unicast address marked public"), std::string::npos) << s->why;
  EXPECT_NE(s->why.find("passed over: 100.65.3.4 (Shared Address Space (carrier-grade NAT), RFC 6598) marked not public"),
            std::string::npos)
      << s->why;
  auto v6 = select_address({{"fd00::5", std::nullopt}, {"2a01:4f8::2", std::nullopt}});
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->index, 1u);
  EXPECT_NE(v6->why.find("fd00::5 (Unique-Local, RFC 4193)"), std::string::npos) << v6->why;
}

TEST(ReadSshEndpoint, RunPodV2DirectThenThePublicPortOfThe22Mapping) {
  const auto& spec = *test::spec("runpod").ssh;
  json pod = {{"ssh", {{"proxy", nullptr}, {"direct", {{"host", "194.26.196.10"}, {"port", 40123}, {"username", "root"}}}}},
              {"runtime",
               {{"ports", json::array({{{"private", 8888}, {"public", 41000}, {"type", "http"}, {"ip", "194.26.196.10"}},
                                       {{"private", 22}, {"public", 40999}, {"type", "tcp"}, {"ip", "194.26.196.10"}}})}}}};
  auto e = read_ssh_endpoint(spec, pod, "194.26.196.10");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "194.26.196.10");
  EXPECT_EQ(e->port, 40123);
  EXPECT_EQ(e->user, "root");
  // Before ssh.direct is set: the 22 mapping's public port, never the 8888 one.
  pod["ssh"]["direct"] = nullptr;
  e = read_ssh_endpoint(spec, pod, "194.26.196.10");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->port, 40999);
  EXPECT_EQ(e->user, "root");  // the documented default
  // No public port yet: no endpoint, rather than port 22 on a host that does not listen there.
  pod["runtime"]["ports"][1]["public"] = nullptr;
  EXPECT_FALSE(read_ssh_endpoint(spec, pod, "194.26.196.10"));
}

TEST(ReadSshEndpoint, RunPodGraphqlTakesTheEntryMarkedPublic) {
  const auto& spec = *test::spec("runpod-graphql").ssh;
  json pod = {
      {"runtime",
       {{"ports",
         json::array({{{"ip", "100.65.12.7"}, {"isIpPublic", false}, {"privatePort", 22}, {"publicPort", 22}, {"type", "tcp"}},
                      {{"ip", "194.26.196.10"}, {"isIpPublic", true}, {"privatePort", 22}, {"publicPort", 17834}, {"type", "tcp"}},
                      {{"ip", "194.26.196.10"}, {"isIpPublic", true}, {"privatePort", 8888}, {"publicPort", 17835}, {"type", "http"}}})}}}};
  auto e = read_ssh_endpoint(spec, pod, std::nullopt);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "194.26.196.10");
  EXPECT_EQ(e->port, 17834);
  EXPECT_EQ(e->user, "root");
  EXPECT_NE(e->from.find("100.65.12.7"), std::string::npos) << "the record says what was passed over: " << e->from;
}

TEST(ReadSshEndpoint, RunPodGraphqlAddressIsThePublicEntrysNotTheFirst) {
  const auto& spec = test::spec("runpod-graphql");
  provider_client c(spec, "http://127.0.0.1:9", "k");
  json pod = {{"id", "p1"},
              {"desiredStatus", "RUNNING"},
              {"runtime",
               {{"ports", json::array({{{"ip", "10.2.0.4"}, {"isIpPublic", false}, {"privatePort", 22}, {"publicPort", 22}},
                                       {{"ip", "194.26.196.10"}, {"isIpPublic", true}, {"privatePort", 22}, {"publicPort", 17834}}})}}}};
  auto i = c.to_instance(pod);
  ASSERT_TRUE(i.ip);
  EXPECT_EQ(*i.ip, "194.26.196.10");
  EXPECT_NE(i.address_choice.find("passed over: 10.2.0.4 (Private-Use, RFC 1918)"), std::string::npos) << i.address_choice;
}

TEST(ReadSshEndpoint, VastaiDirectMappingThenTheProxy) {
  const auto& spec = *test::spec("vastai").ssh;
  json inst = {{"public_ipaddr", "203.0.114.45"},
               {"ssh_host", "ssh5.vast.ai"},
               {"ssh_port", 10600},
               {"ports", {{"22/tcp", json::array({{{"HostIp", "0.0.0.0"}, {"HostPort", "41234"}}})}}}};
  auto e = read_ssh_endpoint(spec, inst, "203.0.114.45");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "203.0.114.45");  // HostIp 0.0.0.0 names no host: the instance's address
  EXPECT_EQ(e->port, 41234);
  EXPECT_EQ(e->user, "root");
  inst.erase("ports");
  e = read_ssh_endpoint(spec, inst, "203.0.114.45");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "ssh5.vast.ai");
  EXPECT_EQ(e->port, 10600);
}

TEST(ReadSshEndpoint, PrimeIntellectConnectionStringInEachForm) {
  const auto& spec = *test::spec("primeintellect").ssh;
  for (const auto& [conn, host, port, user] : std::vector<std::tuple<json, std::string, int, std::string>>{
           {"root@1.2.3.4 -p 2222", "1.2.3.4", 2222, "root"},
           {"ubuntu@1.2.3.4", "1.2.3.4", 22, "ubuntu"},
           {"ubuntu@1.2.3.4:2022", "1.2.3.4", 2022, "ubuntu"},
           {json::array({"root@5.6.7.8", "-p", "40022"}), "5.6.7.8", 40022, "root"},
           {"ssh -o StrictHostKeyChecking=no -p 2200 root@5.6.7.8", "5.6.7.8", 2200, "root"}}) {
    auto e = read_ssh_endpoint(spec, {{"sshConnection", conn}}, std::nullopt);
    ASSERT_TRUE(e) << conn;
    EXPECT_EQ(e->host, host) << conn;
    EXPECT_EQ(e->port, port) << conn;
    EXPECT_EQ(e->user, user) << conn;
  }
  EXPECT_FALSE(read_ssh_endpoint(spec, {{"sshConnection", nullptr}}, "1.2.3.4")) << "not yet stated: no endpoint";
  EXPECT_FALSE(read_ssh_endpoint(spec, {{"sshConnection", "root@1.2.3.4 -p 99999"}}, std::nullopt));
}

TEST(ReadSshEndpoint, SpheronPortAndUserOfTheDeployment) {
  const auto& spec = *test::spec("spheron").ssh;
  auto e = read_ssh_endpoint(spec, {{"ipAddress", "203.0.114.8"}, {"sshPort", 30022}, {"user", "root"}}, "203.0.114.8");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "203.0.114.8");
  EXPECT_EQ(e->port, 30022);
  EXPECT_EQ(e->user, "root");
  e = read_ssh_endpoint(spec, {{"ipAddress", "203.0.114.8"}}, "203.0.114.8");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->port, 22);
  EXPECT_EQ(e->user, "ubuntu");  // the documented default
}

TEST(ReadSshEndpoint, WithoutDeclarationsTheAddressOnTheDefaultPort) {
  ssh_spec spec{.user = "ubuntu", .port = 22, .endpoints = {}, .source = "x"};
  auto e = read_ssh_endpoint(spec, json::object(), "203.0.114.8");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "203.0.114.8");
  EXPECT_EQ(e->port, 22);
  EXPECT_EQ(e->user, "ubuntu");
  EXPECT_FALSE(read_ssh_endpoint(spec, json::object(), std::nullopt));
}

// Each emulator states the endpoint it is told (the sshd's port and user) through the
// provider's own fields, and the client reads it back through the spec.
class EmulatedEndpoint : public ::testing::TestWithParam<std::string> {};

TEST_P(EmulatedEndpoint, TheClientReadsThePortAndUserTheEmulatorStates) {
  const auto& spec = test::spec(GetParam());
  ASSERT_TRUE(spec.ssh) << "the spec declares no ssh section";
  emulator::model_options m;
  m.api_keys = {"key-one"};
  m.time_scale = 0;
  m.instance_address = "127.0.0.1";
  m.instance_ssh_port = 40022;
  m.instance_ssh_user = "tester";
  emulator::emulator emu(spec, m);
  emu.start();
  provider_client c(spec, emu.base_url(), "key-one");
  auto sel = c.choose_offer();
  ASSERT_TRUE(sel.chosen) << sel.explanation;
  launch_request req{sel.chosen->instance_type, sel.chosen->region, "", "neograde-endpoint", sel.chosen->params, "ssh-ed25519 AAAA test"};
  auto id = c.id_by_name(c.launch(req), req.name);
  ASSERT_TRUE(id.value) << id.call.describe() << id.problem;
  auto got = c.get(*id.value);
  ASSERT_TRUE(got.value) << got.call.describe();
  ASSERT_EQ(got.value->state, instance_state::running);
  ASSERT_TRUE(got.value->ssh) << "no endpoint read from " << (got.call.response ? got.call.response->body : "");
  EXPECT_EQ(got.value->ssh->host, "127.0.0.1");
  EXPECT_EQ(got.value->ssh->port, 40022) << got.value->ssh->from;
  ASSERT_TRUE(got.value->ip);
  EXPECT_EQ(*got.value->ip, "127.0.0.1") << got.value->address_choice;
  // Where entries carry a public flag, the emulator lists a private entry first, as RunPod does:
  // the address and the endpoint pass over it.
  if (std::any_of(spec.ssh->endpoints.begin(), spec.ssh->endpoints.end(), [](const auto& d) { return !d.public_flag.empty(); })) {
    EXPECT_NE(got.value->address_choice.find("passed over: 10.0.0."), std::string::npos) << got.value->address_choice;
    EXPECT_NE(got.value->ssh->from.find("passed over: 10.0.0."), std::string::npos) << got.value->ssh->from;
  }
  // Where the API states a user, it is the one the emulator was given; elsewhere the default.
  const bool states_user = std::any_of(spec.ssh->endpoints.begin(), spec.ssh->endpoints.end(),
                                       [](const auto& d) { return !d.user.empty() || !d.connection.empty(); });
  EXPECT_EQ(got.value->ssh->user, states_user ? "tester" : spec.ssh->user);
  (void)c.terminate(*id.value);
}

INSTANTIATE_TEST_SUITE_P(Providers, EmulatedEndpoint, ::testing::Values("runpod", "runpod-graphql", "vastai", "primeintellect", "spheron"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::erase(n, '-');
                           return n;
                         });
