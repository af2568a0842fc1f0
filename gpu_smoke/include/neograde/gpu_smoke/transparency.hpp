#pragma once
// Declared versus measured transparency: a provider's claims (spec provider.transparency: owns or
// resells the hardware, bare metal or VM) graded against a smoke document's hardware fingerprint
// and the GPUs seen in other providers' runs. The reports put each verdict beside its evidence.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace neograde::gpu_smoke {

struct hardware_claim {
  std::string hardware;  // spec provider.transparency.hardware: owns, colocates, resells, marketplace, mixed, unknown, or "" (not declared)
  std::string machine;   // spec provider.transparency.machine: bare_metal, vm, container, mixed, unknown, or ""
};

struct gpu_sighting {    // a GPU seen in another provider's run
  std::string provider;  // provider id
  std::string date;      // ISO-8601 date of that run
  std::string uuid_hash;
};

struct claim_verdict {
  std::string claim;     // "machine" or "hardware"
  std::string declared;  // the claim as declared ("" when the spec says nothing)
  std::string measured;  // what the record shows, in words ("KVM guest (CPUID hypervisor vendor KVMKVMKVM)", "bare metal",
                         // "GPU 0 rented from vastai on 2026-11-02")
  std::string verdict;   // consistent, contradicted, unverified
  std::string evidence;  // the fields and their sources behind `measured` (and, when unverified, why)
};

// Grades the declared claims against a smoke document's fingerprint (the document itself, or a
// hardware record holding it under "smoke"). No fingerprint, a claim not declared, or evidence
// that cannot decide -> unverified with the reason. machine: bare_metal vs a hypervisor found ->
// contradicted; vm vs bare metal found -> contradicted; container inside a VM is a VM plus a
// container. hardware: owns/colocates with a GPU seen at another provider -> contradicted ("the
// same physical GPU was rented from X on DATE"); resells/marketplace/mixed with such a sighting ->
// consistent. Never throws on a malformed fingerprint: what cannot be read is unverified.
// Returns the machine verdict, then the hardware verdict.
[[nodiscard]] std::vector<claim_verdict> grade_claims(const hardware_claim& claim, const nlohmann::json& smoke_document,
                                                      const std::vector<gpu_sighting>& seen_elsewhere);

// The uuid_hash values of a smoke document's fingerprint (empty when it has none), in GPU order;
// only well-formed hashes (64 lowercase hex digits).
[[nodiscard]] std::vector<std::string> gpu_uuid_hashes(const nlohmann::json& smoke_document);

}  // namespace neograde::gpu_smoke
