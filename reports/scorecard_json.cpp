// The one JSON mapping of a scorecard, both ways. Keys come out in nlohmann's order (sorted), so
// the order written here does not matter; reports/scorecard.schema.json describes the result.
#include <neograde/reports/scorecard.hpp>

#include <functional>

namespace neograde::reports {
namespace {

using nlohmann::json;

[[noreturn]] void refuse(const std::string& pointer, const std::string& what) {
  throw scorecard_format_error("not a scorecard this version reads: " + (pointer.empty() ? "the document" : pointer) + " " + what);
}

std::string described(const json& j) {
  if (j.is_null()) return "null";
  const std::string type = j.type_name();
  return (type == "array" || type == "object" ? "an " : "a ") + type;
}

json number_or_null(const std::optional<json_number>& n) { return n ? json(*n) : json(nullptr); }

json score_or_null(const std::optional<double>& score) { return score ? json(*score) : json(nullptr); }

json gpu_json(const gpu_summary& g) {
  json measurements = json::array();
  for (const auto& m : g.measurements)
    measurements.push_back({{"name", m.name},
                            {"value", number_or_null(m.value)},
                            {"unit", m.unit},
                            {"pct_of_datasheet", number_or_null(m.pct_of_datasheet)},
                            {"verdict", m.verdict}});
  return {{"index", number_or_null(g.index)}, {"name", g.name}, {"sku", g.sku}, {"measurements", measurements}};
}

json hardware_json(const hardware_summary& hw) {
  json gpus = json::array(), problems = json::array();
  for (const auto& g : hw.gpus) gpus.push_back(gpu_json(g));
  for (const auto& p : hw.problems)
    problems.push_back({{"id", p.id}, {"gpu", number_or_null(p.gpu)}, {"verdict", p.verdict}, {"message", p.message}});
  return {
      {"status", hw.status},          {"reason", hw.reason}, {"address", hw.address}, {"time_to_ssh_s", number_or_null(hw.time_to_ssh_s)},
      {"instance", hw.instance},      {"gpus", gpus},        {"problems", problems},  {"origin", hw.origin},
      {"fingerprint", hw.fingerprint}};
}

// One object of a scorecard document; every error names the key by its JSON pointer.
class object_reader {
 public:
  object_reader(const json& j, std::string pointer) : j_(j), pointer_(std::move(pointer)) {
    if (!j.is_object()) refuse(pointer_, "is " + described(j) + ", not an object");
  }

  const json& doc() const { return j_; }
  std::string pointer(const std::string& key) const { return pointer_ + "/" + key; }

  // A key every card has, of any type.
  const json& any(const std::string& key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) refuse(pointer(key), "is missing");
    return *it;
  }

  template <class Is>
  const json& of_type(const std::string& key, Is ok, const char* type) const {
    const auto& f = any(key);
    if (!std::invoke(ok, f)) refuse(pointer(key), "is " + described(f) + ", not " + type);
    return f;
  }

  std::string text(const char* key) const { return of_type(key, &json::is_string, "a string").get<std::string>(); }
  bool flag(const char* key) const { return of_type(key, &json::is_boolean, "a boolean").get<bool>(); }
  int count(const std::string& key) const { return of_type(key, &json::is_number_integer, "an integer").get<int>(); }
  object_reader object(const char* key) const { return {of_type(key, &json::is_object, "an object"), pointer(key)}; }

  std::optional<double> score(const char* key) const {
    const auto& f = of_type(key, is_number_or_null, "a number or null");
    return f.is_null() ? std::nullopt : std::optional<double>(f.get<double>());
  }

  std::optional<json_number> number(const char* key) const {
    const auto& f = of_type(key, is_number_or_null, "a number or null");
    return f.is_null() ? std::nullopt : std::optional<json_number>(f.get<json_number>());
  }

  // Each element of an array, read by `read(object_reader)`.
  template <class T, class Read>
  std::vector<T> each(const char* key, Read read) const {
    const auto& a = of_type(key, &json::is_array, "an array");
    std::vector<T> out;
    for (std::size_t i = 0; i < a.size(); ++i) out.push_back(read(object_reader(a[i], pointer(key) + "/" + std::to_string(i))));
    return out;
  }

  std::vector<std::string> texts(const char* key) const {
    const auto& a = of_type(key, &json::is_array, "an array");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_string()) refuse(pointer(key) + "/" + std::to_string(i), "is " + described(a[i]) + ", not a string");
      out.push_back(a[i].get<std::string>());
    }
    return out;
  }

  // Every member as a count, but `skip` (a category's score).
  outcome_counts counts(const char* skip = nullptr) const {
    outcome_counts out;
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (skip == nullptr || it.key() != skip) out[it.key()] = count(it.key());
    return out;
  }

 private:
  static bool is_number_or_null(const json& f) { return f.is_number() || f.is_null(); }

  const json& j_;
  std::string pointer_;
};

