#include <neograde/reports/results.hpp>
#include <neograde/core/errors.hpp>

#include <neograde/core/clock.hpp>
#include <neograde/core/json_util.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <optional>
#include <stdexcept>

namespace neograde::reports {

namespace {
// A rename is durable once the directory holding it is synced (best effort: some file systems
// refuse to open a directory for that).
void sync_directory(const std::filesystem::path& file) {
  const auto dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}
}  // namespace

results_writer::results_writer(const std::filesystem::path& path, const run_header& h)
    : path_(path), part_(std::filesystem::path(path) += ".part"), provider_(h.spec->provider.id), source_(h.source) {
  file_ = std::fopen(part_.c_str(), "w");
  if (file_ == nullptr) throw config_error("cannot write " + part_.string() + ": " + std::strerror(errno));
  const auto& s = *h.spec;
  auto header = nlohmann::json{{"record", "header"},
                               {"suite", "neograde"},
                               {"suite_version", suite_version},
                               {"run_id", h.run_id},
                               {"provider", s.provider.id},
                               {"display_name", s.provider.display_name},
                               {"provider_kind", s.provider.kind},
                               {"fictional", s.provider.fictional},
                               {"docs_url", s.provider.docs_url},
                               {"api_version", s.provider.api_version},
                               {"transparency", s.provider.transparency},
                               {"spec_version", s.spec_version},
                               {"source", h.source},
                               {"base_url", h.base_url},
                               {"time_scale", h.time_scale},
                               {"allow_spend", h.allow_spend},
                               {"offer_selection", h.offer_selection},
                               {"timing",
                                {{"time_to_running_s", s.timing.time_to_running_s},
                                 {"time_to_gone_s", s.timing.time_to_gone_s},
                                 {"poll_interval_s", s.timing.poll_interval_s},
                                 {"overridden", h.timing_overrides}}},
                               {"started_at", utc_now_iso8601()}};
  if (h.read_only) header["read_only"] = true;
  line(header);
}

results_writer::~results_writer() {
  if (file_ != nullptr) std::fclose(file_);
}

void results_writer::line(const nlohmann::json& record) {
  // One write per line, flushed, so a crash leaves at most a torn last line.
  const std::string text = dump_json(record) + "\n";
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0)
    throw config_error(std::string("writing results failed: ") + std::strerror(errno));
}

void results_writer::outcome(const check_descriptor& d, const check_outcome& o) {
  ++counts_[nlohmann::json(o.result).get<std::string>()];
  line({{"record", "outcome"},
        {"provider", provider_},
        {"check_id", o.check_id},
        {"category", d.category},
        {"severity", d.level},
        {"requirement", d.requirement},
        {"requirement_text", d.requirement_text},
        {"description", d.description},
        {"check_source", d.source},
        {"outcome", o.result},
        {"reason", o.reason},
        {"source", source_},
        {"duration_ms", o.duration_ms},
        {"evidence", o.evidence},
        {"reproduce", o.reproduce},
        {"measurements", o.measurements}});
}

void results_writer::hardware(const nlohmann::json& record) {
  auto r = record;
  r["record"] = "hardware";
  r["provider"] = provider_;
  r["source"] = source_;
  line(r);
}

void results_writer::finish(const nlohmann::json& measurements) {
  line({{"record", "footer"},
        {"provider", provider_},
        {"finished_at", utc_now_iso8601()},
        {"counts", counts_},
        {"measurements", measurements},
        {"complete", true}});
  const bool synced = ::fsync(::fileno(file_)) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!synced || !closed) throw config_error("cannot sync " + part_.string() + ": " + std::strerror(errno));
  // Only a complete run replaces the previous results.
  std::error_code ec;
  std::filesystem::rename(part_, path_, ec);
  if (ec) throw config_error("cannot replace " + path_.string() + ": " + ec.message());
  sync_directory(path_);
}

std::vector<run_record> read_results(const std::filesystem::path& path, std::size_t* skipped_lines) {
  std::ifstream in(path);
  if (!in) throw config_error("cannot read " + path.string());
  return read_results(in, skipped_lines);
}

std::size_t for_each_run(std::istream& in, const std::function<void(run_record&&)>& each) {
  std::optional<run_record> run;
  std::size_t skipped = 0;
  std::string text;
  while (std::getline(in, text)) {
    auto rec = parse_json(text);
    if (!rec || !rec->is_object() || !rec->contains("record")) {
      ++skipped;
      continue;
    }
    const auto kind = rec->value("record", "");
    if (kind == "header") {
      if (run) each(std::move(*run));
      run.emplace(run_record{std::move(*rec), {}, std::nullopt, {}});
    } else if (!run)
      ++skipped;  // an outcome without its header is unusable
    else if (kind == "outcome")
      run->outcomes.push_back(std::move(*rec));
    else if (kind == "hardware")
      run->hardware.push_back(std::move(*rec));
    else if (kind == "footer")
      run->footer = std::move(*rec);
    else
      ++skipped;
  }
  if (run) each(std::move(*run));
  return skipped;
}

std::vector<run_record> read_results(std::istream& in, std::size_t* skipped_lines) {
  std::vector<run_record> runs;
  const auto skipped = for_each_run(in, [&](run_record&& r) { runs.push_back(std::move(r)); });
  if (skipped_lines != nullptr) *skipped_lines = skipped;
  return runs;
}

void write_file_atomic(const std::filesystem::path& path, const std::string& content) {
  auto tmp = path;
  tmp += ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw config_error("cannot write " + tmp.string() + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    auto n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      throw config_error("cannot write " + tmp.string() + ": " + std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) throw config_error("cannot sync " + tmp.string());
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw config_error("cannot replace " + path.string() + ": " + ec.message());
  sync_directory(path);
}

}  // namespace neograde::reports
