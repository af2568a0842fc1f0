#pragma once
// What the fuzz targets share: the oracle assertion and the specs embedded at build time.

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

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace neograde::fuzz_support

#define NEOGRADE_ORACLE(cond) \
  ((cond) ? (void)0 : ::neograde::fuzz_support::oracle_failed(#cond, __FILE__, __LINE__))
