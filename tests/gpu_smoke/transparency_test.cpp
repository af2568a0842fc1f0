// Declared transparency claims graded against the fingerprint fixtures (fixtures/make-fixtures.py):
// each verdict reached, the two contradictions the issue names, hostile fingerprints never
// throwing, and no fixture publishing an unhashed GPU identity.

#include <neograde/gpu_smoke/transparency.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace neograde::gpu_smoke {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json fixture(const std::string& name) {
  std::ifstream in(std::string(NEOGRADE_GPU_FIXTURES) + "/" + name + ".json");
  EXPECT_TRUE(in) << name;
  return json::parse(in);
}

claim_verdict grade(const std::string& machine, const std::string& hardware, const json& doc, const std::vector<gpu_sighting>& seen = {},
                    const char* which = "machine") {
  const auto v = grade_claims({.hardware = hardware, .machine = machine}, doc, seen);
  EXPECT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].claim, "machine");
  EXPECT_EQ(v[1].claim, "hardware");
  return std::string(which) == "machine" ? v[0] : v[1];
}

claim_verdict machine(const std::string& declared, const json& doc) { return grade(declared, "", doc); }
claim_verdict hardware(const std::string& declared, const json& doc, const std::vector<gpu_sighting>& seen) {
  return grade("", declared, doc, seen, "hardware");
}

// The bare-metal node's GPUs, rented from vastai on 2026-11-02.
std::vector<gpu_sighting> vastai_sightings() {
  std::vector<gpu_sighting> seen;
  for (const auto& h : gpu_uuid_hashes(fixture("fingerprint-bare-metal"))) seen.push_back({"vastai", "2026-11-02", h});
  return seen;
}

TEST(Transparency, BareMetalNode) {
  const auto doc = fixture("fingerprint-bare-metal");
  auto v = machine("bare_metal", doc);
  EXPECT_EQ(v.verdict, "consistent");
  EXPECT_EQ(v.measured, "bare metal, no container");
  EXPECT_THAT(v.evidence, HasSubstr("fingerprint.host.virtualisation = \"bare_metal\" from cpuid leaf 1 ECX bit 31 clear"));
  v = machine("vm", doc);
  EXPECT_EQ(v.verdict, "contradicted");
  EXPECT_EQ(machine("container", doc).verdict, "unverified");
  EXPECT_EQ(machine("mixed", doc).verdict, "unverified");
  EXPECT_EQ(machine("unknown", doc).verdict, "unverified");
  v = machine("", doc);
  EXPECT_EQ(v.verdict, "unverified");
  EXPECT_EQ(v.measured, "bare metal, no container") << "what was measured is shown even when nothing was claimed";
  EXPECT_THAT(v.evidence, HasSubstr("the spec declares no machine claim"));
  // Owning the hardware is never proven by a fingerprint, only contradicted.
  v = hardware("owns", doc, {});
  EXPECT_EQ(v.verdict, "unverified");
  EXPECT_EQ(v.measured, "none of the node's 8 GPU(s) seen at another provider");
}

TEST(Transparency, BareMetalClaimedKvmFound) {
  const auto doc = fixture("fingerprint-kvm-guest");
  const auto v = machine("bare_metal", doc);
  EXPECT_EQ(v.verdict, "contradicted");
  EXPECT_EQ(v.declared, "bare_metal");
  EXPECT_EQ(v.measured, "KVM guest (CPUID hypervisor vendor KVMKVMKVM), no container");
  EXPECT_THAT(v.evidence, HasSubstr("fingerprint.host.virtualisation = \"kvm\" from cpuid leaf 0x40000000 vendor \"KVMKVMKVM\""));
  EXPECT_EQ(machine("vm", doc).verdict, "consistent");
}

TEST(Transparency, ContainerOnVmIsAVmPlusAContainer) {
  const auto doc = fixture("fingerprint-container-on-vm");
  auto v = machine("container", doc);
  EXPECT_EQ(v.verdict, "consistent");
  EXPECT_EQ(v.measured, "docker container in a KVM guest (CPUID hypervisor vendor KVMKVMKVM)");
  EXPECT_THAT(v.evidence, HasSubstr("fingerprint.host.container = \"docker\" from /.dockerenv exists"));
  EXPECT_EQ(machine("vm", doc).verdict, "consistent");
  EXPECT_EQ(machine("bare_metal", doc).verdict, "contradicted");
}

