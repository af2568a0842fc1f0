#include <neograde/gpu_smoke/numa.hpp>

#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace neograde::gpu_smoke::numa {
namespace {

// From <linux/mempolicy.h> (mbind(2), get_mempolicy(2)); spelled out so that the build needs no
// kernel or libnuma headers. PREFERRED, not BIND: a node that is full falls back to another one
// (resident_node() then tells) instead of the page fault killing the process.
constexpr int kMpolPreferred = 1;
constexpr unsigned long kMpolFNode = 1, kMpolFAddr = 2;

std::optional<std::string> read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

std::optional<int> number(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  bool negative = !s.empty() && s.front() == '-';
  if (negative) s.remove_prefix(1);
  if (s.empty() || s.size() > 6) return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return negative ? -v : v;
}

bool hex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

std::string errno_text(const char* call) { return std::string(call) + ": " + std::strerror(errno); }

}  // namespace

std::optional<std::string> sysfs_bdf(std::string_view id) {
  // domain:bus:device.function, the domain 4 or 8 hex digits (NVML pads it to 8).
  const auto c1 = id.find(':');
  if (c1 == std::string_view::npos) return std::nullopt;
  const auto c2 = id.find(':', c1 + 1), dot = id.find('.', c1 + 1);
  if (c2 == std::string_view::npos || dot == std::string_view::npos || dot < c2) return std::nullopt;
  auto domain = id.substr(0, c1), bus = id.substr(c1 + 1, c2 - c1 - 1), dev = id.substr(c2 + 1, dot - c2 - 1), fn = id.substr(dot + 1);
  if ((domain.size() != 4 && domain.size() != 8) || bus.size() != 2 || dev.size() != 2 || fn.size() != 1 || !hex(domain) || !hex(bus) ||
      !hex(dev) || !hex(fn))
    return std::nullopt;
  if (domain.size() == 8) {
    if (domain.substr(0, 4) != "0000") return std::nullopt;
    domain.remove_prefix(4);
  }
  std::string out = std::string(domain) + ":" + std::string(bus) + ":" + std::string(dev) + "." + std::string(fn);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<std::vector<int>> parse_cpulist(std::string_view text, int max_cpu) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  std::vector<int> cpus;
  if (text.empty()) return cpus;  // a node without CPUs (memory only)
  std::size_t at = 0;
  while (at <= text.size()) {
    const auto comma = std::min(text.find(',', at), text.size());
    const auto part = text.substr(at, comma - at);
    const auto dash = part.find('-');
    const auto lo = number(part.substr(0, dash));
    const auto hi = dash == std::string_view::npos ? lo : number(part.substr(dash + 1));
    if (!lo || !hi || *lo < 0 || *hi < *lo || *hi >= max_cpu) return std::nullopt;
    for (int c = *lo; c <= *hi; ++c) cpus.push_back(c);
    at = comma + 1;
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

location locate(std::string_view pci_bus_id, const std::string& sysfs_root) {
  location out;
  const auto bdf = sysfs_bdf(pci_bus_id);
  if (!bdf) {
    out.reason = "no PCI bus id to look up (\"" + std::string(pci_bus_id) + "\")";
    return out;
  }
  const auto path = sysfs_root + "/bus/pci/devices/" + *bdf + "/numa_node";
  const auto line = read_line(path);
  const auto node = line ? number(*line) : std::nullopt;
  if (!node) {
    out.reason = "cannot read " + path;
    return out;
  }
  if (*node < 0) {
    out.reason = path + " is " + std::to_string(*node) + ": the platform assigns the device no NUMA node";
    return out;
  }
  out.node = node;
  const auto cpulist_path = sysfs_root + "/devices/system/node/node" + std::to_string(*node) + "/cpulist";
  const auto cpulist = read_line(cpulist_path);
  if (!cpulist) {
    out.reason = "cannot read " + cpulist_path;
    return out;
  }
  if (auto cpus = parse_cpulist(*cpulist)) out.cpus = std::move(*cpus);
  else
    out.reason = cpulist_path + " is not a cpulist: \"" + *cpulist + "\"";
  return out;
}

std::string bind_thread(const std::vector<int>& cpus) {
  if (cpus.empty()) return "no CPU to bind to";
  const int count = cpus.back() + 1;
  cpu_set_t* set = CPU_ALLOC(count);
  if (set == nullptr) return errno_text("CPU_ALLOC");
  const std::size_t size = CPU_ALLOC_SIZE(count);
  CPU_ZERO_S(size, set);
  for (int c : cpus) CPU_SET_S(c, size, set);
  const int rc = sched_setaffinity(0, size, set);
  std::string why = rc == 0 ? "" : errno_text("sched_setaffinity");
  CPU_FREE(set);
  return why;
}

node_buffer::~node_buffer() {
  if (ptr_ != nullptr) (void)munmap(ptr_, bytes_);
}

bool node_buffer::allocate(std::size_t bytes, int node) {
  if (ptr_ != nullptr) (void)munmap(ptr_, bytes_);
  ptr_ = nullptr;
  bytes_ = 0;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t rounded = (bytes + page - 1) / page * page;
  if (rounded == 0) return false;
  void* p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    placement_ = errno_text("mmap");
    return false;
  }
  ptr_ = p;
  bytes_ = rounded;
  placement_ = "first touch";
  if (node >= 0 && node < 4096) {
    std::vector<unsigned long> mask(node / (8 * sizeof(unsigned long)) + 1, 0);
    mask[node / (8 * sizeof(unsigned long))] = 1UL << (node % (8 * sizeof(unsigned long)));
    if (syscall(SYS_mbind, p, rounded, kMpolPreferred, mask.data(), mask.size() * 8 * sizeof(unsigned long) + 1, 0) == 0)
      placement_ = "mbind";
    else
      placement_ = "first touch (" + errno_text("mbind") + ")";
  } else if (node >= 0) {
    placement_ = "first touch (node " + std::to_string(node) + " out of range)";
  }
  // Fault every page in now, on this thread: under mbind on the node, else on the thread's node.
  for (std::size_t off = 0; off < rounded; off += page) static_cast<volatile char*>(p)[off] = 0;
  return true;
}

std::optional<int> node_buffer::resident_node() const {
  if (ptr_ == nullptr) return std::nullopt;
  auto node_of = [](void* addr) -> std::optional<int> {
    int node = -1;
    if (syscall(SYS_get_mempolicy, &node, nullptr, 0, addr, kMpolFNode | kMpolFAddr) != 0 || node < 0) return std::nullopt;
    return node;
  };
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const auto first = node_of(ptr_), last = node_of(static_cast<char*>(ptr_) + bytes_ - page);
  return first && last && *first == *last ? first : std::nullopt;
}

}  // namespace neograde::gpu_smoke::numa
