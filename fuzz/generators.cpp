// Request generators, built on RapidCheck's Gen: for every operation of the spec, positive data
// (valid per the request schema, with offers the provider lists) and negative data. Each
// generator is named after what it produces; whether a request must be rejected is decided by
// the spec's request schema (our validator), not guessed.

#include "engine.hpp"

#include <neograde/core/json_schema.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/core/template.hpp>

#include <algorithm>
#include <set>
#include <sstream>

namespace neograde::fuzz::detail {

std::ostream& operator<<(std::ostream& os, const request_case& c) {
  return os << c.generator << ": " << c.method << " " << c.path << (c.note.empty() ? "" : " (" + c.note + ")");
}

namespace {

using nlohmann::json;

// Strings that break parsers, encoders, databases and shells.
const std::vector<std::string>& hostile_strings() {
  static const std::vector<std::string> all{
      "",
      std::string(65, 'a'),  // lengths just past common limits (64, 255, 1024) and far past them
      std::string(256, 'b'),
      std::string(1025, 'c'),
      std::string(10000, 'x'),
      "\xE5\x90\x8D\xE5\x89\x8D\xF0\x9F\x99\x82",  // 名前🙂
      std::string("nul\0byte", 8),
      "\x01\x1f\x7f\t\n\r",
      "' OR '1'='1' --",
      "\"; DROP TABLE instances; --",
      "<script>alert(1)</script>",
      "${jndi:ldap://127.0.0.1/a}",
      "{{7*7}}",
      "../../../../etc/passwd",
      "%00%2e%2e%2f",
      "$(id)`id`",
      "\xE2\x80\xAE\xE2\x80\x8B",  // right-to-left override, zero width space
  };
  return all;
}

// Ids that name nothing: random, malformed, oversized, hostile.
rc::Gen<std::string> unknown_ids() {
  return rc::gen::oneOf(
      rc::gen::map(rc::gen::container<std::vector<int>>(32, rc::gen::inRange(0, 16)),
                   [](const std::vector<int>& digits) {
                     std::string s;
                     for (int d : digits) s += "0123456789abcdef"[d];
                     return s;
                   }),
      rc::gen::element<std::string>("0", "-1", "00000000-0000-0000-0000-000000000000", "neograde-none", std::string(300, '9'),
                                    "../instances", "%2F..%2F", "\xE5\x90\x8D", "' OR 1=1 --", "null", "99999999999999999999999"));
}

template_vars base_vars(target& t, const std::string& name) {
  template_vars vars;
  for (const auto& [k, v] : t.spec().variables) vars[k] = v;
  const bool have_offer = !t.offers.empty();
  if (have_offer)
    for (const auto& [k, v] : t.offers.front().params) vars[k] = v;
  vars["instance_type"] = have_offer ? t.offers.front().instance_type : "neograde-none";
  // A row without a region launches where the spec's region variable says, as the client's do
  // (Scaleway's catalogue names no zone): its empty region rendered paths like /zones//servers.
  if (have_offer && !t.offers.front().region.empty()) vars["region"] = t.offers.front().region;
  else if (!vars.contains("region"))
    vars["region"] = "neograde-none";
  vars["ssh_key_name"] = t.ssh_key_name.empty() ? "neograde-none" : t.ssh_key_name;
  vars["name"] = name;
  vars["public_key"] = t.session().public_key();
  vars["id"] = "neograde-none-" + t.session().run_id();
  vars["ids"] = json::array({"neograde-none-" + t.session().run_id()});
  return vars;
}

struct op_info {
  operation_id id;
  std::string label;
  const operation_spec* spec;
  std::optional<json_schema> request_schema;
};

bool has_id(const operation_spec& op) {
  if (op.path.find("{id}") != std::string::npos) return true;
  if (!op.body) return false;
  const auto vars = template_pointers(*op.body);
  return vars.contains("id") || vars.contains("ids");
}

// Reject when the schema refuses the body; otherwise the provider may take it.
expectation classify(const op_info& op, const json& body) {
  if (!op.request_schema) return expectation::any;
  return op.request_schema->validate(body).empty() ? expectation::any : expectation::reject;
}

// The JSON pointers of every scalar in a body (template placeholders and literal fields).
void scalar_pointers(const json& doc, const std::string& at, std::vector<std::string>& out) {
  if (doc.is_object()) {
    for (const auto& [k, v] : doc.items()) scalar_pointers(v, at + "/" + pointer_escape(k), out);
  } else if (doc.is_array()) {
    for (std::size_t i = 0; i < doc.size(); ++i) scalar_pointers(doc[i], at + "/" + std::to_string(i), out);
  } else {
    out.push_back(at);
  }
}

class builder {
 public:
  explicit builder(target& t) : t_(t) {
    for (const auto& [id, op] : t.spec().operations) {
      // A key set replaced whole (RunPod's PUT /v2/account/ssh-keys): one generated body accepted
      // would replace the account's keys, and a valid one needs the set read first (the client's
      // add_ssh_key), so that operation is not fuzzed.
      if (op.replaces_key_set) continue;
      // A terminate of every instance carrying a tag acts on whatever carries the tag it is sent
      // with: only the lifecycle sends it, with the run's own tag (issue 39).
      if (id == operation_id::terminate_tagged) continue;
      op_info info{id, json(id).get<std::string>(), &op, std::nullopt};
      if (op.request_schema) {
        try {
          info.request_schema.emplace(*op.request_schema);
        } catch (const std::exception&) {}
      }
      ops_.push_back(std::move(info));
    }
  }

