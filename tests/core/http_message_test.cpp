// Included first: the header stands alone.
#include <neograde/core/http_message.hpp>

#include <gtest/gtest.h>

using neograde::http::response;

TEST(HttpMessage, HeaderIsTheFirstValueFoundCaseInsensitively) {
  const response r{.status = 200, .headers = {{"Retry-After", "5"}, {"retry-after", "7"}}, .body = {}};
  EXPECT_EQ(r.header("retry-after"), "5");
  EXPECT_EQ(r.header("RETRY-AFTER"), "5");
  EXPECT_EQ(r.header("Content-Type"), "");
}

TEST(HttpMessage, RequestDefaultsToAnEmptyGet) {
  const neograde::http::request req;
  EXPECT_EQ(req.method, "GET");
  EXPECT_TRUE(req.url.empty());
  EXPECT_TRUE(req.headers.empty());
  EXPECT_TRUE(req.body.empty());
}
