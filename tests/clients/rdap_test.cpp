// The RDAP client (clients/rdap.hpp) against the RDAP emulator (emulator/rdap.hpp) on loopback:
// bootstrap, longest prefix, redirects, errors, rate limits, hostile answers, the registrant
// rules; and the special-purpose classification and vCard reading on their own. Nothing here
// reaches the network or waits: retries go through a recorded sleep.

#include <neograde/clients/rdap.hpp>

#include <neograde/emulator/emulator.hpp>
#include <neograde/emulator/rdap.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace neograde;
using namespace std::chrono_literals;
using nlohmann::json;
using rdap::lookup_status;

namespace {

// The special-purpose block an address falls in ("" for none).
std::string block(const std::string& address) {
  auto b = rdap::special_purpose(address);
  return b ? b->prefix + " " + b->reference : "";
}

TEST(RdapSpecialPurpose, Ipv4Registries) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"10.1.2.3", "10.0.0.0/8 RFC 1918"},
      {"172.16.0.1", "172.16.0.0/12 RFC 1918"},
      {"172.31.255.255", "172.16.0.0/12 RFC 1918"},
      {"172.32.0.1", ""},
      {"192.168.10.1", "192.168.0.0/16 RFC 1918"},
      {"100.64.0.1", "100.64.0.0/10 RFC 6598"},
      {"100.127.255.254", "100.64.0.0/10 RFC 6598"},
      {"100.128.0.1", ""},
      {"127.0.0.1", "127.0.0.0/8 RFC 1122"},
      {"169.254.169.254", "169.254.0.0/16 RFC 3927"},
      {"0.1.2.3", "0.0.0.0/8 RFC 791, RFC 6890"},
      {"192.0.0.8", "192.0.0.0/24 RFC 6890"},
      {"192.0.2.5", "192.0.2.0/24 RFC 5737"},
      {"198.51.100.7", "198.51.100.0/24 RFC 5737"},
      {"203.0.113.9", "203.0.113.0/24 RFC 5737"},
      {"198.18.0.1", "198.18.0.0/15 RFC 2544"},
      {"198.19.255.255", "198.18.0.0/15 RFC 2544"},
      {"198.20.0.1", ""},
      {"192.88.99.1", "192.88.99.0/24 RFC 7526"},
      {"224.0.0.1", "224.0.0.0/4 RFC 5771"},
      {"239.255.255.255", "224.0.0.0/4 RFC 5771"},
      {"240.0.0.1", "240.0.0.0/4 RFC 1112"},
      {"255.255.255.255", "255.255.255.255/32 RFC 919, RFC 8190"},
      {"8.8.8.8", ""},
      {"1.1.1.1", ""},
      {"223.255.255.255", ""},
  };
  for (const auto& [address, expected] : cases) EXPECT_EQ(block(address), expected) << address;
}

TEST(RdapSpecialPurpose, Ipv6Registries) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"::1", "::1/128 RFC 4291"},
      {"::", "::/128 RFC 4291"},
      {"fe80::1", "fe80::/10 RFC 4291"},
      {"fc00::1", "fc00::/7 RFC 4193"},
      {"fd12:3456::1", "fc00::/7 RFC 4193"},
      {"ff02::1", "ff00::/8 RFC 4291"},
      {"2001:db8::1", "2001:db8::/32 RFC 3849"},
      {"3fff:1::1", "3fff::/20 RFC 9637"},
      {"2002:c000:204::1", "2002::/16 RFC 3056"},
      {"64:ff9b::102:304", "64:ff9b::/96 RFC 6052"},
      {"64:ff9b:1::1", "64:ff9b:1::/48 RFC 8215"},
      {"100::1", "100::/64 RFC 6666"},
      {"2001::1", "2001::/23 RFC 2928"},
      {"5f00::1", "5f00::/16 RFC 9602"},
      {"4000::1", "4000::/2 RFC 4291 §2.4"},
      {"1234::1", "::/3 RFC 4291 §2.4"},
      {"2001:200::1", ""},
      {"2600::1", ""},
      {"2a00:1450::1", ""},
      {"2d00:1::10", ""},  // IANA-reserved, but global unicast: the emulator's fictional space
      // IPv4-mapped addresses are classified as their IPv4 address.
      {"::ffff:10.0.0.1", "10.0.0.0/8 RFC 1918"},
      {"::ffff:8.8.8.8", ""},
  };
  for (const auto& [address, expected] : cases) EXPECT_EQ(block(address), expected) << address;
  EXPECT_FALSE(rdap::special_purpose("not an address"));
  EXPECT_FALSE(rdap::special_purpose(""));
  EXPECT_FALSE(rdap::special_purpose("10.0.0.0/8"));
}