  rc::Gen<request_case> all() {
    std::vector<std::pair<std::size_t, rc::Gen<request_case>>> gens;
    for (const auto& op : ops_) {
      add(gens, 3, valid_request(op));
      if (op.spec->body) {
        add(gens, 3, body_missing_required_field(op));
        add(gens, 3, body_with_wrong_type(op));
        add(gens, 2, body_with_boundary_number(op));
        add(gens, 4, body_with_hostile_string(op));
        add(gens, 1, body_with_unknown_key(op));
        add(gens, 1, body_with_duplicate_key(op));
        add(gens, 1, deeply_nested_body(op));
        add(gens, 2, malformed_json_body(op));
        add(gens, 1, empty_body(op));
        add(gens, 1, non_object_body(op));
        add(gens, 1, wrong_content_type(op));
      }
      add(gens, 2, bad_credentials(op));
      if (has_id(*op.spec)) add(gens, 4, unknown_id(op));
    }
    add(gens, 1, unknown_path());
    add(gens, 2, wrong_method());
    // A provider that documents query-string keys (any of its schemes) may serve them.
    const auto& schemes = t_.spec().auth.schemes;
    if (std::none_of(schemes.begin(), schemes.end(), [](const auto& m) { return m.type == auth_scheme::query; }))
      add(gens, 1, credentials_in_query());
    return weighted(std::move(gens));
  }

 private:
  static void add(std::vector<std::pair<std::size_t, rc::Gen<request_case>>>& gens, std::size_t weight,
                  std::optional<rc::Gen<request_case>> g) {
    if (g) gens.emplace_back(weight, std::move(*g));
  }

  // A name that teardown can find: the run's prefix and a random suffix.
  rc::Gen<std::string> names() const {
    const auto prefix = t_.prefix();
    return rc::gen::map(rc::gen::inRange(0, 1 << 24), [prefix](int n) {
      std::ostringstream s;
      s << prefix << "fz" << std::hex << n;
      return s.str();
    });
  }

  request_case with_body(const op_info& op, const std::string& generator, const json& body, expectation expect, std::string note,
                         const std::string& name) const {
    request_case c;
    c.generator = generator;
    c.operation = op.label;
    c.op = op.id;
    c.method = op.spec->method;
    c.path = render_path(op.spec->path, base_vars(t_, name));
    c.body = dump_json(body);
    c.content_type = "application/json";
    c.expect = expect;
    c.note = std::move(note);
    return c;
  }

  json valid_body(const op_info& op, const std::string& name) const {
    return op.spec->body ? render_body(*op.spec->body, base_vars(t_, name)) : json();
  }

  // positive: a request the provider documents, with values it lists. Operations on an id and
  // launches are not generated here; the sequences cover them.
  std::optional<rc::Gen<request_case>> valid_request(const op_info& op) const {
    if (has_id(*op.spec)) return std::nullopt;
    // Launches that should succeed are the sequences' business: they follow the instance.
    if (op.id == operation_id::launch) return std::nullopt;
    return rc::gen::map(names(), [this, op](const std::string& name) {
      request_case c = with_body(op, "valid_request", valid_body(op, name), expectation::accept, "", name);
      if (!op.spec->body) c.body.clear(), c.content_type.clear();
      return c;
    });
  }

