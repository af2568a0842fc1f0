#include <neograde/clients/url.hpp>

#include <gtest/gtest.h>

using namespace neograde::http;

TEST(ParseUrl, SplitsWhatAClientConnectsTo) {
  auto u = parse_url("https://cloud.lambda.ai/api/v1/instances?x=1");
  ASSERT_TRUE(u.has_value());
  EXPECT_TRUE(u->tls);
  EXPECT_EQ(u->host, "cloud.lambda.ai");
  EXPECT_EQ(u->port, "443");
  EXPECT_EQ(u->target, "/api/v1/instances?x=1");
  u = parse_url("http://[::1]:8080");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, "8080");
  EXPECT_EQ(u->target, "/");
}

TEST(ParseUrl, RejectsWhatIsNotAnHttpUrl) {
  EXPECT_FALSE(parse_url("ftp://host/").has_value());
  EXPECT_FALSE(parse_url("host:80").has_value());
  EXPECT_FALSE(parse_url("http:///path").has_value());
}

TEST(ParseUrl, RefusesPortsNothingCanListenOn) {
  // Found by fuzzing: port 0 and ports past 65535 were accepted.
  EXPECT_FALSE(parse_url("http://127.0.0.1:0/").has_value());
  EXPECT_FALSE(parse_url("http://127.0.0.1:65536/").has_value());
  EXPECT_FALSE(parse_url("http://127.0.0.1:99999999999999999999/").has_value());
  EXPECT_EQ(parse_url("http://127.0.0.1:65535/")->port, "65535");
  EXPECT_EQ(parse_url("https://host:/")->port, "443");
}

TEST(ParseUrl, DoesNotTakeADottedNameForAnAddress) {
  // Boost.URL 1.81 parses this as host 127.0.0.1 with path ".example.com/"; a spend guard
  // trusting that would take a remote host for loopback.
  EXPECT_FALSE(parse_url("http://127.0.0.1.example.com/").has_value());
}

TEST(Loopback, OnlyLoopbackAddressesAndLocalhost) {
  for (const char* yes : {"http://127.0.0.1/", "http://127.255.0.9:1/", "http://localhost/", "http://[::1]/"})
    EXPECT_TRUE(is_loopback(*parse_url(yes))) << yes;
  for (const char* no : {"http://10.0.0.1/", "http://128.0.0.1/", "http://localhost.example/", "http://127.0.0/", "http://[::2]/"})
    EXPECT_FALSE(is_loopback(*parse_url(no))) << no;
}
