#include <neograde/clients/rdap.hpp>

#include <neograde/clients/http.hpp>
#include <neograde/clients/url.hpp>

#include <boost/asio/ip/address.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

namespace neograde::rdap {
namespace {

using json = nlohmann::json;

// An address as bits: IPv4 in 4 bytes, IPv6 in 16.
struct ip_bits {
  bool v6 = false;
  std::array<std::uint8_t, 16> bytes{};
  [[nodiscard]] int width() const { return v6 ? 128 : 32; }
};

// The address (an IPv4-mapped IPv6 one unmapped), or nullopt. A zone id is not an address here.
std::optional<boost::asio::ip::address> parse_address(std::string_view text) {
  if (text.find('%') != std::string_view::npos) return std::nullopt;  // a zone id names no public address
  boost::system::error_code ec;
  auto a = boost::asio::ip::make_address(std::string(text), ec);
  if (ec) return std::nullopt;
  if (a.is_v6() && a.to_v6().scope_id() != 0) return std::nullopt;
  if (a.is_v6() && a.to_v6().is_v4_mapped()) return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, a.to_v6());
  return a;
}

ip_bits bits_of(const boost::asio::ip::address& a) {
  ip_bits out;
  out.v6 = a.is_v6();
  if (out.v6) {
    const auto b = a.to_v6().to_bytes();
    std::copy(b.begin(), b.end(), out.bytes.begin());
  } else {
    const auto b = a.to_v4().to_bytes();
    std::copy(b.begin(), b.end(), out.bytes.begin());
  }
  return out;
}

struct prefix {
  ip_bits base;
  int length = 0;
};

// "a.b.c.d/n" or "x::/n"; nullopt when either half is malformed.
std::optional<prefix> parse_prefix(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto a = parse_address(text.substr(0, slash));
  const auto digits = text.substr(slash + 1);
  if (!a || digits.empty() || digits.size() > 3 || digits.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  prefix p{.base = bits_of(*a), .length = std::stoi(std::string(digits))};
  if (p.length > p.base.width()) return std::nullopt;
  return p;
}

bool contains(const prefix& p, const ip_bits& a) {
  if (p.base.v6 != a.v6) return false;
  for (int bit = 0; bit < p.length; ++bit) {
    const int byte = bit / 8, mask = 0x80 >> (bit % 8);
    if ((p.base.bytes[byte] & mask) != (a.bytes[byte] & mask)) return false;
  }
  return true;
}

// IANA's IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its updates), the
// multicast spaces, IPv4's reserved 240/4, and IPv6 outside global unicast 2000::/3 (RFC 4291
// §2.4). The longest match names the block.
const std::vector<special_block>& special_blocks() {
  static const std::vector<special_block> blocks = {
      {"0.0.0.0/8", "\"This network\"", "RFC 791, RFC 6890"},
      {"10.0.0.0/8", "Private-Use", "RFC 1918"},
      {"100.64.0.0/10", "Shared Address Space (carrier-grade NAT)", "RFC 6598"},
      {"127.0.0.0/8", "Loopback", "RFC 1122"},
      {"169.254.0.0/16", "Link Local", "RFC 3927"},
      {"172.16.0.0/12", "Private-Use", "RFC 1918"},
      {"192.0.0.0/24", "IETF Protocol Assignments", "RFC 6890"},
      {"192.0.2.0/24", "Documentation (TEST-NET-1)", "RFC 5737"},
      {"192.88.99.0/24", "6to4 Relay Anycast (deprecated)", "RFC 7526"},
      {"192.168.0.0/16", "Private-Use", "RFC 1918"},
      {"198.18.0.0/15", "Benchmarking", "RFC 2544"},
      {"198.51.100.0/24", "Documentation (TEST-NET-2)", "RFC 5737"},
      {"203.0.113.0/24", "Documentation (TEST-NET-3)", "RFC 5737"},
      {"224.0.0.0/4", "Multicast", "RFC 5771"},
      {"240.0.0.0/4", "Reserved", "RFC 1112"},
      {"255.255.255.255/32", "Limited Broadcast", "RFC 919, RFC 8190"},
      {"::/128", "Unspecified Address", "RFC 4291"},
      {"::1/128", "Loopback Address", "RFC 4291"},
      {"64:ff9b::/96", "IPv4-IPv6 Translation", "RFC 6052"},
      {"64:ff9b:1::/48", "IPv4-IPv6 Translation (local use)", "RFC 8215"},
      {"100::/64", "Discard-Only Address Block", "RFC 6666"},
      {"2001::/23", "IETF Protocol Assignments", "RFC 2928"},
      {"2001:db8::/32", "Documentation", "RFC 3849"},
      {"2002::/16", "6to4", "RFC 3056"},
      {"3fff::/20", "Documentation", "RFC 9637"},
      {"5f00::/16", "Segment Routing (SRv6) SIDs", "RFC 9602"},
      {"fc00::/7", "Unique-Local", "RFC 4193"},
      {"fe80::/10", "Link-Local Unicast", "RFC 4291"},
      {"ff00::/8", "Multicast", "RFC 4291"},
      {"::/3", "Reserved by the IETF (outside global unicast 2000::/3)", "RFC 4291 §2.4"},
      {"4000::/2", "Reserved by the IETF (outside global unicast 2000::/3)", "RFC 4291 §2.4"},
      {"8000::/1", "Reserved by the IETF (outside global unicast 2000::/3)", "RFC 4291 §2.4"},
  };
  return blocks;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string_view type_name(const json& j) { return j.type_name(); }

// A string member, or "" when absent or not a string.
std::string str(const json& obj, const char* key) {
  if (!obj.is_object()) return {};
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A vCard value as text: a string, or the non-empty string components of a structured value
// joined with a space (openrdap's rule); null and anything else are "".
std::string value_text(const json& v, bool first_component_only = false) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_array()) return {};
  std::string out;
  for (const auto& part : v) {
    const auto text = value_text(part);
    if (text.empty()) continue;
    if (first_component_only) return text;
    out += (out.empty() ? "" : " ") + text;
  }
  return out;
}

std::string truncated(std::string s, std::size_t n = 300) {
  if (s.size() > n) s = s.substr(0, n) + "...";
  return s;
}

// Base URLs end in "/" (RFC 9224 §3), though some bootstrap entries have lacked it.
std::string with_slash(std::string url) {
  if (url.empty() || url.back() != '/') url += '/';
  return url;
}

// Percent-encodes all but RFC 3986's unreserved characters (handles hold spaces and '/').
std::string encode_segment(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') out += static_cast<char>(c);
    else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// "Title: description" of an RDAP error body (RFC 9083 §6), or "" when the body is not one.
std::string error_body(const std::string& body) {
  auto doc = json::parse(body, nullptr, false);
  if (!doc.is_object() || !doc.contains("errorCode")) return {};
  std::string out = str(doc, "title");
  if (auto d = doc.find("description"); d != doc.end() && d->is_array())
    for (const auto& line : *d)
      if (line.is_string()) out += (out.empty() ? "" : out.back() == ':' ? " " : ": ") + line.get<std::string>();
  if (out.empty()) out = "errorCode " + doc["errorCode"].dump();
  return truncated(out);
}

// An address as a registry wrote it: "074.125.000.000" (old ARIN) and "62.239.237.0/32" (old
// RIPE) are read; what is still not an address is kept as written.
std::string lenient_address(std::string text) {
  if (auto slash = text.find('/'); slash != std::string::npos) text.resize(slash);
  if (auto a = parse_address(text)) return a->to_string();
  if (text.find(':') == std::string::npos && std::count(text.begin(), text.end(), '.') == 3 &&
      text.find_first_not_of("0123456789.") == std::string::npos) {
    std::string out;
    std::size_t start = 0;
    for (int i = 0; i < 4; ++i) {
      auto dot = std::min(text.find('.', start), text.size());
      auto part = text.substr(start, dot - start);
      if (part.empty() || part.size() > 3) return text;
      out += (i ? "." : "") + std::to_string(std::stoi(part));
      start = dot + 1;
    }
    if (parse_address(out)) return out;
  }
  return text;
}

bool has_role(const json& entity, std::string_view role) {
  auto roles = entity.find("roles");
  if (roles == entity.end() || !roles->is_array()) return false;
  return std::any_of(roles->begin(), roles->end(), [&](const json& r) { return r.is_string() && lower(r.get<std::string>()) == role; });
}

bool ends_with_ci(const std::string& s, std::string_view suffix) { return s.size() >= suffix.size() && lower(s).ends_with(suffix); }

// The registrant organisation among the top-level entities (research: RIPE also labels its
// maintainers "registrant"): maintainers (handle "-MNT") are never chosen; a vCard of kind org
// comes first, then an "ORG-" handle, then the first other registrant.
std::optional<organisation> choose_registrant(const json& entities, vcard& card) {
  const json* best = nullptr;
  int best_score = -1;
  vcard best_card;
  for (const auto& e : entities) {
    if (!e.is_object() || !has_role(e, "registrant")) continue;
    const auto handle = str(e, "handle");
    if (ends_with_ci(handle, "-mnt")) continue;
    auto v = e.contains("vcardArray") ? read_vcard(e["vcardArray"]) : vcard{};
    const int score = (lower(v.kind) == "org" ? 2 : 0) + (lower(handle).starts_with("org-") ? 1 : 0);
    if (score > best_score) best = &e, best_score = score, best_card = v;
  }
  if (best == nullptr || (best_card.fn.empty() && best_card.org.empty() && str(*best, "handle").empty())) return std::nullopt;
  card = best_card;
  organisation o{.name = !best_card.fn.empty() ? best_card.fn : best_card.org,
                 .handle = str(*best, "handle"),
                 .role = "registrant",
                 .kind = lower(best_card.kind)};
  o.selected_by = o.kind == "org"   ? "the registrant entity whose vCard kind is org"
                  : best_score == 1 ? "the registrant entity with an ORG- handle (no vCard kind org)"
                                    : "the only kind of registrant entity given (no vCard kind org, not a maintainer)";
  if (!best_card.valid) o.selected_by += "; it carries no readable vCard";
  return o;
}

bool is_country_code(const std::string& s) {
  return s.size() == 2 && std::isalpha(static_cast<unsigned char>(s[0])) && std::isalpha(static_cast<unsigned char>(s[1]));
}

void read_country(const json& doc, const vcard& registrant, address_owner& out) {
  if (auto c = str(doc, "country"); is_country_code(c)) {
    out.country = c, out.country_source = "network";
  } else if (is_country_code(registrant.adr_cc)) {
    out.country = registrant.adr_cc, out.country_source = "registrant address cc";
  } else if (!registrant.adr_label.empty()) {
    auto label = registrant.adr_label;
    while (!label.empty() && (label.back() == '\n' || label.back() == ' ')) label.pop_back();
    auto last = label.substr(label.rfind('\n') == std::string::npos ? 0 : label.rfind('\n') + 1);
    if (!last.empty()) out.country = last, out.country_source = "registrant address label";
  }
}

// ARIN's arin_originas0 extension (registrant-entered, deprecated by ARIN-2021-8): the one place
// an origin AS is published on an ip network object. Numbers, "AS64500" or "64500".
void read_origin_as(const json& doc, address_owner& out) {
  auto it = doc.find("arin_originas0_originautnums");
  if (it == doc.end() || !it->is_array()) return;
  std::vector<std::int64_t> asns;
  for (const auto& v : *it) {
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= 4294967295LL) asns.push_back(v.get<std::int64_t>());
    else if (v.is_string()) {
      auto s = v.get<std::string>();
      if (lower(s).starts_with("as")) s = s.substr(2);
      if (!s.empty() && s.size() <= 10 && s.find_first_not_of("0123456789") == std::string::npos && std::stoll(s) <= 4294967295LL)
        asns.push_back(std::stoll(s));
    }
  }
  if (asns.empty()) return;
  out.origin_as = std::move(asns);
  out.origin_as_source = "arin_originas0_originautnums";
}

// One lookup's HTTP: a client, the deadline, the redirects followed.
class fetcher {
 public:
  explicit fetcher(const lookup_options& o)
      : opts_(o), deadline_(std::chrono::steady_clock::now() + o.total_timeout), client_(client_options(o)) {}

  struct answer {
    std::optional<http::response> res;
    std::string url;    // the URL that answered
    std::string error;  // when res is empty
  };

  // GET `url`, following redirects (recorded in `chain` when given) within the hop limit.
  answer get(std::string url, std::vector<address_owner::redirect>* chain) {
    std::set<std::string> visited{url};
    for (int hops = 0;; ++hops) {
      if (std::chrono::steady_clock::now() > deadline_)
        return {.url = url, .error = "the lookup took longer than " + std::to_string(opts_.total_timeout.count() / 1000) + " s in all"};
      auto res =
          client_.send(http::request{.method = "GET", .url = url, .headers = {{"Accept", "application/rdap+json, application/json"}}});
      if (!res) return {.url = url, .error = "GET " + url + ": " + res.error().message()};
      const int status = res->status;
      if (status != 301 && status != 302 && status != 303 && status != 307 && status != 308) return {.res = std::move(*res), .url = url};
      const auto location = res->header("Location");
      if (location.empty()) return {.url = url, .error = "HTTP " + std::to_string(status) + " from " + url + " without a Location"};
      auto next = resolve(url, location);
      if (!next.error.empty()) return {.url = url, .error = "HTTP " + std::to_string(status) + " from " + url + ": " + next.error};
      if (hops >= opts_.max_redirects)
        return {.url = url, .error = "more than " + std::to_string(opts_.max_redirects) + " redirects (the last to " + next.url + ")"};
      if (!visited.insert(next.url).second) return {.url = url, .error = "redirect loop: " + url + " sends back to " + next.url};
      if (chain != nullptr) chain->push_back({.status = status, .from = url, .to = next.url, .upgraded = next.upgraded});
      url = next.url;
    }
  }

 private:
  static http::client_options client_options(const lookup_options& o) {
    http::client_options c;
    c.resolve_timeout = c.connect_timeout = c.handshake_timeout = c.write_timeout = c.read_timeout = o.step_timeout;
    c.max_body_bytes = o.max_body_bytes;
    c.max_retries = o.max_retries;
    c.max_retry_wait = o.max_retry_wait;
    c.extra_ca_file = o.ca_file;
    c.user_agent = o.user_agent;
    c.transcript_limit = 16;
    c.sleep = o.sleep;
    return c;
  }

  struct target {
    std::string url, error;
    bool upgraded = false;
  };

  // A Location resolved against the URL that sent it (RFC 3986 §5), http or https only; an http
  // target from an https server is asked over https (a registry's answer is never downgraded).
  static target resolve(const std::string& from, const std::string& location) {
    auto base = boost::urls::parse_uri(from);
    auto ref = boost::urls::parse_uri_reference(location);
    if (!base || !ref) return {.error = "Location \"" + truncated(location, 200) + "\" is not a URL"};
    boost::urls::url dest;
    if (!boost::urls::resolve(*base, *ref, dest)) return {.error = "Location \"" + truncated(location, 200) + "\" cannot be resolved"};
    dest.remove_fragment();
    target t;
    const auto scheme = lower(std::string(dest.scheme()));
    if (scheme != "http" && scheme != "https") return {.error = "Location " + truncated(location, 200) + " is not http(s)"};
    if (scheme == "http" && base->scheme() == "https") {
      dest.set_scheme("https");
      if (dest.has_port() && dest.port() == "80") dest.remove_port();
      t.upgraded = true;
    }
    t.url = std::string(dest.buffer());
    if (!http::parse_url(t.url)) return {.error = "Location \"" + truncated(location, 200) + "\" is not a usable URL"};
    return t;
  }

  const lookup_options& opts_;
  std::chrono::steady_clock::time_point deadline_;
  http::client client_;
};

// The base URL of the longest bootstrap prefix covering `a` (RFC 9224 §5), https preferred.
std::optional<std::string> bootstrap_base(const json& doc, const ip_bits& a, std::string& error) {
  auto services = doc.is_object() ? doc.find("services") : doc.end();
  if (!doc.is_object() || services == doc.end() || !services->is_array()) {
    error = "not an RDAP bootstrap file (no \"services\" array, RFC 9224 §3)";
    return std::nullopt;
  }
  int best = -1;
  std::optional<std::string> chosen;
  for (const auto& service : *services) {
    if (!service.is_array() || service.size() < 2 || !service[0].is_array() || !service[1].is_array()) continue;
    std::string https, plain;
    for (const auto& u : service[1]) {
      if (!u.is_string()) continue;
      const auto s = u.get<std::string>();
      if (https.empty() && s.starts_with("https://") && http::parse_url(s)) https = s;
      if (plain.empty() && s.starts_with("http://") && http::parse_url(s)) plain = s;
    }
    if (https.empty() && plain.empty()) continue;
    for (const auto& entry : service[0]) {
      if (!entry.is_string()) continue;
      auto p = parse_prefix(entry.get<std::string>());
      if (p && p->length > best && contains(*p, a)) best = p->length, chosen = with_slash(https.empty() ? plain : https);
    }
  }
  return chosen;
}

}  // namespace

std::string_view to_string(lookup_status s) {
  switch (s) {
    case lookup_status::found: return "found";
    case lookup_status::special_purpose: return "special_purpose";
    case lookup_status::not_found: return "not_found";
    case lookup_status::error: return "error";
  }
  return "error";
}

std::optional<special_block> special_purpose(std::string_view address) {
  auto a = parse_address(address);
  if (!a) return std::nullopt;
  const auto bits = bits_of(*a);
  const special_block* best = nullptr;
  int best_length = -1;
  for (const auto& block : special_blocks()) {
    auto p = parse_prefix(block.prefix);
    if (p && p->length > best_length && contains(*p, bits)) best = &block, best_length = p->length;
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

vcard read_vcard(const json& vcard_array) {
  vcard out;
  if (!vcard_array.is_array() || vcard_array.size() != 2 || vcard_array[0] != "vcard" || !vcard_array[1].is_array()) return out;
  out.valid = true;
  for (const auto& p : vcard_array[1]) {
    // [name, parameters, value type, value, more values...] (RFC 7095 §3.3).
    if (!p.is_array() || p.size() < 4 || !p[0].is_string()) continue;
    const auto name = lower(p[0].get<std::string>());
    const auto& params = p[1];
    if (name == "fn" && out.fn.empty()) out.fn = value_text(p[3]);
    else if (name == "kind" && out.kind.empty())
      out.kind = value_text(p[3]);
    else if (name == "org" && out.org.empty())
      out.org = value_text(p[3], true);
    else if (name == "adr" && out.adr_cc.empty() && out.adr_label.empty() && params.is_object()) {
      out.adr_cc = str(params, "cc");
      out.adr_label = str(params, "label");
    }
  }
  return out;
}

bool read_ip_network(const json& doc, address_owner& out) {
  auto fail = [&](std::string why) {
    out.error = std::move(why);
    return false;
  };
  if (!doc.is_object()) return fail("the answer is a JSON " + std::string(type_name(doc)) + ", not an RDAP object");
  auto cls = doc.find("objectClassName");
  if (cls == doc.end()) {
    // LACNIC has answered its rate limit with a notice in a 200 (research: ipwhois net.py).
    if (auto notices = doc.find("notices"); notices != doc.end() && notices->is_array())
      for (const auto& n : *notices)
        if (lower(str(n, "title")).find("rate limit") != std::string::npos) return fail("rate limited: " + truncated(n.dump()));
    return fail("no objectClassName: not an RDAP object (RFC 9083 §4.8)");
  }
  if (!cls->is_string() || *cls != "ip network")
    return fail("objectClassName is " + truncated(cls->dump(), 80) + ", not \"ip network\" (RFC 9083 §5.4)");
  for (const char* key : {"handle", "name", "type", "startAddress", "endAddress", "country", "parentHandle", "ipVersion"})
    if (auto it = doc.find(key); it != doc.end() && !it->is_string() && !it->is_null())
      return fail(std::string("member \"") + key + "\" is a " + it->type_name() + ", not a string (RFC 9083 §5.4)");
  auto entities = doc.find("entities");
  if (entities != doc.end() && !entities->is_array() && !entities->is_null())
    return fail(std::string("member \"entities\" is a ") + entities->type_name() + ", not an array (RFC 9083 §5.4)");

  out.network_handle = str(doc, "handle");
  out.network_name = str(doc, "name");
  out.network_type = str(doc, "type");
  out.parent_handle = str(doc, "parentHandle");
  out.start_address = lenient_address(str(doc, "startAddress"));
  out.end_address = lenient_address(str(doc, "endAddress"));
  if (auto cidrs = doc.find("cidr0_cidrs"); cidrs != doc.end() && cidrs->is_array())
    for (const auto& c : *cidrs) {
      auto p = str(c, "v4prefix");
      if (p.empty()) p = str(c, "v6prefix");
      auto len = c.is_object() ? c.find("length") : c.end();
      if (!p.empty() && c.is_object() && len != c.end() && len->is_number_unsigned())
        out.cidrs.push_back(p + "/" + std::to_string(len->get<unsigned>()));
    }
  vcard registrant;
  if (entities != doc.end() && entities->is_array()) out.org = choose_registrant(*entities, registrant);
  read_country(doc, registrant, out);
  read_origin_as(doc, out);
  return true;
}

address_owner lookup_ip_owner(std::string_view address, const lookup_options& options) {
  address_owner out;
  out.address = std::string(address);
  auto parsed = parse_address(address);
  if (!parsed) {
    out.error = "not an IP address: \"" + truncated(std::string(address), 80) + "\"";
    return out;
  }
  out.address = parsed->to_string();
  if (auto block = special_purpose(out.address); block && options.classify_locally) {
    out.status = lookup_status::special_purpose;
    out.special = block;
    out.reason = block->name + " (" + block->prefix + ", " + block->reference + "): no registration to look up; not queried";
    return out;
  }
  try {
    fetcher f(options);
    if (!options.rdap_url.empty()) {
      out.server = with_slash(options.rdap_url);
    } else {
      out.bootstrap = with_slash(options.bootstrap_url) + (parsed->is_v6() ? "ipv6.json" : "ipv4.json");
      auto got = f.get(out.bootstrap, nullptr);
      if (!got.res) {
        out.error = "bootstrap: " + got.error;
        return out;
      }
      if (got.res->status != 200) {
        out.error = "bootstrap: HTTP " + std::to_string(got.res->status) + " from " + got.url;
        return out;
      }
      std::string why;
      auto base = bootstrap_base(json::parse(got.res->body, nullptr, false), bits_of(*parsed), why);
      if (!why.empty()) {
        out.error = "bootstrap " + got.url + ": " + why;
        return out;
      }
      if (!base) {
        out.status = lookup_status::not_found;
        out.reason = "no RDAP service in " + got.url + " covers " + out.address + " (RFC 9224 §7: no registry is known for it)";
        return out;
      }
      out.server = *base;
    }
    out.query_url = out.server + "ip/" + out.address;
    auto got = f.get(out.query_url, &out.redirects);
    out.final_url = got.url;
    if (!got.res) {
      out.error = got.error;
      return out;
    }
    const auto& res = *got.res;
    out.http_status = res.status;
    const auto from = " from " + got.url;
    if (res.status == 404) {
      out.status = lookup_status::not_found;
      const auto body = error_body(res.body);
      out.reason = "HTTP 404" + from + (body.empty() ? "" : ": " + body);
      return out;
    }
    if (res.status == 429) {
      if (auto wait = http::parse_retry_after(res.header("Retry-After")); wait && *wait != std::chrono::milliseconds::max())
        out.retry_after_s = static_cast<double>(wait->count()) / 1000;
      const auto after = res.header("Retry-After");
      out.error = "rate limited: HTTP 429" + from + (after.empty() ? "" : " (Retry-After: " + truncated(after, 40) + ")");
      return out;
    }
    if (res.status != 200) {
      const auto body = error_body(res.body);
      out.error = "HTTP " + std::to_string(res.status) + from + (body.empty() ? "" : ": " + body);
      return out;
    }
    auto doc = json::parse(res.body, nullptr, false);
    if (doc.is_discarded()) {
      const auto type = res.header("Content-Type");
      out.error = "the answer" + from + " is not JSON" + (type.empty() ? "" : " (Content-Type " + truncated(type, 80) + ")");
      return out;
    }
    if (!read_ip_network(doc, out)) {
      out.error = out.error + " (" + got.url + ")";
      return out;
    }
    out.status = lookup_status::found;
    // A registrant named only by its handle: its entity object has the vCard (ipwhois does this).
    if (out.org && out.org->name.empty() && !out.org->handle.empty()) {
      const auto base = got.url.substr(0, got.url.rfind("ip/"));
      auto entity = f.get(base + "entity/" + encode_segment(out.org->handle), nullptr);
      auto edoc = entity.res && entity.res->status == 200 ? json::parse(entity.res->body, nullptr, false) : json();
      auto card = edoc.is_object() && edoc.contains("vcardArray") ? read_vcard(edoc["vcardArray"]) : vcard{};
      out.org->name = !card.fn.empty() ? card.fn : card.org;
      if (out.org->kind.empty()) out.org->kind = lower(card.kind);
      out.org->selected_by +=
          out.org->name.empty() ? "; its entity object names it neither" : "; named by its entity object (" + entity.url + ")";
    }
  } catch (const std::exception& e) {
    out.status = lookup_status::error;
    out.error = std::string("the lookup failed: ") + e.what();
  }
  return out;
}

json address_owner::to_json() const {
  auto text = [](const std::string& s) { return s.empty() ? json() : json(s); };
  json j = {{"address", address}, {"status", std::string(rdap::to_string(status))}};
  j["special_purpose"] = special ? json{{"prefix", special->prefix}, {"name", special->name}, {"reference", special->reference}} : json();
  if (status == lookup_status::found) {
    j["network"] = {{"handle", text(network_handle)},       {"name", text(network_name)},       {"type", text(network_type)},
                    {"start_address", text(start_address)}, {"end_address", text(end_address)}, {"cidrs", cidrs},
                    {"parent_handle", text(parent_handle)}};
  } else {
    j["network"] = nullptr;
  }
  j["organisation"] = org ? json{{"name", text(org->name)},
                                 {"handle", text(org->handle)},
                                 {"role", org->role},
                                 {"kind", text(org->kind)},
                                 {"selected_by", org->selected_by}}
                          : json();
  j["country"] = text(country);
  j["country_source"] = text(country_source);
  j["origin_as"] = origin_as ? json(*origin_as) : json();
  j["origin_as_source"] = text(origin_as_source);
  j["rdap_server"] = text(server);
  j["bootstrap"] = text(bootstrap);
  j["query_url"] = text(query_url);
  j["final_url"] = text(final_url);
  j["redirects"] = json::array();
  for (const auto& r : redirects)
    j["redirects"].push_back({{"status", r.status}, {"from", r.from}, {"to", r.to}, {"upgraded", r.upgraded}});
  j["http_status"] = http_status ? json(*http_status) : json();
  j["retry_after_s"] = retry_after_s ? json(*retry_after_s) : json();
  j["reason"] = text(reason);
  j["error"] = text(error);
  return j;
}

}  // namespace neograde::rdap
