#include <neograde/core/spec_lint.hpp>

#include <neograde/core/json_util.hpp>

#include <algorithm>
#include <functional>
#include <regex>
#include <set>

namespace neograde {
namespace {

using nlohmann::json;

// What neograde itself binds in a request: the instance's id, a tag, an action's id, and what a
// launch or an SSH key add sends (clients/provider_client.cpp launch_vars, call_vars and the
// calls by id).
const std::set<std::string>& bound_by_neograde() {
  static const std::set<std::string> names{"id",     "tag",        "action_id",   "instance_type", "name",       "client_id",
                                           "region", "public_key", "public_keys", "ssh_key_name",  "ssh_key_id", "run_tag"};
  return names;
}

struct linter {
  const provider_spec& spec;
  std::vector<lint_finding> out;

  void error(std::string pointer, std::string message) {
    out.push_back({lint_finding::level::error, std::move(pointer), std::move(message)});
  }
  void warning(std::string pointer, std::string message) {
    out.push_back({lint_finding::level::warning, std::move(pointer), std::move(message)});
  }

  // ---- placeholders ------------------------------------------------------------------------

  // "{name}" in a path, "{{name}}" in a body, a key or a GraphQL variable.
  static void placeholders_in(const json& node, const std::string& at, bool path, std::vector<std::pair<std::string, std::string>>& found) {
    static const std::regex single(R"(\{([A-Za-z0-9_]+)\})"), twice(R"(\{\{([A-Za-z0-9_]+)\}\})");
    auto scan = [&](const std::string& text, const std::string& where) {
      const auto& re = path ? single : twice;
      for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
        found.emplace_back((*it)[1].str(), where);
    };
    if (node.is_string()) return scan(node.get<std::string>(), at);
    if (node.is_object())
      for (const auto& [k, v] : node.items()) {
        scan(k, at + "/" + pointer_escape(k));
        placeholders_in(v, at + "/" + pointer_escape(k), path, found);
      }
    if (node.is_array())
      for (std::size_t i = 0; i < node.size(); ++i) placeholders_in(node[i], at + "/" + std::to_string(i), path, found);
  }

  void placeholders() {
    const auto* ops = find_pointer(spec.raw, "/operations");
    if (ops == nullptr || !ops->is_object()) return;
    for (const auto& [name, op] : ops->items()) {
      const auto at = "/operations/" + pointer_escape(name);
      // Names a step of this operation binds from an answer (Akash's bids, then the lease).
      std::set<std::string> known = bound_by_neograde();
      for (const auto& [k, _] : spec.variable_decls) known.insert(k);
      for (const auto& [k, _] : spec.variables) known.insert(k);
      for (const auto& [k, _] : spec.offer_fields) known.insert(k);
      auto binds = [&](const json& step) {
        if (const auto b = step.find("bind"); b != step.end() && b->is_object())
          for (const auto& [k, _] : b->items()) known.insert(k);
      };
      binds(op);
      const auto then = op.value("then", json::array());
      for (const auto& step : then) binds(step);

      std::vector<std::pair<std::string, std::string>> found;
      auto request = [&](const json& o, const std::string& where) {
        if (const auto p = o.find("path"); p != o.end()) placeholders_in(*p, where + "/path", true, found);
        for (const char* part : {"body", "graphql", "headers", "query"})
          if (const auto b = o.find(part); b != o.end()) placeholders_in(*b, where + "/" + part, false, found);
      };
      request(op, at);
      for (std::size_t i = 0; i < then.size(); ++i) request(then[i], at + "/then/" + std::to_string(i));
      if (const auto a = op.find("action"); a != op.end() && a->is_object())
        if (const auto p = a->find("path"); p != a->end()) placeholders_in(*p, at + "/action/path", true, found);
      for (const auto& [placeholder, where] : found)
        if (!known.contains(placeholder))
          error(where, "unknown placeholder \"" + placeholder +
                           "\": not a spec variable, an offer field, a value a step of the operation binds, or one neograde binds "
                           "(id, instance_type, name, region, public_key, ssh_key_name, ...); it would be sent as nothing");
    }
  }

