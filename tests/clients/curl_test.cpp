#include <neograde/clients/curl.hpp>

#include <neograde/core/redact.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>

using namespace neograde;

TEST(CurlCommand, ReadsTheKeyFromTheEnvironmentAndNeverCarriesIt) {
  exchange e;
  e.method = "POST";
  e.url = "http://127.0.0.1:9/api/v1/instance-operations/launch";
  e.request_headers = {{"Host", "127.0.0.1:9"}, {"Authorization", "<redacted>"}, {"Content-Type", "application/json"}};
  e.request_body = R"({"name":"it's"})";
  const auto line = curl_command(e, test::spec("lambda"));
  EXPECT_EQ(line,
            "curl -sS -i -X POST \"http://127.0.0.1:9/api/v1/instance-operations/launch\" -H \"Authorization: Bearer "
            "$LAMBDA_API_KEY\" -H 'Content-Type: application/json' --data-raw '{\"name\":\"it'\\''s\"}'");
  EXPECT_EQ(line.find("<redacted>"), std::string::npos);
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(CurlCommand, KeepsNeogradesOwnInvalidKey) {
  redactor r;
  auto h = r.headers({{"Authorization", "Bearer neograde_invalid_0123"}});
  EXPECT_EQ(h.front().second, "Bearer neograde_invalid_0123");
  h = r.headers({{"Authorization", "Bearer sk_real"}});
  EXPECT_EQ(h.front().second, "<redacted>");
}

TEST(CurlCommand, UsesTheProvidersHeaderScheme) {
  exchange e;
  e.method = "GET";
  e.url = "https://platform.fluidstack.io/instances";
  e.request_headers = {{"api-key", "<redacted>"}};
  EXPECT_NE(curl_command(e, test::spec("fluidstack")).find("-H \"api-key: $FLUIDSTACK_API_KEY\""), std::string::npos);
}
