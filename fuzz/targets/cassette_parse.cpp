// Oracle: reading any bytes as a cassette never crashes or throws; it fails with a message that
// names a line, or yields a cassette within the limits whose exchanges, replayed with their own
// requests, all match in order (a round trip through the replayer) and give back what was
// recorded; one request more fails the replay for good. Writing what was read and reading it
// again gives the same text (a round trip through the writer's format).
#include "support.hpp"

#include <neograde/clients/cassette.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace neograde;
  auto parsed = parse_cassette(fuzz_support::as_text(data, size));
  if (!parsed) {
    NEOGRADE_ORACLE(parsed.error().starts_with("line "));
    return 0;
  }
  const auto& c = *parsed;
  NEOGRADE_ORACLE(c.exchanges.size() <= cassette_max_exchanges);

  std::string text = to_jsonl(c.header);
  for (const auto& e : c.exchanges) text += to_jsonl(e);
  auto again = parse_cassette(text);
  NEOGRADE_ORACLE(again.has_value());
  std::string text_again = to_jsonl(again->header);
  for (const auto& e : again->exchanges) text_again += to_jsonl(e);
  NEOGRADE_ORACLE(text == text_again);

  replayer r(c);
  auto previous = r.now();
  for (std::size_t i = 0; i < c.exchanges.size(); ++i) {
    const auto& rec = c.exchanges[i];
    NEOGRADE_ORACLE(rec.seq == i);
    NEOGRADE_ORACLE(rec.response.has_value() != rec.error.has_value());
    auto answer = r.answer(rec.as_exchange());
    NEOGRADE_ORACLE(answer.duration_ms == rec.duration_ms);
    const auto whole = rec.response ? whole_body(rec.response->body, rec.response_digest) : std::nullopt;
    if (rec.response && !whole) {
      // Part of the body was cut when recorded: the replay says so instead of answering it.
      NEOGRADE_ORACLE(!answer.result.has_value());
      NEOGRADE_ORACLE(answer.result.error().code == http::make_error_code(http::client_errc::replay_mismatch));
    } else if (rec.response) {
      NEOGRADE_ORACLE(answer.result.has_value());
      NEOGRADE_ORACLE(answer.result->status == rec.response->status);
      NEOGRADE_ORACLE(answer.result->body == *whole);
      NEOGRADE_ORACLE(answer.result->headers == rec.response->headers);
    } else {
      NEOGRADE_ORACLE(!answer.result.has_value());
      NEOGRADE_ORACLE(answer.result.error().code == rec.error->code);
      NEOGRADE_ORACLE(answer.result.error().detail == rec.error->detail);
    }
    NEOGRADE_ORACLE(r.used() == i + 1);
    const auto now = r.now();
    NEOGRADE_ORACLE(now >= previous);  // virtual time never goes back
    previous = now;
  }
  NEOGRADE_ORACLE(!r.failure());
  NEOGRADE_ORACLE(r.remaining() == 0);

  exchange extra;
  extra.method = "GET";
  extra.url = "http://after.the.end/";
  auto past = r.answer(extra);
  NEOGRADE_ORACLE(!past.result.has_value());
  NEOGRADE_ORACLE(past.result.error().code == http::client_errc::replay_mismatch);
  NEOGRADE_ORACLE(r.failure().has_value() && *r.failure() == past.result.error().detail);
  NEOGRADE_ORACLE(r.used() == c.exchanges.size());
  return 0;
}