  std::optional<rc::Gen<request_case>> body_missing_required_field(const op_info& op) const {
    const json probe = valid_body(op, "x");
    if (!probe.is_object() || probe.empty()) return std::nullopt;
    std::vector<std::string> keys;
    for (const auto& [k, v] : probe.items()) keys.push_back(k);
    const auto placeholders = template_pointers(*op.spec->body);
    return rc::gen::apply(
        [this, op, placeholders](const std::string& key, const std::string& name) {
          json body = valid_body(op, name);
          body.erase(key);
          auto expect = classify(op, body);
          // Without a schema, a member the template fills from a variable is taken as required.
          if (!op.request_schema)
            for (const auto& [var, ptr] : placeholders)
              if (ptr == "/" + pointer_escape(key)) expect = expectation::reject;
          return with_body(op, "body_missing_required_field", body, expect, "without /" + key, name);
        },
        rc::gen::elementOf(keys), names());
  }

  std::optional<rc::Gen<request_case>> body_with_wrong_type(const op_info& op) const {
    std::vector<std::string> ptrs;
    scalar_pointers(valid_body(op, "x"), "", ptrs);
    if (ptrs.empty()) return std::nullopt;
    return rc::gen::apply(
        [this, op](const std::string& ptr, const json& replacement, const std::string& name) {
          json body = valid_body(op, name);
          const auto* old = find_pointer(body, ptr);
          json value = replacement;
          if (old != nullptr && old->type() == value.type()) value = json::array({replacement});
          set_pointer(body, ptr, value);
          return with_body(op, "body_with_wrong_type", body, classify(op, body), ptr + " = " + dump_json(value), name);
        },
        rc::gen::elementOf(ptrs),
        rc::gen::element<json>(json(12345), json(true), json(nullptr), json::array(), json::object(), json("text"), json(1.5)), names());
  }

  std::optional<rc::Gen<request_case>> body_with_boundary_number(const op_info& op) const {
    std::vector<std::string> ptrs;
    scalar_pointers(valid_body(op, "x"), "", ptrs);
    if (ptrs.empty()) return std::nullopt;
    return rc::gen::apply(
        [this, op](const std::string& ptr, const json& number, const std::string& name) {
          json body = valid_body(op, name);
          set_pointer(body, ptr, number);
          return with_body(op, "body_with_boundary_number", body, classify(op, body), ptr + " = " + dump_json(number), name);
        },
        rc::gen::elementOf(ptrs),
        rc::gen::element<json>(json(-1), json(0), json(2147483648LL), json(9223372036854775807LL), json(18446744073709551615ULL),
                               json(1e308), json(-1e308), json(0.5), json(-0.0)),
        names());
  }

  // Every string field of the body either kept or replaced by a hostile string, each field on
  // its own; shrinking then keeps only the replacements the failure needs.
  std::optional<rc::Gen<request_case>> body_with_hostile_string(const op_info& op) const {
    std::vector<std::string> ptrs;
    const json probe = valid_body(op, "x");
    scalar_pointers(probe, "", ptrs);
    ptrs.erase(std::remove_if(ptrs.begin(), ptrs.end(), [&](const auto& p) { return !find_pointer(probe, p)->is_string(); }), ptrs.end());
    if (ptrs.empty()) return std::nullopt;
    // Index 0 keeps the field; shrinking moves towards keeping.
    auto choice = rc::gen::resize(100, rc::gen::inRange<std::size_t>(0, 2 * hostile_strings().size()));
    return rc::gen::apply(
        [this, op, ptrs](const std::vector<std::size_t>& picks, const std::string& name) {
          json body = valid_body(op, name);
          std::string note;
          for (std::size_t i = 0; i < ptrs.size(); ++i) {
            if (picks[i] < hostile_strings().size()) continue;
            const auto& text = hostile_strings()[picks[i] - hostile_strings().size()];
            // A name keeps the run's prefix, so that whatever is created is found and removed.
            const bool is_name = find_pointer(body, ptrs[i]) != nullptr && *find_pointer(body, ptrs[i]) == name;
            const std::string value = is_name && !text.empty() ? t_.prefix() + text : text;
            set_pointer(body, ptrs[i], value);
            note += (note.empty() ? "" : ", ") + ptrs[i] + " is " + std::to_string(value.size()) +
                    " bytes: " + dump_json(json(value.substr(0, 40)));
          }
          return with_body(op, "body_with_hostile_string", body, classify(op, body), note.empty() ? "unchanged" : note, name);
        },
        rc::gen::container<std::vector<std::size_t>>(ptrs.size(), choice), names());
  }

