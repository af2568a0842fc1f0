#include <neograde/core/evidence.hpp>

#include <neograde/core/finding.hpp>
#include <neograde/core/json_util.hpp>

#include <gtest/gtest.h>

using namespace neograde;

namespace {

const header_list json_type{{"Content-Type", "application/json"}};

}  // namespace

TEST(EvidenceBody, TextWithinTheLimitIsKeptWhole) {
  std::string body = R"({"data":[]})";
  EXPECT_EQ(keep_body(body, json_type), std::nullopt);
  EXPECT_EQ(body, R"({"data":[]})");
  std::string exactly(16 * 1024, 'a');
  EXPECT_EQ(keep_body(exactly, json_type), std::nullopt);
  EXPECT_EQ(exactly.size(), 16u * 1024);
}

TEST(EvidenceBody, LongTextIsCutAtACharacterWithItsLengthAndHash) {
  // "é" is two bytes; 10 of them with a limit of 7 bytes cut inside the fourth: 3 are kept.
  std::string body;
  for (int i = 0; i < 10; ++i) body += "\xc3\xa9";
  const auto whole = body;
  const auto d = keep_body(body, json_type, {.text_bytes = 7, .binary_head_bytes = 48});
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(body, whole.substr(0, 6));
  EXPECT_EQ(d->bytes, 20u);
  EXPECT_EQ(d->kept_bytes, 6u);
  EXPECT_EQ(d->sha256, sha256_hex(whole));
  EXPECT_TRUE(d->binary.empty());
  EXPECT_FALSE(d->complete());
  EXPECT_EQ(whole_body(body, d), std::nullopt);  // cut: not replayable
}

TEST(EvidenceBody, Sha256IsTheStandardOne) {
  // FIPS 180-2, appendix B.1.
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(EvidenceBody, BinaryIsNeverKeptInTheBodyMember) {
  struct binary_case {
    std::string body;
    header_list headers;
    std::string why;
  };
  const std::vector<binary_case> cases{
      {std::string("{\0}", 3), json_type, "a NUL byte at offset 1"},
      {"{\"name\":\"\xff\xfe\"}", json_type, "not UTF-8 at offset 9"},
      {"\xed\xa0\x80", json_type, "not UTF-8 at offset 0"},  // a UTF-16 surrogate, not a character
      {"ok\x1b[31m", json_type, "a control byte at offset 2"},
      {"plain ASCII, but compressed", {{"content-encoding", "gzip"}}, "Content-Encoding: gzip"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.why);
    auto body = c.body;
    const auto d = keep_body(body, c.headers);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(body, "");
    EXPECT_EQ(d->binary, c.why);
    EXPECT_EQ(d->bytes, c.body.size());
    EXPECT_TRUE(d->complete());
    EXPECT_EQ(whole_body(body, d), c.body);  // short: its head is all of it
  }
}

TEST(EvidenceBody, ABinaryBodyKeepsOnlyItsHead) {
  std::string body(4 * 1024 * 1024, '\0');
  const auto d = keep_body(body, {{"Content-Encoding", "gzip"}});
  ASSERT_TRUE(d.has_value());
  EXPECT_LT(body.capacity(), 64u) << "the 4 MiB are given back, not just hidden";
  EXPECT_EQ(d->bytes, 4u * 1024 * 1024);
  EXPECT_EQ(d->kept_bytes, 48u);
  EXPECT_EQ(d->head_base64, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
  EXPECT_EQ(whole_body(body, d), std::nullopt);
}

TEST(EvidenceBody, TextWithTabsAndLineBreaksIsText) {
  std::string body = "<html>\r\n\t<body>Oops: crash — 500</body>\n</html>";
  EXPECT_EQ(binary_reason(body, {{"Content-Type", "text/html"}, {"Content-Encoding", "identity"}}), "");
  EXPECT_EQ(keep_body(body, {}), std::nullopt);
}

// The exchange as evidence: its digests written only when set, and read back.
TEST(EvidenceBody, AnExchangeBoundsBothBodiesAndSerialisesItsDigests) {
  exchange e{.method = "POST",
             .url = "https://api.example.com/x",
             .request_headers = json_type,
             .request_body = std::string(100'000, 'r'),
             .status = 200,
             .response_headers = {{"Content-Encoding", "gzip"}},
             .response_body = std::string(1'000'000, '\0')};
  const auto plain = nlohmann::json(exchange{}).dump();
  EXPECT_EQ(plain.find("digest"), std::string::npos) << "ordinary evidence keeps its nine members";
  bound_bodies(e);
  ASSERT_TRUE(e.request_body_digest.has_value());
  ASSERT_TRUE(e.response_body_digest.has_value());
  EXPECT_EQ(e.request_body.size(), 16u * 1024);
  EXPECT_EQ(e.response_body, "");
  const auto text = dump_json(nlohmann::json(e));
  EXPECT_LT(text.size(), 16u * 1024 + 2048);
  const auto back = nlohmann::json::parse(text).get<exchange>();
  EXPECT_EQ(back.request_body_digest, e.request_body_digest);
  EXPECT_EQ(back.response_body_digest, e.response_body_digest);
  // Bounding again changes nothing: the digest describes the body as received, not the cut one.
  const auto before = *e.request_body_digest;
  bound_bodies(e);
  EXPECT_EQ(*e.request_body_digest, before);
}
