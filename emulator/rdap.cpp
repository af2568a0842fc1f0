#include <neograde/emulator/rdap.hpp>

#include <nlohmann/json.hpp>

#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace neograde::emulator {
namespace {

using json = nlohmann::json;

// A jCard property: [name, {parameters}, "text", value].
json prop(const std::string& name, const json& value, const json& params = json::object()) {
  return json::array({name, params, "text", value});
}

json card(std::vector<json> properties) {
  properties.insert(properties.begin(), prop("version", "4.0"));
  return json::array({"vcard", properties});
}

json entity(const std::string& handle, const std::vector<std::string>& roles, const json& vcard = nullptr) {
  json e = {{"objectClassName", "entity"}, {"handle", handle}, {"roles", roles}};
  if (!vcard.is_null()) e["vcardArray"] = vcard;
  return e;
}

// An organisation as registries describe one: vCard kind org, fn its name.
json org_entity(const std::string& handle, const std::string& name, const json& adr = nullptr) {
  std::vector<json> props = {prop("fn", name), prop("kind", "org")};
  if (!adr.is_null()) props.push_back(adr);
  return entity(handle, {"registrant"}, card(props));
}

json network(const std::string& handle, const std::string& name, const std::string& start, const std::string& end, json entities) {
  const bool v6 = start.find(':') != std::string::npos;
  return {{"rdapConformance", {"rdap_level_0", "cidr0", "nro_rdap_profile_0"}},
          {"objectClassName", "ip network"},
          {"handle", handle},
          {"name", name},
          {"type", "DIRECT ALLOCATION"},
          {"startAddress", start},
          {"endAddress", end},
          {"ipVersion", v6 ? "v6" : "v4"},
          {"status", {"active"}},
          {"entities", std::move(entities)},
          {"notices", {{{"title", "Emulated"}, {"description", {"neograde's RDAP emulator: every registration here is fictional."}}}}}};
}

json error_body(int code, const std::string& title, const std::string& description) {
  return {{"rdapConformance", {"rdap_level_0"}}, {"errorCode", code}, {"title", title}, {"description", {description}}};
}

http::response reply(int status, std::string body, header_list extra = {}, std::string type = "application/rdap+json") {
  http::response r;
  r.status = status;
  r.headers = {{"Content-Type", std::move(type)}};
  for (auto& h : extra) r.headers.push_back(std::move(h));
  r.body = std::move(body);
  return r;
}

http::response rdap_json(const json& doc, int status = 200) { return reply(status, doc.dump()); }

http::response redirect(int status, const std::string& location) { return reply(status, "", {{"Location", location}}); }

// The address of an "ip/<address>" path, canonical, as bytes; nullopt when it is not one.
struct parsed_address {
  std::string text;
  std::vector<unsigned char> bytes;
};
std::optional<parsed_address> address_of(const std::string& text) {
  boost::system::error_code ec;
  auto a = boost::asio::ip::make_address(text, ec);
  if (ec) return std::nullopt;
  parsed_address out{.text = a.to_string(), .bytes = {}};
  if (a.is_v6()) {
    auto b = a.to_v6().to_bytes();
    out.bytes.assign(b.begin(), b.end());
  } else {
    auto b = a.to_v4().to_bytes();
    out.bytes.assign(b.begin(), b.end());
  }
  return out;
}

// 2d00:<n>::/32, the emulator's blocks in IANA-reserved space; 0 when not one of them.
int block_of(const parsed_address& a) {
  if (a.bytes.size() != 16 || a.bytes[0] != 0x2d || a.bytes[1] != 0x00 || a.bytes[2] != 0x00) return 0;
  return a.bytes[3];
}

bool in_v4_24(const parsed_address& a, unsigned char x, unsigned char y, unsigned char z) {
  return a.bytes.size() == 4 && a.bytes[0] == x && a.bytes[1] == y && a.bytes[2] == z;
}

std::string v6_block_end(int n) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "2d00:%x:ffff:ffff:ffff:ffff:ffff:ffff", n);
  return buf;
}
std::string v6_block(int n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "2d00:%x::", n);
  return buf;
}
json v6_cidr(int n) { return json::array({{{"v6prefix", v6_block(n)}, {"length", 32}}}); }

}  // namespace

rdap_emulator::rdap_emulator(std::string prefix, bool tls) : prefix_(std::move(prefix)), tls_(tls) {}

std::vector<std::string> rdap_emulator::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

std::optional<http::response> rdap_emulator::handle(const http::request& req) {
  if (!req.url.starts_with(prefix_)) return std::nullopt;
  auto path = req.url.substr(prefix_.size());
  path = path.substr(0, path.find('?'));
  std::string host;
  for (const auto& [name, value] : req.headers)
    if (host.empty() && name.size() == 4 &&
        std::equal(name.begin(), name.end(), "host", [](char a, char b) { return std::tolower(a) == b; }))
      host = value;
  const auto origin = std::string(tls_ ? "https://" : "http://") + (host.empty() ? "127.0.0.1" : host);
  std::lock_guard lock(mu_);
  requests_.push_back(path);
  ++asked_[path];
  return answer(path, origin);
}