  std::optional<rc::Gen<request_case>> body_with_unknown_key(const op_info& op) const {
    if (!valid_body(op, "x").is_object()) return std::nullopt;
    return rc::gen::map(names(), [this, op](const std::string& name) {
      json body = valid_body(op, name);
      body["neograde_unknown_member"] = "x";
      return with_body(op, "body_with_unknown_key", body, classify(op, body), "with /neograde_unknown_member", name);
    });
  }

  std::optional<rc::Gen<request_case>> body_with_duplicate_key(const op_info& op) const {
    const json probe = valid_body(op, "x");
    if (!probe.is_object() || probe.empty()) return std::nullopt;
    return rc::gen::map(names(), [this, op](const std::string& name) {
      json body = valid_body(op, name);
      const auto first = body.begin().key();
      auto c = with_body(op, "body_with_duplicate_key", body, expectation::any, "/" + first + " twice", name);
      // The same member first with another value: parsers disagree on which one wins.
      c.body = "{" + dump_json(json(first)) + ":" + dump_json(json::array({"neograde-duplicate"})) + "," + c.body.substr(1);
      return c;
    });
  }

  std::optional<rc::Gen<request_case>> deeply_nested_body(const op_info& op) const {
    return rc::gen::map(rc::gen::element(64, 1000, 100000), [this, op](int depth) {
      auto c = with_body(op, "deeply_nested_body", json::object(), expectation::reject, std::to_string(depth) + " levels", "x");
      c.body = std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']');
      return c;
    });
  }

  std::optional<rc::Gen<request_case>> malformed_json_body(const op_info& op) const {
    return rc::gen::apply(
        [this, op](int cut, int variant, const std::string& name) {
          auto c = with_body(op, "malformed_json_body", valid_body(op, name), expectation::reject, "", name);
          static const std::vector<std::string> broken{"{", "{\"a\":}", "{'a': 1}", "\xff\xfe{}", "{\"a\":1,}", "nul", "{\"a\" 1}"};
          if (variant < static_cast<int>(broken.size())) {
            c.body = broken[static_cast<std::size_t>(variant)];
          } else {
            c.body = c.body.substr(0, std::max<std::size_t>(1, c.body.size() * static_cast<std::size_t>(cut) / 100));
          }
          c.note = dump_json(json(c.body.substr(0, 40)));
          return c;
        },
        rc::gen::inRange(1, 99), rc::gen::inRange(0, 10), names());
  }

  std::optional<rc::Gen<request_case>> empty_body(const op_info& op) const {
    auto c = with_body(op, "empty_body", json(), expectation::reject, "no body", "x");
    c.body.clear();
    return rc::gen::just(c);
  }

  std::optional<rc::Gen<request_case>> non_object_body(const op_info& op) const {
    if (!valid_body(op, "x").is_object()) return std::nullopt;
    return rc::gen::map(rc::gen::element<std::string>("[]", "\"text\"", "1", "null", "true", "[{}]"), [this, op](const std::string& text) {
      auto c = with_body(op, "non_object_body", json(), expectation::reject, text, "x");
      c.body = text;
      return c;
    });
  }

  std::optional<rc::Gen<request_case>> wrong_content_type(const op_info& op) const {
    if (op.id == operation_id::launch) return std::nullopt;  // a launch it takes would cost money
    return rc::gen::apply(
        [this, op](const std::string& type, const std::string& name) {
          auto c = with_body(op, "wrong_content_type", valid_body(op, name), expectation::any, "Content-Type: " + type, name);
          c.content_type = type;
          return c;
        },
        rc::gen::element<std::string>("text/plain", "application/x-www-form-urlencoded", "application/xml",
                                      "multipart/form-data; boundary=x"),
        names());
  }

  std::optional<rc::Gen<request_case>> bad_credentials(const op_info& op) const {
    return rc::gen::apply(
        [this, op](auth_mode mode, const std::string& name) {
          auto c = with_body(op, "bad_credentials", valid_body(op, name), expectation::reject, "", name);
          if (!op.spec->body) c.body.clear(), c.content_type.clear();
          c.auth = mode;
          c.note = mode == auth_mode::none      ? "no credentials"
                   : mode == auth_mode::invalid ? "a made-up key"
                                                : "a scheme without a credential";
          return c;
        },
        // An operation the provider serves without credentials (a public catalogue) still refuses
        // a made-up or malformed key; a request without any is simply served.
        op.spec->anonymous ? rc::gen::element(auth_mode::invalid, auth_mode::malformed)
                           : rc::gen::element(auth_mode::none, auth_mode::invalid, auth_mode::malformed),
        names());
  }

