#include <neograde/core/graphql.hpp>

#include <cctype>
#include <map>
#include <set>
#include <stdexcept>

namespace neograde::graphql {

namespace {

struct parse_failure : std::runtime_error {
  parse_failure(std::size_t at, const std::string& what) : std::runtime_error(what), offset(at) {}
  std::size_t offset;
};

bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool name_char(char c) { return name_start(c) || std::isdigit(static_cast<unsigned char>(c)) != 0; }

// A fragment before expansion: its selections may spread other fragments.
struct raw_selection;
using raw_selections = std::vector<raw_selection>;
struct raw_selection {
  field f;                  // a field (f.selections unused: see children)
  raw_selections children;  // the field's selections, or an inline fragment's
  std::string spread;       // a named fragment spread
  bool inline_fragment = false;
};

class parser {
 public:
  parser(std::string_view text, int max_depth) : s_(text), max_depth_(max_depth) {}

  document run() {
    document doc;
    std::vector<std::pair<operation, raw_selections>> ops;
    skip();
    while (pos_ < s_.size()) {
      if (peek('{')) {
        ops.emplace_back(operation{}, selection_set(0));
      } else {
        const auto word = name();
        if (word == "fragment") {
          const auto fname = name();
          if (fname == "on") fail("a fragment cannot be named \"on\"");
          expect_word("on");
          (void)name();  // the type condition
          directives(0);
          if (fragments_.contains(fname)) fail("fragment \"" + fname + "\" is defined twice");
          fragments_[fname] = selection_set(0);
        } else if (word == "query" || word == "mutation" || word == "subscription") {
          operation op;
          op.type = word;
          if (!peek('(') && !peek('{') && !peek('@')) op.name = name();
          if (peek('(')) variable_definitions();
          directives(0);
          ops.emplace_back(std::move(op), selection_set(0));
        } else {
          fail("expected an operation or a fragment, found \"" + word + "\"");
        }
      }
    }
    if (ops.empty()) fail("the document has no operation");
    for (auto& [op, raw] : ops) {
      std::set<std::string> visiting;
      op.selections = expand(raw, visiting, 0);
      doc.operations.push_back(std::move(op));
    }
    return doc;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw parse_failure(pos_, what); }

  void depth_check(int depth) const {
    if (depth > max_depth_) fail("nested deeper than " + std::to_string(max_depth_));
  }