TEST(RdapVcard, ReadsLeniently) {
  EXPECT_FALSE(rdap::read_vcard(json("vcard")).valid);
  EXPECT_FALSE(rdap::read_vcard(json::array({"vcard"})).valid);
  EXPECT_FALSE(rdap::read_vcard(json::array({"vcard", json::object()})).valid);
  EXPECT_FALSE(rdap::read_vcard(json::array({"jcard", json::array()})).valid);
  auto props = json::parse(R"([
    ["fn", {}, "text"],
    5, null, "fn",
    [7, {}, "text", "a property without a name"],
    ["FN", {}, "text", "Example Cloud Holdings", "a second value"],
    ["fn", {}, "text", "A later fn"],
    ["org", {}, "text", ["", "Example Org", "Unit"]],
    ["adr", "not parameters", "text", null],
    ["adr", {"cc": "ZZ", "label": "1 Example Way\nExampleland"}, "text", ["", "", "", "", "", "", ""]],
    ["kind", {}, "text", ["org"]]
  ])");
  auto v = rdap::read_vcard(json::array({"vcard", props}));
  EXPECT_TRUE(v.valid);
  EXPECT_EQ(v.fn, "Example Cloud Holdings");
  EXPECT_EQ(v.org, "Example Org");
  EXPECT_EQ(v.kind, "org");
  EXPECT_EQ(v.adr_cc, "ZZ");
  EXPECT_EQ(v.adr_label, "1 Example Way\nExampleland");
  // A structured fn is joined with spaces; null values read as nothing.
  auto joined = rdap::read_vcard(json::parse(R"(["vcard", [["fn", {}, "text", ["Example", "", "Cloud", 3]], ["org", {}, "text", null]]])"));
  EXPECT_EQ(joined.fn, "Example Cloud");
  EXPECT_EQ(joined.org, "");
}

TEST(RdapNetwork, ReadsMembersAndRejectsWrongTypes) {
  rdap::address_owner out;
  auto doc = json::parse(R"({
    "objectClassName": "ip network", "handle": "NET-X", "name": "EXAMPLE", "startAddress": "010.000.000.000",
    "endAddress": "10.0.0.255/32", "country": "Q",
    "cidr0_cidrs": [{"v4prefix": "10.0.0.0", "length": 24}, {"v4prefix": "10.0.1.0", "length": -1}, {"length": 8}, "x"],
    "arin_originas0_originautnums": [64500, "AS64501", "64502", "ASX", -1, 1e30, null],
    "entities": [{"roles": ["registrant"], "handle": "EX-ONE-MNT"}]
  })");
  ASSERT_TRUE(rdap::read_ip_network(doc, out)) << out.error;
  EXPECT_EQ(out.start_address, "10.0.0.0");
  EXPECT_EQ(out.end_address, "10.0.0.255");
  EXPECT_EQ(out.cidrs, std::vector<std::string>{"10.0.0.0/24"});
  ASSERT_TRUE(out.origin_as);
  EXPECT_EQ(*out.origin_as, (std::vector<std::int64_t>{64500, 64501, 64502}));
  EXPECT_EQ(out.country, "");  // "Q" is not a country code
  EXPECT_FALSE(out.org) << "a maintainer is never the organisation";

  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {R"({"objectClassName": "ip network", "country": 5})", "member \"country\" is a number"},
           {R"({"objectClassName": "ip network", "entities": {}})", "member \"entities\" is a object"},
           {R"({"objectClassName": ["ip network"]})", "not \"ip network\""},
           {R"({"handle": "X"})", "no objectClassName"},
           {R"({"notices": [{"title": "Rate Limit Notice", "description": ["10 queries per minute"]}]})", "rate limited"},
           {R"("ip network")", "is a JSON string"},
           {R"(null)", "is a JSON null"},
       }) {
    rdap::address_owner o;
    EXPECT_FALSE(rdap::read_ip_network(json::parse(text), o)) << text;
    EXPECT_NE(o.error.find(expected), std::string::npos) << text << " -> " << o.error;
  }
  // An empty origin-AS array is no origin AS published.
  rdap::address_owner empty;
  ASSERT_TRUE(rdap::read_ip_network(json::parse(R"({"objectClassName": "ip network", "arin_originas0_originautnums": []})"), empty));
  EXPECT_FALSE(empty.origin_as);
  EXPECT_TRUE(empty.to_json()["origin_as"].is_null());
}

