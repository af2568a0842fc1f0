#pragma once
// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for the hardware fingerprint's keyed hashes of
// GPU UUIDs and serial numbers. neograde-gpu-smoke is one binary copied onto a fresh instance and
// must not need a shared library the driver does not bring (no libcrypto: its soname differs
// between Ubuntu 22.04, Debian 12 and RHEL 9), so the hash is implemented here; the unit tests
// check it against the FIPS 180-2 and RFC 4231 vectors and against OpenSSL.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace neograde::gpu_smoke {

using sha256_digest = std::array<std::uint8_t, 32>;

[[nodiscard]] sha256_digest sha256(std::string_view data);
[[nodiscard]] sha256_digest hmac_sha256(std::string_view key, std::string_view message);
// Lowercase hexadecimal, two digits a byte.
[[nodiscard]] std::string to_hex(const sha256_digest& digest);

}  // namespace neograde::gpu_smoke