TEST(Transparency, OwnsClaimedGpuSeenElsewhere) {
  const auto doc = fixture("fingerprint-seen-elsewhere");
  const auto seen = vastai_sightings();
  auto v = hardware("owns", doc, seen);
  EXPECT_EQ(v.verdict, "contradicted");
  EXPECT_EQ(v.measured, "GPUs 0, 1, 2, 3, 4, 5, 6, 7 rented from vastai on 2026-11-02");
  EXPECT_THAT(v.evidence, HasSubstr("the same physical GPUs were rented from vastai on 2026-11-02"));
  EXPECT_EQ(hardware("colocates", doc, seen).verdict, "contradicted");
  for (const char* reseller : {"resells", "marketplace", "mixed"})
    EXPECT_EQ(hardware(reseller, doc, seen).verdict, "consistent") << reseller;
  EXPECT_EQ(hardware("unknown", doc, seen).verdict, "unverified");
  EXPECT_EQ(hardware("", doc, seen).verdict, "unverified");
  EXPECT_EQ(hardware("resells", doc, {}).verdict, "unverified");
  // One GPU seen: named singly, with its date.
  v = hardware("owns", doc, {seen[0], {"runpod", "2026-10-01", "0000"}});
  EXPECT_EQ(v.measured, "GPU 0 rented from vastai on 2026-11-02");
  EXPECT_THAT(v.evidence, HasSubstr("the same physical GPU was rented from vastai on 2026-11-02"));
  // A marketplace host: docker on bare metal is still bare metal.
  EXPECT_EQ(machine("bare_metal", doc).verdict, "consistent");
  EXPECT_EQ(machine("container", doc).verdict, "consistent");
}

TEST(Transparency, UuidHashes) {
  const auto bare = gpu_uuid_hashes(fixture("fingerprint-bare-metal"));
  ASSERT_EQ(bare.size(), 8u);
  EXPECT_EQ(bare, gpu_uuid_hashes(fixture("fingerprint-seen-elsewhere")));
  const auto kvm = gpu_uuid_hashes(fixture("fingerprint-kvm-guest"));
  ASSERT_EQ(kvm.size(), 8u);
  EXPECT_NE(kvm, bare);
  EXPECT_TRUE(gpu_uuid_hashes(fixture("healthy-h100-sxm-8gpu")).empty());
  // A results file's hardware record holds the document under "smoke".
  EXPECT_EQ(gpu_uuid_hashes({{"status", "pass"}, {"smoke", fixture("fingerprint-bare-metal")}}), bare);
}

TEST(Transparency, NoFingerprintIsUnverified) {
  for (const char* name : {"healthy-h100-sxm-8gpu", "no-gpu"}) {
    const auto v = grade_claims({.hardware = "owns", .machine = "bare_metal"}, fixture(name), vastai_sightings());
    for (const auto& c : v) {
      EXPECT_EQ(c.verdict, "unverified") << name << " " << c.claim;
      EXPECT_EQ(c.measured, "no fingerprint");
      EXPECT_THAT(c.evidence, HasSubstr("the smoke record has no hardware fingerprint"));
    }
  }
}