  std::optional<rc::Gen<request_case>> credentials_in_query() const {
    const op_info* read = nullptr;
    for (const auto& op : ops_)
      if (op.spec->method == "GET" && !has_id(*op.spec) && !op.spec->anonymous) read = &op;
    if (read == nullptr) return std::nullopt;
    const op_info op = *read;
    return rc::gen::map(rc::gen::element<std::string>("api_key", "token", "access_token", "key"), [this, op](const std::string& param) {
      auto c = with_body(op, "credentials_in_query", json(), expectation::reject, "?" + param + "=<key>, no header", "x");
      c.body.clear();
      c.content_type.clear();
      c.auth = auth_mode::none;
      c.path += (c.path.find('?') == std::string::npos ? "?" : "&") + param + "={{api_key}}";
      return c;
    });
  }

  std::optional<rc::Gen<request_case>> unknown_id(const op_info& op) const {
    return rc::gen::apply(
        [this, op](const std::string& id, const std::string& name) {
          auto vars = base_vars(t_, name);
          vars["id"] = id;
          vars["ids"] = json::array({id});
          request_case c;
          c.generator = "unknown_id";
          c.operation = op.label;
          c.op = op.id;
          c.method = op.spec->method;
          c.path = render_path(op.spec->path, vars);
          if (op.spec->body) {
            c.body = dump_json(render_body(*op.spec->body, vars));
            c.content_type = "application/json";
          }
          c.expect = expectation::reject;
          c.note = "id " + dump_json(json(id.substr(0, 40)));
          return c;
        },
        unknown_ids(), names());
  }

  std::optional<rc::Gen<request_case>> unknown_path() const {
    const auto prefix = ops_.empty() ? std::string() : common_prefix();
    return rc::gen::map(
        rc::gen::element<std::string>("neograde-unknown", "instances-x", "v0/../x", "%2e%2e/admin", "a/b/c/d/e/f", std::string(2000, 'p')),
        [prefix](const std::string& tail) {
          request_case c;
          c.generator = "unknown_path";
          c.operation = "unknown_path";
          c.method = "GET";
          c.path = prefix + "/" + tail;
          c.expect = expectation::reject;
          c.note = "a path the API does not have";
          return c;
        });
  }

  // Methods the API does not declare on a declared path, on ids that name nothing.
  std::optional<rc::Gen<request_case>> wrong_method() const {
    std::vector<std::pair<std::string, std::string>> candidates;  // method, path
    for (const auto& op : ops_) {
      std::set<std::string> declared;
      for (const auto& other : ops_)
        if (other.spec->path == op.spec->path) declared.insert(other.spec->method);
      for (const char* m : {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
        if (!declared.contains(m)) candidates.emplace_back(m, render_path(op.spec->path, base_vars(t_, "x")));
    }
    if (candidates.empty()) return std::nullopt;
    return rc::gen::map(rc::gen::elementOf(candidates), [](const std::pair<std::string, std::string>& mp) {
      request_case c;
      c.generator = "wrong_method";
      c.operation = "wrong_method";
      c.method = mp.first;
      c.path = mp.second;
      c.expect = expectation::any;
      c.note = mp.first + " is not declared on this path";
      return c;
    });
  }

  // The path segment every operation shares ("" when none).
  std::string common_prefix() const {
    std::string p = ops_.front().spec->path;
    for (const auto& op : ops_) {
      std::size_t i = 0;
      while (i < p.size() && i < op.spec->path.size() && p[i] == op.spec->path[i]) ++i;
      p.resize(i);
    }
    while (!p.empty() && p.back() != '/') p.pop_back();
    if (!p.empty()) p.pop_back();
    return p;
  }

  target& t_;
  std::vector<op_info> ops_;
};

}  // namespace

rc::Gen<request_case> request_cases(target& t) {
  auto b = std::make_shared<builder>(t);
  auto gen = b->all();
  // The builder owns the compiled schemas the generators use.
  return rc::gen::map(std::move(gen), [b](request_case c) { return c; });
}

}  // namespace neograde::fuzz::detail