std::string temp_file(const std::string& name, const std::string& content) {
  auto path = std::filesystem::temp_directory_path() / ("neograde-rdap-test-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << content;
  return path.string();
}

class Rdap : public ::testing::Test {
 protected:
  void SetUp() override { start(false); }

  void start(bool tls) {
    emu_.reset();
    registry_ = std::make_shared<emulator::rdap_emulator>(emulator::rdap_emulator::default_prefix, tls);
    emulator::model_options m;
    m.api_keys = {"k1"};
    emulator::server_options server;
    server.tls = tls;
    server.intercept = emulator::serve(registry_);
    emu_ = std::make_unique<emulator::emulator>(test::spec("lambda"), m, server);
    emu_->start();
  }

  [[nodiscard]] std::string origin() const {
    const auto base = emu_->base_url();
    return base.substr(0, base.find('/', base.find("://") + 3));
  }
  [[nodiscard]] std::string url(const std::string& path) const { return origin() + emulator::rdap_emulator::default_prefix + path; }

  [[nodiscard]] rdap::lookup_options options() {
    rdap::lookup_options o;
    o.bootstrap_url = url("bootstrap/");
    o.step_timeout = 5s;
    o.sleep = [this](std::chrono::milliseconds d) { waits_.push_back(d); };
    return o;
  }

  rdap::address_owner lookup(const std::string& address) { return rdap::lookup_ip_owner(address, options()); }

  std::shared_ptr<emulator::rdap_emulator> registry_;
  std::unique_ptr<emulator::emulator> emu_;
  std::vector<std::chrono::milliseconds> waits_;
};

TEST_F(Rdap, SpecialPurposeAddressesAreAnsweredWithoutAQuery) {
  for (const char* address : {"10.0.0.1", "100.64.1.1", "198.51.100.7", "fd00::1", "::ffff:192.168.0.1"}) {
    auto r = lookup(address);
    EXPECT_EQ(r.status, lookup_status::special_purpose) << address << ": " << r.error;
    ASSERT_TRUE(r.special) << address;
    auto j = r.to_json();
    EXPECT_EQ(j["status"], "special_purpose");
    EXPECT_EQ(j["special_purpose"]["prefix"], r.special->prefix);
    EXPECT_TRUE(j["network"].is_null());
    EXPECT_TRUE(j["rdap_server"].is_null());
    EXPECT_NE(r.reason.find("not queried"), std::string::npos) << r.reason;
  }
  EXPECT_EQ(lookup("::ffff:192.168.0.1").address, "192.168.0.1");
  EXPECT_TRUE(registry_->requests().empty());
}

TEST_F(Rdap, BootstrapFindsTheRegistryAndTheRegistrantOrganisation) {
  auto r = lookup("2d00:1:0:0::10");
  ASSERT_EQ(r.status, lookup_status::found) << r.error;
  EXPECT_EQ(r.address, "2d00:1::10");
  EXPECT_EQ(r.bootstrap, url("bootstrap/ipv6.json"));
  EXPECT_EQ(r.server, url("rir1/"));
  EXPECT_EQ(r.query_url, url("rir1/ip/2d00:1::10"));
  EXPECT_EQ(r.final_url, r.query_url);
  EXPECT_EQ(r.network_handle, "NET6-2D00-1-1");
  EXPECT_EQ(r.network_name, "EXAMPLE-CLOUD-V6");
  EXPECT_EQ(r.start_address, "2d00:1::");
  EXPECT_EQ(r.end_address, "2d00:1:ffff:ffff:ffff:ffff:ffff:ffff");
  EXPECT_EQ(r.cidrs, std::vector<std::string>{"2d00:1::/32"});
  EXPECT_EQ(r.parent_handle, "NET6-2D00-0-0");
  ASSERT_TRUE(r.org);
  EXPECT_EQ(r.org->name, "Example Cloud Holdings");
  EXPECT_EQ(r.org->handle, "EXCH");
  EXPECT_EQ(r.org->role, "registrant");
  EXPECT_EQ(r.org->kind, "org");
  // No network country (ARIN sends none): the registrant address's cc parameter.
  EXPECT_EQ(r.country, "ZZ");
  EXPECT_EQ(r.country_source, "registrant address cc");
  ASSERT_TRUE(r.origin_as);
  EXPECT_EQ(*r.origin_as, (std::vector<std::int64_t>{64500, 64501}));
  EXPECT_EQ(r.origin_as_source, "arin_originas0_originautnums");
  EXPECT_EQ(registry_->requests(), (std::vector<std::string>{"bootstrap/ipv6.json", "rir1/ip/2d00:1::10"}));

  // The recorded layout (docs/address-owner.md).
  auto j = r.to_json();
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"address", "bootstrap", "country", "country_source", "error", "final_url", "http_status",
                                            "network", "organisation", "origin_as", "origin_as_source", "query_url", "rdap_server",
                                            "reason", "redirects", "retry_after_s", "special_purpose", "status"}));
  EXPECT_EQ(j["status"], "found");
  EXPECT_EQ(j["organisation"]["name"], "Example Cloud Holdings");
  EXPECT_EQ(j["organisation"]["role"], "registrant");
  EXPECT_EQ(j["network"]["cidrs"], json::array({"2d00:1::/32"}));
  EXPECT_EQ(j["origin_as"], json::array({64500, 64501}));
  EXPECT_EQ(j["http_status"], 200);
  EXPECT_TRUE(j["error"].is_null());
  EXPECT_TRUE(j["redirects"].empty());
}