  // Whitespace, commas (insignificant in GraphQL), the byte order mark and comments.
  void skip() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n' && s_[pos_] != '\r') ++pos_;
      } else if (s_.substr(pos_, 3) == "\xEF\xBB\xBF") {
        pos_ += 3;
      } else {
        break;
      }
    }
  }

  bool peek(char c) const { return pos_ < s_.size() && s_[pos_] == c; }

  void expect(char c) {
    if (!peek(c)) fail(std::string("expected '") + c + "'");
    ++pos_;
    skip();
  }

  std::string name() {
    if (pos_ >= s_.size() || !name_start(s_[pos_])) fail("expected a name");
    const auto start = pos_;
    while (pos_ < s_.size() && name_char(s_[pos_])) ++pos_;
    std::string out(s_.substr(start, pos_ - start));
    skip();
    return out;
  }

  void expect_word(const char* word) {
    if (name() != word) fail(std::string("expected \"") + word + "\"");
  }

  // ($name: Type = default, ...): parsed for well-formedness; the types are not kept.
  void variable_definitions() {
    expect('(');
    while (!peek(')')) {
      expect('$');
      (void)name();
      expect(':');
      type_reference(0);
      if (peek('=')) {
        expect('=');
        (void)value(0, true);
      }
      directives(0);
      if (pos_ >= s_.size()) fail("unterminated variable definitions");
    }
    expect(')');
  }

  void type_reference(int depth) {
    depth_check(depth);
    if (peek('[')) {
      expect('[');
      type_reference(depth + 1);
      expect(']');
    } else {
      (void)name();
    }
    if (peek('!')) expect('!');
  }

  void directives(int depth) {
    while (peek('@')) {
      expect('@');
      (void)name();
      if (peek('(')) (void)arguments(depth);
    }
  }

  nlohmann::json arguments(int depth) { return members('(', ')', depth, false, "unterminated arguments"); }

  // name: value pairs between `open` and `close`: a field's arguments, or an input object.
  nlohmann::json members(char open, char close, int depth, bool constant, const char* unterminated) {
    nlohmann::json out = nlohmann::json::object();
    expect(open);
    while (!peek(close)) {
      const auto key = name();
      expect(':');
      out[key] = value(depth + 1, constant);
      if (pos_ >= s_.size()) fail(unterminated);
    }
    expect(close);
    return out;
  }

  nlohmann::json value(int depth, bool constant) {
    depth_check(depth);
    if (pos_ >= s_.size()) fail("expected a value");
    const char c = s_[pos_];
    if (c == '$') {
      if (constant) fail("a variable in a constant value");
      ++pos_;
      return nlohmann::json{{"$variable", name()}};
    }
    if (c == '"') return string_value();
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c)) != 0) return number();
    if (c == '[') {
      expect('[');
      nlohmann::json list = nlohmann::json::array();
      while (!peek(']')) {
        list.push_back(value(depth + 1, constant));
        if (pos_ >= s_.size()) fail("unterminated list");
      }
      expect(']');
      return list;
    }
    if (c == '{') return members('{', '}', depth, constant, "unterminated object");
    const auto word = name();
    if (word == "true") return true;
    if (word == "false") return false;
    if (word == "null") return nullptr;
    return word;  // an enum value
  }

  nlohmann::json number() {
    const auto start = pos_;
    if (peek('-')) ++pos_;
    auto digits = [&] {
      const auto from = pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])) != 0) ++pos_;
      if (pos_ == from) fail("expected a digit");
    };
    digits();
    bool is_float = false;
    if (peek('.')) {
      ++pos_;
      digits();
      is_float = true;
    }
    if (peek('e') || peek('E')) {
      ++pos_;
      if (peek('+') || peek('-')) ++pos_;
      digits();
      is_float = true;
    }
    if (pos_ < s_.size() && (name_start(s_[pos_]) || s_[pos_] == '.')) fail("a number runs into a name");
    const std::string text(s_.substr(start, pos_ - start));
    skip();
    try {
      if (!is_float) return std::stoll(text);
    } catch (const std::out_of_range&) {
      // larger than 64 bits: kept as a double, as JSON parsers do
    }
    try {
      return std::stod(text);
    } catch (const std::exception&) {
      fail("a number out of range");
    }
  }

  // "..." with escapes, or a """block string""" (its indentation kept as written).
  std::string string_value() {
    if (s_.substr(pos_, 3) == "\"\"\"") {
      pos_ += 3;
      std::string out;
      while (true) {
        if (pos_ >= s_.size()) fail("unterminated block string");
        if (s_.substr(pos_, 4) == "\\\"\"\"") {
          out += "\"\"\"";
          pos_ += 4;
        } else if (s_.substr(pos_, 3) == "\"\"\"") {
          pos_ += 3;
          break;
        } else {
          out += s_[pos_++];
        }
      }
      skip();
      return out;
    }
    ++pos_;  // the opening quote
    std::string out;
    while (true) {
      if (pos_ >= s_.size() || s_[pos_] == '\n' || s_[pos_] == '\r') fail("unterminated string");
      const char c = s_[pos_++];
      if (c == '"') break;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) fail("unterminated string");
      const char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': out += unicode_escape(); break;
        default: fail(std::string("unknown escape \\") + e);
      }
    }
    skip();
    return out;
  }

  // \uXXXX (a surrogate pair as two escapes) as UTF-8.
  std::string unicode_escape() {
    auto hex4 = [&] {
      if (pos_ + 4 > s_.size()) fail("a short \\u escape");
      unsigned v = 0;
      for (int i = 0; i < 4; ++i) {
        const char h = s_[pos_++];
        v <<= 4;
        if (h >= '0' && h <= '9') v |= static_cast<unsigned>(h - '0');
        else if (h >= 'a' && h <= 'f')
          v |= static_cast<unsigned>(h - 'a' + 10);
        else if (h >= 'A' && h <= 'F')
          v |= static_cast<unsigned>(h - 'A' + 10);
        else
          fail("a bad \\u escape");
      }
      return v;
    };
    unsigned cp = hex4();
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (s_.substr(pos_, 2) != "\\u") fail("a lone surrogate");
      pos_ += 2;
      const unsigned low = hex4();
      if (low < 0xDC00 || low > 0xDFFF) fail("a lone surrogate");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      fail("a lone surrogate");
    }
    std::string out;
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return out;
  }

  raw_selections selection_set(int depth) {
    depth_check(depth);
    expect('{');
    raw_selections out;
    while (!peek('}')) {
      if (pos_ >= s_.size()) fail("unterminated selection set");
      raw_selection sel;
      if (s_.substr(pos_, 3) == "...") {
        pos_ += 3;
        skip();
        if (peek('{') || peek('@')) {
          sel.inline_fragment = true;
        } else {
          const auto word = name();
          if (word == "on") {
            (void)name();
            sel.inline_fragment = true;
          } else {
            sel.spread = word;
          }
        }
        directives(depth);
        if (sel.inline_fragment) sel.children = selection_set(depth + 1);
        out.push_back(std::move(sel));
        continue;
      }
      auto first = name();
      if (peek(':')) {
        expect(':');
        sel.f.alias = std::move(first);
        sel.f.name = name();
      } else {
        sel.f.name = std::move(first);
      }
      if (peek('(')) sel.f.arguments = arguments(depth);
      directives(depth);
      if (peek('{')) sel.children = selection_set(depth + 1);
      out.push_back(std::move(sel));
    }
    expect('}');
    return out;
  }

  std::vector<field> expand(const raw_selections& raw, std::set<std::string>& visiting, int depth) {
    depth_check(depth);
    std::vector<field> out;
    for (const auto& sel : raw) {
      if (!sel.spread.empty()) {
        auto it = fragments_.find(sel.spread);
        if (it == fragments_.end()) fail("unknown fragment \"" + sel.spread + "\"");
        if (!visiting.insert(sel.spread).second) fail("fragment \"" + sel.spread + "\" spreads itself");
        for (auto& f : expand(it->second, visiting, depth + 1)) out.push_back(std::move(f));
        visiting.erase(sel.spread);
      } else if (sel.inline_fragment) {
        for (auto& f : expand(sel.children, visiting, depth + 1)) out.push_back(std::move(f));
      } else {
        field f = sel.f;
        f.selections = expand(sel.children, visiting, depth + 1);
        out.push_back(std::move(f));
      }
    }
    return out;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  int max_depth_;
  std::map<std::string, raw_selections> fragments_;
};

}  // namespace

