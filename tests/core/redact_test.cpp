#include <neograde/core/redact.hpp>

#include <neograde/core/base64.hpp>

#include <gtest/gtest.h>

using namespace neograde;

TEST(Redactor, ScrubsSecretsEverywhereInAnExchange) {
  redactor r;
  r.add_secret("sk_live_SECRET123");
  exchange e;
  e.url = "https://api.example/v1/x?api_key=sk_live_SECRET123";
  e.request_headers = {{"Authorization", "Bearer sk_live_SECRET123"}, {"X-Trace", "sk_live_SECRET123"}};
  e.request_body = R"({"key":"sk_live_SECRET123"})";
  e.response_body = "echo: sk_live_SECRET123";
  e.error = "failed for sk_live_SECRET123";
  auto out = r.apply(e);
  const std::string all = nlohmann::json(out).dump();
  EXPECT_EQ(all.find("SECRET123"), std::string::npos) << all;
  EXPECT_EQ(out.request_headers[0].second, "<redacted>");
  EXPECT_NE(out.url.find("api_key=<redacted>"), std::string::npos);
}

TEST(Redactor, ScrubsBasicCredentials) {
  redactor r;
  r.add_secret("key1");
  const auto basic = base64_encode("key1:");
  EXPECT_EQ(r.text("echoed " + basic).find(basic), std::string::npos);
}

TEST(Redactor, ScrubsKnownSecretFieldsInJsonBodies) {
  redactor r;
  exchange e;
  e.response_body = R"({"data":{"name":"k","private_key":"-----BEGIN KEY-----","access_token":"t0k"}})";
  auto out = r.apply(e);
  EXPECT_EQ(out.response_body.find("BEGIN KEY"), std::string::npos);
  EXPECT_EQ(out.response_body.find("t0k"), std::string::npos);
  EXPECT_NE(out.response_body.find("\"name\":\"k\""), std::string::npos);
}

TEST(Redactor, LeavesOrdinaryTextAlone) {
  redactor r;
  r.add_secret("abc");
  EXPECT_EQ(r.text("nothing here"), "nothing here");
  r.add_secret("");
  EXPECT_EQ(r.text("x"), "x");
}

TEST(Redactor, KeepsABodyWithNothingToScrubByteForByte) {
  redactor r;
  r.add_secret("sk_live_ABC123");
  exchange e;
  e.request_body = "{ \"name\" : \"a\",\n  \"name\": \"b\" }";  // duplicate member, spaces: as the fuzzer sent it
  e.response_body = R"({"zeta":1,"alpha":"sk_live_ABC123"})";
  auto out = r.apply(e);
  EXPECT_EQ(out.request_body, e.request_body);
  EXPECT_EQ(out.response_body, R"({"zeta":1,"alpha":"<redacted>"})");
}

TEST(Redactor, ScrubsEverySecretFieldNameWhateverItsCase) {
  redactor r;
  for (const std::string name : {"private_key", "Access_Token", "REFRESH_TOKEN", "client_secret", "Password", "api_key", "ApiKey", "secret",
                                 "token", "jupyter_token"}) {
    exchange e;
    e.response_body = R"({"data":[{")" + name + R"(":"hunter2"}]})";
    EXPECT_EQ(r.apply(e).response_body.find("hunter2"), std::string::npos) << name;
  }
}

TEST(Redactor, FindsASecretSpelledWithJsonEscapes) {
  redactor r;
  r.add_secret("abc123");
  exchange e;
  e.response_body = R"({"echo":"\u0061bc123"})";
  EXPECT_EQ(r.apply(e).response_body.find("abc123"), std::string::npos);
}