TEST_F(Rdap, TheLongestBootstrapPrefixWins) {
  auto r = lookup("2d00:8::1");
  ASSERT_EQ(r.status, lookup_status::found) << r.error;
  EXPECT_EQ(r.server, url("rir2/")) << "the base URL gains its trailing slash";
  ASSERT_TRUE(r.org);
  EXPECT_EQ(r.org->name, "Example Longest Prefix Networks");
}

TEST_F(Rdap, AnRdapUrlReplacesTheBootstrap) {
  auto o = options();
  o.rdap_url = url("rir1");
  auto r = rdap::lookup_ip_owner("2d00:1::10", o);
  ASSERT_EQ(r.status, lookup_status::found) << r.error;
  EXPECT_EQ(r.bootstrap, "");
  EXPECT_EQ(r.server, url("rir1/"));
  EXPECT_EQ(registry_->requests(), std::vector<std::string>{"rir1/ip/2d00:1::10"});
}

TEST_F(Rdap, AnAddressNoBootstrapEntryCoversIsNotFound) {
  auto r = lookup("2e00::1");
  EXPECT_EQ(r.status, lookup_status::not_found) << r.error;
  EXPECT_NE(r.reason.find("RFC 9224 §7"), std::string::npos) << r.reason;
}

TEST_F(Rdap, MaintainersNamedRegistrantAreNotTheOrganisation) {
  auto r = lookup("2d00:2::5");
  ASSERT_EQ(r.status, lookup_status::found) << r.error;
  ASSERT_TRUE(r.org);
  EXPECT_EQ(r.org->name, "Fictional GPU Resellers Ltd");
  EXPECT_EQ(r.org->handle, "ORG-FGR1-EXAMPLE");
  EXPECT_NE(r.org->selected_by.find("kind is org"), std::string::npos) << r.org->selected_by;
  EXPECT_EQ(r.country, "QM");
  EXPECT_EQ(r.country_source, "network");
  EXPECT_FALSE(r.origin_as);
  EXPECT_EQ(r.network_handle, "2d00:2:: - 2d00:2:ffff:ffff:ffff:ffff:ffff:ffff");

  // Only maintainers: no organisation, the network still found.
  auto o = options();
  o.classify_locally = false;
  auto mnt = rdap::lookup_ip_owner("203.0.113.20", o);
  ASSERT_EQ(mnt.status, lookup_status::found) << mnt.error;
  EXPECT_FALSE(mnt.org);
  EXPECT_TRUE(mnt.to_json()["organisation"].is_null());
  EXPECT_EQ(mnt.network_name, "EXAMPLE-MNT-ONLY");
}