std::optional<rate_limit_coverage> rate_limit_of(const json& card) {
  if (!card.contains("rate_limit") || card["rate_limit"].is_null()) return std::nullopt;
  const object_reader rl(card["rate_limit"], "/rate_limit");
  return rate_limit_coverage{.probed = rl.flag("probed"), .met_in_traffic = rl.count("met_in_traffic")};
}

gpu_summary gpu_of(const object_reader& g) {
  return {.index = g.number("index"),
          .name = g.text("name"),
          .sku = g.text("sku"),
          .measurements = g.each<gpu_measurement>("measurements", [](const object_reader& m) {
            return gpu_measurement{.name = m.text("name"),
                                   .value = m.number("value"),
                                   .unit = m.text("unit"),
                                   .pct_of_datasheet = m.number("pct_of_datasheet"),
                                   .verdict = m.text("verdict")};
          })};
}

hardware_summary hardware_of(const object_reader& hw) {
  return {.status = hw.text("status"),
          .reason = hw.text("reason"),
          .address = hw.text("address"),
          .time_to_ssh_s = hw.number("time_to_ssh_s"),
          .instance = hw.any("instance"),
          .gpus = hw.each<gpu_summary>("gpus", gpu_of),
          .problems = hw.each<hardware_problem>(
              "problems",
              [](const object_reader& p) {
                return hardware_problem{
                    .id = p.text("id"), .gpu = p.number("gpu"), .verdict = p.text("verdict"), .message = p.text("message")};
              }),
          // Cards written before the fingerprint (issue 22) have neither.
          .origin = hw.doc().contains("origin") ? hw.text("origin") : "",
          .fingerprint = hw.doc().contains("fingerprint") ? hw.any("fingerprint") : json(nullptr)};
}

}  // namespace

double json_number::as_double() const {
  return std::visit([](auto v) { return static_cast<double>(v); }, value);
}

std::string json_number::text() const { return json(*this).dump(); }

void to_json(json& j, const json_number& n) {
  std::visit([&j](auto v) { j = v; }, n.value);
}

void from_json(const json& j, json_number& n) {
  if (j.is_number_unsigned()) n.value = j.get<std::uint64_t>();
  else if (j.is_number_integer())
    n.value = j.get<std::int64_t>();
  else
    n.value = j.get<double>();
}

void to_json(json& j, const scorecard& c) {
  json categories = json::object();
  for (const auto& [name, category] : c.categories) {
    categories[name] = category.counts;
    categories[name]["score"] = score_or_null(category.score);
  }
  json hardware = json::array(), checks = json::array(), failures = json::array();
  for (const auto& hw : c.hardware) hardware.push_back(hardware_json(hw));
  json claims = json::array();
  for (const auto& r : c.transparency_claims)
    claims.push_back({{"claim", r.claim},
                      {"declared", r.declared},
                      {"declared_source", r.declared_source},
                      {"measured", r.measured},
                      {"verdict", r.verdict},
                      {"evidence", r.evidence}});
  for (const auto& r : c.checks)
    checks.push_back({{"check_id", r.check_id},
                      {"category", r.category},
                      {"severity", r.severity},
                      {"requirement", r.requirement},
                      {"outcome", r.outcome},
                      {"reason", r.reason}});
  for (const auto& f : c.failures)
    failures.push_back({{"check_id", f.check_id},
                        {"outcome", f.outcome},
                        {"severity", f.severity},
                        {"requirement_text", f.requirement_text},
                        {"check_source", f.check_source},
                        {"reason", f.reason},
                        {"reproduce", f.reproduce},
                        {"evidence", f.evidence}});
  const auto& p = c.provider;
  j = json{{"scorecard_version", c.scorecard_version},
           {"provider",
            {{"id", p.id},
             {"display_name", p.display_name},
             {"kind", p.kind},
             {"fictional", p.fictional},
             {"docs_url", p.docs_url},
             {"api_version", p.api_version},
             {"transparency", p.transparency}}},
           {"spec_version", c.spec_version},
           {"suite_version", c.suite_version},
           {"run_id", c.run_id},
           {"source", c.source},
           {"base_url", c.base_url},
           {"started_at", c.started_at},
           {"finished_at", c.finished_at},
           {"complete", c.complete},
           {"timing_overrides", c.timing_overrides},
           {"rate_limit",
            c.rate_limit ? json{{"probed", c.rate_limit->probed}, {"met_in_traffic", c.rate_limit->met_in_traffic}} : json(nullptr)},
           {"counts", c.counts},
           {"categories", categories},
           {"score", score_or_null(c.score)},
           {"tier", c.tier},
           {"tier_capped_by", c.tier_capped_by},
           {"runs", c.runs},
           {"flaky_checks", c.flaky_checks},
           {"hardware", hardware},
           {"transparency_claims", claims},
           {"measurements", c.measurements},
           {"checks", checks},
           {"failures", failures},
           {"provenance", c.provenance}};
  // A person's observations, apart from everything measured (written only when there are any).
  if (!c.observations.empty()) j["observations"] = c.observations;
  // A read-only audit says so (written only then, so a launching run's card is unchanged).
  if (c.read_only) j["read_only"] = true;
}

