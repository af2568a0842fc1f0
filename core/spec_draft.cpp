// neograde spec draft: a draft spec from an OpenAPI 3 or Swagger 2 document. Every rule that
// sets something records a guess (the spec's pointer and the document's words it read); what no
// rule can set is left out with a warning, never invented. Whatever is read from the document
// is bounded: $ref chains and schema walks stop at fixed depths, so a cycle or a hostile nesting
// ends in a warning, not a crash.

#include <neograde/core/spec_draft.hpp>

#include <neograde/core/json_schema.hpp>
#include <neograde/core/json_util.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace neograde {
namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

constexpr int max_ref_hops = 32;
constexpr int max_schema_depth = 48;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// A name as the rules compare it: lower case, letters and digits only ("ssh-keys", "sshKeys"
// and "ssh_keys" all read "sshkeys").
std::string norm(std::string_view s) {
  std::string out;
  for (unsigned char c : s)
    if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
  return out;
}

bool any_of_words(const std::string& n, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return n == w; });
}

bool contains_any(const std::string& n, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return n.find(w) != std::string::npos; });
}

ojson ordered(const json& j) { return ojson::parse(j.dump()); }

// Removes the member at an RFC 6901 pointer, where there is one.
void erase_at(json& obj, const std::string& pointer) {
  try {
    const json::json_pointer jp(pointer);
    if (!jp.empty() && obj.contains(jp) && obj[jp.parent_pointer()].is_object()) obj[jp.parent_pointer()].erase(jp.back());
  } catch (const json::exception&) {
    // Not a pointer nlohmann reads (a [key=value] token): nothing to remove.
  }
}

// A member that is a string, or `otherwise` (absent, or of another type).
std::string str(const json& obj, const char* key, std::string otherwise = "") {
  if (!obj.is_object()) return otherwise;
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : otherwise;
}

// The words of an operationId or a summary: "InstancesCreate", "list_instance_types" and
// "Create an instance" split into lower-case words.
std::vector<std::string> words_of(std::string_view s) {
  std::vector<std::string> out;
  std::string w;
  auto flush = [&] {
    if (!w.empty()) out.push_back(lower(w));
    w.clear();
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = s[i];
    if (!std::isalnum(c)) {
      flush();
      continue;
    }
    if (std::isupper(c) && !w.empty() && std::islower(static_cast<unsigned char>(w.back()))) flush();
    w += static_cast<char>(c);
  }
  flush();
  return out;
}

// The words that name what a path segment or an operation does.
const std::vector<const char*> create_words{"create", "launch", "deploy", "new", "add", "provision", "run", "rent", "order"};
const std::vector<const char*> delete_words{"delete", "terminate", "destroy", "remove", "release"};
const std::vector<const char*> get_words{"info", "details", "detail", "show", "describe", "get"};
const std::vector<const char*> restart_words{"restart", "reboot"};
const std::vector<const char*> stop_words{"stop", "poweroff", "shutdown", "halt", "pause"};
const std::vector<const char*> start_words{"start", "poweron", "resume", "boot", "unpause"};
const std::vector<const char*> offer_words{"types", "offers", "offer",   "availability", "available", "catalog", "catalogue", "products",
                                           "plans", "sizes",  "flavors", "pricing",      "prices",    "skus",    "offerings"};
const std::vector<const char*> instance_nouns{"instance", "server",     "vm",        "virtualmachine", "machine", "pod",    "node",
                                              "droplet",  "deployment", "container", "rental",         "compute", "gpunode"};

bool in(const std::string& w, const std::vector<const char*>& words) {
  return std::any_of(words.begin(), words.end(), [&](const char* x) { return w == x; });
}
bool has_part(const std::string& w, const std::vector<const char*>& words) {
  return std::any_of(words.begin(), words.end(), [&](const char* x) { return w.find(x) != std::string::npos; });
}
bool instance_ish(const std::string& n) {
  return std::any_of(instance_nouns.begin(), instance_nouns.end(), [&](const char* x) { return n.starts_with(x); });
}
bool ssh_key_ish(const std::string& n) { return n.find("sshkey") != std::string::npos || n == "keys" || n == "publickeys"; }

struct doc_op {
  std::string method;  // upper case
  std::string path;
  std::string pointer;  // in the document
  std::string operation_id, summary;
  json parameters = json::array();
  const json* request = nullptr;
  std::vector<int> success;
  const json* response = nullptr;
  std::string response_media;
  std::map<int, std::pair<const json*, std::string>> errors;  // status -> schema, media type
  // The answer of every other status ("default", "4XX", "5XX"): an error envelope where the
  // document names no error status (Genesis Cloud's).
  std::optional<std::pair<const json*, std::string>> other_errors;
  [[nodiscard]] std::string label() const {
    std::string s = method + " " + path;
    if (!operation_id.empty()) s += " (operationId " + operation_id;
    if (!summary.empty()) s += std::string(operation_id.empty() ? " (" : "; ") + "summary \"" + summary + "\"";
    if (!operation_id.empty() || !summary.empty()) s += ")";
    return s;
  }
};

struct match {
  std::string op;  // neograde's operation
  int score = 0;
  std::string why;
  std::string id_param;  // the path template naming the instance (or key)
};

struct drafter {
  const json& doc;
  draft_options opt;
  spec_draft out;
  bool swagger = false;
  std::string cite;
  // Steps of the schema walks (members, types, examples): a document whose schemas fan out
  // (each member all of ten schemas, each of those of ten more) would take exponential time;
  // past the budget the walks stop, and the draft says so.
  static constexpr std::size_t walk_budget = 100'000;
  mutable std::size_t walked = 0;
  [[nodiscard]] bool spent() const { return ++walked > walk_budget; }

  drafter(const json& document, draft_options options) : doc(document), opt(std::move(options)) {}

  void guess(std::string pointer, std::string text) { out.guesses.push_back({std::move(pointer), std::move(text)}); }
  void warn(std::string pointer, std::string text) { out.warnings.push_back({std::move(pointer), std::move(text)}); }

  // ---- the document ------------------------------------------------------------------------

  // A local $ref followed (chains too, at most max_ref_hops); the node itself otherwise.
  const json& deref(const json& s) const {
    const json* at = &s;
    for (int hop = 0; hop < max_ref_hops && at->is_object(); ++hop) {
      const auto r = at->find("$ref");
      if (r == at->end() || !r->is_string()) break;
      const auto ref = r->get<std::string>();
      if (!ref.starts_with("#")) break;
      const json* target = find_pointer(doc, ref.substr(1));
      if (target == nullptr) break;
      at = target;
    }
    return *at;
  }

  // The members a schema names, through $ref and allOf (depth-bounded: cycles end).
  void collect_props(const json& s, std::map<std::string, const json*>& out, std::set<std::string>* required, int depth) const {
    if (depth > 12 || spent()) return;
    const json& d = deref(s);
    if (!d.is_object()) return;
    if (const auto p = d.find("properties"); p != d.end() && p->is_object())
      for (const auto& [k, v] : p->items()) out.emplace(k, &v);
    if (required)
      if (const auto r = d.find("required"); r != d.end() && r->is_array())
        for (const auto& n : *r)
          if (n.is_string()) required->insert(n.get<std::string>());
    if (const auto a = d.find("allOf"); a != d.end() && a->is_array())
      for (const auto& b : *a) collect_props(b, out, required, depth + 1);
  }
  std::map<std::string, const json*> props(const json& s, std::set<std::string>* required = nullptr) const {
    std::map<std::string, const json*> out;
    collect_props(s, out, required, 0);
    return out;
  }
  std::string type_of(const json& s) const {
    const json& d = deref(s);
    if (!d.is_object()) return "";
    if (const auto t = d.find("type"); t != d.end()) {
      if (t->is_string()) return t->get<std::string>();
      if (t->is_array())
        for (const auto& x : *t)
          if (x.is_string() && x != "null") return x.get<std::string>();
    }
    if (d.contains("properties")) return "object";
    if (d.contains("items")) return "array";
    if (const auto a = d.find("allOf"); a != d.end() && a->is_array())
      for (const auto& b : *a)
        if (auto t = type_of_bounded(b, 1); !t.empty()) return t;
    return "";
  }
  std::string type_of_bounded(const json& s, int depth) const {
    if (depth > 8 || spent()) return "";
    const json& d = deref(s);
    if (!d.is_object()) return "";
    if (const auto t = d.find("type"); t != d.end() && t->is_string()) return t->get<std::string>();
    if (d.contains("properties")) return "object";
    if (d.contains("items")) return "array";
    if (const auto a = d.find("allOf"); a != d.end() && a->is_array())
      for (const auto& b : *a)
        if (auto t = type_of_bounded(b, depth + 1); !t.empty()) return t;
    return "";
  }
  const json* items_of(const json& s) const {
    const json& d = deref(s);
    if (!d.is_object()) return nullptr;
    const auto i = d.find("items");
    return i != d.end() && i->is_object() ? &*i : nullptr;
  }
  std::string text_of(const json& s, const char* key) const {
    const json& d = deref(s);
    return d.is_object() && d.contains(key) && d[key].is_string() ? d[key].get<std::string>() : "";
  }

  // A value for the schema from the document's examples (its own, its default, its first enum
  // word, or built from its members' and items'); null where the document gives none.
  json example_of(const json& s, int depth = 0) const {
    if (depth > 16 || spent()) return nullptr;
    const json& d = deref(s);
    if (!d.is_object()) return nullptr;
    if (const auto e = d.find("example"); e != d.end()) return *e;
    if (const auto e = d.find("examples"); e != d.end() && e->is_array() && !e->empty()) return e->front();
    if (const auto e = d.find("default"); e != d.end()) return *e;
    if (const auto e = d.find("enum"); e != d.end() && e->is_array() && !e->empty()) return e->front();
    const auto t = type_of(d);
    if (t == "array") {
      const json* it = items_of(d);
      if (it == nullptr) return nullptr;
      auto one = example_of(*it, depth + 1);
      return one.is_null() ? json(nullptr) : json::array({one});
    }
    if (t == "object" || d.contains("allOf")) {
      json o = json::object();
      for (const auto& [k, v] : props(d)) {
        auto e = example_of(*v, depth + 1);
        if (!e.is_null()) o[k] = std::move(e);
      }
      return o.empty() ? json(nullptr) : o;
    }
    return nullptr;
  }