TEST_F(Rdap, SpecialPurposeAddressesAreQueriedWhenATestAsks) {
  auto o = options();
  o.classify_locally = false;
  auto r = rdap::lookup_ip_owner("192.0.2.10", o);
  ASSERT_EQ(r.status, lookup_status::found) << r.error;
  EXPECT_EQ(r.bootstrap, url("bootstrap/ipv4.json"));
  ASSERT_TRUE(r.org);
  EXPECT_EQ(r.org->name, "Example Documentation Networks");
  // Old ARIN shapes read leniently; the country only as the address label's last line.
  EXPECT_EQ(r.start_address, "192.0.2.0");
  EXPECT_EQ(r.end_address, "192.0.2.255");
  EXPECT_EQ(r.country, "Exampleland");
  EXPECT_EQ(r.country_source, "registrant address label");
}

TEST_F(Rdap, RegistrantWithoutAVcardIsNamedByItsEntity) {
  auto r = lookup("2d00:7::1");
  ASSERT_EQ(r.status, lookup_status::found) << r.error;
  ASSERT_TRUE(r.org);
  EXPECT_EQ(r.org->name, "Lazy Example Hosting");
  EXPECT_EQ(r.org->handle, "ORG-LAZY-EXAMPLE");
  EXPECT_NE(r.org->selected_by.find("entity object"), std::string::npos) << r.org->selected_by;
  EXPECT_EQ(registry_->requests().back(), "rir1/entity/ORG-LAZY-EXAMPLE");
}

TEST_F(Rdap, VcardEdgeCasesThroughTheServer) {
  auto r = lookup("2d00:a::1");
  ASSERT_EQ(r.status, lookup_status::found) << r.error;
  ASSERT_TRUE(r.org);
  EXPECT_EQ(r.org->name, "Example Structured Org");  // no fn: the org's first component
  EXPECT_EQ(r.org->kind, "org");                     // "ORG"
  EXPECT_EQ(r.org->role, "registrant");              // "Registrant"
  EXPECT_EQ(r.country, "QN");                        // adr cc, its value null
}

TEST_F(Rdap, RedirectsAreFollowedAndRecorded) {
  auto r = lookup("2d00:3::1");
  ASSERT_EQ(r.status, lookup_status::found) << r.error;
  ASSERT_TRUE(r.org);
  EXPECT_EQ(r.org->name, "Example Transferred Networks");
  ASSERT_EQ(r.redirects.size(), 1U);
  EXPECT_EQ(r.redirects[0].status, 301);
  EXPECT_EQ(r.redirects[0].from, url("rir1/ip/2d00:3::1"));
  EXPECT_EQ(r.redirects[0].to, url("rir2/ip/2d00:3::1"));  // a relative Location, resolved
  EXPECT_FALSE(r.redirects[0].upgraded);
  EXPECT_EQ(r.final_url, url("rir2/ip/2d00:3::1"));
  EXPECT_EQ(r.to_json()["redirects"][0]["status"], 301);
  // http to http: the same scheme is followed.
  auto same = lookup("2d00:9::1");
  ASSERT_EQ(same.status, lookup_status::found) << same.error;
  ASSERT_EQ(same.redirects.size(), 1U);
  EXPECT_FALSE(same.redirects[0].upgraded);
}

TEST_F(Rdap, BadRedirectsAreErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"2d00:6::5", "redirect loop"},
      {"2d00:6::6", "is not http(s)"},
      {"2d00:6::7", "without a Location"},
      {"2d00:6::8", "more than 5 redirects"},
  };
  for (const auto& [address, expected] : cases) {
    auto r = lookup(address);
    EXPECT_EQ(r.status, lookup_status::error) << address;
    EXPECT_NE(r.error.find(expected), std::string::npos) << address << ": " << r.error;
    EXPECT_EQ(r.to_json()["error"], r.error);
  }
  auto o = options();
  o.max_redirects = 2;
  auto r = rdap::lookup_ip_owner("2d00:6::8", o);
  EXPECT_NE(r.error.find("more than 2 redirects"), std::string::npos) << r.error;
  EXPECT_EQ(r.redirects.size(), 2U);
}

