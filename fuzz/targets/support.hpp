#pragma once
// What the fuzz targets share: the oracle assertion and the specs embedded at build time.

#include <neograde/clients/provider_client.hpp>
#include <neograde/core/spec.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace neograde::fuzz_support {

// A violated oracle: prints what and where, then aborts so that libFuzzer saves the input.
[[noreturn]] void oracle_failed(const char* what, const char* file, int line);

// The embedded specs (lambda, runpod-graphql, vastai, digitalocean, crusoe), parsed once.
[[nodiscard]] std::size_t spec_count();
[[nodiscard]] const provider_spec& spec(std::size_t i);
[[nodiscard]] const provider_spec& spec_named(std::string_view id);
// A client for spec(i) that never connects (mapping only), made once: building one per input
// (an SSL context loads the system's CA store) made targets run at 5 inputs a second.
[[nodiscard]] provider_client& client(std::size_t i);
[[nodiscard]] provider_client& client_named(std::string_view id);

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) { return {reinterpret_cast<const char*>(data), size}; }

}  // namespace neograde::fuzz_support

#define NEOGRADE_ORACLE(cond) ((cond) ? (void)0 : ::neograde::fuzz_support::oracle_failed(#cond, __FILE__, __LINE__))
