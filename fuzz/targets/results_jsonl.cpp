// Oracle: reading any results file (torn, truncated, hostile) never crashes or throws; every
// line is either part of a run or counted as skipped, and each run read starts with a header.
// Building and rendering a scorecard from what was read never crashes: a field of the wrong
// type may only raise a JSON error, and a hardware record (it comes from a rented instance) not
// even that. Every card built reads back as itself.
#include "support.hpp"

#include <neograde/reports/results.hpp>
#include <neograde/reports/scorecard.hpp>

#include <algorithm>
#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace neograde;
  const std::string text(fuzz_support::as_text(data, size));
  std::istringstream in(text);
  std::size_t skipped = 0;
  auto runs = reports::read_results(in, &skipped);
  std::size_t records = 0;
  for (const auto& run : runs) {
    NEOGRADE_ORACLE(run.header.value("record", "") == "header");
    records += 1 + run.outcomes.size() + run.hardware.size() + (run.footer ? 1 : 0);
    try {
      const auto card = reports::build_scorecard(run);
      (void)reports::render_markdown(card);
      const nlohmann::json written = card;
      NEOGRADE_ORACLE(nlohmann::json(written.get<reports::scorecard>()) == written);
    } catch (const nlohmann::json::exception&) {
      // Our own records with a wrong type: refused, not crashed on.
    }
    if (!run.hardware.empty()) {
      auto clean = run;
      clean.header = {{"record", "header"}};
      clean.outcomes.clear();
      clean.footer.reset();
      (void)reports::render_markdown(reports::build_scorecard(clean));  // must not throw
    }
  }
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + (text.empty() || text.back() == '\n' ? 0 : 1);
  NEOGRADE_ORACLE(records + skipped <= lines);
  return 0;
}