  // ---- schemas embedded in the spec ---------------------------------------------------------

  // The schema with every local $ref copied under "definitions" and pointed there, OpenAPI's
  // `nullable` written as JSON Schema's null type, and the prose (descriptions, examples,
  // vendor extensions) left in the document.
  struct embedder {
    drafter& d;
    std::string at;                            // the spec pointer, for warnings
    std::map<std::string, std::string> names;  // document ref -> definition name
    std::set<std::string> taken;
    std::vector<std::string> todo;
    bool deep = false;

    std::string name_for(const std::string& ref) {
      if (const auto n = names.find(ref); n != names.end()) return n->second;
      auto last = ref.substr(ref.find_last_of('/') + 1);
      std::string base;
      for (char c : last) base += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '_';
      if (base.empty()) base = "schema";
      auto name = base;
      for (int i = 2; taken.contains(name); ++i) name = base + "_" + std::to_string(i);
      taken.insert(name);
      names[ref] = name;
      todo.push_back(ref);
      return name;
    }

    json schema(const json& s, int depth) {
      if (depth > max_schema_depth) {
        deep = true;
        return json::object();
      }
      if (!s.is_object()) return s;
      json o = json::object();
      for (const auto& [k, v] : s.items()) {
        if (k == "$ref" && v.is_string()) {
          const auto ref = v.get<std::string>();
          if (!ref.starts_with("#/")) {
            d.warn(at, "an external $ref (" + ref + ") is left out: the schema accepts anything there");
            continue;
          }
          o["$ref"] = "#/definitions/" + name_for(ref);
        } else if (k == "properties" || k == "patternProperties" || k == "definitions" || k == "$defs") {
          if (!v.is_object()) continue;
          json m = json::object();
          for (const auto& [name, sub] : v.items()) m[name] = schema(sub, depth + 1);
          o[k == "$defs" ? "definitions" : k] = std::move(m);
        } else if (k == "allOf" || k == "anyOf" || k == "oneOf") {
          if (!v.is_array()) continue;
          json a = json::array();
          for (const auto& sub : v) a.push_back(schema(sub, depth + 1));
          o[k] = std::move(a);
        } else if (k == "items" || k == "additionalProperties" || k == "not" || k == "contains" || k == "propertyNames") {
          if (v.is_array()) {
            json a = json::array();
            for (const auto& sub : v) a.push_back(schema(sub, depth + 1));
            o[k] = std::move(a);
          } else {
            o[k] = schema(v, depth + 1);
          }
        } else if (k == "description" || k == "example" || k == "examples" || k == "externalDocs" || k == "xml" || k == "title" ||
                   k == "discriminator" || k == "nullable" || k.starts_with("x-")) {
          continue;
        } else {
          o[k] = v;
        }
      }
      if (const auto n = s.find("nullable"); n != s.end() && n->is_boolean() && n->get<bool>()) {
        if (o.contains("type") && o["type"].is_string()) o["type"] = json::array({o["type"], "null"});
        if (o.contains("enum") && o["enum"].is_array()) o["enum"].push_back(nullptr);
      }
      return o;
    }

    json embed(const json& root) {
      json body = schema(root, 0);
      json defs = json::object();
      while (!todo.empty()) {
        const auto ref = todo.back();
        todo.pop_back();
        const json* target = find_pointer(d.doc, ref.substr(1));
        if (target == nullptr) {
          d.warn(at, "the $ref " + ref + " names nothing in the document: the schema accepts anything there");
          defs[names[ref]] = json::object();
          continue;
        }
        defs[names[ref]] = schema(*target, 1);
      }
      if (deep) d.warn(at, "the schema nests deeper than " + std::to_string(max_schema_depth) + " levels: cut there");
      // A definition that reaches itself without reading input ($ref, allOf, anyOf, oneOf, not)
      // would never end a validation: it accepts anything instead.
      static constexpr std::string_view local = "#/definitions/";
      for (const auto& ref : endless_references(json{{"definitions", defs}})) {
        if (!ref.starts_with(local)) continue;
        const auto name = ref.substr(local.size());
        defs[name] = json::object();
        d.warn(at,
               "the schema " + name + " refers to itself without reading anything ($ref, allOf, anyOf, oneOf): it accepts anything there");
      }
      if (defs.empty()) return body;
      if (body.contains("$ref")) body = json{{"allOf", json::array({json{{"$ref", body["$ref"]}}})}};
      body["definitions"] = std::move(defs);
      return body;
    }
  };

  json embed(const json& schema, const std::string& at) {
    embedder e{*this, at, {}, {}, {}};
    return e.embed(schema);
  }

  // A definition that several schemas embed alike (SaladCloud's ContainerGroup in its get, list
  // and create answers) is written once, under the spec's top-level schemas, and named from each
  // (docs/spec-format.md, Top level): the loader resolves it back into each schema's definitions.
  // One that names a definition not shared stays where it is.
  static ojson share_definitions(const std::vector<ojson*>& roots) {
    std::map<std::string, ojson> content;
    std::map<std::string, int> count;
    std::set<std::string> differ;
    for (const auto* r : roots)
      if (r->is_object() && r->contains("definitions"))
        for (const auto& [name, def] : r->at("definitions").items()) {
          const auto [it, fresh] = content.emplace(name, def);
          if (!fresh && it->second != def) differ.insert(name);
          ++count[name];
        }
    std::set<std::string> shared;
    for (const auto& [name, n] : count)
      if (n >= 2 && !differ.contains(name)) shared.insert(name);
    static constexpr std::string_view local = "#/definitions/";
    auto named = [&](const ojson& n, std::set<std::string>& out) {
      for_each_ref(n, [&](const ojson& v, const std::string&) {
        if (const auto& ref = v.get_ref<const std::string&>(); ref.starts_with(local)) out.insert(ref.substr(local.size()));
      });
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (auto it = shared.begin(); it != shared.end();) {
        std::set<std::string> refs;
        named(content.at(*it), refs);
        const bool closed = std::all_of(refs.begin(), refs.end(), [&](const auto& r) { return shared.contains(r); });
        it = closed ? std::next(it) : shared.erase(it);
        changed = changed || !closed;
      }
    }
    auto point = [&](ojson& n) {
      for_each_ref(n, [&](ojson& v, const std::string&) {
        if (const auto ref = v.get<std::string>(); ref.starts_with(local) && shared.contains(ref.substr(local.size())))
          v = "#/schemas/" + ref.substr(local.size());
      });
    };
    ojson out = ojson::object();
    if (shared.empty()) return out;
    for (const auto& name : shared) point(out[name] = content.at(name));
    for (auto* r : roots) {
      if (!r->is_object() || !r->contains("definitions")) continue;
      for (const auto& name : shared) (*r)["definitions"].erase(name);
      point(*r);
      if ((*r)["definitions"].empty()) r->erase("definitions");
    }
    return out;
  }

  // ---- reading operations ------------------------------------------------------------------

  // The JSON schema of a request body or a response, and its media type.
  std::pair<const json*, std::string> content_schema(const json& holder) const {
    const json& h = deref(holder);
    if (!h.is_object()) return {nullptr, ""};
    if (swagger) {
      const auto s = h.find("schema");
      return {s != h.end() ? &*s : nullptr, "application/json"};
    }
    const auto c = h.find("content");
    if (c == h.end() || !c->is_object() || c->empty()) return {nullptr, ""};
    const json* chosen = nullptr;
    std::string media;
    for (const auto& [m, v] : c->items()) {
      const bool jsonish = m == "application/json" || m.ends_with("+json");
      if (chosen == nullptr || (jsonish && media != "application/json")) {
        chosen = &v;
        media = m;
      }
    }
    if (chosen == nullptr || !chosen->is_object() || !chosen->contains("schema")) return {nullptr, media};
    return {&(*chosen)["schema"], media};
  }