const operation* document::find(const std::string& name) const {
  if (name.empty()) return operations.size() == 1 ? &operations.front() : nullptr;
  for (const auto& op : operations)
    if (op.name == name) return &op;
  return nullptr;
}

parse_result parse(std::string_view text, int max_depth) {
  parse_result out;
  try {
    out.doc = parser(text, max_depth).run();
  } catch (const parse_failure& e) {
    out.error = "at offset " + std::to_string(e.offset) + ": " + e.what();
  }
  return out;
}

nlohmann::json resolve(const nlohmann::json& value, const nlohmann::json& variables) {
  if (value.is_object()) {
    if (value.size() == 1 && value.contains("$variable") && value.at("$variable").is_string()) {
      const auto& name = value.at("$variable").get_ref<const std::string&>();
      return variables.is_object() && variables.contains(name) ? variables.at(name) : nlohmann::json(nullptr);
    }
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [k, v] : value.items()) out[k] = resolve(v, variables);
    return out;
  }
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : value) out.push_back(resolve(v, variables));
    return out;
  }
  return value;
}

nlohmann::json select(const nlohmann::json& data, const std::vector<field>& selections) {
  if (data.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : data) out.push_back(select(e, selections));
    return out;
  }
  if (!data.is_object() || selections.empty()) return data;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& f : selections) {
    if (f.name == "__typename") continue;
    const auto it = data.find(f.name);
    out[f.response_key()] = it != data.end() ? select(*it, f.selections) : nlohmann::json(nullptr);
  }
  return out;
}

}  // namespace neograde::graphql
