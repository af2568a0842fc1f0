// The hardware fingerprint: SHA-256 and HMAC-SHA256 against FIPS 180-2, RFC 4231 and OpenSSL; the
// host probe against fake sysfs/procfs trees and injected CPUID; GPU identities published only
// hashed; every probe's output valid against gpu_smoke/smoke-record.schema.json.

#include <neograde/core/json_schema.hpp>
#include <neograde/gpu_smoke/fingerprint.hpp>
#include <neograde/gpu_smoke/sha256.hpp>

#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

namespace neograde::gpu_smoke {
namespace {

namespace fp = fingerprint;
using nlohmann::json;

std::string bytes(std::size_t n, unsigned char b) { return std::string(n, static_cast<char>(b)); }

TEST(Sha256, Fips180Vectors) {
  EXPECT_EQ(to_hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(to_hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(to_hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(to_hex(sha256(std::string(1000000, 'a'))), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(HmacSha256, Rfc4231Vectors) {
  EXPECT_EQ(to_hex(hmac_sha256(bytes(20, 0x0b), "Hi There")), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(to_hex(hmac_sha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(to_hex(hmac_sha256(bytes(20, 0xaa), bytes(50, 0xdd))), "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
  std::string key4;
  for (int i = 1; i <= 25; ++i) key4 += static_cast<char>(i);
  EXPECT_EQ(to_hex(hmac_sha256(key4, bytes(50, 0xcd))), "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
  // Test case 5 (output truncated to 128 bits): the first 16 bytes.
  EXPECT_EQ(to_hex(hmac_sha256(bytes(20, 0x0c), "Test With Truncation")).substr(0, 32), "a3b6167473100ee06e0c796c2955552b");
  EXPECT_EQ(to_hex(hmac_sha256(bytes(131, 0xaa), "Test Using Larger Than Block-Size Key - Hash Key First")),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  EXPECT_EQ(to_hex(hmac_sha256(bytes(131, 0xaa),
                               "This is a test using a larger than block-size key and a larger than block-size data. "
                               "The key needs to be hashed before being used by the HMAC algorithm.")),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

std::string openssl_hex(const unsigned char* d, unsigned n) {
  sha256_digest out{};
  std::copy(d, d + n, out.begin());
  return to_hex(out);
}

// Every length around the block and padding boundaries, keys shorter than, equal to and longer
// than a block: the same digest as OpenSSL's.
TEST(HmacSha256, AgreesWithOpenSsl) {
  std::mt19937 rng(22);
  auto random_text = [&](std::size_t n) {
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng() & 0xff);
    return s;
  };
  for (std::size_t n = 0; n <= 300; ++n) {
    const auto data = random_text(n);
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), md);
    ASSERT_EQ(to_hex(sha256(data)), openssl_hex(md, SHA256_DIGEST_LENGTH)) << "length " << n;
  }
  for (std::size_t k : {0, 1, 20, 27, 32, 55, 56, 63, 64, 65, 100, 128, 200}) {
    for (std::size_t n : {0, 1, 40, 55, 56, 64, 119, 120, 1000}) {
      const auto key = random_text(k), data = random_text(n);
      unsigned char md[EVP_MAX_MD_SIZE];
      unsigned len = 0;
      HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()), data.size(), md,
           &len);
      ASSERT_EQ(to_hex(hmac_sha256(key, data)), openssl_hex(md, len)) << "key " << k << ", data " << n;
    }
  }
  // The fingerprint's own hash: the project key and a UUID as NVML writes it.
  const std::string uuid = "GPU-5d1c9e3a-1000-4000-ae3a-0b4048428426";
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  HMAC(EVP_sha256(), fp::hash_key, static_cast<int>(std::string(fp::hash_key).size()), reinterpret_cast<const unsigned char*>(uuid.data()),
       uuid.size(), md, &len);
  EXPECT_EQ(fp::keyed_hash(uuid), openssl_hex(md, len));
}

// make-fixtures.py hashes with Python's hmac module: the same values as ours.
TEST(Fingerprint, FixtureHashesAreTheProgramsHashes) {
  std::ifstream in(std::string(NEOGRADE_GPU_FIXTURES) + "/fingerprint-bare-metal.json");
  const auto doc = json::parse(in);
  const auto& gpu0 = doc["fingerprint"]["gpus"][0];
  EXPECT_EQ(gpu0["uuid_hash"]["value"], fp::keyed_hash("GPU-5d1c9e3a-1000-4000-ae3a-0b4048428426"));
  EXPECT_EQ(gpu0["serial_hash"]["value"], fp::keyed_hash("1811137660200"));
}

const json_schema& schema() {
  static const json_schema s = [] {
    std::ifstream in(NEOGRADE_SMOKE_SCHEMA);
    return json_schema(json::parse(in));
  }();
  return s;
}

// The fingerprint in a minimal record, checked against the published schema.
void expect_valid(const json& fingerprint) {
  const json record = {{"hostname", "h"},           {"driver", {{"version", ""}, {"nvml", "x"}}},
                       {"gpus", json::array()},     {"p2p", json::array()},
                       {"errors", json::array()},   {"stages", json::array()},
                       {"fingerprint", fingerprint}};
  for (const auto& v : schema().validate(record)) ADD_FAILURE() << v.pointer << ": " << v.message;
}

// Every string in `j` (keys and values).
void strings(const json& j, std::vector<std::string>& out) {
  if (j.is_string()) out.push_back(j.get<std::string>());
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it) out.push_back(it.key()), strings(it.value(), out);
  if (j.is_array())
    for (const auto& e : j) strings(e, out);
}

fp::reading read_as(std::string value, std::string source) { return {std::move(value), std::move(source), ""}; }

TEST(Fingerprint, GpuIdentitiesArePublishedOnlyHashed) {
  fp::gpu_identity id;
  id.index = read_as("3", "cuda:device ordinal");
  id.uuid = read_as("GPU-12345678-abcd-ef01-2345-6789abcdef01", "nvml:nvmlDeviceGetUUID");
  id.serial = read_as("1652123456789", "nvml:nvmlDeviceGetSerial");
  id.board_part_number = read_as("692-2G520-0200-000", "nvml:nvmlDeviceGetBoardPartNumber");
  id.vbios_version = {std::nullopt, "nvml:nvmlDeviceGetVbiosVersion", "NVML error 3 (Not Supported)"};
  id.pci_bus_id = read_as("00000000:18:00.0", "nvml:nvmlDeviceGetPciInfo_v3");
  id.nvlink_peers = std::vector<std::string>{"00000000:05:00.0", "00000000:06:00.0"};
  id.nvlink_source = "nvml:nvmlDeviceGetNvLinkState, nvmlDeviceGetNvLinkRemotePciInfo_v2";
  id.nvlink_note = "unread: link 7: NVML error 999 (Unknown Error)";
  const auto g = fp::gpu_json(id);
  EXPECT_EQ(g["index"]["value"], 3);
  EXPECT_EQ(g["uuid_hash"]["value"], fp::keyed_hash("GPU-12345678-abcd-ef01-2345-6789abcdef01"));
  EXPECT_EQ(g["serial_hash"]["value"], fp::keyed_hash("1652123456789"));
  EXPECT_EQ(g["vbios_version"],
            json({{"value", nullptr}, {"source", "nvml:nvmlDeviceGetVbiosVersion"}, {"reason", "NVML error 3 (Not Supported)"}}));
  EXPECT_EQ(g["nvlink_peers"]["value"].size(), 2u);
  std::vector<std::string> all;
  strings(g, all);
  for (const auto& s : all) {
    EXPECT_EQ(s.find("12345678-abcd"), std::string::npos) << s;
    EXPECT_EQ(s.find("1652123456789"), std::string::npos) << s;
  }
  fp::host_inputs nowhere;
  nowhere.root = "/nonexistent-neograde-root";
  expect_valid(fp::make({id}, fp::probe_host(nowhere, {std::nullopt, "nvml:nvmlSystemGetDriverVersion", "test"},
                                             {std::nullopt, "nvml:nvmlSystemGetCudaDriverVersion_v2", "test"})));
}

// A fake root: files relative to it, CPUID from a table, the environment from a map.
class FakeHost : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::path(::testing::TempDir()) /
            ("neograde-fp-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void file(const std::string& path, const std::string& text) {
    const auto full = root_ / std::filesystem::path(path).relative_path();
    std::filesystem::create_directories(full.parent_path());
    std::ofstream(full) << text;
  }

  void dmi(const std::map<std::string, std::string>& values) {
    for (const auto& [k, v] : values) file("/sys/class/dmi/id/" + k, v + "\n");
  }

  // A plain Linux host: CPU, memory, mounts; no DMI, no container markers.
  void linux_host(const std::string& root_fs = "ext4") {
    file("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n\nprocessor\t: 1\n");
    file("/sys/devices/system/cpu/online", "0-111,224-335\n");
    file("/proc/meminfo", "MemTotal:       2113464320 kB\nMemFree:        2000000000 kB\n");
    file("/proc/1/cgroup", "0::/init.scope\n");
    file("/proc/self/mountinfo", "22 1 259:2 / / rw,relatime shared:1 - " + root_fs +
                                     " /dev/nvme0n1p2 rw\n"
                                     "23 22 0:21 / /proc rw,nosuid - proc proc rw\n");
  }

  static fp::cpuid_regs vendor(const std::string& name) {
    std::string v = name;
    v.resize(12, '\0');
    auto word = [&](int at) {
      std::uint32_t w = 0;
      for (int i = 0; i < 4; ++i) w |= std::uint32_t{static_cast<unsigned char>(v[at + i])} << (8 * i);
      return w;
    };
    return {0x40000001, word(0), word(4), word(8)};
  }

  // CPUID with the hypervisor bit as given and these hypervisor leaves.
  void cpu(bool hypervisor_bit, std::map<std::uint32_t, fp::cpuid_regs> leaves = {}) {
    leaves[1] = {0x000806f8, 0, hypervisor_bit ? 0x80000000u : 0u, 0};
    in_.cpuid = [leaves](std::uint32_t leaf, std::uint32_t) -> std::optional<fp::cpuid_regs> {
      if (auto it = leaves.find(leaf); it != leaves.end()) return it->second;
      return fp::cpuid_regs{0x20, 0x20, 0x20, 0x20};  // what bare metal answers for a leaf it lacks: anything
    };
  }

  json probe() {
    in_.root = root_;
    if (!in_.env)
      in_.env = [this](const char* n) -> std::optional<std::string> {
        if (auto it = env_.find(n); it != env_.end()) return it->second;
        return std::nullopt;
      };
    if (!in_.uname) in_.uname = [] { return std::optional<std::string>("Linux 6.8.0-45-generic x86_64"); };
    auto host = fp::probe_host(in_, read_as("580.95.05", "nvml:nvmlSystemGetDriverVersion"),
                               {std::nullopt, "nvml:nvmlSystemGetCudaDriverVersion_v2", "NVML unavailable: test"});
    expect_valid(fp::make({}, host));
    return host;
  }

  std::filesystem::path root_;
  fp::host_inputs in_;
  std::map<std::string, std::string> env_;
};

TEST_F(FakeHost, BareMetal) {
  linux_host();
  dmi({{"sys_vendor", "Supermicro"},
       {"product_name", "SYS-821GE-TNHR"},
       {"board_vendor", "Supermicro"},
       {"board_name", "X13DEG-OAD"},
       {"bios_vendor", "American Megatrends International, LLC."},
       {"bios_version", "2.1"},
       {"product_serial", "S123456789SERIAL"},
       {"board_serial", "BS987654321SERIAL"},
       {"product_uuid", "4c4c4544-0042-3510-8052-b4c04f564433"}});
  cpu(false);
  const auto h = probe();
  EXPECT_EQ(h["virtualisation"]["value"], "bare_metal");
  EXPECT_EQ(h["virtualisation"]["evidence"]["cpuid_hypervisor_bit"], false);
  EXPECT_EQ(h["virtualisation"]["evidence"]["cpuid_hypervisor_vendor"], nullptr) << "leaf 0x40000000 is not read on bare metal";
  EXPECT_EQ(h["container"]["value"], "none");
  EXPECT_EQ(h["dmi"]["sys_vendor"], json({{"value", "Supermicro"}, {"source", "/sys/class/dmi/id/sys_vendor"}}));
  EXPECT_EQ(h["dmi"]["bios_version"]["value"], "2.1");
  EXPECT_EQ(h["cpu_model"]["value"], "Intel(R) Xeon(R) Platinum 8480+");
  EXPECT_EQ(h["cpu_count"]["value"], 224);
  EXPECT_EQ(h["memory_bytes"]["value"], 2113464320ULL * 1024);
  EXPECT_EQ(h["kernel"]["value"], "Linux 6.8.0-45-generic x86_64");
  EXPECT_EQ(h["driver_version"]["value"], "580.95.05");
  EXPECT_EQ(h["cuda_version"],
            json({{"value", nullptr}, {"source", "nvml:nvmlSystemGetCudaDriverVersion_v2"}, {"reason", "NVML unavailable: test"}}));
  // The machine's serials and UUID are never read, let alone published.
  std::vector<std::string> all;
  strings(h, all);
  for (const auto& s : all) {
    EXPECT_EQ(s.find("SERIAL"), std::string::npos) << s;
    EXPECT_EQ(s.find("4c4c4544"), std::string::npos) << s;
    EXPECT_EQ(s.find("product_serial"), std::string::npos) << s;
  }
}

TEST_F(FakeHost, KvmGuest) {
  linux_host();
  dmi({{"sys_vendor", "QEMU"}, {"product_name", "Standard PC (Q35 + ICH9, 2009)"}, {"bios_vendor", "SeaBIOS"}, {"bios_version", "1.16.3"}});
  cpu(true, {{0x40000000, vendor("KVMKVMKVM")}});
  const auto h = probe();
  EXPECT_EQ(h["virtualisation"]["value"], "kvm");
  EXPECT_EQ(h["virtualisation"]["source"], "cpuid leaf 0x40000000 vendor \"KVMKVMKVM\"");
  EXPECT_EQ(h["virtualisation"]["evidence"]["cpuid_hypervisor_vendor"], "KVMKVMKVM");
  EXPECT_EQ(h["virtualisation"]["evidence"]["dmi_hint"], "qemu");
  // Q35 has no baseboard: null with the reason, not a guess.
  EXPECT_EQ(h["dmi"]["board_vendor"]["value"], nullptr);
  EXPECT_NE(h["dmi"]["board_vendor"]["reason"].get<std::string>().find("cannot read /sys/class/dmi/id/board_vendor"), std::string::npos);
  EXPECT_EQ(h["container"]["value"], "none");
}

TEST_F(FakeHost, EachHypervisorByItsCpuidVendor) {
  linux_host();
  const std::pair<const char*, const char*> cases[] = {{"Microsoft Hv", "hyperv"}, {"VMwareVMware", "vmware"}, {"XenVMMXenVMM", "xen"},
                                                       {"TCGTCGTCGTCG", "qemu"},   {"VBoxVBoxVBox", "other"},  {"ACRNACRNACRN", "other"}};
  for (const auto& [name, expected] : cases) {
    cpu(true, {{0x40000000, vendor(name)}});
    EXPECT_EQ(probe()["virtualisation"]["value"], expected) << name;
  }
  // KVM presenting Hyper-V enlightenments first is KVM.
  cpu(true, {{0x40000000, vendor("Microsoft Hv")}, {0x40000100, vendor("KVMKVMKVM")}});
  const auto h = probe();
  EXPECT_EQ(h["virtualisation"]["value"], "kvm");
  EXPECT_EQ(h["virtualisation"]["evidence"]["cpuid_0x40000100_vendor"], "KVMKVMKVM");
}

TEST_F(FakeHost, HiddenHypervisorAndXenAndNoCpuid) {
  linux_host();
  dmi({{"sys_vendor", "VMware, Inc."}, {"product_name", "VMware7,1"}});
  cpu(false);  // hypervisor bit hidden
  auto h = probe();
  EXPECT_EQ(h["virtualisation"]["value"], "vmware");
  EXPECT_NE(h["virtualisation"]["source"].get<std::string>().find("hiding itself"), std::string::npos);
  file("/sys/hypervisor/type", "xen\n");  // a Xen PV guest sets no CPUID bit
  dmi({{"sys_vendor", "Xen"}, {"product_name", "HVM domU"}});
  h = probe();
  EXPECT_EQ(h["virtualisation"]["value"], "xen");
  EXPECT_EQ(h["virtualisation"]["evidence"]["sys_hypervisor_type"], "xen");
  // No CPUID (an Arm server) and nothing in DMI or /sys/hypervisor: unknown, never "bare metal".
  std::filesystem::remove(root_ / "sys/hypervisor/type");
  dmi({{"sys_vendor", "Ampere"}, {"product_name", "Mt.Jade"}});
  in_.cpuid = [](std::uint32_t, std::uint32_t) -> std::optional<fp::cpuid_regs> { return std::nullopt; };
  h = probe();
  EXPECT_EQ(h["virtualisation"]["value"], nullptr);
  EXPECT_NE(h["virtualisation"]["reason"].get<std::string>().find("cannot be told"), std::string::npos);
  EXPECT_EQ(h["virtualisation"]["evidence"]["cpuid_hypervisor_bit"], nullptr);
}

TEST_F(FakeHost, Containers) {
  linux_host("overlay");
  cpu(true, {{0x40000000, vendor("KVMKVMKVM")}});
  file("/.dockerenv", "");
  auto h = probe();
  EXPECT_EQ(h["container"]["value"], "docker");
  EXPECT_EQ(h["container"]["source"], "/.dockerenv exists");
  EXPECT_EQ(h["container"]["evidence"]["root_filesystem"], "overlay");
  EXPECT_EQ(h["virtualisation"]["value"], "kvm") << "a container in a VM is a VM plus a container";
  env_["KUBERNETES_SERVICE_HOST"] = "10.96.0.1";
  h = probe();
  EXPECT_EQ(h["container"]["value"], "kubernetes");
  EXPECT_EQ(h["container"]["evidence"]["kubernetes_service_host"], true);
  EXPECT_EQ(h.dump().find("10.96.0.1"), std::string::npos) << "the service address is not recorded";
  env_.clear();
  std::filesystem::remove(root_ / ".dockerenv");
  file("/run/.containerenv", "engine=\"podman-4.9\"\n");
  EXPECT_EQ(probe()["container"]["value"], "podman");
  std::filesystem::remove(root_ / "run/.containerenv");
  file("/proc/1/cgroup", "0::/lxc.payload.gpu-box/init.scope\n");
  EXPECT_EQ(probe()["container"]["value"], "lxc");
  file("/proc/1/cgroup", "12:devices:/kubepods/besteffort/pod1234/abcd\n");
  EXPECT_EQ(probe()["container"]["value"], "kubernetes");
  file("/proc/1/cgroup", "0::/\n");  // a private cgroup namespace: only the overlay root is left
  h = probe();
  EXPECT_EQ(h["container"]["value"], "other");
  EXPECT_EQ(h["container"]["source"], "/proc/self/mountinfo: the root filesystem is overlay");
}

TEST_F(FakeHost, NothingReadableIsNullWithReasons) {
  in_.cpuid = [](std::uint32_t, std::uint32_t) -> std::optional<fp::cpuid_regs> { return std::nullopt; };
  in_.uname = [] { return std::optional<std::string>(); };
  const auto h = probe();
  for (const char* k : {"cpu_model", "cpu_count", "memory_bytes", "kernel", "virtualisation"}) {
    EXPECT_EQ(h[k]["value"], nullptr) << k;
    EXPECT_FALSE(h[k]["reason"].get<std::string>().empty()) << k;
  }
  for (const auto& [k, v] : h["dmi"].items()) EXPECT_EQ(v["value"], nullptr) << k;
  EXPECT_EQ(h["container"]["value"], nullptr) << "nothing seen is not \"none\" when the sources could not be read";
  EXPECT_EQ(h["container"]["evidence"]["proc_1_cgroup"], nullptr);
}

TEST_F(FakeHost, MalformedProcFilesAreNotGuessed) {
  linux_host();
  cpu(false);
  file("/sys/devices/system/cpu/online", "a-7\n");
  file("/proc/meminfo", "MemTotal: lots\n");
  file("/proc/cpuinfo", "processor\t: 0\nCPU part\t: 0xd4f\n");
  file("/sys/class/dmi/id/sys_vendor", "\n");
  const auto h = probe();
  EXPECT_EQ(h["cpu_count"]["value"], nullptr);
  EXPECT_EQ(h["memory_bytes"]["value"], nullptr);
  EXPECT_EQ(h["cpu_model"]["value"], nullptr);
  EXPECT_EQ(h["dmi"]["sys_vendor"]["reason"], "/sys/class/dmi/id/sys_vendor is empty");
}

TEST(Fingerprint, ThisMachine) {
  const auto host = fp::probe_host(fp::host_inputs::system(), {std::nullopt, "nvml:nvmlSystemGetDriverVersion", "test"},
                                   {std::nullopt, "nvml:nvmlSystemGetCudaDriverVersion_v2", "test"});
  expect_valid(fp::make({}, host));
  EXPECT_TRUE(host["kernel"]["value"].is_string());
}

}  // namespace
}  // namespace neograde::gpu_smoke
