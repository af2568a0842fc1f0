// The real-payload corpus (tests/fixtures/payloads/<provider>/): response bodies reconstructed
// from each provider's documented examples or its official SDK's fixtures, each with a sidecar
// (<name>.meta.json) naming its source and the canonical result it must map to. Every payload
// is read through its spec as a run reads it: success by the declared statuses, the response
// schema, the field pointers, the status vocabulary, the offer rows, the error envelope and the
// provider conditions. A spec edit that misreads a real payload fails here.

#include <neograde/clients/oracles.hpp>
#include <neograde/clients/provider_client.hpp>
#include <neograde/clients/teardown.hpp>
#include <neograde/core/json_schema.hpp>
#include <neograde/core/json_util.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using namespace neograde;
namespace fs = std::filesystem;

namespace {

struct payload {
  std::string provider;
  std::string name;
  fs::path body;
  nlohmann::json meta;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<payload> corpus() {
  std::vector<payload> out;
  const fs::path root = test::payloads_dir();
  if (!fs::exists(root)) return out;
  for (const auto& dir : fs::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(dir.path())) {
      const auto file = f.path().filename().string();
      if (!file.ends_with(".meta.json")) continue;
      const auto name = file.substr(0, file.size() - std::string(".meta.json").size());
      payload p{dir.path().filename().string(), name, {}, nlohmann::json::parse(read_file(f.path()))};
      p.body = dir.path() / (name + ".json");
      if (!fs::exists(p.body)) p.body = dir.path() / (name + ".txt");
      out.push_back(std::move(p));
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.provider + a.name < b.provider + b.name; });
  return out;
}

// A value as the client reads it: null and absent are "".
std::string text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.is_null() ? "" : v.dump(); }

// Compares the members an expectation lists with an instance as the client mapped it.
void expect_instance(const provider_spec& spec, const instance& got, const nlohmann::json& want, const std::string& where) {
  if (want.contains("id")) {
    EXPECT_EQ(got.id, text(want["id"])) << where;
  }
  if (want.contains("status")) {
    EXPECT_EQ(got.provider_status, want["status"].is_null() ? "" : text(want["status"])) << where;
  }
  if (want.contains("state")) {
    EXPECT_EQ(to_string(got.state), want["state"].get<std::string>()) << where;
  }
  if (want.contains("ip")) {
    if (want["ip"].is_null()) {
      EXPECT_FALSE(got.ip.has_value()) << where << ": address " << got.ip.value_or("");
    } else {
      EXPECT_EQ(got.ip.value_or("(none)"), want["ip"].get<std::string>()) << where;
    }
  }
  // The SSH endpoint as the spec's ssh section reads it: {host, port, user}, or null for none.
  if (want.contains("ssh")) {
    if (want["ssh"].is_null()) {
      EXPECT_FALSE(got.ssh.has_value()) << where << ": endpoint " << (got.ssh ? got.ssh->host : "");
    } else {
      ASSERT_TRUE(got.ssh.has_value()) << where << ": no SSH endpoint";
      EXPECT_EQ(got.ssh->host, want["ssh"].value("host", "")) << where;
      EXPECT_EQ(got.ssh->port, want["ssh"].value("port", 0)) << where;
      EXPECT_EQ(got.ssh->user, want["ssh"].value("user", "")) << where;
    }
  }
  if (want.contains("region")) {
    EXPECT_EQ(got.region, text(want["region"])) << where;
  }
  if (want.contains("instance_type")) {
    EXPECT_EQ(got.instance_type, text(want["instance_type"])) << where;
  }
  if (want.contains("name")) {
    EXPECT_EQ(got.name, text(want["name"])) << where;
  }
  // What it is billed per hour, and the launch parameters it shows (issue 39).
  if (want.contains("price_per_hour_usd")) {
    EXPECT_TRUE(got.price_per_hour_usd && std::abs(*got.price_per_hour_usd - want["price_per_hour_usd"].get<double>()) < 1e-9)
        << where << ": price " << got.price_per_hour_usd.value_or(-1);
  }
  const auto params = want.value("params", nlohmann::json::object());
  for (const auto& [k, v] : params.items()) {
    EXPECT_EQ(got.params.contains(k) ? got.params.at(k) : "(not read)", text(v)) << where << ": launch parameter " << k;
  }
  // Every status a real payload carries is documented (or, when absent, has a declared meaning).
  if (got.provider_status.empty()) {
    EXPECT_TRUE(spec.absent_state.has_value()) << where << ": a null or absent status has no declared meaning";
  } else {
    EXPECT_TRUE(spec.states.contains(got.provider_status))
        << where << ": status \"" << got.provider_status << "\" is not in the vocabulary";
  }
}