void from_json(const json& j, scorecard& c) {
  const object_reader card(j, "");
  const int version = card.count("scorecard_version");
  if (version != 1) refuse("/scorecard_version", "is " + std::to_string(version) + "; this version of neograde reads 1");
  const auto p = card.object("provider");
  const auto by_category = card.object("categories");
  std::map<std::string, category_summary> categories;
  for (auto it = by_category.doc().begin(); it != by_category.doc().end(); ++it) {
    const auto category = by_category.object(it.key().c_str());
    categories[it.key()] = {.counts = category.counts("score"), .score = category.score("score")};
  }
  c = {.scorecard_version = version,
       .provider = {.id = p.text("id"),
                    .display_name = p.text("display_name"),
                    .kind = p.text("kind"),
                    .fictional = p.flag("fictional"),
                    .docs_url = p.text("docs_url"),
                    .api_version = p.text("api_version"),
                    .transparency = p.any("transparency")},
       .spec_version = card.text("spec_version"),
       .suite_version = card.text("suite_version"),
       .run_id = card.text("run_id"),
       .source = card.text("source"),
       .base_url = card.text("base_url"),
       .started_at = card.text("started_at"),
       .finished_at = card.text("finished_at"),
       .complete = card.flag("complete"),
       // Cards written before --time-to-running and --time-to-gone have none.
       .timing_overrides = j.contains("timing_overrides") ? j["timing_overrides"] : json::object(),
       // Cards written before the rate-limit checks judged every 429 have none.
       .rate_limit = rate_limit_of(j),
       .counts = card.object("counts").counts(),
       .categories = std::move(categories),
       .score = card.score("score"),
       .tier = card.text("tier"),
       .tier_capped_by = card.texts("tier_capped_by"),
       .runs = card.count("runs"),
       .flaky_checks = card.texts("flaky_checks"),
       .hardware = card.each<hardware_summary>("hardware", hardware_of),
       // Cards written before declared-vs-measured transparency (issue 22) have none.
       .transparency_claims = j.contains("transparency_claims")
                                  ? card.each<claim_row>("transparency_claims",
                                                         [](const object_reader& r) {
                                                           return claim_row{.claim = r.text("claim"),
                                                                            .declared = r.text("declared"),
                                                                            .declared_source = r.text("declared_source"),
                                                                            .measured = r.text("measured"),
                                                                            .verdict = r.text("verdict"),
                                                                            .evidence = r.text("evidence")};
                                                         })
                                  : std::vector<claim_row>{},
       .measurements = card.any("measurements"),
       .checks = card.each<check_row>("checks",
                                      [](const object_reader& r) {
                                        return check_row{.check_id = r.text("check_id"),
                                                         .category = r.text("category"),
                                                         .severity = r.text("severity"),
                                                         .requirement = r.text("requirement"),
                                                         .outcome = r.text("outcome"),
                                                         .reason = r.text("reason")};
                                      }),
       .failures = card.each<finding_row>("failures",
                                          [](const object_reader& f) {
                                            return finding_row{.check_id = f.text("check_id"),
                                                               .outcome = f.text("outcome"),
                                                               .severity = f.text("severity"),
                                                               .requirement_text = f.text("requirement_text"),
                                                               .check_source = f.text("check_source"),
                                                               .reason = f.text("reason"),
                                                               .reproduce = f.text("reproduce"),
                                                               .evidence = f.any("evidence")};
                                          }),
       .provenance = card.text("provenance")};
  c.read_only = j.contains("read_only") && card.flag("read_only");
  // Cards without observations have none; each one is checked against its own schema.
  if (j.contains("observations")) {
    const auto& all = card.of_type("observations", &json::is_array, "an array");
    for (std::size_t i = 0; i < all.size(); ++i) {
      try {
        c.observations.push_back(read_observation(all[i], "/observations/" + std::to_string(i)));
      } catch (const observation_error& e) {
        throw scorecard_format_error(e.what());
      }
    }
  }
}

}  // namespace neograde::reports
