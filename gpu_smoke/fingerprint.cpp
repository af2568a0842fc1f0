// The hardware fingerprint: GPU identities (hashed), DMI, virtualisation, container, CPU, memory,
// kernel. See fingerprint.hpp and docs/gpu-smoke.md.

#include <neograde/gpu_smoke/fingerprint.hpp>
#include <neograde/gpu_smoke/sha256.hpp>

#include <sys/utsname.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace neograde::gpu_smoke::fingerprint {
namespace {

using nlohmann::json;

constexpr std::size_t max_file_bytes = 1 << 20;  // /proc/self/mountinfo of a busy host stays well under this

struct file_text {
  std::optional<std::string> text;
  std::string reason;
};

// A file under the root, at most 1 MiB (procfs files report no size: read until the end).
file_text read_file(const std::filesystem::path& root, const std::string& path) {
  const auto full = root / std::filesystem::path(path).relative_path();
  std::ifstream in(full, std::ios::binary);
  if (!in) return {std::nullopt, "cannot read " + path + ": " + std::strerror(errno)};
  std::string text(max_file_bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return {std::nullopt, "cannot read " + path + ": " + std::strerror(errno)};
  text.resize(static_cast<std::size_t>(in.gcount()));
  return {std::move(text), ""};
}

bool exists(const std::filesystem::path& root, const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(root / std::filesystem::path(path).relative_path(), ec);
}

std::string trim(std::string s) {
  const auto space = [](unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0'; };
  while (!s.empty() && space(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t start = 0;
  while (start < s.size() && space(static_cast<unsigned char>(s[start]))) ++start;
  return s.substr(start);
}

bool contains(const std::string& haystack, const char* needle) { return haystack.find(needle) != std::string::npos; }

// A file's first line, trimmed; "" is reported as unread (an empty DMI field says nothing).
json text_field(const std::filesystem::path& root, const std::string& path) {
  const auto f = read_file(root, path);
  if (!f.text) return unread(path, f.reason);
  auto value = trim(f.text->substr(0, f.text->find('\n')));
  if (value.empty()) return unread(path, path + " is empty");
  return field(value, path);
}

std::optional<std::string> value_of(const json& f) {
  if (f.is_object() && f.contains("value") && f["value"].is_string()) return f["value"].get<std::string>();
  return std::nullopt;
}

json nullable(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

// CPUID's 12-byte vendor string from EBX, ECX, EDX, trailing NULs dropped, anything unprintable
// as '?'.
std::string vendor_text(const cpuid_regs& r) {
  std::string s;
  for (const std::uint32_t reg : {r.ebx, r.ecx, r.edx})
    for (int i = 0; i < 4; ++i) s += static_cast<char>((reg >> (8 * i)) & 0xff);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  for (auto& c : s)
    if (c < 0x20 || c > 0x7e) c = '?';
  return s;
}

// The hypervisor named by a CPUID vendor string ("other" when it is not one of ours).
std::string hypervisor_of_vendor(const std::string& vendor) {
  if (vendor == "KVMKVMKVM") return "kvm";
  if (vendor == "Microsoft Hv") return "hyperv";
  if (vendor == "VMwareVMware") return "vmware";
  if (vendor == "XenVMMXenVMM") return "xen";
  if (vendor == "TCGTCGTCGTCG") return "qemu";
  return "other";
}

// The hypervisor DMI names, if any (QEMU's and the big hypervisors' firmware strings).
std::optional<std::string> dmi_hint(const std::optional<std::string>& sys_vendor, const std::optional<std::string>& product) {
  const std::string v = sys_vendor.value_or(""), p = product.value_or("");
  if (v == "QEMU") return "qemu";
  if (contains(p, "KVM")) return "kvm";
  if (contains(v, "VMware") || p.starts_with("VMware")) return "vmware";
  if (v == "Microsoft Corporation" && p == "Virtual Machine") return "hyperv";
  if (v == "Xen" || p == "HVM domU") return "xen";
  if (v == "innotek GmbH" || p == "VirtualBox") return "other";
  return std::nullopt;
}

json virtualisation(const host_inputs& in, const json& dmi) {
  json evidence = json::object();
  std::optional<bool> hypervisor_bit;
  std::optional<std::string> vendor, kvm_under_hyperv;
  const auto leaf1 = in.cpuid ? in.cpuid(1, 0) : std::nullopt;
  if (leaf1) {
    hypervisor_bit = (leaf1->ecx >> 31) & 1;
    evidence["cpuid_hypervisor_bit"] = *hypervisor_bit;
    // Leaf 0x40000000 is only meaningful with the bit set (bare metal answers it with another leaf's data).
    if (*hypervisor_bit) {
      const auto leaf = in.cpuid(0x40000000, 0);
      if (leaf) vendor = vendor_text(*leaf);
      // KVM with Hyper-V enlightenments presents Hyper-V first and itself at 0x40000100.
      if (vendor == "Microsoft Hv")
        if (const auto next = in.cpuid(0x40000100, 0); next && vendor_text(*next) == "KVMKVMKVM") kvm_under_hyperv = "KVMKVMKVM";
    }
    evidence["cpuid_hypervisor_vendor"] = nullable(vendor);
    if (kvm_under_hyperv) evidence["cpuid_0x40000100_vendor"] = *kvm_under_hyperv;
  } else {
    evidence["cpuid_hypervisor_bit"] = nullptr;
    evidence["cpuid_reason"] = "CPUID is not available (not an x86 CPU)";
  }
  const auto sys_vendor = value_of(dmi["sys_vendor"]), product = value_of(dmi["product_name"]);
  const auto hint = dmi_hint(sys_vendor, product);
  evidence["dmi_sys_vendor"] = nullable(sys_vendor);
  evidence["dmi_product_name"] = nullable(product);
  evidence["dmi_hint"] = nullable(hint);
  const auto hyp = read_file(in.root, "/sys/hypervisor/type");
  std::optional<std::string> sys_hypervisor;
  if (hyp.text && !trim(*hyp.text).empty()) sys_hypervisor = trim(*hyp.text);
  evidence["sys_hypervisor_type"] = nullable(sys_hypervisor);

  json out;
  if (hypervisor_bit && *hypervisor_bit) {
    if (kvm_under_hyperv)
      out = field("kvm", "cpuid leaf 0x40000100 vendor \"KVMKVMKVM\" (KVM presenting Hyper-V enlightenments at 0x40000000)");
    else if (vendor)
      out = field(hypervisor_of_vendor(*vendor), "cpuid leaf 0x40000000 vendor \"" + *vendor + "\"");
    else
      out = field("other", "cpuid leaf 1 ECX bit 31 (hypervisor present); leaf 0x40000000 unreadable");
  } else if (sys_hypervisor) {
    out = field(*sys_hypervisor == "xen" ? "xen" : "other", "/sys/hypervisor/type \"" + *sys_hypervisor + "\"");
  } else if (hint) {
    out = field(*hint, "/sys/class/dmi/id (sys_vendor \"" + sys_vendor.value_or("") + "\", product_name \"" + product.value_or("") + "\")" +
                           (hypervisor_bit ? "; the CPUID hypervisor bit is clear (a hypervisor hiding itself)" : ""));
  } else if (hypervisor_bit) {
    out = field("bare_metal", "cpuid leaf 1 ECX bit 31 clear; neither DMI nor /sys/hypervisor names a hypervisor");
  } else {
    out = unread("cpuid, /sys/class/dmi/id, /sys/hypervisor/type",
                 "no CPUID on this CPU, and neither DMI nor /sys/hypervisor names a hypervisor: bare metal cannot be told from a "
                 "hypervisor that hides itself");
  }
  out["evidence"] = evidence;
  return out;
}

// The last mount on "/" in mountinfo: its filesystem type.
std::optional<std::string> root_fstype(const std::string& mountinfo) {
  std::optional<std::string> type;
  std::istringstream lines(mountinfo);
  for (std::string line; std::getline(lines, line);) {
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream left(line.substr(0, dash)), right(line.substr(dash + 3));
    std::string id, parent, devno, root, mount_point, fstype;
    if (left >> id >> parent >> devno >> root >> mount_point && mount_point == "/" && right >> fstype) type = fstype;
  }
  return type;
}

json container(const host_inputs& in) {
  json evidence = json::object();
  const bool dockerenv = exists(in.root, "/.dockerenv"), containerenv = exists(in.root, "/run/.containerenv");
  evidence["dockerenv"] = dockerenv;
  evidence["containerenv"] = containerenv;
  std::optional<std::string> systemd;
  if (const auto f = read_file(in.root, "/run/systemd/container"); f.text && !trim(*f.text).empty()) systemd = trim(*f.text);
  evidence["systemd_container"] = nullable(systemd);
  bool cg_docker = false, cg_podman = false, cg_kube = false, cg_lxc = false;
  if (const auto f = read_file(in.root, "/proc/1/cgroup"); f.text) {
    json lines = json::array();
    std::istringstream is(*f.text);
    for (std::string line; std::getline(is, line);) {
      const bool d = contains(line, "/docker") || contains(line, "docker-"), p = contains(line, "libpod"), k = contains(line, "kubepods"),
                 l = contains(line, "/lxc") || contains(line, "lxc.payload");
      if ((d || p || k || l) && lines.size() < 4) lines.push_back(line.substr(0, 200));
      cg_docker |= d, cg_podman |= p, cg_kube |= k, cg_lxc |= l;
    }
    evidence["proc_1_cgroup"] = lines;
  } else {
    evidence["proc_1_cgroup"] = nullptr;
    evidence["proc_1_cgroup_reason"] = f.reason;
  }
  std::optional<std::string> fstype;
  const auto mountinfo = read_file(in.root, "/proc/self/mountinfo");
  if (const auto& f = mountinfo; f.text) {
    fstype = root_fstype(*f.text);
    evidence["root_filesystem"] = nullable(fstype);
  } else {
    evidence["root_filesystem"] = nullptr;
    evidence["root_filesystem_reason"] = f.reason;
  }
  const bool kube_env = in.env && in.env("KUBERNETES_SERVICE_HOST").has_value();
  evidence["kubernetes_service_host"] = kube_env;  // whether it is set; its address is not recorded

  json out;
  if (kube_env || cg_kube)
    out = field("kubernetes", kube_env ? "environment KUBERNETES_SERVICE_HOST is set" : "/proc/1/cgroup names kubepods");
  else if (dockerenv || cg_docker || systemd == "docker")
    out = field("docker", dockerenv ? "/.dockerenv exists" : cg_docker ? "/proc/1/cgroup names docker" : "/run/systemd/container");
  else if (containerenv || cg_podman || systemd == "podman")
    out = field("podman", containerenv ? "/run/.containerenv exists"
                          : cg_podman  ? "/proc/1/cgroup names libpod"
                                       : "/run/systemd/container");
  else if (cg_lxc || (systemd && systemd->starts_with("lxc")))
    out = field("lxc", cg_lxc ? "/proc/1/cgroup names lxc" : "/run/systemd/container");
  else if (systemd || fstype == "overlay")
    out = field("other", systemd ? "/run/systemd/container \"" + *systemd + "\"" : "/proc/self/mountinfo: the root filesystem is overlay");
  else if (evidence["proc_1_cgroup"].is_null() && !mountinfo.text)
    out = unread("/proc/1/cgroup, /proc/self/mountinfo",
                 "no container marker file, and neither /proc/1/cgroup nor /proc/self/mountinfo could be read");
  else
    out = field("none",
                "no /.dockerenv, /run/.containerenv or /run/systemd/container; /proc/1/cgroup names no container runtime; the "
                "root filesystem is not overlay; KUBERNETES_SERVICE_HOST is not set");
  out["evidence"] = evidence;
  return out;
}

json cpu_model(const host_inputs& in) {
  const std::string path = "/proc/cpuinfo";
  const auto f = read_file(in.root, path);
  if (!f.text) return unread(path, f.reason);
  std::istringstream is(*f.text);
  for (std::string line; std::getline(is, line);)
    if (line.starts_with("model name")) {
      if (const auto colon = line.find(':'); colon != std::string::npos && !trim(line.substr(colon + 1)).empty())
        return field(trim(line.substr(colon + 1)), path + " \"model name\"");
    }
  return unread(path, "no \"model name\" line in /proc/cpuinfo");
}

// "0-63,128-191" -> 128.
json cpu_count(const host_inputs& in) {
  const std::string path = "/sys/devices/system/cpu/online";
  const auto f = read_file(in.root, path);
  if (!f.text) return unread(path, f.reason);
  const auto text = trim(*f.text);
  long long count = 0;
  std::istringstream ranges(text);
  for (std::string range; std::getline(ranges, range, ',');) {
    const auto dash = std::min(range.find('-'), range.size());
    char *first_end = nullptr, *end = nullptr;
    const long first = std::strtol(range.c_str(), &first_end, 10);
    const long last = dash == range.size() ? first : std::strtol(range.c_str() + dash + 1, &end, 10);
    if (dash == range.size()) end = first_end;
    if (range.empty() || first_end != range.c_str() + dash || *end != '\0' || first < 0 || last < first || last > 1 << 20)
      return unread(path, "not a CPU list: \"" + text.substr(0, 80) + "\"");
    count += last - first + 1;
  }
  if (count == 0) return unread(path, "an empty CPU list");
  return field(count, path);
}

json memory_bytes(const host_inputs& in) {
  const std::string path = "/proc/meminfo";
  const auto f = read_file(in.root, path);
  if (!f.text) return unread(path, f.reason);
  std::istringstream is(*f.text);
  for (std::string line; std::getline(is, line);)
    if (line.starts_with("MemTotal:")) {
      std::istringstream fields(line.substr(9));
      unsigned long long kib = 0;
      std::string unit;
      if (fields >> kib >> unit && unit == "kB" && kib > 0 && kib < (1ULL << 50)) return field(kib * 1024, path + " MemTotal (kB x 1024)");
      return unread(path, "MemTotal is not \"<n> kB\": " + line.substr(0, 80));
    }
  return unread(path, "no MemTotal line");
}

}  // namespace

json field(json value, const std::string& source) { return {{"value", std::move(value)}, {"source", source}}; }

json unread(const std::string& source, const std::string& reason) { return {{"value", nullptr}, {"source", source}, {"reason", reason}}; }

json reading::to_field() const { return value ? field(*value, source) : unread(source, reason); }

std::string keyed_hash(const std::string& text) { return to_hex(hmac_sha256(hash_key, text)); }

json gpu_json(const gpu_identity& gpu) {
  json out = json::object();
  json index = gpu.index.to_field();
  if (gpu.index.value) index["value"] = std::atoi(gpu.index.value->c_str());
  out["index"] = index;
  const auto hashed = [](const reading& r) {
    if (!r.value) return r.to_field();
    return field(keyed_hash(*r.value), r.source + ", HMAC-SHA256 under the fingerprint key");
  };
  out["uuid_hash"] = hashed(gpu.uuid);
  out["serial_hash"] = hashed(gpu.serial);
  out["board_part_number"] = gpu.board_part_number.to_field();
  out["vbios_version"] = gpu.vbios_version.to_field();
  out["pci_bus_id"] = gpu.pci_bus_id.to_field();
  json peers = gpu.nvlink_peers ? field(*gpu.nvlink_peers, gpu.nvlink_source) : unread(gpu.nvlink_source, gpu.nvlink_reason);
  if (!gpu.nvlink_note.empty()) peers["note"] = gpu.nvlink_note;
  out["nvlink_peers"] = peers;
  return out;
}

host_inputs host_inputs::system() {
  host_inputs in;
#if defined(__x86_64__) || defined(__i386__)
  in.cpuid = [](std::uint32_t leaf, std::uint32_t sub) -> std::optional<cpuid_regs> {
    cpuid_regs r;
    __cpuid_count(leaf, sub, r.eax, r.ebx, r.ecx, r.edx);
    return r;
  };
#else
  in.cpuid = [](std::uint32_t, std::uint32_t) -> std::optional<cpuid_regs> { return std::nullopt; };
#endif
  in.env = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  in.uname = []() -> std::optional<std::string> {
    utsname u{};
    if (::uname(&u) != 0) return std::nullopt;
    return std::string(u.sysname) + " " + u.release + " " + u.machine;
  };
  return in;
}

json probe_host(const host_inputs& in, const reading& driver_version, const reading& cuda_version) {
  json dmi = json::object();
  // product_serial, board_serial and product_uuid are never read: they identify the machine.
  for (const char* name : {"sys_vendor", "product_name", "board_vendor", "board_name", "bios_vendor", "bios_version"})
    dmi[name] = text_field(in.root, std::string("/sys/class/dmi/id/") + name);
  json host = json::object();
  host["dmi"] = dmi;
  host["virtualisation"] = virtualisation(in, dmi);
  host["container"] = container(in);
  host["cpu_model"] = cpu_model(in);
  host["cpu_count"] = cpu_count(in);
  host["memory_bytes"] = memory_bytes(in);
  const auto kernel = in.uname ? in.uname() : std::nullopt;
  host["kernel"] = kernel ? field(*kernel, "uname(2): sysname release machine") : unread("uname(2)", "uname failed");
  host["driver_version"] = driver_version.to_field();
  host["cuda_version"] = cuda_version.to_field();
  return host;
}

json make(const std::vector<gpu_identity>& gpus, json host) {
  json list = json::array();
  for (const auto& g : gpus) list.push_back(gpu_json(g));
  return {{"hash",
           {{"algorithm", "HMAC-SHA256"},
            {"key", hash_key},
            {"why",
             "GPU UUIDs and serial numbers identify a physical board: they are published only as HMAC-SHA256(key, the exact "
             "string NVML returns), in lowercase hex, so that the same GPU matches across runs and providers without its serial "
             "being published. The key is fixed and public: anyone holding a GPU can compute its hash and look for it; the hash "
             "keeps serials out of casual reading, not from someone who already knows a candidate serial."}}},
          {"gpus", list},
          {"host", std::move(host)}};
}

}  // namespace neograde::gpu_smoke::fingerprint