TEST(Transparency, HostileFingerprintsNeverThrowAndAreUnverified) {
  const json fake_hash = std::string(64, 'a');
  const std::vector<json> hostile = {
      nullptr,
      42,
      "fingerprint",
      json::array({1, 2}),
      {{"fingerprint", 1}},
      {{"fingerprint", json::array()}},
      {{"fingerprint", json::object()}},
      {{"smoke", "x"}},
      {{"smoke", {{"fingerprint", "x"}}}},
      {{"fingerprint", {{"gpus", "all"}, {"host", 3}}}},
      {{"fingerprint", {{"gpus", json::array({1, nullptr, "x", json::array()})}, {"host", json::array()}}}},
      {{"fingerprint",
        {{"gpus", json::array({{{"uuid_hash", 5}},
                               {{"uuid_hash", {{"value", 7}}}},
                               {{"uuid_hash", {{"value", "GPU-abc"}}}},
                               {{"uuid_hash", {{"value", std::string(64, 'A')}}}},
                               {{"uuid_hash", {{"value", nullptr}}}}})},
         {"host", {{"virtualisation", {{"value", 3}}}, {"container", json::array()}}}}}},
      {{"fingerprint", {{"host", {{"virtualisation", {{"value", "hypervisor?"}, {"source", 9}, {"reason", json::object()}}}}}}}},
      {{"fingerprint", {{"host", {{"virtualisation", {{"value", nullptr}, {"reason", "unreadable"}}}}}}}},
      {{"fingerprint", {{"host", {{"virtualisation", json::array({"kvm"})}, {"container", {{"value", 5}}}}}}}},
  };
  // A sighting can never match an absent or malformed hash.
  const std::vector<gpu_sighting> seen = {{"vastai", "2026-11-02", ""}, {"vastai", "2026-11-02", "GPU-abc"}, {"x", "y", fake_hash}};
  for (const auto& doc : hostile)
    for (const char* m : {"bare_metal", "vm", "container", ""})
      for (const char* h : {"owns", "resells", "marketplace", ""}) {
        std::vector<claim_verdict> v;
        ASSERT_NO_THROW(v = grade_claims({.hardware = h, .machine = m}, doc, seen)) << doc.dump();
        ASSERT_EQ(v.size(), 2u);
        for (const auto& c : v) EXPECT_EQ(c.verdict, "unverified") << doc.dump() << " " << c.claim << " " << c.measured;
      }
  for (const auto& doc : hostile) EXPECT_NO_THROW((void)gpu_uuid_hashes(doc));
  // A valid value with a malformed evidence object is graded, and does not throw.
  const json odd = {
      {"fingerprint",
       {{"host", {{"virtualisation", {{"value", "kvm"}, {"source", "cpuid"}, {"evidence", {{"cpuid_hypervisor_vendor", 12}}}}}}}}}};
  EXPECT_EQ(grade_claims({.hardware = "", .machine = "bare_metal"}, odd, {})[0].verdict, "contradicted");
  // A hypervisor CPUID does not name is still a hypervisor.
  const json unnamed = {{"fingerprint",
                         {{"host",
                           {{"virtualisation",
                             {{"value", "other"},
                              {"source", "cpuid leaf 0x40000000 vendor \"ACRNACRNACRN\""},
                              {"evidence", {{"cpuid_hypervisor_vendor", "ACRNACRNACRN"}}}}}}}}}};
  const auto u = grade_claims({.hardware = "", .machine = "bare_metal"}, unnamed, {})[0];
  EXPECT_EQ(u.verdict, "contradicted");
  EXPECT_EQ(u.measured, "guest of an unnamed hypervisor (CPUID hypervisor vendor ACRNACRNACRN)");
  // A claim value neograde does not know is unverified, and says so.
  const auto v = grade_claims({.hardware = "borrows", .machine = "cloud"}, fixture("fingerprint-kvm-guest"), {});
  EXPECT_THAT(v[0].evidence, HasSubstr("\"cloud\" is not a machine claim neograde knows"));
  EXPECT_THAT(v[1].evidence, HasSubstr("\"borrows\" is not a hardware claim neograde knows"));
}

void strings(const json& j, const std::string& where, std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_string()) out.emplace_back(where, j.get<std::string>());
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it)
      out.emplace_back(where + "/" + it.key(), it.key()), strings(it.value(), where + "/" + it.key(), out);
  if (j.is_array())
    for (std::size_t i = 0; i < j.size(); ++i) strings(j[i], where + "/" + std::to_string(i), out);
}

// No fixture publishes a GPU UUID ("GPU-..." or a MIG "MIG-..."), a serial under its own name, or
// the machine's DMI serials; every fingerprint hash is a well-formed keyed hash.
TEST(Transparency, NoFixturePublishesAnUnhashedIdentity) {
  int fixtures = 0, fingerprints = 0;
  for (const auto& entry : std::filesystem::directory_iterator(NEOGRADE_GPU_FIXTURES)) {
    if (entry.path().extension() != ".json") continue;
    ++fixtures;
    std::ifstream in(entry.path());
    const auto doc = json::parse(in);
    std::vector<std::pair<std::string, std::string>> all;
    strings(doc, "", all);
    for (const auto& [where, s] : all) {
      EXPECT_FALSE(s.starts_with("GPU-") || s.starts_with("MIG-")) << entry.path().filename() << where << ": " << s;
      for (const char* key : {"uuid", "serial", "product_serial", "board_serial", "product_uuid"})
        EXPECT_NE(s, key) << entry.path().filename() << where;
    }
    if (doc.contains("fingerprint")) {
      ++fingerprints;
      const auto hashes = gpu_uuid_hashes(doc);
      EXPECT_EQ(hashes.size(), doc["fingerprint"]["gpus"].size()) << entry.path().filename();
      for (const auto& g : doc["fingerprint"]["gpus"]) EXPECT_EQ(g["serial_hash"]["value"].get<std::string>().size(), 64u);
    }
  }
  EXPECT_GE(fixtures, 14);
  EXPECT_EQ(fingerprints, 4);
}

}  // namespace
}  // namespace neograde::gpu_smoke