  std::vector<doc_op> operations() const {
    std::vector<doc_op> ops;
    const json& paths = doc["paths"];
    for (const auto& [path, raw_item] : paths.items()) {
      const json& item = deref(raw_item);
      if (!item.is_object()) continue;
      json common = item.value("parameters", json::array());
      for (const char* m : {"get", "post", "put", "patch", "delete"}) {
        const auto o = item.find(m);
        if (o == item.end() || !o->is_object()) continue;
        doc_op op;
        op.method = lower(m);
        std::transform(op.method.begin(), op.method.end(), op.method.begin(),
                       [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
        op.path = path;
        op.pointer = "/paths/" + pointer_escape(path) + "/" + m;
        op.operation_id = str(*o, "operationId");
        op.summary = str(*o, "summary");
        if (common.is_array())
          for (const auto& p : common) op.parameters.push_back(deref(p));
        if (const auto ps = o->find("parameters"); ps != o->end() && ps->is_array())
          for (const auto& p : *ps) op.parameters.push_back(deref(p));
        if (swagger) {
          for (const auto& p : op.parameters)
            if (p.is_object() && str(p, "in") == "body" && p.contains("schema")) op.request = &p["schema"];
        } else if (const auto rb = o->find("requestBody"); rb != o->end()) {
          op.request = content_schema(*rb).first;
        }
        if (const auto rs = o->find("responses"); rs != o->end() && rs->is_object()) {
          for (const auto& [code, resp] : rs->items()) {
            int status = 0;
            if (code.size() == 3 && std::all_of(code.begin(), code.end(), ::isdigit)) status = std::stoi(code);
            else if (code == "2XX" || code == "2xx")
              status = 200;
            const auto [schema, media] = content_schema(resp);
            if (status >= 200 && status < 300) {
              op.success.push_back(status);
              if (op.response == nullptr && schema != nullptr) {
                op.response = schema;
                op.response_media = media;
              }
            } else if (status >= 400 && schema != nullptr) {
              op.errors[status] = {schema, media};
            } else if (status == 0 && schema != nullptr && (code == "default" || lower(code) == "4xx" || lower(code) == "5xx")) {
              op.other_errors = {schema, media};
            }
          }
        }
        std::sort(op.success.begin(), op.success.end());
        ops.push_back(std::move(op));
      }
    }
    return ops;
  }

  // ---- matching the operations neograde knows ------------------------------------------------

  std::optional<match> classify(const doc_op& op) const {
    struct seg {
      std::string text, n;
      bool templ;
    };
    std::vector<seg> segs;
    std::size_t start = 1;
    const auto& p = op.path;
    while (start <= p.size()) {
      const auto end = p.find('/', start);
      auto s = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (!s.empty()) segs.push_back({s, norm(s), s.front() == '{' && s.back() == '}'});
      if (end == std::string::npos) break;
      start = end + 1;
    }
    // The resource: the last literal segment naming instances or SSH keys.
    int r = -1;
    bool keys = false;
    for (int i = static_cast<int>(segs.size()) - 1; i >= 0; --i) {
      if (segs[i].templ) continue;
      if (ssh_key_ish(segs[i].n)) {
        r = i;
        keys = true;
        break;
      }
      if (instance_ish(segs[i].n)) {
        r = i;
        break;
      }
    }
    const std::string where = op.label();
    // A template before the last segment scopes the resource (Hot Aisle's /teams/{team}/...: a spec
    // variable); one at the end names an item of it.
    const bool templated = !segs.empty() && segs.back().templ;
    // A catalogue: a GET of a collection on a segment that names types or offers, scored
    // higher on an instance resource (/instances/types) than elsewhere (/gpu-offers), and never
    // another resource's (/volumes/types, /clusters/types).
    if (op.method == "GET" && !templated && !keys) {
      const bool other = std::any_of(segs.begin(), segs.end(), [](const seg& s) {
        return contains_any(
            s.n, {"cluster", "volume", "template", "image", "storage", "disk", "network", "snapshot", "bucket", "kubernetes", "firewall"});
      });
      for (const auto& s : segs)
        if (!other && has_part(s.n, offer_words))
          return match{"list_offers", r >= 0 ? 10 : 6, "GET on a catalogue (\"" + s.text + "\"): " + where, ""};
    }
    if (r < 0) return std::nullopt;
    std::string id_param;
    std::vector<std::string> tail;
    std::size_t i = static_cast<std::size_t>(r) + 1;
    if (i < segs.size() && segs[i].templ) {
      id_param = segs[i].text.substr(1, segs[i].text.size() - 2);
      ++i;
    }
    for (; i < segs.size(); ++i) {
      if (segs[i].templ) return std::nullopt;
      tail.push_back(segs[i].n);
    }
    if (tail.size() > 1) return std::nullopt;
    const std::string res = segs[r].n;
    const std::string w = tail.empty() ? "" : tail.front();
    const auto& m = op.method;
    const bool has_id = !id_param.empty();
    auto made = [&](std::string name, std::string why) { return match{std::move(name), 10, std::move(why) + ": " + where, id_param}; };

    if (keys) {
      if (!has_id && w.empty() && m == "GET") return made("ssh_keys_list", "GET on the SSH key collection");
      if (!has_id && ((w.empty() && m == "POST") || (in(w, create_words) && (m == "POST" || m == "PUT"))))
        return made("ssh_keys_add", "POST creating an SSH key");
      if (has_id && ((w.empty() && m == "DELETE") || (in(w, delete_words) && (m == "POST" || m == "DELETE"))))
        return made("ssh_keys_delete", "deleting an SSH key by id");
      return std::nullopt;
    }
    if (!has_id) {
      if (m == "GET" && w.empty()) return made("list", "GET on the instance collection");
      if ((m == "POST" || m == "PUT") && (w.empty() || in(w, create_words))) return made("launch", "POST creating an instance");
      if (m == "POST" && op.request != nullptr) {
        if (in(w, delete_words)) return made("terminate", "POST terminating the instances its body names");
        if (in(w, restart_words)) return made("restart", "POST restarting the instances its body names");
      }
      return std::nullopt;
    }
    if (m == "GET" && (w.empty() || in(w, get_words))) return made("get", "GET of one instance by id");
    if ((m == "DELETE" && (w.empty() || in(w, delete_words))) || (m == "POST" && in(w, delete_words)))
      return made("terminate", "deleting one instance by id");
    if (m == "POST" || m == "PUT") {
      if (in(w, restart_words)) return made("restart", "restarting one instance by id");
      if (in(w, stop_words)) return made("stop", "stopping one instance by id");
      if (in(w, start_words)) return made("start", "starting one instance by id");
    }
    return std::nullopt;
  }

  // operationId and summary words that agree with the match raise its score (a tie-breaker
  // between two paths that both fit).
  void support(match& mt, const doc_op& op) const {
    auto ws = words_of(op.operation_id);
    for (auto& w : words_of(op.summary)) ws.push_back(w);
    static const std::map<std::string, std::vector<const char*>> agree{
        {"list_offers", offer_words},   {"launch", create_words},         {"get", get_words},
        {"list", {"list", "all"}},      {"terminate", delete_words},      {"restart", restart_words},
        {"stop", stop_words},           {"start", start_words},           {"ssh_keys_list", {"list", "all"}},
        {"ssh_keys_add", create_words}, {"ssh_keys_delete", delete_words}};
    for (const auto& w : ws)
      if (in(w, agree.at(mt.op))) {
        mt.score += 2;
        break;
      }
    // The instance catalogue before another resource's (an instance type before a volume type).
    for (const auto& w : ws)
      if (in(w, {"instance", "instances", "server", "servers", "vm", "vms", "pod", "pods", "machine", "machines"})) {
        mt.score += 1;
        break;
      }
  }

  // ---- schema shapes -----------------------------------------------------------------------

  // Where the collection is in a list answer: the array itself, an array member, or an object
  // keyed by name (Lambda's data), one level down at most ("data").
  struct collection {
    std::string pointer;
    const json* item = nullptr;
    bool object_values = false;
  };
  std::optional<collection> find_collection(const json& schema, int depth = 0) const {
    if (depth > 2) return std::nullopt;
    const json& d = deref(schema);
    if (type_of(d) == "array") {
      const json* it = items_of(d);
      return collection{"", it};
    }
    const auto ps = props(d);
    for (const auto& [k, v] : ps)
      if (type_of(*v) == "array") return collection{"/" + pointer_escape(k), items_of(*v)};
    for (const auto& [k, v] : ps) {
      const json& pv = deref(*v);
      if (pv.is_object() && pv.contains("additionalProperties") && pv["additionalProperties"].is_object() && !pv.contains("properties"))
        return collection{"/" + pointer_escape(k), &pv["additionalProperties"], true};
    }
    for (const auto& [k, v] : ps)
      if (type_of(*v) == "object")
        if (auto c = find_collection(*v, depth + 1)) {
          c->pointer = "/" + pointer_escape(k) + c->pointer;
          return c;
        }
    return std::nullopt;
  }

  // A member whose normalised name is one of `names` (in that order of preference), in the
  // object or up to `levels` objects below it; with `scalar`, only a string, number or boolean.
  std::optional<std::string> field_in(const json& schema, std::initializer_list<const char*> names, int levels = 1, bool scalar = false,
                                      const std::string& prefix = "") const {
    if (levels < 0) return std::nullopt;
    const auto ps = props(schema);
    for (const char* want : names)
      for (const auto& [k, v] : ps) {
        if (norm(k) != want) continue;
        const auto t = type_of(*v);
        if (scalar && (t == "object" || t == "array")) continue;
        return prefix + "/" + pointer_escape(k);
      }
    for (const auto& [k, v] : ps)
      if (type_of(*v) == "object")
        if (auto f = field_in(*v, names, levels - 1, scalar, prefix + "/" + pointer_escape(k))) return f;
    return std::nullopt;
  }

  const json* schema_at(const json& schema, const std::string& pointer) const {
    const json* s = &schema;
    std::size_t i = 1;
    while (!pointer.empty() && i <= pointer.size()) {
      const auto end = pointer.find('/', i);
      auto key = pointer.substr(i, end == std::string::npos ? std::string::npos : end - i);
      for (std::size_t t = 0; (t = key.find('~', t)) != std::string::npos; ++t) key.replace(t, 2, key.compare(t, 2, "~1") == 0 ? "/" : "~");
      const auto ps = props(*s);
      const auto it = ps.find(key);
      if (it == ps.end()) return nullptr;
      s = it->second;
      if (end == std::string::npos) break;
      i = end + 1;
    }
    return s;
  }

  // The instance object of a get answer: the answer itself when it carries a status, else the
  // object member that does.
  std::optional<std::string> item_pointer(const json& schema) const {
    static const auto status_names = {"status", "state", "actualstatus", "instancestatus", "phase"};
    const auto ps = props(schema);
    for (const auto& [k, v] : ps)
      if (any_of_words(norm(k), status_names)) return std::string();
    for (const auto& [k, v] : ps)
      if (type_of(*v) == "object")
        for (const auto& [k2, v2] : props(*v))
          if (any_of_words(norm(k2), status_names)) return "/" + pointer_escape(k);
    return std::nullopt;
  }

  // ---- assembling ---------------------------------------------------------------------------

  std::string source_for(const doc_op& op, const match& mt) const {
    return "draft: guessed from " + op.label() + " in " + cite + " (" + mt.why.substr(0, mt.why.find(": ")) + "; confirm)";
  }

  boost::system::result<spec_draft, std::string> run();
};

using draft_result = boost::system::result<spec_draft, std::string>;
draft_result refuse(std::string why) { return draft_result(boost::system::in_place_error, std::move(why)); }

// A price member's scale: cents when the document says so.
bool in_cents(const std::string& name, const std::string& description) {
  return lower(name).find("cent") != std::string::npos || lower(description).find("in cents") != std::string::npos ||
         lower(description).find("us cents") != std::string::npos;
}

boost::system::result<spec_draft, std::string> drafter::run() {
  if (!doc.is_object()) return refuse("not an OpenAPI document: the top level is not an object");
  const auto ver = doc.value("openapi", json()).is_string() ? doc["openapi"].get<std::string>() : std::string();
  swagger = doc.contains("swagger") && doc["swagger"].is_string() && doc["swagger"] == "2.0";
  if (!ver.starts_with("3.") && !swagger)
    return refuse(doc.contains("openapi") || doc.contains("swagger")
                      ? "not an OpenAPI 3 or Swagger 2 document: it declares version " +
                            doc.value("openapi", doc.value("swagger", json())).dump()
                      : "not an OpenAPI document: it has neither an `openapi` member (3.x) nor `swagger: \"2.0\"`");
  if (!doc.contains("paths") || !doc["paths"].is_object() || doc["paths"].empty())
    return refuse("the OpenAPI document has no paths: there is nothing to draft operations from");
  cite = opt.cite.empty() ? "the OpenAPI document" : opt.cite;
  static const json no_info = json::object();
  const json& inf = doc.contains("info") && doc["info"].is_object() ? doc["info"] : no_info;

  ojson spec = ojson::object();
  spec["$schema"] = "../schema/provider-spec.schema.json";
  spec["spec_version"] = "0.1.0";

  // ---- provider ----
  const std::string title = str(inf, "title");
  std::string display = title;
  for (const char* suffix : {" REST API", " Public API", " Cloud API", " API"})
    if (display.size() > std::string_view(suffix).size() && display.ends_with(suffix)) {
      display.resize(display.size() - std::string_view(suffix).size());
      break;
    }
  std::string id = opt.id;
  if (id.empty()) {
    for (char c : display) {
      const auto u = static_cast<unsigned char>(c);
      if (std::isalnum(u)) id += static_cast<char>(std::tolower(u));
      else if (!id.empty() && id.back() != '-')
        id += '-';
    }
    while (!id.empty() && id.back() == '-') id.pop_back();
    if (id.empty()) {
      warn("/info/title", "no provider id: the document has no title to take one from; pass --id");
    } else {
      guess("/provider/id", "\"" + id + "\" from info.title \"" + title + "\" (pass --id to choose)");
    }
  }
  ojson provider = ojson::object();
  provider["id"] = id;
  provider["display_name"] = display.empty() ? id : display;
  if (!display.empty()) guess("/provider/display_name", "\"" + display + "\" from info.title");
  if (!opt.kind.empty()) {
    provider["kind"] = opt.kind;
  } else {
    warn("/provider/kind",
         "no provider kind (neocloud, marketplace, aggregator, depin, hyperscaler): an OpenAPI document does not say; pass --kind");
  }
  std::string docs_url;
  if (doc.contains("externalDocs") && doc["externalDocs"].is_object()) docs_url = str(doc["externalDocs"], "url");
  if (docs_url.empty() && inf.contains("contact") && inf["contact"].is_object()) docs_url = str(inf["contact"], "url");
  if (!docs_url.empty()) {
    provider["docs_url"] = docs_url;
    guess("/provider/docs_url", docs_url + " from the document's " + (doc.contains("externalDocs") ? "externalDocs" : "info.contact.url"));
  }
  provider["api_version"] = (str(inf, "version", "?")) + " (" + (swagger ? "Swagger 2.0" : "OpenAPI " + ver) + " document: " + cite + ")";
  ojson notes = ojson::array();
  notes.push_back("draft: drafted by `neograde spec draft` from " + cite +
                  "; every source and note that begins with \"draft:\" is a guess to confirm against the provider's documentation, "
                  "then to replace with its source");

  // ---- base URL ----
  std::string base;
  if (swagger) {
    const auto host = str(doc, "host");
    std::string scheme = "https";
    if (doc.contains("schemes") && doc["schemes"].is_array() && !doc["schemes"].empty() && doc["schemes"][0].is_string()) {
      scheme = doc["schemes"][0].get<std::string>();
      for (const auto& s : doc["schemes"])
        if (s == "https") scheme = "https";
    }
    if (!host.empty()) base = scheme + "://" + host + str(doc, "basePath");
    if (!base.empty()) guess("/base_url", base + " from host, basePath and schemes");
    else
      warn("/host", "no base URL: the document names no host");
  } else if (doc.contains("servers") && doc["servers"].is_array() && !doc["servers"].empty() && doc["servers"][0].is_object()) {
    const auto& server = doc["servers"][0];
    base = str(server, "url");
    if (server.contains("variables") && server["variables"].is_object())
      for (const auto& [name, v] : server["variables"].items()) {
        const auto token = "{" + name + "}";
        if (const auto at = base.find(token); at != std::string::npos && v.is_object() && v.contains("default") && v["default"].is_string())
          base.replace(at, token.size(), v["default"].get<std::string>());
      }
    if (!base.starts_with("http://") && !base.starts_with("https://")) {
      warn("/servers/0/url", "no base URL: the first server's url \"" + base + "\" is not absolute (http:// or https://)");
      base.clear();
    } else {
      guess("/base_url", base + " from servers[0]" +
                             (doc["servers"].size() > 1 ? " (the document lists " + std::to_string(doc["servers"].size()) + ")" : ""));
    }
  } else {
    warn("/servers", "no base URL: the document lists no servers");
  }
  while (base.ends_with("/")) base.pop_back();

  // ---- auth ----
  ojson schemes = ojson::array();
  const json* defs = swagger ? find_pointer(doc, "/securityDefinitions") : find_pointer(doc, "/components/securitySchemes");
  std::vector<std::string> order;
  if (doc.contains("security") && doc["security"].is_array())
    for (const auto& req : doc["security"])
      if (req.is_object())
        for (const auto& [name, _] : req.items()) order.push_back(name);
  if (defs != nullptr && defs->is_object()) {
    for (const auto& [name, _] : defs->items())
      if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
    for (const auto& name : order) {
      if (!defs->contains(name)) continue;
      const json& s = deref((*defs)[name]);
      const std::string where = std::string(swagger ? "/securityDefinitions/" : "/components/securitySchemes/") + pointer_escape(name);
      const auto type = str(s, "type");
      const auto scheme = lower(str(s, "scheme"));
      const auto in_ = str(s, "in");
      const auto pname = str(s, "name");
      const auto at = "/auth/schemes/" + std::to_string(schemes.size());
      if ((type == "http" && scheme == "bearer") || (type == "apiKey" && in_ == "header" && lower(pname) == "authorization" &&
                                                     lower(str(s, "description")).find("bearer") != std::string::npos)) {
        schemes.push_back({{"type", "bearer"}});
        guess(at, "bearer from security scheme " + name);
      } else if ((type == "http" && scheme == "basic") || type == "basic") {
        schemes.push_back({{"type", "basic_username"}});
        guess(at, "basic_username (the key as user name, an empty password) from security scheme " + name +
                      ": the document does not say what the user name and password are");
      } else if (type == "apiKey" && in_ == "header" && !pname.empty()) {
        schemes.push_back({{"type", "header"}, {"header", pname}, {"prefix", ""}});
        guess(at, "the key in header " + pname + ", no prefix, from security scheme " + name);
      } else if (type == "apiKey" && in_ == "query" && !pname.empty()) {
        schemes.push_back({{"type", "query"}, {"param", pname}});
        guess(at, "the key in query parameter " + pname + " from security scheme " + name);
      } else if (type == "oauth2") {
        std::string token_url;
        if (swagger && str(s, "flow") == "application") token_url = str(s, "tokenUrl");
        if (!swagger && s.contains("flows") && s["flows"].is_object() && s["flows"].contains("clientCredentials"))
          token_url = str(s["flows"]["clientCredentials"], "tokenUrl");
        std::string path = token_url;
        if (!base.empty() && token_url.starts_with(base)) path = token_url.substr(base.size());
        if (path.starts_with("/")) {
          schemes.push_back({{"type", "oauth2_client_credentials"}, {"token_path", path}});
          guess(at, "OAuth2 client credentials at " + path + " from security scheme " + name);
        } else {
          warn(where, "security scheme " + name + " (oauth2) left out: no client-credentials token URL under the base URL");
        }
      } else {
        warn(where, "security scheme " + name + " (" + type + (in_.empty() ? "" : " in " + in_) +
                        ") left out: no auth scheme of the spec format matches it");
      }
    }
  }
  std::string env;
  for (char c : id) env += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  env += "_API_KEY";
  if (schemes.empty()) warn("/components/securitySchemes", "no auth scheme: the document declares none the spec format has");

  // ---- operations ----
  const auto ops = operations();
  std::map<std::string, std::pair<match, const doc_op*>> chosen;
  std::vector<std::pair<match, const doc_op*>> matched;
  for (const auto& op : ops) {
    auto mt = classify(op);
    if (!mt) {
      warn(op.pointer, "left out: " + op.label() + " is no operation neograde knows (by its path, method, operationId and summary)");
      continue;
    }
    support(*mt, op);
    matched.emplace_back(*mt, &op);
  }
  for (const auto& [mt, op] : matched) {
    auto [it, fresh] = chosen.try_emplace(mt.op, mt, op);
    if (fresh) continue;
    auto& [best, best_op] = it->second;
    const bool better = mt.score > best.score || (mt.score == best.score && op->path.size() < best_op->path.size());
    const auto* loser = better ? best_op : op;
    if (better) it->second = {mt, op};
    warn(loser->pointer, "left out: " + loser->label() + " also reads as " + mt.op + "; " + it->second.second->label() + " was chosen");
  }

  // The catalogue's row, the instance and the key, as the document shapes them.
  const json* offer_row = nullptr;
  ojson operations = ojson::object();
  ojson offer_fields = ojson::object();
  ojson instance_fields = ojson::object();
  ojson ssh_key_fields = ojson::object();
  ojson variables = ojson::object();
  std::set<std::string> launch_params;
  const bool aggregator = opt.kind == "aggregator" || opt.kind == "marketplace" || opt.kind == "depin";

  auto op_at = [](const std::string& name) { return "/operations/" + name; };

  // Path templates other than the instance's id become spec variables.
  auto spec_path = [&](const doc_op& op, const match& mt) {
    std::string out = op.path;
    if (!mt.id_param.empty()) {
      const auto t = "{" + mt.id_param + "}";
      if (const auto at = out.find(t); at != std::string::npos) out.replace(at, t.size(), "{id}");
    }
    for (std::size_t a = out.find('{'); a != std::string::npos; a = out.find('{', a + 1)) {
      const auto b = out.find('}', a);
      if (b == std::string::npos) break;
      const auto name = out.substr(a + 1, b - a - 1);
      if (name == "id" || variables.contains(name)) continue;
      for (const auto& p : op.parameters)
        if (p.is_object() && str(p, "in") == "path" && str(p, "name") == name) {
          ojson v = ojson::object();
          std::string upper;
          for (char c : name)
            upper += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : '_';
          v["env"] = env.substr(0, env.size() - std::string("API_KEY").size()) + upper;
          v["required"] = true;
          if (p.contains("description") && p["description"].is_string()) v["description"] = p["description"];
          auto ex = p.contains("example") ? p["example"] : example_of(p.value("schema", json::object()));
          if (ex.is_string() || ex.is_number()) v["emulator"] = ex.is_string() ? ex.get<std::string>() : ex.dump();
          v["source"] = "draft: path parameter " + name + " of " + op.label() + " in " + cite + " (confirm)";
          variables[name] = v;
          guess("/variables/" + name, "a variable the user supplies, from the path parameter {" + name + "} of " + op.label());
          if (!v.contains("emulator")) warn("/variables/" + name, "no emulator value for {" + name + "}: the document gives no example");
        }
    }
    return out;
  };

  auto base_op = [&](const std::string& name) -> ojson {
    const auto& [mt, op] = chosen.at(name);
    ojson o = ojson::object();
    o["method"] = op->method;
    o["path"] = spec_path(*op, mt);
    if (!op->success.empty() && op->success != std::vector<int>{200}) {
      o["success_status"] = op->success;
      guess(op_at(name) + "/success_status", "the 2xx statuses the document lists for " + op->label());
    }
    if (op->success.empty()) warn(op->pointer, op->label() + " lists no 2xx response: success_status left at 200, confirm it");
    if (op->response == nullptr && name != "terminate" && name != "restart" && name != "stop" && name != "start" &&
        name != "ssh_keys_delete")
      warn(op->pointer + "/responses", op->label() + " documents no JSON answer: no response_schema");
    guess(op_at(name), name + " from " + op->label() + ": " + mt.why.substr(0, mt.why.find(": ")));
    return o;
  };
  auto add_response = [&](ojson& o, const std::string& name) {
    const auto* op = chosen.at(name).second;
    if (op->response != nullptr) o["response_schema"] = ordered(embed(*op->response, op_at(name) + "/response_schema"));
  };
  auto add_request = [&](ojson& o, const std::string& name) {
    const auto* op = chosen.at(name).second;
    if (op->request != nullptr) o["request_schema"] = ordered(embed(*op->request, op_at(name) + "/request_schema"));
  };
  auto finish = [&](ojson& o, const std::string& name) {
    const auto& [mt, op] = chosen.at(name);
    o["source"] = source_for(*op, mt);
    operations[name] = std::move(o);
  };

  // Offers first: the launch names the catalogue's members.
  if (chosen.contains("list_offers")) {
    auto o = base_op("list_offers");
    const auto* op = chosen.at("list_offers").second;
    if (op->response != nullptr) {
      if (auto c = find_collection(*op->response)) {
        o["items"] = c->pointer;
        if (c->object_values) o["items_are_object_values"] = true;
        guess(op_at("list_offers") + "/items",
              "the catalogue's rows at \"" + c->pointer + "\"" + (c->object_values ? ", an object keyed by name" : ""));
        offer_row = c->item;
      } else {
        warn(op_at("list_offers") + "/items", "no collection found in the answer of " + op->label());
      }
    }
    add_response(o, "list_offers");
    finish(o, "list_offers");
  } else {
    warn("/operations/list_offers", "no catalogue read found (a GET on instance types, offers or availability): list_offers is required");
  }

  // The launch's request members, by name.
  std::map<std::string, const json*> launch_props;
  std::set<std::string> launch_required;
  if (chosen.contains("launch") && chosen.at("launch").second->request != nullptr)
    launch_props = props(*chosen.at("launch").second->request, &launch_required);

  std::map<std::string, const json*> row_props;
  if (offer_row != nullptr) row_props = props(*offer_row);
  auto field_guess = [&](ojson& fields, const std::string& section, const std::string& name, const ojson& value, const std::string& why) {
    fields[name] = value;
    guess("/" + section + "/" + name, why);
  };

  // ---- offer fields ----
  std::string offer_type_member;
  if (offer_row != nullptr) {
    // The instance type: a type-like member the launch request names too (required first), else
    // one named as an instance type.
    std::vector<std::string> typeish;
    for (const auto& [k, v] : row_props) {
      const auto n = norm(k);
      if ((n.ends_with("instancetype") || n.ends_with("type") || n == "offerid" || n == "sku" || n == "name" || n == "id") &&
          type_of(*v) == "string")
        typeish.push_back(k);
    }
    std::stable_sort(typeish.begin(), typeish.end(), [&](const std::string& a, const std::string& b) {
      auto rank = [&](const std::string& k) {
        return launch_required.contains(k) ? 0 : launch_props.contains(k) ? 1 : norm(k).ends_with("instancetype") ? 2 : 3;
      };
      return rank(a) < rank(b);
    });
    if (!typeish.empty() && (launch_props.contains(typeish.front()) || norm(typeish.front()).ends_with("instancetype"))) {
      offer_type_member = typeish.front();
      field_guess(
          offer_fields, "offer_fields", "instance_type", "/" + pointer_escape(offer_type_member),
          "the row's " + offer_type_member + (launch_props.contains(offer_type_member) ? ", which the launch request also names" : ""));
    } else if (const auto it = row_props.find("instance_type"); it != row_props.end() && type_of(*it->second) == "object") {
      if (props(*it->second).contains("name"))
        field_guess(offer_fields, "offer_fields", "instance_type", "/instance_type/name", "the row's instance_type.name");
    }
    if (!offer_fields.contains("instance_type"))
      warn("/offer_fields/instance_type", "no member of the catalogue's rows reads as the instance type the launch sends");
    if (auto p = field_in(*offer_row, {"hourlyprice", "priceperhour", "pricehourly", "priceperhourusd", "pricecentsperhour", "costperhour",
                                       "hourlycost", "pricehr", "priceperhr", "price"})) {
      const json* s = schema_at(*offer_row, *p);
      const auto member = p->substr(p->find_last_of('/') + 1);
      ojson f = ojson::object();
      f["pointer"] = *p;
      std::string why = "the row's " + member;
      if (s != nullptr && in_cents(member, text_of(*s, "description"))) {
        f["scale"] = 0.01;
        why += ", in cents by its name or description (scale 0.01)";
      }
      if (s != nullptr && type_of(*s) == "string") {
        f["type"] = "string";
        why += ", a decimal string";
      }
      field_guess(offer_fields, "offer_fields", "price_per_hour_usd", f.size() == 1 ? ojson(*p) : f,
                  why + "; whether it is the whole instance's price, confirm");
    } else {
      warn("/offer_fields/price_per_hour_usd", "no price member in the catalogue's rows");
    }
    // Regions: a member, or an array of the regions (with or without capacity).
    if (auto p = field_in(*offer_row, {"region", "regionname", "location", "locationcode", "datacenter", "datacenterid", "zone"}, 1)) {
      field_guess(offer_fields, "offer_fields", "region", *p, "the row's " + p->substr(1));
    } else {
      for (const auto& [k, v] : row_props) {
        const auto n = norm(k);
        if (type_of(*v) != "array" || !contains_any(n, {"region", "availab", "location", "datacenter", "zone"})) continue;
        const json* it = items_of(*v);
        ojson f = ojson::object();
        f["pointer"] = "/" + pointer_escape(k);
        std::string each;
        if (it != nullptr && type_of(*it) == "string") each = "";
        else if (it != nullptr) {
          auto r = field_in(*it, {"region", "regionname", "name", "location", "code", "id"}, 1);
          if (!r) continue;
          each = *r;
          if (props(*it).contains("available"))
            warn("/offer_fields/regions_available", "the entries of " + k +
                                                        " carry their own `available`: regions_available reads every entry as capacity; "
                                                        "offer_fields.rows \"/" +
                                                        k + "\" with region and available read per entry may fit better");
        }
        f["each"] = each;
        field_guess(offer_fields, "offer_fields", "regions_available", f, "the row's " + k + " array, one row per region listed");
        break;
      }
    }
    if (!offer_fields.contains("region") && !offer_fields.contains("regions_available"))
      warn("/offer_fields", "no region in the catalogue's rows: launches go to the `region` variable, which the document does not give");
    if (auto p = field_in(*offer_row, {"available", "isavailable", "instock", "quantity", "availablecount"}, 0)) {
      const json* s = schema_at(*offer_row, *p);
      if (s != nullptr && (type_of(*s) == "boolean" || type_of(*s) == "integer"))
        field_guess(offer_fields, "offer_fields", "available", *p, "the row's " + p->substr(1));
    }
    if (auto p = field_in(*offer_row, {"numgpus", "gpucount", "gpus", "gpu"}))
      field_guess(offer_fields, "offer_fields", "gpu", *p, "the row's " + p->substr(1) + " (a GPU offer when positive or true)");
    if (auto p = field_in(*offer_row, {"description", "gpudescription", "displayname"}, 0))
      field_guess(offer_fields, "offer_fields", "description", *p, "the row's " + p->substr(1));
    if (aggregator)
      if (auto p = field_in(*offer_row, {"underlyingprovider", "provider", "cloud", "providertype", "providername", "host"}, 0))
        field_guess(offer_fields, "offer_fields", "underlying_provider", *p,
                    "the row's " + p->substr(1) + ": whose capacity it is (a " + opt.kind + " names its suppliers)");
  }

  // ---- launch ----
  if (chosen.contains("launch")) {
    auto o = base_op("launch");
    const auto* op = chosen.at("launch").second;
    ojson body = ojson::object();
    const auto up = offer_fields.contains("underlying_provider") && offer_fields["underlying_provider"].is_string()
                        ? offer_fields["underlying_provider"].get<std::string>().substr(1)
                        : std::string();
    const auto rg =
        offer_fields.contains("region") && offer_fields["region"].is_string() ? offer_fields["region"].get<std::string>().substr(1) : "";
    for (const auto& [k, v] : launch_props) {
      const auto n = norm(k);
      const auto at = op_at("launch") + "/body/" + pointer_escape(k);
      const auto t = type_of(*v);
      const bool required = launch_required.contains(k);
      if (!offer_type_member.empty() && k == offer_type_member) {
        body[k] = "{{instance_type}}";
        guess(at, "the offer's instance type (the row's member of the same name)");
      } else if (k == up && !up.empty()) {
        body[k] = "{{underlying_provider}}";
        guess(at, "the offer's underlying provider (the row's member of the same name)");
      } else if (k == rg || any_of_words(n, {"region", "regionname", "location", "locationcode", "datacenter", "datacenterid", "zone"})) {
        body[k] = "{{region}}";
        guess(at, "the offer's region");
      } else if (any_of_words(n, {"name", "instancename", "label", "hostname", "displayname"}) && t == "string") {
        body[k] = "{{name}}";
        guess(at, "the run's instance name");
      } else if (any_of_words(n, {"sshkeynames", "sshkeys"}) && t == "array") {
        body[k] = ojson::array({"{{ssh_key_name}}"});
        guess(at, "the run's SSH key, by name");
      } else if (any_of_words(n, {"sshkey", "sshkeyname"}) && t == "string") {
        body[k] = "{{ssh_key_name}}";
        guess(at, "the run's SSH key, by name");
      } else if (any_of_words(n, {"publickey", "sshpublickey", "pubkey", "authorizedkey"}) && t == "string") {
        body[k] = "{{public_key}}";
        guess(at, "the run's SSH public key, inline");
      } else if (any_of_words(n, {"sshkeyid", "sshkeyids"})) {
        warn(at, "left out: " + k +
                     " takes a registered key's id, which the spec format cannot send ({{ssh_key_id}} is no launch variable); "
                     "the run's key reaches the instance only where the account's default key or another member carries it");
      } else if (required && row_props.contains(k)) {
        body[k] = "{{" + k + "}}";
        offer_fields[k] = "/" + pointer_escape(k);
        launch_params.insert(k);
        guess(at, "a launch parameter: the offer row's " + k + " sent back");
        guess("/offer_fields/" + pointer_escape(k), "the row's " + k + ", a launch parameter the launch request requires");
      } else if (required) {
        const json& d = deref(*v);
        if (d.is_object() && d.contains("default")) {
          body[k] = ordered(d["default"]);
          guess(at, "the document's default for " + k);
        } else if (d.is_object() && d.contains("enum") && d["enum"].is_array() && d["enum"].size() == 1) {
          body[k] = ordered(d["enum"][0]);
          guess(at, "the only value the document allows for " + k);
        } else if (auto e = example_of(*v); !e.is_null()) {
          body[k] = ordered(e);
          guess(at, "the document's EXAMPLE for the required " + k + ": an example, not a choice; confirm what a run should send");
        } else {
          warn(at, "left out: " + k + " is required, and no rule or example of the document gives a value");
        }
      }
    }
    if (!body.empty()) o["body"] = body;
    add_request(o, "launch");
    if (op->response != nullptr) {
      const json& r = *op->response;
      if (auto ip = item_pointer(r); ip && ip->empty()) {
        o["item"] = "";
      }
      if (auto p = field_in(r, {"id", "instanceid", "uuid", "podid"})) {
        o["fields"] = {{"instance_id", *p}};
        guess(op_at("launch") + "/fields/instance_id", "the answer's " + p->substr(1));
      } else if (auto q = field_in(r, {"instanceids", "ids"})) {
        o["fields"] = {{"instance_id", *q + "/0"}};
        guess(op_at("launch") + "/fields/instance_id", "the first of the answer's " + q->substr(1));
      } else {
        warn(op_at("launch") + "/fields/instance_id", "no instance id found in the launch's answer");
      }
    }
    add_response(o, "launch");
    finish(o, "launch");
  } else {
    warn("/operations/launch", "no create operation found: launch is required");
  }

  // ---- get, list and the instance's fields ----
  const json* instance_schema = nullptr;
  if (chosen.contains("get")) {
    auto o = base_op("get");
    const auto* op = chosen.at("get").second;
    if (op->response != nullptr) {
      if (auto ip = item_pointer(*op->response)) {
        o["item"] = *ip;
        instance_schema = ip->empty() ? op->response : schema_at(*op->response, *ip);
        guess(op_at("get") + "/item", "the instance at \"" + *ip + "\" (the object with a status)");
      } else {
        warn(op_at("get") + "/item", "no object with a status in the answer of " + op->label());
      }
    }
    add_response(o, "get");
    finish(o, "get");
  }
  if (chosen.contains("list")) {
    auto o = base_op("list");
    const auto* op = chosen.at("list").second;
    if (op->response != nullptr) {
      if (auto c = find_collection(*op->response)) {
        o["items"] = c->pointer;
        if (c->object_values) o["items_are_object_values"] = true;
        guess(op_at("list") + "/items", "the instances at \"" + c->pointer + "\"");
        if (instance_schema == nullptr) instance_schema = c->item;
      } else {
        warn(op_at("list") + "/items", "no collection found in the answer of " + op->label());
      }
    }
    add_response(o, "list");
    finish(o, "list");
  } else {
    warn("/operations/list", "no instance list found: list is required");
  }
  for (const char* name : {"terminate", "restart", "stop", "start"}) {
    if (!chosen.contains(name)) {
      if (std::string(name) == "terminate") warn("/operations/terminate", "no terminate found: terminate is required");
      continue;
    }
    auto o = base_op(name);
    const auto* op = chosen.at(name).second;
    if (op->request != nullptr && chosen.at(name).first.id_param.empty()) {
      // The instances named in the body (Lambda's instance_ids).
      std::set<std::string> req;
      for (const auto& [k, v] : props(*op->request, &req)) {
        const auto n = norm(k);
        if (!n.ends_with("ids") && !n.ends_with("id")) continue;
        o["body"] = {{k, type_of(*v) == "array" ? ojson::array({"{{id}}"}) : ojson("{{id}}")}};
        guess(op_at(name) + "/body/" + pointer_escape(k), "the instance's id in the body's " + k);
        break;
      }
      if (!o.contains("body")) warn(op_at(name) + "/body", "no member of the body of " + op->label() + " reads as the instance's id");
      add_request(o, name);
    }
    finish(o, name);
  }
  if (chosen.contains("stop") || chosen.contains("start"))
    warn("/operations/stop", "stop and start need a status word the states map to stopped; confirm the states");

  if (instance_schema != nullptr) {
    auto pick = [&](const char* field, std::initializer_list<const char*> names, int depth) {
      if (auto p = field_in(*instance_schema, names, depth, true))
        field_guess(instance_fields, "instance_fields", field, *p, "the instance's " + p->substr(1));
    };
    pick("id", {"id", "instanceid", "uuid", "podid"}, 0);
    pick("status", {"status", "state", "actualstatus", "instancestatus", "phase"}, 0);
    pick("name", {"name", "instancename", "label", "hostname", "displayname"}, 0);
    pick("ip", {"ip", "ipaddress", "publicip", "publicipaddress", "ipv4", "mainip", "ipv4address"}, 1);
    pick("region", {"region", "regionname", "location", "locationcode", "datacenter", "datacenterid", "zone"}, 0);
    const auto ip = props(*instance_schema);
    if (!offer_type_member.empty() && ip.contains(offer_type_member))
      field_guess(instance_fields, "instance_fields", "instance_type", "/" + pointer_escape(offer_type_member),
                  "the instance's " + offer_type_member + ", as the offer names it");
    if (auto p = field_in(*instance_schema, {"hourlyprice", "priceperhour", "pricehourly", "priceperhourusd", "pricecentsperhour",
                                             "costperhour", "pricehr"})) {
      const json* s = schema_at(*instance_schema, *p);
      const auto member = p->substr(p->find_last_of('/') + 1);
      ojson f = ojson::object();
      f["pointer"] = *p;
      if (s != nullptr && in_cents(member, text_of(*s, "description"))) f["scale"] = 0.01;
      if (s != nullptr && type_of(*s) == "string") f["type"] = "string";
      field_guess(instance_fields, "instance_fields", "price_per_hour_usd", f.size() == 1 ? ojson(*p) : f,
                  "the instance's " + p->substr(1));
    }
    if (offer_fields.contains("underlying_provider")) {
      const auto m = offer_fields["underlying_provider"].get<std::string>().substr(1);
      if (ip.contains(m))
        field_guess(instance_fields, "instance_fields", "underlying_provider", "/" + m, "the instance's " + m + ", as the offer names it");
    }
    for (const auto& k : launch_params)
      if (ip.contains(k))
        field_guess(instance_fields, "instance_fields", k, "/" + pointer_escape(k), "the instance's " + k + ", the launch parameter");
    if (!instance_fields.contains("id") || !instance_fields.contains("status"))
      warn("/instance_fields", "the instance object has no id or no status member the rules know");
  } else {
    warn("/instance_fields", "no instance object found (no get or list answer): instance_fields left out");
  }

  // ---- states ----
  ojson states = ojson::object();
  std::string word_booting, word_running, word_terminating, word_terminated;
  if (instance_schema != nullptr && instance_fields.contains("status")) {
    const json* st = schema_at(*instance_schema, instance_fields["status"].get<std::string>());
    const json& d = st != nullptr ? deref(*st) : json();
    if (d.is_object() && d.contains("enum") && d["enum"].is_array()) {
      for (const auto& w : d["enum"]) {
        if (!w.is_string()) continue;
        const auto word = w.get<std::string>();
        const auto n = norm(word);
        std::string state;
        if (contains_any(n, {"error", "fail", "crash", "unhealthy"})) state = "failed";
        else if (contains_any(n,
                              {"deleting", "terminating", "stopping", "shuttingdown", "destroying", "removing", "releasing", "draining"}))
          state = "stopping";
        else if (contains_any(
                     n, {"deleted", "terminated", "destroyed", "removed", "released", "gone", "expired", "archived", "ended", "preempted"}))
          state = "terminated";
        else if (any_of_words(n, {"stopped", "off", "halted", "paused", "suspended", "exited", "shutoff", "poweredoff"}))
          state = "stopped";
        else if (any_of_words(n, {"active", "running", "ready", "online", "up", "started", "healthy"}))
          state = "running";
        else if (contains_any(n, {"creat", "pending", "provision", "boot", "start", "initiali", "queue", "build", "deploy", "schedul",
                                  "waiting", "staging", "restart", "reboot", "new"}))
          state = "pending";
        if (state.empty()) {
          warn("/states", "status word \"" + word + "\" left out: no rule places it; map it to a state by hand");
          continue;
        }
        states[word] = state;
        if (state == "pending" && word_booting.empty()) word_booting = word;
        if (state == "pending" && (n == "booting" || n == "provisioning" || n == "starting")) word_booting = word;
        if (state == "running" && word_running.empty()) word_running = word;
        if (state == "stopping" && word_terminating.empty()) word_terminating = word;
        if (state == "terminated" && (word_terminated.empty() || n == "terminated" || n == "deleted")) word_terminated = word;
      }
      guess("/states",
            "each word of the status enum placed by its meaning (creating/pending -> pending, active/running -> running, "
            "deleting -> stopping, deleted -> terminated, error -> failed)");
    } else {
      warn("/states", "the instance's status has no enum in the document: states left out; list the status words by hand");
    }
  }

  // ---- SSH keys ----
  const json* key_schema = nullptr;
  if (chosen.contains("ssh_keys_list")) {
    auto o = base_op("ssh_keys_list");
    const auto* op = chosen.at("ssh_keys_list").second;
    if (op->response != nullptr)
      if (auto c = find_collection(*op->response)) {
        o["items"] = c->pointer;
        key_schema = c->item;
        guess(op_at("ssh_keys_list") + "/items", "the keys at \"" + c->pointer + "\"");
      }
    add_response(o, "ssh_keys_list");
    finish(o, "ssh_keys_list");
  }
  if (chosen.contains("ssh_keys_add")) {
    auto o = base_op("ssh_keys_add");
    const auto* op = chosen.at("ssh_keys_add").second;
    ojson body = ojson::object();
    if (op->request != nullptr) {
      std::set<std::string> req;
      for (const auto& [k, v] : props(*op->request, &req)) {
        const auto n = norm(k);
        const auto at = op_at("ssh_keys_add") + "/body/" + pointer_escape(k);
        if (any_of_words(n, {"name", "keyname", "label", "title"})) {
          body[k] = "{{name}}";
          guess(at, "the run's key name");
        } else if (any_of_words(n, {"publickey", "key", "sshkey", "pubkey", "sshpublickey"})) {
          body[k] = "{{public_key}}";
          guess(at, "the run's public key");
        } else if (req.contains(k)) {
          warn(at, "left out: " + k + " is required, and no rule gives a value");
        }
      }
    }
    if (!body.empty()) o["body"] = body;
    add_request(o, "ssh_keys_add");
    o["item"] = "";
    add_response(o, "ssh_keys_add");
    finish(o, "ssh_keys_add");
  }
  if (chosen.contains("ssh_keys_delete")) {
    auto o = base_op("ssh_keys_delete");
    finish(o, "ssh_keys_delete");
  }
  if (key_schema != nullptr) {
    auto pick = [&](const char* field, std::initializer_list<const char*> names) {
      if (auto p = field_in(*key_schema, names, 0)) field_guess(ssh_key_fields, "ssh_key_fields", field, *p, "the key's " + p->substr(1));
    };
    pick("id", {"id", "keyid", "sshkeyid", "uuid"});
    pick("name", {"name", "keyname", "label", "title"});
    pick("public_key", {"publickey", "key", "sshkey", "pubkey", "sshpublickey"});
    pick("fingerprint", {"fingerprint"});
  }

  // ---- pagination ----
  for (const char* name : {"list", "list_offers"}) {
    if (!chosen.contains(name)) continue;
    std::map<std::string, std::string> q;
    for (const auto& p : chosen.at(name).second->parameters)
      if (p.is_object() && str(p, "in") == "query" && p.contains("name") && p["name"].is_string())
        q[norm(p["name"].get<std::string>())] = p["name"].get<std::string>();
    auto first = [&](std::initializer_list<const char*> ns) -> std::string {
      for (const char* n : ns)
        if (q.contains(n)) return q[n];
      return "";
    };
    const auto size = first({"limit", "perpage", "pagesize", "size", "count", "maxresults"});
    ojson pg = ojson::object();
    if (auto page = first({"page", "pagenumber", "pagenum"}); !page.empty())
      pg = {{"style", "page"}, {"page_param", page}, {"first_page", 1}};
    else if (auto off = first({"offset", "skip", "start"}); !off.empty())
      pg = {{"style", "offset"}, {"offset_param", off}};
    else if (auto tok = first({"cursor", "after", "pagetoken", "nexttoken", "token", "continuationtoken", "startingafter"}); !tok.empty()) {
      pg = {{"style", "token"}, {"token_param", tok}};
      const auto* op = chosen.at(name).second;
      if (op->response != nullptr)
        if (auto np = field_in(*op->response, {"nexttoken", "nextcursor", "cursor", "next", "nextpagetoken", "continuationtoken"}))
          pg["next_pointer"] = *np;
      if (!pg.contains("next_pointer")) {
        warn(op_at(name) + "/pagination", "a token parameter " + tok + " but no next token in the answer: pagination left out");
        continue;
      }
    }
    if (pg.empty()) continue;
    if (!size.empty()) pg["size_param"] = size;
    operations[name]["pagination"] = pg;
    guess(op_at(name) + "/pagination", "from the query parameters of " + chosen.at(name).second->label());
  }

  // ---- errors ----
  ojson errors_section;
  std::map<int, std::pair<const json*, std::string>> errs;
  for (const auto& [name, c] : chosen)
    for (const auto& [status, e] : c.second->errors) errs.try_emplace(status, e);
  // Where no error status is named, the envelope of the default (or 4XX/5XX) answers, under
  // status 0: every kind then gets HTTP's own status, as a guess.
  const bool from_default = errs.empty();
  if (from_default)
    for (const auto& [name, c] : chosen)
      if (c.second->other_errors) {
        errs.emplace(0, *c.second->other_errors);
        break;
      }
  if (errs.empty()) {
    warn("/errors",
         "the document declares no error response on the operations drafted: errors (content_type, envelope_schema, code_pointer, "
         "message_pointer, body_template, kinds) must be written by hand from the provider's documentation");
  } else {
    // The envelope most statuses share.
    std::map<std::string, int> count;
    for (const auto& [s, e] : errs) ++count[e.first->dump()];
    const auto most = std::max_element(count.begin(), count.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
    const json* env_schema = nullptr;
    std::string media;
    for (const auto& [s, e] : errs)
      if (e.first->dump() == most) {
        env_schema = e.first;
        media = e.second;
        break;
      }
    ojson errors = ojson::object();
    errors["content_type"] = media.empty() ? "application/json" : media;
    errors["envelope_schema"] = ordered(embed(*env_schema, "/errors/envelope_schema"));
    auto code = field_in(*env_schema, {"code", "errorcode", "type", "errortype", "reason", "status"}, 1, true);
    auto message = field_in(*env_schema, {"message", "detail", "details", "errormessage", "msg", "title", "description", "error"}, 1, true);
    if (message && code && *message == *code) code.reset();
    errors["code_pointer"] = code.value_or("");
    errors["message_pointer"] = message.value_or("");
    ojson tmpl = ojson::object();
    if (code) {
      json t = json::object();
      set_pointer(t, *code, "{{code}}");
      if (message) set_pointer(t, *message, "{{message}}");
      tmpl = ordered(t);
    } else if (message) {
      json t = json::object();
      set_pointer(t, *message, "{{message}}");
      tmpl = ordered(t);
    }
    errors["body_template"] = tmpl;
    guess("/errors", (from_default ? std::string("the envelope of the document's default answers (it names no error status)")
                                   : "the envelope of the documented " + std::to_string(errs.size()) + " error status(es)") +
                         "; code at " + code.value_or("(none)") + ", message at " + message.value_or("(none)"));
    ojson kinds = ojson::object();
    const std::vector<std::pair<const char*, std::vector<int>>> kind_status{
        {"unauthorized", {401}},       {"not_found", {404}},    {"invalid_parameters", {400, 422}},
        {"method_not_allowed", {405}}, {"rate_limited", {429}}, {"internal", {500, 503}},
        {"forbidden", {403}},          {"conflict", {409}}};
    const std::set<std::string> required_kinds{"unauthorized",       "not_found",    "invalid_parameters",
                                               "method_not_allowed", "rate_limited", "internal"};
    for (const auto& [kind, statuses] : kind_status) {
      int status = 0;
      for (int s : statuses)
        if (errs.contains(s)) {
          status = s;
          break;
        }
      ojson k = ojson::object();
      if (status != 0) {
        k["status"] = status;
        guess("/errors/kinds/" + std::string(kind), "the documented " + std::to_string(status) +
                                                        " response; its code and message are the "
                                                        "provider's to fill in (the emulator answers the kind's name)");
      } else if (required_kinds.contains(kind)) {
        k["status"] = statuses.front();
        guess("/errors/kinds/" + std::string(kind),
              "HTTP's own " + std::to_string(statuses.front()) +
                  ": the document declares no such response (an assumption of the emulator, confirm)");
      } else {
        continue;
      }
      if (!k.contains("message")) k["message"] = kind;
      kinds[kind] = k;
    }
    errors["kinds"] = kinds;
    errors_section = std::move(errors);
  }

  // ---- emulator ----
  ojson emulator = ojson::object();
  if (offer_row != nullptr && offer_fields.contains("instance_type") && !states.empty() && !word_running.empty() &&
      !word_terminated.empty()) {
    json row = example_of(*offer_row);
    if (walked > walk_budget) row = nullptr;  // cut short: no example, rather than part of one
    const auto type_ptr = offer_fields["instance_type"].get<std::string>();
    const auto* type_v = row.is_object() ? find_pointer(row, type_ptr) : nullptr;
    double price = -1;
    if (offer_fields.contains("price_per_hour_usd") && row.is_object()) {
      const auto& pf = offer_fields["price_per_hour_usd"];
      const auto pp = pf.is_string() ? pf.get<std::string>() : pf["pointer"].get<std::string>();
      const double scale = pf.is_object() ? pf.value("scale", 1.0) : 1.0;
      if (const auto* v = find_pointer(row, pp); v != nullptr) {
        if (v->is_number()) price = v->get<double>() * scale;
        else if (v->is_string())
          price = std::strtod(v->get<std::string>().c_str(), nullptr) * scale;
      }
    }
    // Regions from the examples of the region member or the regions array.
    std::vector<std::string> regions;
    if (offer_fields.contains("region") && row.is_object())
      if (const auto* r = find_pointer(row, offer_fields["region"].get<std::string>()); r != nullptr && r->is_string())
        regions.push_back(r->get<std::string>());
    if (offer_fields.contains("regions_available") && row.is_object()) {
      const auto& f = offer_fields["regions_available"];
      if (const auto* arr = find_pointer(row, f["pointer"].get<std::string>()); arr != nullptr && arr->is_array())
        for (const auto& e : *arr) {
          const auto* r = find_pointer(e, f["each"].get<std::string>());
          const auto* avail = e.is_object() ? find_pointer(e, "/available") : nullptr;
          if (r != nullptr && r->is_string() && (avail == nullptr || (avail->is_boolean() && avail->get<bool>())) &&
              std::find(regions.begin(), regions.end(), r->get<std::string>()) == regions.end())
            regions.push_back(r->get<std::string>());
        }
    }
    if (type_v == nullptr || !type_v->is_string()) {
      warn("/emulator", "no emulator: the document gives no example of the offer's instance type");
    } else if (price < 0) {
      warn("/emulator", "no emulator: the document gives no example of the offer's price");
    } else if (regions.empty()) {
      warn("/emulator", "no emulator: the document gives no example of a region");
    } else {
      ojson region_map = ojson::object();
      for (const auto& r : regions) region_map[r] = ojson::object();
      emulator["notes"] = ojson::array(
          {"draft: the catalogue is the document's examples (" + cite +
           "); the capacities, the delays and the instance's play through the status words are emulator assumptions, to confirm"});
      emulator["regions"] = region_map;
      ojson type = ojson::object();
      type["name"] = type_v->get<std::string>();
      type["price_per_hour_usd"] = std::round(price * 10000) / 10000;
      ojson cap = ojson::object();
      for (const auto& r : regions) cap[r] = 4;
      type["capacity"] = cap;
      json object = row;
      // The members the emulator renders are not static.
      for (const auto& [name, f] : offer_fields.items()) {
        const auto p = f.is_string() ? f.get<std::string>() : f["pointer"].get<std::string>();
        if (p.empty() || p.starts_with("^")) continue;
        if (name == "gpu" || name == "description") continue;
        erase_at(object, p);
      }
      ojson params = ojson::object();
      for (const auto& k : launch_params)
        if (row.is_object() && row.contains(k)) params[k] = row[k].is_string() ? row[k].get<std::string>() : row[k].dump();
      if (offer_fields.contains("underlying_provider"))
        if (const auto* u = find_pointer(row, offer_fields["underlying_provider"].get<std::string>()); u != nullptr && u->is_string())
          params["underlying_provider"] = u->get<std::string>();
      if (!params.empty()) type["params"] = params;
      if (object.is_object() && !object.empty()) type["object"] = ordered(object);
      emulator["instance_types"] = ojson::array({type});
      guess("/emulator/instance_types/0",
            "one instance type built from the examples of the catalogue's row; capacity 4 per region is an emulator value");
      if (instance_schema != nullptr) {
        json inst = walked > walk_budget ? json() : example_of(*instance_schema);
        if (inst.is_object()) {
          for (const auto& [name, f] : instance_fields.items()) {
            const auto p = f.is_string() ? f.get<std::string>() : f["pointer"].get<std::string>();
            erase_at(inst, p);
          }
          emulator["instance_template"] = ordered(inst);
          guess("/emulator/instance_template", "the instance's static members from the document's examples");
        }
      }
      ojson phases = ojson::object();
      phases["booting"] = word_booting.empty() ? word_running : word_booting;
      phases["running"] = word_running;
      phases["terminating"] = word_terminating.empty() ? word_terminated : word_terminating;
      phases["terminated"] = word_terminated;
      emulator["phases"] = phases;
      guess("/emulator/phases", "booting \"" + phases["booting"].get<std::string>() + "\", running \"" + word_running +
                                    "\", terminating \"" + phases["terminating"].get<std::string>() + "\", terminated \"" +
                                    word_terminated + "\", from the states");
      emulator["boot_s"] = 60;
      emulator["terminate_s"] = 10;
      emulator["gone_after_s"] = 60;
      guess("/emulator/boot_s", "emulator delays boot_s 60, terminate_s 10, gone_after_s 60: not in the document");
      if (instance_fields.contains("id")) {
        const json* ids = schema_at(*instance_schema, instance_fields["id"].get<std::string>());
        if (ids != nullptr && text_of(*ids, "format") == "uuid") {
          emulator["id_style"] = "uuid";
          guess("/emulator/id_style", "uuid: the instance id's format");
        } else if (ids != nullptr && type_of(*ids) == "integer") {
          emulator["id_style"] = "integer";
          guess("/emulator/id_style", "integer: the instance id's type");
        }
      }
      if (key_schema != nullptr) {
        json key = walked > walk_budget ? json() : example_of(*key_schema);
        if (key.is_object()) {
          for (const auto& [name, f] : ssh_key_fields.items()) key.erase(f.get<std::string>().substr(1));
          if (!key.empty()) emulator["ssh_key_template"] = ordered(key);
        }
      }
    }
  } else {
    warn("/emulator", "no emulator: it needs the catalogue's row, its instance type and the status words running and terminated");
  }

  // ---- SSH endpoint ----
  ojson ssh = ojson::object();
  if (instance_schema != nullptr) {
    auto user = field_in(*instance_schema, {"sshuser", "username", "user", "sshusername", "login"}, 1, true);
    auto port = field_in(*instance_schema, {"sshport", "port"}, 1, true);
    if (user) {
      const json* us = schema_at(*instance_schema, *user);
      const auto ex = us != nullptr ? example_of(*us) : json();
      if (ex.is_string()) {
        ssh["user"] = ex.get<std::string>();
        ojson ep = ojson::object();
        if (instance_fields.contains("ip")) ep["host"] = instance_fields["ip"];
        if (port) ep["port"] = *port;
        ep["user"] = *user;
        ep["source"] = "draft: the instance's " + user->substr(1) + (port ? " and " + port->substr(1) : "") + " in " + cite + " (confirm)";
        ssh["endpoints"] = ojson::array({ep});
        ssh["source"] =
            "draft: the example of " + user->substr(1) + " in " + cite + " (an example, not the documented login user: confirm)";
        guess("/ssh", "the login user \"" + ex.get<std::string>() + "\" from the example of " + user->substr(1));
      } else {
        warn("/ssh", "the instance names its SSH user at " + *user + " but the document gives no example: ssh left out");
      }
    }
  }

  // ---- the spec, in the format's order ----
  spec["provider"] = provider;
  if (!base.empty()) spec["base_url"] = base;
  spec["auth"] = {{"schemes", schemes}, {"env", env}};
  guess("/auth/env", env + ": the provider id's key variable");
  if (!errors_section.is_null()) spec["errors"] = errors_section;
  if (walked > walk_budget)
    warn("/components/schemas", "the document's schemas fan out past " + std::to_string(walk_budget) +
                                    " steps of reading: the walks stopped there, so members, types and examples may be missing");
  if (!states.empty()) spec["states"] = states;
  spec["timing"] = {{"time_to_running_s", 900}, {"time_to_gone_s", 300}, {"poll_interval_s", 10}};
  guess("/timing", "time_to_running_s 900, time_to_gone_s 300, poll_interval_s 10: defaults, not in the document");
  if (!ssh.empty()) spec["ssh"] = ssh;
  if (!instance_fields.empty()) spec["instance_fields"] = instance_fields;
  if (!offer_fields.empty()) spec["offer_fields"] = offer_fields;
  if (!ssh_key_fields.empty()) spec["ssh_key_fields"] = ssh_key_fields;
  std::vector<ojson*> schemas;
  if (spec.contains("errors") && spec["errors"].contains("envelope_schema")) schemas.push_back(&spec["errors"]["envelope_schema"]);
  for (auto& [_, o] : operations.items())
    for (const char* key : {"request_schema", "response_schema"})
      if (o.is_object() && o.contains(key)) schemas.push_back(&o[key]);
  auto shared = share_definitions(schemas);
  spec["operations"] = operations;
  if (!shared.empty()) spec["schemas"] = std::move(shared);
  if (!variables.empty()) spec["variables"] = variables;
  if (!emulator.empty()) spec["emulator"] = emulator;
  // Guesses without a source of their own, as notes the lint reports.
  // One note per section, so that a reviewer confirms a section at a time.
  std::vector<std::pair<std::string, std::string>> sections;
  for (std::size_t i = 0; i < out.guesses.size(); ++i) {
    const auto& g = out.guesses[i];
    if (g.pointer.starts_with("/operations/") && g.pointer.find('/', 12) == std::string::npos) continue;  // in the operation's source
    auto section = g.pointer.substr(0, g.pointer.find('/', 1));
    if (section == "/operations") section = g.pointer.substr(0, g.pointer.find('/', 12));
    auto it = std::find_if(sections.begin(), sections.end(), [&](auto& s) { return s.first == section; });
    if (it == sections.end()) it = sections.insert(sections.end(), {section, ""});
    it->second += (it->second.empty() ? "" : "; ") + ("#" + std::to_string(i + 1)) + " " + g.pointer + ": " + g.text;
  }
  for (const auto& [section, text] : sections) notes.push_back("draft: " + section + ": " + text + " (confirm)");
  spec["provider"]["notes"] = notes;
  out.spec = std::move(spec);
  return std::move(out);
}

}  // namespace

boost::system::result<spec_draft, std::string> draft_spec(const nlohmann::json& document, const draft_options& options) {
  drafter d(document, options);
  try {
    return d.run();
  } catch (const nlohmann::json::exception& e) {
    // A member of a type the document's format does not allow (a basePath that is no string).
    return refuse("the document is malformed where the drafter reads it: " + std::string(e.what()));
  }
}

}  // namespace neograde