http::response rdap_emulator::answer(const std::string& path, const std::string& origin) {
  const auto base = origin + prefix_;
  // RFC 9224 bootstrap files naming this server: rir1 for the emulator's blocks, rir2 (its base
  // written without the trailing "/" that some real entries have lacked) for the longer prefix
  // 2d00:8::/32, which the longest match must prefer.
  if (path == "bootstrap/ipv6.json" || path == "bootstrap/ipv4.json") {
    const bool v6 = path == "bootstrap/ipv6.json";
    json services = json::array();
    services.push_back(json::array(
        {v6 ? json::array({"2d00::/8"}) : json::array({"192.0.0.0/8", "198.0.0.0/8", "203.0.0.0/8"}), json::array({base + "rir1/"})}));
    if (v6) services.push_back(json::array({json::array({"2d00:8::/32"}), json::array({base + "rir2"})}));
    return reply(200, json{{"version", "1.0"}, {"publication", "2026-01-01T00:00:00Z"}, {"services", services}}.dump(), {},
                 "application/json");
  }
  if (path.starts_with("hostile-bootstrap/")) return reply(200, "[\"services\", 1]", {}, "application/json");

  // rir1/hop/<n>/ip/<address>: a chain of redirects ten long.
  if (path.starts_with("rir1/hop/")) {
    const auto rest = path.substr(9);
    const int n = std::atoi(rest.c_str());
    return redirect(307, base + "rir1/hop/" + std::to_string(n + 1) + rest.substr(rest.find('/')));
  }
  if (path == "rir1/entity/ORG-LAZY-EXAMPLE")
    return rdap_json(json{{"objectClassName", "entity"},
                          {"handle", "ORG-LAZY-EXAMPLE"},
                          {"vcardArray", card({prop("fn", "Lazy Example Hosting"), prop("kind", "org")})}});

  const bool rir1 = path.starts_with("rir1/ip/"), rir2 = path.starts_with("rir2/ip/");
  auto a = rir1 || rir2 ? address_of(path.substr(8)) : std::nullopt;
  auto not_found = [] { return rdap_json(error_body(404, "Not Found", "The emulator registers nothing here."), 404); };
  if (!a) return rdap_json(error_body(400, "Bad Request", "Not an ip query this emulator understands."), 400);
  const int n = block_of(*a);

  if (rir2) {
    switch (n) {
      case 3:
        return rdap_json(network("NET6-2D00-3-1", "EXAMPLE-TRANSFERRED", v6_block(3), v6_block_end(3),
                                 json::array({org_entity("ETN-1", "Example Transferred Networks")})));
      case 8:
        return rdap_json(network("NET6-2D00-8-1", "EXAMPLE-LONGEST", v6_block(8), v6_block_end(8),
                                 json::array({org_entity("ELP-1", "Example Longest Prefix Networks")})));
      case 9:
        return rdap_json(network("NET6-2D00-9-1", "EXAMPLE-UPGRADED", v6_block(9), v6_block_end(9),
                                 json::array({org_entity("EUN-1", "Example Upgraded Networks")})));
      case 6: return redirect(301, base + "rir1/ip/" + a->text);  // back to rir1: a loop
      default: return not_found();
    }
  }

  if (in_v4_24(*a, 192, 0, 2)) {
    // Old ARIN shapes: zero-padded start, "/32" on the end, country only in the address label.
    auto doc = network("NET-192-0-2-0-EXAMPLE", "EXAMPLE-DOC-NET", "192.000.002.000", "192.0.2.255/32",
                       json::array({org_entity("EDN", "Example Documentation Networks",
                                               prop("adr", json::array({"", "", "1 Example Road", "Example City", "", "", ""}),
                                                    {{"label", "1 Example Road\nExample City\nExampleland\n"}}))}));
    return rdap_json(doc);
  }
  if (in_v4_24(*a, 203, 0, 113))
    // Only maintainers registered (RIPE maps mnt-by to "registrant"): no organisation.
    return rdap_json(
        network("203.0.113.0 - 203.0.113.255", "EXAMPLE-MNT-ONLY", "203.0.113.0", "203.0.113.255",
                json::array({entity("EXAMPLE-ONE-MNT", {"registrant"}, card({prop("fn", "EXAMPLE-ONE-MNT"), prop("kind", "individual")})),
                             entity("EXAMPLE-TWO-MNT", {"registrant"}, card({prop("org", "ORG-EX1-EXAMPLE")}))})));

  switch (n) {
    case 1: {
      // ARIN's shape: the organisation's contacts nested inside it, no network country (the
      // registrant's address has the cc parameter of RFC 8605), arin_originas0 origin ASes
      // (AS64500 and AS64501: documentation ASNs, RFC 5398).
      auto org =
          org_entity("EXCH", "Example Cloud Holdings",
                     prop("adr", json::array({"", "", "", "", "", "", ""}), {{"label", "1 Example Way\nExample City"}, {"cc", "ZZ"}}));
      org["entities"] = json::array({entity("EXCH-ABUSE", {"abuse"}, card({prop("fn", "Abuse"), prop("kind", "group")}))});
      auto doc = network("NET6-2D00-1-1", "EXAMPLE-CLOUD-V6", v6_block(1), v6_block_end(1), json::array({org}));
      doc["parentHandle"] = "NET6-2D00-0-0";
      doc["cidr0_cidrs"] = v6_cidr(1);
      doc["arin_originas0_originautnums"] = json::array({64500, "AS64501"});
      doc["rdapConformance"].push_back("arin_originas0");
      return rdap_json(doc);
    }
    case 2: {
      // RIPE's shape: maintainers are "registrant" too, the organisation is the one of kind org.
      auto doc = network(
          v6_block(2) + " - " + v6_block_end(2), "EXAMPLE-RESELLER", v6_block(2), v6_block_end(2),
          json::array({entity("EXAMPLE-LIR-MNT", {"registrant"}, card({prop("fn", "EXAMPLE-LIR-MNT"), prop("kind", "individual")})),
                       org_entity("ORG-FGR1-EXAMPLE", "Fictional GPU Resellers Ltd"),
                       entity("EXAMPLE-NCC-HM-MNT", {"registrant"},
                              card({prop("fn", "EXAMPLE-NCC-HM-MNT"), prop("kind", "individual"), prop("org", "ORG-NCC1-EXAMPLE")})),
                       entity("EX-ABUSE", {"abuse"}, card({prop("fn", "Abuse-C Role"), prop("kind", "group")}))}));
      doc["country"] = "QM";
      doc["cidr0_cidrs"] = v6_cidr(2);
      return rdap_json(doc);
    }
    case 3: return redirect(301, prefix_ + "rir2/ip/" + a->text);  // relative: resolved against this URL
    case 5:
      // ::1 always rate limited; ::2 limited once, then answered.
      if (a->text == "2d00:5::2" && asked_["rir1/ip/" + a->text] > 1)
        return rdap_json(network("NET6-2D00-5-2", "EXAMPLE-PATIENT", v6_block(5), v6_block_end(5),
                                 json::array({org_entity("EPH-1", "Example Patient Hosting")})));
      return reply(429, error_body(429, "Too Many Requests", "Slow down.").dump(), {{"Retry-After", a->text == "2d00:5::2" ? "3" : "7"}});
    case 6: {
      const auto last = a->text.substr(a->text.rfind(':') + 1);
      if (last == "1") return reply(200, "<html><body>Service temporarily unavailable</body></html>", {}, "text/html");
      if (last == "2") return reply(200, "{\"objectClassName\":\"ip network\",\"remarks\":\"" + std::string(2 * 1024 * 1024, 'x') + "\"}");
      if (last == "3") return reply(200, R"({"objectClassName":"ip network","handle":42,"entities":"none"})");
      if (last == "4") return reply(200, R"([{"objectClassName":"ip network"}])");
      if (last == "5") return redirect(302, base + "rir2/ip/" + a->text);
      if (last == "6") return redirect(302, "ftp://127.0.0.1/ip/" + a->text);
      if (last == "7") return reply(302, "");
      if (last == "8") return redirect(307, base + "rir1/hop/1/ip/" + a->text);
      if (last == "9") return reply(200, R"({"objectClassName":"domain","handle":"EXAMPLE.TEST"})");
      if (last == "a") return rdap_json(error_body(500, "Internal Server Error", "The emulated registry fell over."), 500);
      if (last == "b")
        return reply(200, R"({"objectClassName":"ip network","handle":"X","entities":[1,"two",null,{"roles":"registrant"},)"
                          R"({"roles":["registrant"],"handle":7,"vcardArray":"not a card"}]})");
      return not_found();
    }
    case 7:
      // A registrant without a vCard: its entity object names it.
      return rdap_json(network("NET6-2D00-7-1", "EXAMPLE-LAZY", v6_block(7), v6_block_end(7),
                               json::array({entity("ORG-LAZY-EXAMPLE", {"registrant"})})));
    case 9: return redirect(302, "http://" + origin.substr(origin.find("://") + 3) + prefix_ + "rir2/ip/" + a->text);
    case 10: {
      // vCard edge cases: no fn (org, structured, names it), kind in capitals, a property too
      // short to read, a null adr value, values beyond the fourth.
      json props =
          json::array({json::array({"version", json::object(), "text", "4.0"}), json::array({"kind", json::object(), "text", "ORG"}),
                       json::array({"fn", json::object(), "text"}), json::array({"adr", {{"cc", "QN"}}, "text", nullptr}),
                       json::array({"org", json::object(), "text", json::array({"Example Structured Org", "GPU Unit"}), "extra"})});
      return rdap_json(network("NET6-2D00-A-1", "EXAMPLE-VCARD", v6_block(10), v6_block_end(10),
                               json::array({entity("ESO-1", {"Registrant"}, json::array({"vcard", props}))})));
    }
    default: return not_found();
  }
}

std::function<std::optional<http::response>(const http::request&)> serve(std::shared_ptr<rdap_emulator> rdap) {
  return [rdap = std::move(rdap)](const http::request& req) { return rdap->handle(req); };
}

}  // namespace neograde::emulator
