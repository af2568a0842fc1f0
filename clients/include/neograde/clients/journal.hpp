#pragma once
// The spend journal: an append-only JSON Lines file that outlives the run. Every create is
// written (and fsynced) before the request is sent, its id after the response, and its confirmed
// deletion at the end, so that after any crash (kill -9 included) `neograde sweep` knows what a
// run may have left behind. Several runs may append at once: each line is one write(2) under an
// advisory lock.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace neograde {

enum class journal_event {
  intent,       // about to send a create request (name known, id not yet)
  created,      // the provider returned the id
  refused,      // the create request was answered with an error: nothing should exist
  terminating,  // a terminate request was sent
  deleted,      // confirmed terminated or unknown (404)
  leaked,       // still there after teardown gave up
  // A follow-up step of a multi-step create (Akash's lease) was answered: what it made belongs
  // to the instance (`id`) and goes with its teardown; `detail` names the step and what it bound.
  step,
};

struct journal_entry {
  journal_event event = journal_event::intent;
  std::string time;  // ISO 8601 UTC
  std::string run_id;
  std::string provider;
  std::string base_url;
  std::string name;
  std::string id;
  std::string instance_type;
  std::optional<double> price_per_hour_usd;
  std::string detail;
};

// $XDG_STATE_HOME/neograde/journal.jsonl, else ~/.local/state/neograde/journal.jsonl.
[[nodiscard]] std::filesystem::path default_journal_path();

class journal {
 public:
  // Creates the file (0600) and its directory when missing; throws std::runtime_error when it
  // cannot be opened for appending.
  explicit journal(std::filesystem::path path);
  ~journal();
  journal(const journal&) = delete;
  journal& operator=(const journal&) = delete;

  // One line, written whole and fsynced before returning; `time` is filled in when empty.
  // Throws std::runtime_error on a failed write (a run must not launch what it cannot journal).
  void append(journal_entry e);
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

struct journal_contents {
  std::vector<journal_entry> entries;
  std::size_t unreadable_lines = 0;  // torn or foreign lines, skipped
};

// Reads a journal; a missing file is empty. Never throws on content; throws std::runtime_error
// when the file exists but cannot be read.
[[nodiscard]] journal_contents read_journal(const std::filesystem::path& path);

// An instance a run journaled and never confirmed deleted.
struct journaled_instance {
  std::string run_id;
  std::string name;
  std::string id;  // empty when the run died before the create's response
  std::string intent_time;
  std::string instance_type;
};

// The instances of `provider` at `base_url` with an intent or a created id and no deletion.
[[nodiscard]] std::vector<journaled_instance> outstanding(const std::vector<journal_entry>& entries, const std::string& provider,
                                                          const std::string& base_url);

}  // namespace neograde