  // ---- emulator phases ---------------------------------------------------------------------

  void phases() {
    const auto* phases = find_pointer(spec.raw, "/emulator/phases");
    if (phases == nullptr || !phases->is_object()) return;
    static const std::set<std::string> known{"waiting",  "booting", "running",     "restarting", "stopping",
                                             "starting", "stopped", "terminating", "terminated"};
    for (const auto& [phase, word] : phases->items()) {
      const auto at = "/emulator/phases/" + pointer_escape(phase);
      if (!known.contains(phase)) {
        error(at, "no emulator phase is called \"" + phase + "\": the word would never be played (docs/spec-format.md, Emulator)");
        continue;
      }
      if (!word.is_string()) continue;
      const auto w = word.get<std::string>();
      if (!spec.states.contains(w))
        error(at, "phase word \"" + w +
                      "\" is no status the spec's states declare: the client "
                      "could not place an instance the emulator reports in it");
      else if (phase == "stopped" && spec.canonical_state(w) != instance_state::stopped)
        error(at, "the stopped phase's word \"" + w + "\" is no stopped status in the spec's states");
    }
  }

  // ---- offer fields against the catalogue's answer -------------------------------------------

  // The schema of `node`'s member `key` ("" where the schema says nothing of it, so anything may
  // be there), or null where the schema names its members and `key` is none of them.
  const json* member(const json& node, const std::string& key, const json& root, int depth = 0) const {
    static const json anything = json::object();
    if (depth > 32) return &anything;
    const json& s = resolve(node, root);
    if (!s.is_object()) return &anything;
    for (const char* any_of : {"allOf", "anyOf", "oneOf"})
      if (const auto b = s.find(any_of); b != s.end() && b->is_array()) {
        bool open = false;
        for (const auto& branch : *b) {
          const json* m = member(branch, key, root, depth + 1);
          if (m != nullptr && m != &anything) return m;
          open = open || m == &anything;
        }
        if (open) return &anything;
        if (!s.contains("properties") && !s.contains("items")) return nullptr;
      }
    const bool is_index = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (const auto items = s.find("items"); items != s.end() && (is_index || !s.contains("properties"))) return &*items;
    if (const auto props = s.find("properties"); props != s.end() && props->is_object()) {
      if (const auto p = props->find(key); p != props->end()) return &*p;
      if (const auto pp = s.find("patternProperties"); pp != s.end() && pp->is_object() && !pp->empty()) return &anything;
      if (const auto ap = s.find("additionalProperties"); ap != s.end())
        return ap->is_object() ? &*ap : ap->is_boolean() && ap->get<bool>() ? &anything : nullptr;
      return nullptr;  // members are named, and this is none of them
    }
    if (const auto ap = s.find("additionalProperties"); ap != s.end() && ap->is_object()) return &*ap;
    return &anything;
  }

  // A local "$ref" followed (once per call: member() recurses for chains).
  static const json& resolve(const json& s, const json& root) {
    if (const auto ref = s.find("$ref"); s.is_object() && ref != s.end() && ref->is_string()) {
      const auto r = ref->get<std::string>();
      if (r.starts_with("#"))
        if (const auto* target = find_pointer(root, r.substr(1)); target != nullptr) return *target;
    }
    return s;
  }

  // The schema at `pointer` under `schema`; null at the first member it does not name, which
  // `missing` gets.
  const json* at_pointer(const json& schema, const std::string& pointer, const json& root, std::string* missing) const {
    const json* s = &schema;
    std::size_t i = pointer.empty() ? std::string::npos : 1;
    while (i != std::string::npos && i <= pointer.size()) {
      const auto next = pointer.find('/', i);
      auto key = pointer.substr(i, next == std::string::npos ? std::string::npos : next - i);
      for (std::size_t t = 0; (t = key.find('~', t)) != std::string::npos; ++t) key.replace(t, 2, key.compare(t, 2, "~1") == 0 ? "/" : "~");
      const json* m = member(*s, key, root);
      if (m == nullptr) {
        if (missing) *missing = key;
        return nullptr;
      }
      s = m;
      i = next == std::string::npos ? std::string::npos : next + 1;
    }
    return s;
  }