bool row_matches(const offer& row, const nlohmann::json& want) {
  if (want.contains("instance_type") && row.instance_type != text(want["instance_type"])) return false;
  if (want.contains("region") && row.region != text(want["region"])) return false;
  if (want.contains("price_per_hour_usd") &&
      (!row.price_per_hour_usd || std::abs(*row.price_per_hour_usd - want["price_per_hour_usd"].get<double>()) > 1e-6))
    return false;
  if (want.contains("gpu") && row.gpu.value_or(true) != want["gpu"].get<bool>()) return false;
  if (want.contains("available") && row.available != want["available"].get<bool>()) return false;
  if (want.contains("fits") && row.misfit.empty() != want["fits"].get<bool>()) return false;
  const auto params = want.value("params", nlohmann::json::object());
  for (const auto& [k, v] : params.items())
    if (!row.params.contains(k) || row.params.at(k) != text(v)) return false;
  return true;
}

void validate(const std::optional<nlohmann::json>& schema, const nlohmann::json& doc, const std::string& where) {
  if (!schema) return;
  auto v = json_schema(*schema).validate(doc);
  EXPECT_TRUE(v.empty()) << where << ": the spec's schema rejects a real payload at \"" << (v.empty() ? "" : v.front().pointer)
                         << "\": " << (v.empty() ? "" : v.front().message);
}

class PayloadCorpus : public ::testing::TestWithParam<payload> {};

TEST_P(PayloadCorpus, MapsThroughTheSpecAsTheSourceSays) {
  const auto& p = GetParam();
  const auto& spec = test::spec(p.provider);
  const auto& meta = p.meta;
  const std::string where = p.provider + "/" + p.name;
  // A payload the spec is known to misread, recorded with why (tests/fixtures/payloads/<provider>/
  // misread.json): reported as skipped, never as passing, until the spec can read it.
  const auto misread_file = test::payloads_dir() / p.provider / "misread.json";
  if (fs::exists(misread_file)) {
    if (auto known = nlohmann::json::parse(read_file(misread_file)); known.contains(p.name)) {
      GTEST_SKIP() << where << ": the spec is known to misread it: " << known[p.name].get<std::string>();
    }
  }
  ASSERT_TRUE(meta.contains("source") && !meta["source"].get<std::string>().empty()) << where << ": no source";
  ASSERT_TRUE(fs::exists(p.body)) << where << ": no body file";
  const auto kind = meta.at("operation").get<std::string>();
  const auto op_name = kind == "error" ? meta.at("answering").get<std::string>() : kind;
  const auto* op = spec.operation(nlohmann::json(op_name).get<operation_id>());
  ASSERT_NE(op, nullptr) << where << ": the spec has no operation " << op_name;
  const bool is_text = p.body.extension() == ".txt";
  http::response res{
      meta.at("http_status").get<int>(), {{"Content-Type", is_text ? "text/plain" : spec.errors.content_type}}, read_file(p.body)};
  auto r = interpret_response(spec, op, res);
  provider_client c(spec, "http://127.0.0.1:1", "payload-corpus-key");
  const auto& want = meta.at("expect");

  if (kind == "error") {
    EXPECT_FALSE(r.success) << where << ": an error payload reads as a success";
    ASSERT_TRUE(r.error.has_value()) << where;
    if (r.json) validate(spec.errors.envelope_schema, *r.json, where + " (error envelope)");
    if (want.contains("code")) {
      EXPECT_EQ(r.error->code, text(want["code"])) << where;
    }
    if (want.contains("message")) {
      EXPECT_EQ(r.error->message, text(want["message"])) << where;
    }
    if (want.contains("condition")) {
      const auto c2 = provider_condition(r, spec);
      const std::string got = c2 ? nlohmann::json(*c2).get<std::string>() : "null";
      EXPECT_EQ(got, want["condition"].is_null() ? "null" : text(want["condition"])) << where;
    }
    return;
  }
  ASSERT_TRUE(r.success) << where << ": a success payload reads as " << r.describe();
  if (!is_text) {
    ASSERT_TRUE(r.json.has_value()) << where << ": not JSON";
    validate(op->response_schema, *r.json, where);
  }
  if (kind == "list_offers") {
    std::vector<offer> rows;
    for (const auto& item : c.collection(*r.json, *op))
      for (auto& row : c.to_offers(item)) rows.push_back(std::move(row));
    if (want.contains("rows")) {
      EXPECT_EQ(rows.size(), want["rows"].get<std::size_t>()) << where;
    }
    if (want.contains("fitting_rows")) {
      const auto fitting = std::count_if(rows.begin(), rows.end(), [](const offer& o) { return o.misfit.empty(); });
      EXPECT_EQ(static_cast<std::size_t>(fitting), want["fitting_rows"].get<std::size_t>()) << where;
    }
    if (want.contains("gpu_rows")) {
      const auto gpu_rows = std::count_if(rows.begin(), rows.end(), [](const offer& o) { return o.gpu.value_or(true); });
      EXPECT_EQ(static_cast<std::size_t>(gpu_rows), want["gpu_rows"].get<std::size_t>()) << where;
    }
    for (const auto& w : want.value("rows_include", nlohmann::json::array())) {
      const bool found = std::any_of(rows.begin(), rows.end(), [&](const offer& o) { return row_matches(o, w); });
      std::string listed;
      for (const auto& o : rows) listed += "\n  " + o.key() + (o.price_per_hour_usd ? " $" + std::to_string(*o.price_per_hour_usd) : "");
      EXPECT_TRUE(found) << where << ": no row matches " << w.dump() << "; rows:" << listed;
    }
  } else if (kind == "list") {
    auto items = c.collection(*r.json, *op);
    if (want.contains("count")) {
      EXPECT_EQ(items.size(), want["count"].get<std::size_t>()) << where;
    }
    const auto& instances = want.value("instances", nlohmann::json::array());
    for (std::size_t i = 0; i < instances.size() && i < items.size(); ++i)
      expect_instance(spec, c.to_instance(items[i], operation_id::list), instances[i], where + " item " + std::to_string(i));
  } else if (kind == "get" || kind == "launch") {
    if (want.contains("instance_id")) {
      EXPECT_EQ(c.launched_id(r, "").value_or(""), text(want["instance_id"])) << where;
    }
    // A read that finds nothing (RunPod GraphQL's 200 with data.pod: null).
    if (want.contains("gone")) {
      EXPECT_EQ(answers_gone(spec, r), want["gone"].get<bool>()) << where;
    }
    const bool has_object = want.contains("id") || want.contains("status") || want.contains("state") || want.contains("ip");
    if (has_object) {
      const auto* obj = find_pointer(*r.json, op->item.value_or(""));
      ASSERT_NE(obj, nullptr) << where << ": no object at " << op->item.value_or("");
      expect_instance(spec, c.to_instance(*obj, op->id), want, where);
    }
  }
}

