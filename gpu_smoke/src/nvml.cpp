#include "nvml.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>

namespace neograde::gpu_smoke::nvml {
namespace {

// From nvml.h (NVML API v12): only what is read here.
using ret = int;  // nvmlReturn_t
constexpr ret success = 0;
constexpr ret not_supported = 3;
constexpr ret insufficient_size = 7;

struct pci_info {  // nvmlPciInfo_t
  char bus_id_legacy[16];
  unsigned domain, bus, device;
  unsigned pci_device_id;  // device id << 16 | vendor id
  unsigned pci_subsystem_id;
  char bus_id[32];
};

struct memory {  // nvmlMemory_t
  unsigned long long total, free, used;
};

enum clock_type : int { clock_graphics = 0, clock_sm = 1, clock_mem = 2 };

}  // namespace

struct library::fns {
  ret (*init)();
  ret (*shutdown)();
  ret (*count)(unsigned*);
  ret (*by_index)(unsigned, device*);
  ret (*by_bus_id)(const char*, device*);
  ret (*driver_version)(char*, unsigned);
  ret (*cuda_driver_version)(int*);
  ret (*name)(device, char*, unsigned);
  ret (*pci)(device, pci_info*);
  ret (*memory_info)(device, memory*);
  ret (*enforced_limit)(device, unsigned*);
  ret (*default_limit)(device, unsigned*);
  ret (*power_usage)(device, unsigned*);
  ret (*curr_gen)(device, unsigned*);
  ret (*curr_width)(device, unsigned*);
  ret (*max_gen)(device, unsigned*);
  ret (*max_width)(device, unsigned*);
  ret (*gpu_max_gen)(device, unsigned*);
  ret (*ecc_mode)(device, int*, int*);
  ret (*ecc_errors)(device, int, int, unsigned long long*);
  ret (*retired_pages)(device, int, unsigned*, unsigned long long*);
  ret (*retired_pending)(device, int*);
  ret (*remapped_rows)(device, unsigned*, unsigned*, unsigned*, unsigned*);
  ret (*mig_mode)(device, unsigned*, unsigned*);
  ret (*nvlink_state)(device, unsigned, int*);
  ret (*clock_reasons)(device, unsigned long long*);
  ret (*clock)(device, int, unsigned*);
  ret (*max_clock)(device, int, unsigned*);
  ret (*temperature)(device, int, unsigned*);
  // The fingerprint's identity queries.
  ret (*uuid)(device, char*, unsigned);
  ret (*serial)(device, char*, unsigned);
  ret (*part_number)(device, char*, unsigned);
  ret (*vbios)(device, char*, unsigned);
  ret (*remote_pci)(device, unsigned, pci_info*);
  const char* (*error_string)(ret);
  const char* pci_name = "";  // which nvmlDeviceGetPciInfo was bound
};

namespace {

// Binds the first of `names` the library has; returns its name ("" when none).
template <typename F>
const char* bind(void* h, F& f, std::initializer_list<const char*> names) {
  f = nullptr;
  for (const char* n : names)
    if (void* p = dlsym(h, n)) {
      f = reinterpret_cast<F>(p);
      return n;
    }
  return "";
}

// Calls an optional NVML function; nullopt when it is missing or fails.
template <typename T, typename F, typename... A>
std::optional<T> query(F f, A... args) {
  if (f == nullptr) return std::nullopt;
  unsigned v = 0;
  if (f(args..., &v) != success) return std::nullopt;
  return static_cast<T>(v);
}

}  // namespace

library::library() {
  handle_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* e = dlerror();
    status_ = std::string("unavailable: ") + (e ? e : "libnvidia-ml.so.1 not found");
    return;
  }
  f_ = new fns{};
  bind(handle_, f_->init, {"nvmlInit_v2", "nvmlInit"});
  bind(handle_, f_->shutdown, {"nvmlShutdown"});
  bind(handle_, f_->count, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
  bind(handle_, f_->by_index, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
  bind(handle_, f_->by_bus_id, {"nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId"});
  bind(handle_, f_->driver_version, {"nvmlSystemGetDriverVersion"});
  bind(handle_, f_->cuda_driver_version, {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"});
  bind(handle_, f_->name, {"nvmlDeviceGetName"});
  f_->pci_name = bind(handle_, f_->pci, {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"});
  bind(handle_, f_->memory_info, {"nvmlDeviceGetMemoryInfo"});
  bind(handle_, f_->enforced_limit, {"nvmlDeviceGetEnforcedPowerLimit"});
  bind(handle_, f_->default_limit, {"nvmlDeviceGetPowerManagementDefaultLimit"});
  bind(handle_, f_->power_usage, {"nvmlDeviceGetPowerUsage"});
  bind(handle_, f_->curr_gen, {"nvmlDeviceGetCurrPcieLinkGeneration"});
  bind(handle_, f_->curr_width, {"nvmlDeviceGetCurrPcieLinkWidth"});
  bind(handle_, f_->max_gen, {"nvmlDeviceGetMaxPcieLinkGeneration"});
  bind(handle_, f_->max_width, {"nvmlDeviceGetMaxPcieLinkWidth"});
  bind(handle_, f_->gpu_max_gen, {"nvmlDeviceGetGpuMaxPcieLinkGeneration"});
  bind(handle_, f_->ecc_mode, {"nvmlDeviceGetEccMode"});
  bind(handle_, f_->ecc_errors, {"nvmlDeviceGetTotalEccErrors"});
  bind(handle_, f_->retired_pages, {"nvmlDeviceGetRetiredPages"});
  bind(handle_, f_->retired_pending, {"nvmlDeviceGetRetiredPagesPendingStatus"});
  bind(handle_, f_->remapped_rows, {"nvmlDeviceGetRemappedRows"});
  bind(handle_, f_->mig_mode, {"nvmlDeviceGetMigMode"});
  bind(handle_, f_->nvlink_state, {"nvmlDeviceGetNvLinkState"});
  bind(handle_, f_->clock_reasons, {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
  bind(handle_, f_->clock, {"nvmlDeviceGetClockInfo"});
  bind(handle_, f_->max_clock, {"nvmlDeviceGetMaxClockInfo"});
  bind(handle_, f_->temperature, {"nvmlDeviceGetTemperature"});
  bind(handle_, f_->uuid, {"nvmlDeviceGetUUID"});
  bind(handle_, f_->serial, {"nvmlDeviceGetSerial"});
  bind(handle_, f_->part_number, {"nvmlDeviceGetBoardPartNumber"});
  bind(handle_, f_->vbios, {"nvmlDeviceGetVbiosVersion"});
  bind(handle_, f_->remote_pci, {"nvmlDeviceGetNvLinkRemotePciInfo_v2"});
  bind(handle_, f_->error_string, {"nvmlErrorString"});
  if (f_->init == nullptr || f_->count == nullptr || f_->by_index == nullptr) {
    status_ = "unavailable: libnvidia-ml.so.1 lacks nvmlInit/nvmlDeviceGetCount";
    return;
  }
  if (const ret r = f_->init(); r != success) {
    status_ = "unavailable: nvmlInit failed with NVML error " + std::to_string(r);
    return;
  }
  ok_ = true;
  status_ = "loaded";
}

library::~library() {
  if (ok_ && f_->shutdown) f_->shutdown();
  delete f_;
  if (handle_) dlclose(handle_);
}

std::optional<int> library::count() const {
  if (!ok_) return std::nullopt;
  return query<int>(f_->count);
}

std::string library::driver_version() const {
  char buf[96] = {};
  if (!ok_ || f_->driver_version == nullptr || f_->driver_version(buf, sizeof buf) != success) return "";
  return buf;
}

std::optional<int> library::cuda_driver_version() const {
  int v = 0;
  if (!ok_ || f_->cuda_driver_version == nullptr || f_->cuda_driver_version(&v) != success) return std::nullopt;
  return v;
}

std::optional<device> library::by_bus_id(const std::string& bus_id) const {
  device d = nullptr;
  if (!ok_ || f_->by_bus_id == nullptr || f_->by_bus_id(bus_id.c_str(), &d) != success) return std::nullopt;
  return d;
}

std::optional<device> library::by_index(int index) const {
  device d = nullptr;
  if (!ok_ || f_->by_index(static_cast<unsigned>(index), &d) != success) return std::nullopt;
  return d;
}

void library::inventory(device d, gpu_record& g) const {
  if (!ok_) return;
  char name[96] = {};
  if (g.name.empty() && f_->name && f_->name(d, name, sizeof name) == success) g.name = name;
  pci_info pci{};
  if (f_->pci && f_->pci(d, &pci) == success) {
    g.pci_device_id = static_cast<std::uint16_t>(pci.pci_device_id >> 16);
    if (g.pci_bus_id.empty()) g.pci_bus_id = pci.bus_id;
  }
  memory mem{};
  if (!g.memory_mib && f_->memory_info && f_->memory_info(d, &mem) == success)
    g.memory_mib = static_cast<long long>(mem.total / (1024 * 1024));
  if (auto w = query<double>(f_->enforced_limit, d)) g.power_limit_enforced_w = *w / 1000;
  if (auto w = query<double>(f_->default_limit, d)) g.power_limit_default_w = *w / 1000;
  auto gen = query<int>(f_->curr_gen, d), width = query<int>(f_->curr_width, d);
  if (gen && width) g.pcie_current = pcie_link{*gen, *width};
  auto mgen = query<int>(f_->max_gen, d), mwidth = query<int>(f_->max_width, d);
  if (mgen && mwidth) g.pcie_max = pcie_link{*mgen, *mwidth};
  g.pcie_gpu_max_gen = query<int>(f_->gpu_max_gen, d);
  int current = 0, pending = 0;
  if (f_->ecc_mode && f_->ecc_mode(d, &current, &pending) == success) g.ecc_enabled = current != 0;
  if (f_->ecc_errors) {
    unsigned long long v[4] = {};  // corrected, uncorrected x volatile, aggregate
    const bool ok = f_->ecc_errors(d, 0, 0, &v[0]) == success && f_->ecc_errors(d, 1, 0, &v[1]) == success &&
                    f_->ecc_errors(d, 0, 1, &v[2]) == success && f_->ecc_errors(d, 1, 1, &v[3]) == success;
    if (ok) g.ecc = ecc_counts{v[0], v[1], v[2], v[3]};
  }
  if (f_->retired_pages && f_->retired_pending) {
    unsigned sbe = 0, dbe = 0;
    int pend = 0;
    const ret a = f_->retired_pages(d, 0, &sbe, nullptr), b = f_->retired_pages(d, 1, &dbe, nullptr);
    if ((a == success || a == insufficient_size) && (b == success || b == insufficient_size) && f_->retired_pending(d, &pend) == success)
      g.retired = retired_pages{sbe, dbe, pend != 0};
  }
  unsigned corr = 0, unc = 0, is_pending = 0, failure = 0;
  if (f_->remapped_rows && f_->remapped_rows(d, &corr, &unc, &is_pending, &failure) == success)
    g.remapped = remapped_rows{corr, unc, is_pending != 0, failure != 0};
  unsigned mig = 0, mig_pending = 0;
  if (f_->mig_mode && f_->mig_mode(d, &mig, &mig_pending) == success) g.mig_enabled = mig != 0;
  if (f_->nvlink_state) {
    int links = 0, active = 0;
    for (unsigned link = 0; link < 36; ++link) {
      int state = 0;
      if (f_->nvlink_state(d, link, &state) != success) continue;
      ++links;
      active += state != 0;
    }
    g.nvlink_links = links;
    g.nvlink_active = active;
  }
  unsigned long long reasons = 0;
  if (f_->clock_reasons && f_->clock_reasons(d, &reasons) == success) g.throttle_idle = reasons;
  if (auto t = query<double>(f_->temperature, d, 0)) g.temperature_c = t;
  if (!g.max_sm_clock_mhz) g.max_sm_clock_mhz = query<int>(f_->max_clock, d, static_cast<int>(clock_sm));
  if (!g.max_mem_clock_mhz) g.max_mem_clock_mhz = query<int>(f_->max_clock, d, static_cast<int>(clock_mem));
}

std::string library::error(int code) const {
  const char* text = f_ && f_->error_string ? f_->error_string(code) : nullptr;
  return "NVML error " + std::to_string(code) + (text ? std::string(" (") + text + ")" : "");
}

// A string query (UUID, serial, part number, VBIOS): the exact string NVML returns, or why not.
fingerprint::reading library::text(ret (*f)(device, char*, unsigned), const char* name, device d) const {
  fingerprint::reading r{std::nullopt, std::string("nvml:") + name, ""};
  if (!ok_) return r.reason = "NVML " + status_, r;
  if (f == nullptr) return r.reason = std::string("libnvidia-ml.so.1 lacks ") + name, r;
  char buf[128] = {};  // larger than NVML's buffers (UUID 96, part number 80, VBIOS 32, serial 30)
  if (const ret code = f(d, buf, sizeof buf - 1); code != success) return r.reason = error(code), r;
  if (buf[0] == '\0') return r.reason = "NVML returned an empty string", r;
  r.value = buf;
  return r;
}

fingerprint::gpu_identity library::identity(std::optional<device> d, int index, const std::string& cuda_bus_id) const {
  fingerprint::gpu_identity id;
  id.index = {std::to_string(index), cuda_bus_id.empty() ? "nvml:device index" : "cuda:device ordinal", ""};
  if (!ok_ || !d) {
    const std::string why = !ok_ ? "NVML " + status_ : "NVML has no device at this index or bus id";
    for (auto* r : {&id.uuid, &id.serial, &id.board_part_number, &id.vbios_version}) r->reason = why;
    id.uuid.source = "nvml:nvmlDeviceGetUUID", id.serial.source = "nvml:nvmlDeviceGetSerial";
    id.board_part_number.source = "nvml:nvmlDeviceGetBoardPartNumber", id.vbios_version.source = "nvml:nvmlDeviceGetVbiosVersion";
    id.pci_bus_id = {cuda_bus_id.empty() ? std::nullopt : std::optional(cuda_bus_id), "cuda:cudaDeviceGetPCIBusId", why};
    id.nvlink_source = "nvml:nvmlDeviceGetNvLinkState", id.nvlink_reason = why;
    return id;
  }
  id.uuid = text(f_->uuid, "nvmlDeviceGetUUID", *d);
  id.serial = text(f_->serial, "nvmlDeviceGetSerial", *d);
  id.board_part_number = text(f_->part_number, "nvmlDeviceGetBoardPartNumber", *d);
  id.vbios_version = text(f_->vbios, "nvmlDeviceGetVbiosVersion", *d);
  pci_info pci{};
  if (f_->pci && f_->pci(*d, &pci) == success && pci.bus_id[0] != '\0')
    id.pci_bus_id = {std::string(pci.bus_id, strnlen(pci.bus_id, sizeof pci.bus_id)), std::string("nvml:") + f_->pci_name, ""};
  else if (!cuda_bus_id.empty())
    id.pci_bus_id = {cuda_bus_id, "cuda:cudaDeviceGetPCIBusId", ""};
  else
    id.pci_bus_id = {std::nullopt, "nvml:nvmlDeviceGetPciInfo_v3", "NVML gave no PCI bus id"};
  nvlink_peers(*d, id);
  return id;
}

// The remote ends of the active links: links up to 36 (NVML_NVLINK_MAX_LINKS is 18 today).
void library::nvlink_peers(device d, fingerprint::gpu_identity& id) const {
  id.nvlink_source = "nvml:nvmlDeviceGetNvLinkState, nvmlDeviceGetNvLinkRemotePciInfo_v2";
  if (f_->nvlink_state == nullptr || f_->remote_pci == nullptr) {
    id.nvlink_reason = "libnvidia-ml.so.1 lacks nvmlDeviceGetNvLinkState or nvmlDeviceGetNvLinkRemotePciInfo_v2";
    return;
  }
  std::vector<std::string> peers, unread;
  int answered = 0;
  ret first = success;
  for (unsigned link = 0; link < 36; ++link) {
    int state = 0;
    const ret code = f_->nvlink_state(d, link, &state);
    if (link == 0) first = code;
    if (code != success) continue;
    ++answered;
    if (state == 0) continue;
    pci_info remote{};
    if (const ret rc = f_->remote_pci(d, link, &remote); rc != success) unread.push_back("link " + std::to_string(link) + ": " + error(rc));
    else
      peers.emplace_back(remote.bus_id, strnlen(remote.bus_id, sizeof remote.bus_id));
  }
  if (answered == 0 && first != not_supported) {
    id.nvlink_reason = "nvmlDeviceGetNvLinkState on link 0: " + error(first);
    return;
  }
  if (peers.empty() && !unread.empty()) {
    id.nvlink_reason = "no active link's remote end could be read: " + unread.front();
    return;
  }
  if (answered == 0) id.nvlink_source += " (link 0: not supported: the GPU has no NVLink)";
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  id.nvlink_peers = peers;
  for (const auto& u : unread) id.nvlink_note += (id.nvlink_note.empty() ? "unread: " : "; ") + u;
}

fingerprint::reading library::driver_version_reading() const {
  const auto v = driver_version();
  return {v.empty() ? std::nullopt : std::optional(v), "nvml:nvmlSystemGetDriverVersion",
          ok_ ? "NVML gave no driver version" : "NVML " + status_};
}

fingerprint::reading library::cuda_version_reading() const {
  const auto v = cuda_driver_version();
  if (!v) return {std::nullopt, "nvml:nvmlSystemGetCudaDriverVersion_v2", ok_ ? "NVML gave no CUDA version" : "NVML " + status_};
  return {std::to_string(*v / 1000) + "." + std::to_string(*v % 1000 / 10),
          "nvml:nvmlSystemGetCudaDriverVersion_v2 (" + std::to_string(*v) + ")", ""};
}

sample library::read(device d) const {
  sample s;
  if (!ok_) return s;
  if (auto w = query<double>(f_->power_usage, d)) s.power_w = *w / 1000;
  s.sm_clock_mhz = query<int>(f_->clock, d, static_cast<int>(clock_sm));
  unsigned long long reasons = 0;
  if (f_->clock_reasons && f_->clock_reasons(d, &reasons) == success) s.throttle = reasons;
  auto gen = query<int>(f_->curr_gen, d), width = query<int>(f_->curr_width, d);
  if (gen && width) s.link = pcie_link{*gen, *width};
  s.temperature_c = query<double>(f_->temperature, d, 0);
  return s;
}

}  // namespace neograde::gpu_smoke::nvml