TEST_F(Rdap, NotFoundCarriesTheErrorBody) {
  auto r = lookup("2d00:4::1");
  EXPECT_EQ(r.status, lookup_status::not_found) << r.error;
  EXPECT_EQ(r.http_status, 404);
  EXPECT_NE(r.reason.find("HTTP 404"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("Not Found: The emulator registers nothing here."), std::string::npos) << r.reason;
  EXPECT_TRUE(r.to_json()["error"].is_null());
}

TEST_F(Rdap, RateLimitsHonourRetryAfterWithinTheBudget) {
  auto r = lookup("2d00:5::1");
  EXPECT_EQ(r.status, lookup_status::error);
  EXPECT_NE(r.error.find("rate limited: HTTP 429"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("Retry-After: 7"), std::string::npos) << r.error;
  EXPECT_EQ(r.retry_after_s, 7.0);
  EXPECT_EQ(waits_, std::vector<std::chrono::milliseconds>{7s}) << "one retry, after the wait asked";

  waits_.clear();
  auto once = lookup("2d00:5::2");
  ASSERT_EQ(once.status, lookup_status::found) << once.error;
  EXPECT_EQ(once.org->name, "Example Patient Hosting");
  EXPECT_EQ(waits_, std::vector<std::chrono::milliseconds>{3s});

  // A longer wait than neograde allows is not waited for.
  waits_.clear();
  auto o = options();
  o.max_retry_wait = 5s;
  auto impatient = rdap::lookup_ip_owner("2d00:5::1", o);
  EXPECT_EQ(impatient.status, lookup_status::error);
  EXPECT_TRUE(waits_.empty());
}

TEST_F(Rdap, HostileAnswersAreErrorsNeverCrashes) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"2d00:6::1", "is not JSON (Content-Type text/html)"},
      {"2d00:6::2", "response body exceeds the size limit"},
      {"2d00:6::3", "member \"handle\" is a number, not a string"},
      {"2d00:6::4", "is a JSON array, not an RDAP object"},
      {"2d00:6::9", "not \"ip network\""},
      {"2d00:6::a", "HTTP 500"},
  };
  for (const auto& [address, expected] : cases) {
    auto r = lookup(address);
    EXPECT_EQ(r.status, lookup_status::error) << address;
    EXPECT_NE(r.error.find(expected), std::string::npos) << address << ": " << r.error;
    EXPECT_LT(r.to_json().dump().size(), 4096U) << "nothing hostile is copied whole into the record";
  }
  EXPECT_NE(lookup("2d00:6::a").error.find("The emulated registry fell over"), std::string::npos);
  // Entities of every wrong shape: the network is read, no organisation is made up.
  auto junk = lookup("2d00:6::b");
  EXPECT_EQ(junk.status, lookup_status::found) << junk.error;
  EXPECT_FALSE(junk.org);

  auto o = options();
  o.bootstrap_url = url("hostile-bootstrap/");
  auto bad_bootstrap = rdap::lookup_ip_owner("2d00:1::1", o);
  EXPECT_EQ(bad_bootstrap.status, lookup_status::error);
  EXPECT_NE(bad_bootstrap.error.find("not an RDAP bootstrap file"), std::string::npos) << bad_bootstrap.error;

  for (const char* address : {"not an address", "", "2d00::1%eth0", "10.0.0.0/8"}) {
    auto r = lookup(address);
    EXPECT_EQ(r.status, lookup_status::error) << address;
    EXPECT_NE(r.error.find("not an IP address"), std::string::npos) << r.error;
  }
  o = options();
  o.rdap_url = "http://127.0.0.1:1/";
  auto unreachable = rdap::lookup_ip_owner("2d00:1::1", o);
  EXPECT_EQ(unreachable.status, lookup_status::error);
  EXPECT_NE(unreachable.error.find("GET http://127.0.0.1:1/ip/2d00:1::1"), std::string::npos) << unreachable.error;
}

TEST_F(Rdap, HttpsRedirectToHttpIsUpgradedAndTheCaFileTrusted) {
  start(true);
  auto o = options();
  o.rdap_url = url("rir1/");
  auto untrusted = rdap::lookup_ip_owner("2d00:9::1", o);
  EXPECT_EQ(untrusted.status, lookup_status::error);
  EXPECT_NE(untrusted.error.find("certificate verify failed"), std::string::npos) << untrusted.error;

  o.ca_file = temp_file("ca.pem", emu_->certificate_pem());
  auto r = rdap::lookup_ip_owner("2d00:9::1", o);
  ASSERT_EQ(r.status, lookup_status::found) << r.error;
  EXPECT_EQ(r.org->name, "Example Upgraded Networks");
  ASSERT_EQ(r.redirects.size(), 1U);
  EXPECT_TRUE(r.redirects[0].upgraded);
  EXPECT_TRUE(r.redirects[0].to.starts_with("https://")) << r.redirects[0].to;
  EXPECT_EQ(r.final_url, url("rir2/ip/2d00:9::1"));
  std::filesystem::remove(o.ca_file);
}

}  // namespace