std::string payload_name(const ::testing::TestParamInfo<payload>& info) {
  std::string n = info.param.provider + "_" + info.param.name;
  for (auto& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Real, PayloadCorpus, ::testing::ValuesIn(corpus()), payload_name);

// Every real provider of the catalogue has the four payloads a run reads: offers, one instance,
// an instance list and an error, or says in <provider>/unsourced.json why one could not be
// sourced (never invented): what was searched, and what is known instead.
TEST(PayloadCorpusCoverage, EveryRealProviderHasOffersAnInstanceAListAndAnError) {
  std::map<std::string, std::set<std::string>> kinds;
  for (const auto& p : corpus()) {
    auto k = p.meta.at("operation").get<std::string>();
    if (k == "launch" && p.meta.at("expect").contains("id")) k = "get";  // a launch answering the whole object
    kinds[p.provider].insert(k);
  }
  for (const auto& provider : test::catalogue_providers()) {
    if (test::spec(provider).provider.fictional) continue;
    const auto& have = kinds[provider];
    const auto gaps_file = test::payloads_dir() / provider / "unsourced.json";
    const auto gaps = fs::exists(gaps_file) ? nlohmann::json::parse(read_file(gaps_file)) : nlohmann::json::object();
    for (const char* k : {"list_offers", "get", "list", "error"}) {
      if (have.contains(k)) {
        EXPECT_FALSE(gaps.contains(k)) << provider << ": unsourced.json declares \"" << k << "\" missing, but it exists";
        continue;
      }
      const bool explained = gaps.contains(k) && gaps[k].is_string() && gaps[k].get<std::string>().size() >= 40;
      EXPECT_TRUE(explained) << provider << " has no \"" << k << "\" payload in tests/fixtures/payloads/" << provider
                             << " and unsourced.json does not say why";
    }
  }
}

}  // namespace
