#pragma once
// Declared vs measured transparency: each claim of a spec's provider.transparency (who owns the
// hardware, bare metal or VM, whose addresses, which providers it aggregates) beside the evidence
// the runs recorded (the GPU smoke test's fingerprint, the RDAP owner of the instance's address,
// GPUs seen at other providers), with a verdict. And the run's developer-experience timings.

#include <neograde/reports/scorecard.hpp>

#include <map>
#include <string>
#include <vector>

namespace neograde::reports {

// What all the cards of a report show, for matching across providers.
struct transparency_evidence {
  struct gpu_seen {
    std::string provider, source, date, uuid_hash;
  };
  std::vector<gpu_seen> gpus;                      // every fingerprinted GPU of every card
  std::map<std::string, std::string> registrants;  // lower-cased organisation a spec declares as its own -> provider id
};

[[nodiscard]] transparency_evidence evidence_of(const std::vector<scorecard>& cards);

// The card's claims graded against its own records and what the other providers' cards show (a
// GPU matches only within the same source: emulated, live and replay are never mixed).
[[nodiscard]] std::vector<claim_row> grade_transparency(const scorecard& card, const transparency_evidence& all = {});

// Re-grades every card against all of them: `neograde report` matches fingerprints across runs.
void grade_transparency_across(std::vector<scorecard>& cards);

// Markdown sections: the claims table (with contradictions as findings) and the developer-experience
// timings; "" when the card has neither.
[[nodiscard]] std::string render_transparency_markdown(const scorecard& card);

// The footer's developer_experience, as rows of (label, value in words); empty when not recorded.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> developer_experience_rows(const scorecard& card);

}  // namespace neograde::reports
