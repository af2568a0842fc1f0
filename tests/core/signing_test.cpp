// HMAC request signing checked against an independent computation, not only against our own
// emulator (which shares the code): the expected Authorization below was computed with dstack's
// Crusoe client algorithm (dstackai/dstack src/dstack/_internal/core/backends/crusoe/resources.py
// @511c318c8 CrusoeClient._request: payload f"{API_VERSION}{path}\n{query}\n{method}\n{dt}\n",
// HMAC-SHA256 with the base64url-decoded secret, base64url without padding), run in Python 3 on
// the inputs below.

#include <neograde/core/base64.hpp>
#include <neograde/core/signing.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>

using namespace neograde;

TEST(Signing, CrusoeAuthorizationMatchesDstacksIndependentComputation) {
  const auto& scheme = test::spec("crusoe").auth.schemes.front();
  const auto secret = base64url_encode("secret-key-for-tests");
  ASSERT_EQ(secret, "c2VjcmV0LWtleS1mb3ItdGVzdHM");
  // dstack sorts the query parameters by name; the request sent them the other way round.
  const auto authorization = hmac_authorization(scheme, "AKEXAMPLE", secret, "GET", "/projects/p1/compute/vms/instances",
                                                "offset=0&limit=10", "2026-12-01T08:00:00+00:00");
  ASSERT_TRUE(authorization.has_value());
  EXPECT_EQ(*authorization, "Bearer 1.0:AKEXAMPLE:5uKVAxUiegHASjttwEkrJFxxcrCnMKg6jwbyyQ1ZCiI");
  // Any other method, timestamp or secret signs differently.
  EXPECT_NE(*hmac_authorization(scheme, "AKEXAMPLE", secret, "POST", "/projects/p1/compute/vms/instances", "offset=0&limit=10",
                                "2026-12-01T08:00:00+00:00"),
            *authorization);
  EXPECT_NE(*hmac_authorization(scheme, "AKEXAMPLE", base64url_encode("another secret"), "GET", "/projects/p1/compute/vms/instances",
                                "offset=0&limit=10", "2026-12-01T08:00:00+00:00"),
            *authorization);
  EXPECT_FALSE(hmac_authorization(scheme, "AKEXAMPLE", "", "GET", "/x", "", "t").has_value());  // no secret
}
