#include <neograde/clients/journal.hpp>
#include <neograde/core/errors.hpp>

#include <neograde/core/clock.hpp>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>

namespace neograde {

NLOHMANN_JSON_SERIALIZE_ENUM(journal_event, {
                                                {journal_event::intent, "intent"},
                                                {journal_event::created, "created"},
                                                {journal_event::refused, "refused"},
                                                {journal_event::terminating, "terminating"},
                                                {journal_event::deleted, "deleted"},
                                                {journal_event::leaked, "leaked"},
                                                {journal_event::step, "step"},
                                            })

namespace {

constexpr const char* journal_format = "neograde-journal/1";

config_error io_error(const std::string& what, const std::filesystem::path& p) {
  return config_error(what + " " + p.string() + ": " + std::strerror(errno));
}

nlohmann::json to_json(const journal_entry& e) {
  nlohmann::json j{{"format", journal_format}, {"event", e.event},       {"time", e.time}, {"run_id", e.run_id},
                   {"provider", e.provider},   {"base_url", e.base_url}, {"name", e.name}};
  if (!e.id.empty()) j["id"] = e.id;
  if (!e.instance_type.empty()) j["instance_type"] = e.instance_type;
  if (e.price_per_hour_usd) j["price_per_hour_usd"] = *e.price_per_hour_usd;
  if (!e.detail.empty()) j["detail"] = e.detail;
  return j;
}

std::optional<journal_entry> from_json(const nlohmann::json& j) {
  if (!j.is_object() || j.value("format", "") != journal_format) return std::nullopt;
  auto str = [&](const char* k) { return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string(); };
  journal_entry e;
  if (!j.contains("event") || !j["event"].is_string()) return std::nullopt;
  const auto word = j["event"].get<std::string>();
  bool known = false;
  for (auto ev : {journal_event::intent, journal_event::created, journal_event::refused, journal_event::terminating, journal_event::deleted,
                  journal_event::leaked, journal_event::step})
    if (nlohmann::json(ev).get<std::string>() == word) e.event = ev, known = true;
  if (!known) return std::nullopt;
  e.time = str("time");
  e.run_id = str("run_id");
  e.provider = str("provider");
  e.base_url = str("base_url");
  e.name = str("name");
  e.id = str("id");
  e.instance_type = str("instance_type");
  e.detail = str("detail");
  if (j.contains("price_per_hour_usd") && j["price_per_hour_usd"].is_number()) e.price_per_hour_usd = j["price_per_hour_usd"].get<double>();
  return e;
}

}  // namespace

std::filesystem::path default_journal_path() {
  const char* state = std::getenv("XDG_STATE_HOME");
  if (state != nullptr && *state == '/') return std::filesystem::path(state) / "neograde" / "journal.jsonl";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr && *home != '\0' ? home : ".") / ".local" / "state" / "neograde" / "journal.jsonl";
}

journal::journal(std::filesystem::path path) : path_(std::move(path)) {
  std::error_code ec;
  if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path(), ec);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) throw io_error("cannot open the journal", path_);
}

journal::~journal() {
  if (fd_ >= 0) ::close(fd_);
}

void journal::append(journal_entry e) {
  if (e.time.empty()) e.time = utc_now_iso8601();
  const std::string line = to_json(e).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  // One write per line under an exclusive lock: concurrent runs never interleave within a line.
  if (::flock(fd_, LOCK_EX) != 0) throw io_error("cannot lock the journal", path_);
  std::size_t done = 0;
  while (done < line.size()) {
    const auto n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::flock(fd_, LOCK_UN);
      throw io_error("cannot write the journal", path_);
    }
    done += static_cast<std::size_t>(n);
  }
  const int synced = ::fsync(fd_);
  ::flock(fd_, LOCK_UN);
  if (synced != 0) throw io_error("cannot fsync the journal", path_);
}

journal_contents read_journal(const std::filesystem::path& path) {
  journal_contents out;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return out;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io_error("cannot read the journal", path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    auto e = j.is_discarded() ? std::nullopt : from_json(j);
    if (e) out.entries.push_back(std::move(*e));
    else
      ++out.unreadable_lines;
  }
  return out;
}

std::vector<journaled_instance> outstanding(const std::vector<journal_entry>& entries, const std::string& provider,
                                            const std::string& base_url) {
  // Keyed by run and name: a name is unique within a run (neograde-<run>-<role>).
  std::map<std::pair<std::string, std::string>, journaled_instance> open;
  std::map<std::string, std::pair<std::string, std::string>> by_id;
  for (const auto& e : entries) {
    if (e.provider != provider || e.base_url != base_url) continue;
    const auto key = std::pair{e.run_id, e.name};
    switch (e.event) {
      case journal_event::intent: open[key] = {e.run_id, e.name, "", e.time, e.instance_type}; break;
      case journal_event::created:
        if (auto it = open.find(key); it != open.end()) it->second.id = e.id;
        else
          open[key] = {e.run_id, e.name, e.id, e.time, e.instance_type};
        by_id[e.id] = key;
        break;
      case journal_event::refused: open.erase(key); break;
      case journal_event::deleted:
        // By id, and by name: names carry their run's id, so a sweep's deletion closes them too.
        if (auto it = by_id.find(e.id); !e.id.empty() && it != by_id.end()) open.erase(it->second);
        if (!e.name.empty())
          for (auto it = open.begin(); it != open.end();) it = it->first.second == e.name ? open.erase(it) : std::next(it);
        break;
      case journal_event::terminating:
      case journal_event::leaked:
      case journal_event::step: break;  // the instance stays open until deleted, with what its steps made
    }
  }
  std::vector<journaled_instance> out;
  for (auto& [k, v] : open) out.push_back(std::move(v));
  return out;
}

}  // namespace neograde