  void offer_fields() {
    const auto* op = spec.operation(operation_id::list_offers);
    const auto* raw = find_pointer(spec.raw, "/operations/list_offers");
    if (op == nullptr || raw == nullptr || !raw->contains("response_schema")) return;
    const json& root = raw->at("response_schema");
    // The item: an element of the array at `items`, or a value of the object there.
    const json* items = at_pointer(root, raw->value("items", ""), root, nullptr);
    if (items == nullptr) return;
    const json* item = member(*items, raw->value("items_are_object_values", false) ? "any-member" : "0", root);
    if (item == nullptr) return;
    const json* row = item;
    if (const auto r = spec.offer_fields.find("rows"); r != spec.offer_fields.end()) {
      const json* rows = at_pointer(*item, r->second.pointer, root, nullptr);
      row = rows == nullptr ? nullptr : member(*rows, "0", root);
      if (row == nullptr) return;
    }
    for (const auto& [name, fp] : spec.offer_fields) {
      if (name == "rows") continue;
      std::vector<std::string> pointers{fp.pointer};
      pointers.insert(pointers.end(), fp.alternatives.begin(), fp.alternatives.end());
      for (const auto& t : fp.plus) pointers.push_back(t.pointer);
      for (const auto& p : pointers) {
        if (p.empty()) continue;
        const bool parent = p.starts_with('^');
        std::string missing;
        if (at_pointer(parent ? *item : *row, parent ? p.substr(1) : p, root, &missing) == nullptr)
          error("/offer_fields/" + pointer_escape(name),
                std::string(parent ? "parent pointer " : "pointer ") + p + ": the " + (parent ? "enclosing item" : "row") +
                    " of list_offers' response_schema has no member \"" + missing + "\"; the field would always read as absent");
      }
    }
  }

  // ---- assumptions without a source ----------------------------------------------------------

  void sources() {
    for (std::size_t i = 0; i < spec.deviations.size(); ++i)
      if (spec.deviations[i].source.empty())
        warning("/deviations/" + std::to_string(i), "a deviation from the check " + spec.deviations[i].check_id + " without its source");
    std::function<void(const json&, const std::string&)> walk = [&](const json& n, const std::string& at) {
      if (n.is_object())
        for (const auto& [k, v] : n.items()) {
          if (k == "source" && v.is_string() && v.get<std::string>().find_first_not_of(" \t") == std::string::npos)
            warning(at + "/source", "an empty source: say where this is documented or observed");
          if (k == "source" && v.is_string() && v.get<std::string>().starts_with("draft:"))
            warning(at + "/source", "a guess of `neograde spec draft`: confirm it and cite where it is documented");
          if (k == "notes" && v.is_array())
            for (std::size_t i = 0; i < v.size(); ++i)
              if (v[i].is_string() && v[i].get<std::string>().starts_with("draft:"))
                warning(at + "/notes/" + std::to_string(i),
                        "a guess of `neograde spec draft`: confirm it, then write the note with its source");
          if (k != "emulator") walk(v, at + "/" + pointer_escape(k));
        }
      if (n.is_array())
        for (std::size_t i = 0; i < n.size(); ++i) walk(n[i], at + "/" + std::to_string(i));
    };
    walk(spec.raw, "");
    if (const auto* notes = find_pointer(spec.raw, "/emulator/notes"); notes != nullptr && notes->is_array())
      for (std::size_t i = 0; i < notes->size(); ++i)
        if ((*notes)[i].is_string() && (*notes)[i].get<std::string>().starts_with("draft:"))
          warning("/emulator/notes/" + std::to_string(i),
                  "a guess of `neograde spec draft`: confirm it, then write the note with its source");
  }
};

}  // namespace

std::vector<lint_finding> lint_spec(const provider_spec& spec) {
  linter l{spec, {}};
  l.placeholders();
  l.phases();
  l.offer_fields();
  l.sources();
  std::stable_partition(l.out.begin(), l.out.end(), [](const lint_finding& f) { return f.severity == lint_finding::level::error; });
  return l.out;
}

}  // namespace neograde
