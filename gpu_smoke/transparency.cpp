// Transparency claims graded against the hardware fingerprint (see transparency.hpp). The
// fingerprint comes from an instance the provider controls: every access is type-checked, and
// what is missing or malformed makes a claim unverified, never an exception.

#include <neograde/gpu_smoke/transparency.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

namespace neograde::gpu_smoke {
namespace {

using nlohmann::json;

const json* member(const json* j, const char* key) {
  if (j == nullptr || !j->is_object()) return nullptr;
  const auto it = j->find(key);
  return it == j->end() ? nullptr : &*it;
}

const json* fingerprint_of(const json& doc) {
  if (const auto* f = member(&doc, "fingerprint"); f && f->is_object()) return f;
  if (const auto* f = member(member(&doc, "smoke"), "fingerprint"); f && f->is_object()) return f;
  return nullptr;
}

std::optional<std::string> text(const json* j) {
  if (j && j->is_string()) return j->get<std::string>();
  return std::nullopt;
}

// A fingerprint field: its string value, its source, and why it is null.
struct field_view {
  std::optional<std::string> value;
  std::string source, reason;
};

field_view view(const json* f) {
  field_view v;
  v.value = text(member(f, "value"));
  v.source = text(member(f, "source")).value_or("no source given");
  if (!v.value) v.reason = text(member(f, "reason")).value_or(f == nullptr ? "absent" : "no readable value");
  return v;
}

bool is_hash(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// (GPU index, uuid_hash) for each GPU with a well-formed hash.
std::vector<std::pair<long long, std::string>> hashes_of(const json* fingerprint) {
  std::vector<std::pair<long long, std::string>> out;
  const auto* gpus = member(fingerprint, "gpus");
  if (gpus == nullptr || !gpus->is_array()) return out;
  for (std::size_t i = 0; i < gpus->size(); ++i) {
    const auto& g = (*gpus)[i];
    const auto hash = text(member(member(&g, "uuid_hash"), "value"));
    if (!hash || !is_hash(*hash)) continue;
    const auto* index = member(member(&g, "index"), "value");
    out.emplace_back(index && index->is_number_integer() ? index->get<long long>() : static_cast<long long>(i), *hash);
  }
  return out;
}

// A hypervisor value other than "other", in words.
const char* hypervisor_name(const std::string& v) {
  if (v == "kvm") return "KVM";
  if (v == "vmware") return "VMware";
  if (v == "hyperv") return "Hyper-V";
  if (v == "xen") return "Xen";
  return "QEMU";
}

constexpr const char* hypervisors[] = {"kvm", "vmware", "hyperv", "xen", "qemu", "other"};
constexpr const char* containers[] = {"docker", "podman", "kubernetes", "lxc", "other"};

template <std::size_t N>
bool one_of(const std::optional<std::string>& v, const char* const (&set)[N]) {
  return v && std::find_if(std::begin(set), std::end(set), [&](const char* s) { return *v == s; }) != std::end(set);
}

claim_verdict unverified(const char* claim, const std::string& declared, std::string measured, const std::string& why,
                         const std::string& evidence) {
  return {claim, declared, std::move(measured), "unverified", why + (evidence.empty() ? "" : "; " + evidence)};
}

claim_verdict grade_machine(const std::string& declared, const json* fingerprint) {
  if (fingerprint == nullptr) return unverified("machine", declared, "no fingerprint", "the smoke record has no hardware fingerprint", "");
  const auto* host = member(fingerprint, "host");
  const auto* virt_field = member(host, "virtualisation");
  const auto virt = view(virt_field), cont = view(member(host, "container"));
  const bool hypervisor = one_of(virt.value, hypervisors), bare = virt.value == "bare_metal";
  const bool in_container = one_of(cont.value, containers);

  std::string measured;
  if (hypervisor) {
    const auto vendor = text(member(member(virt_field, "evidence"), "cpuid_hypervisor_vendor"));
    measured =
        (*virt.value == "other" ? std::string("guest of an unnamed hypervisor") : std::string(hypervisor_name(*virt.value)) + " guest") +
        " (" + (vendor && virt.source.starts_with("cpuid") ? "CPUID hypervisor vendor " + *vendor : virt.source) + ")";
  } else if (bare) {
    measured = "bare metal";
  } else {
    measured = "virtualisation unknown";
  }
  if (in_container)
    measured = *cont.value + " container " + (bare ? "on bare metal" : hypervisor ? "in a " + measured : "(" + measured + ")");
  else if (cont.value == "none")
    measured += ", no container";
  const std::string evidence =
      "fingerprint.host.virtualisation = " + (virt.value ? "\"" + *virt.value + "\"" : "null (" + virt.reason + ")") + " from " +
      virt.source + "; fingerprint.host.container = " + (cont.value ? "\"" + *cont.value + "\"" : "null (" + cont.reason + ")") + " from " +
      cont.source;

  if (declared.empty()) return unverified("machine", declared, measured, "the spec declares no machine claim", evidence);
  if (declared == "bare_metal" || declared == "vm") {
    if (!hypervisor && !bare)
      return unverified("machine", declared, measured, "the fingerprint does not say whether this is a virtual machine", evidence);
    const bool holds = declared == "vm" ? hypervisor : bare;
    return {"machine", declared, measured, holds ? "consistent" : "contradicted", evidence};
  }
  if (declared == "container") {
    if (in_container) return {"machine", declared, measured, "consistent", evidence};
    return unverified("machine", declared, measured,
                      cont.value == "none" ? "no container was found, but a container can hide from every probe"
                                           : "the fingerprint does not say whether this is a container",
                      evidence);
  }
  if (declared == "mixed") return unverified("machine", declared, measured, "a mixed fleet: one node cannot decide it", evidence);
  if (declared == "unknown") return unverified("machine", declared, measured, "the provider does not say", evidence);
  return unverified("machine", declared, measured, "\"" + declared + "\" is not a machine claim neograde knows", evidence);
}

claim_verdict grade_hardware(const std::string& declared, const json* fingerprint, const std::vector<gpu_sighting>& seen) {
  if (fingerprint == nullptr) return unverified("hardware", declared, "no fingerprint", "the smoke record has no hardware fingerprint", "");
  const auto hashes = hashes_of(fingerprint);
  if (hashes.empty())
    return unverified("hardware", declared, "no GPU identity", "the fingerprint has no GPU uuid_hash to match",
                      "fingerprint.gpus[].uuid_hash");
  // (date, provider) -> the GPU indices seen there, and one of their hashes.
  std::map<std::pair<std::string, std::string>, std::pair<std::vector<long long>, std::string>> sightings;
  for (const auto& [index, hash] : hashes)
    for (const auto& s : seen)
      if (s.uuid_hash == hash) {
        auto& entry = sightings[{s.date, s.provider}];
        if (std::find(entry.first.begin(), entry.first.end(), index) == entry.first.end()) entry.first.push_back(index);
        entry.second = hash;
      }
  std::string measured, evidence;
  for (const auto& [where, what] : sightings) {
    const auto& [indices, hash] = what;
    std::string gpus = indices.size() == 1 ? "GPU " : "GPUs ";
    for (std::size_t i = 0; i < indices.size(); ++i) gpus += (i ? ", " : "") + std::to_string(indices[i]);
    measured += (measured.empty() ? "" : "; ") + gpus + " rented from " + where.second + " on " + where.first;
    evidence += std::string(evidence.empty() ? "" : "; ") + "the same physical GPU" + (indices.size() == 1 ? " was" : "s were") +
                " rented from " + where.second + " on " + where.first + " (fingerprint.gpus[].uuid_hash " + hash.substr(0, 16) +
                "... from nvmlDeviceGetUUID, HMAC-SHA256)";
  }
  const bool found = !sightings.empty();
  if (!found) {
    measured = "none of the node's " + std::to_string(hashes.size()) + " GPU(s) seen at another provider";
    evidence = "fingerprint.gpus[].uuid_hash compared with " + std::to_string(seen.size()) + " GPU sighting(s) in other providers' runs";
  }
  if (declared.empty()) return unverified("hardware", declared, measured, "the spec declares no hardware claim", evidence);
  if (declared == "owns" || declared == "colocates") {
    if (found) return {"hardware", declared, measured, "contradicted", evidence};
    return unverified("hardware", declared, measured, "ownership cannot be shown by a fingerprint, only contradicted", evidence);
  }
  if (declared == "resells" || declared == "marketplace" || declared == "mixed") {
    if (found) return {"hardware", declared, measured, "consistent", evidence};
    return unverified("hardware", declared, measured, "no GPU of this node was seen at another provider", evidence);
  }
  if (declared == "unknown") return unverified("hardware", declared, measured, "the provider does not say", evidence);
  return unverified("hardware", declared, measured, "\"" + declared + "\" is not a hardware claim neograde knows", evidence);
}

}  // namespace

std::vector<claim_verdict> grade_claims(const hardware_claim& claim, const json& smoke_document,
                                        const std::vector<gpu_sighting>& seen_elsewhere) {
  const auto* fingerprint = fingerprint_of(smoke_document);
  return {grade_machine(claim.machine, fingerprint), grade_hardware(claim.hardware, fingerprint, seen_elsewhere)};
}

std::vector<std::string> gpu_uuid_hashes(const json& smoke_document) {
  std::vector<std::string> out;
  for (auto& [index, hash] : hashes_of(fingerprint_of(smoke_document))) out.push_back(std::move(hash));
  return out;
}

}  // namespace neograde::gpu_smoke
