#include "citations.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>

#include <nlohmann/json.hpp>

namespace neograde::test {
namespace {

// What a cited file's name ends with: the sources, documents and data files specs cite.
constexpr std::array<std::string_view, 30> file_extensions = {
    "md",  "mdx", "rst", "txt", "json", "jsonl", "yaml", "yml", "toml", "cpp", "hpp",  "h",  "hh",    "c",     "cc",
    "cxx", "cu",  "cuh", "py",  "go",   "ts",    "tsx",  "js",  "rs",   "sh",  "java", "rb", "proto", "cmake", "ipynb"};

// The project's private notes (../shared: reference notes and copied documents) are in no user's
// clone, so naming them sends a reader nowhere, even beside a public source: cite what they cite.
constexpr std::array<std::string_view, 11> private_notes = {
    "shared reference",          "../shared",           "shared/reference",        "provider-openapi/",
    "gpu-hardware.md",           "provider-apis.md",    "spec-audit.md",           "real-client-findings.md",
    "depin-and-transparency.md", "outside-findings.md", "api-testing-prior-art.md"};

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::string_view("_.~/:@#-$").find(c) != std::string_view::npos;
}

// A citation group ends at a quote (a JSON string) or the end of a sentence; a parenthesis is a
// group of its own inside the one around it. A file named in the same group as
// another repository is taken to be that repository's.
bool ends_group(std::string_view line, std::size_t i) {
  char c = line[i];
  if (c == '"') return true;
  return c == '.' && (i + 1 == line.size() || line[i + 1] == ' ');
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool is_extension(std::string_view ext) { return std::find(file_extensions.begin(), file_extensions.end(), ext) != file_extensions.end(); }

bool is_name(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '.' || c == '-'; });
}

bool is_owner(std::string_view s) {
  return !s.empty() && std::isalnum(static_cast<unsigned char>(s.front())) &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '-'; });
}

std::string_view extension(std::string_view name) {
  auto dot = name.rfind('.');
  return dot == std::string_view::npos || dot == 0 ? std::string_view{} : name.substr(dot + 1);
}

std::string_view last_segment(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// "a/b/c.ext" (optionally "./" or "../" first): a file's name, not a word or a number.
bool is_file_like(std::string_view path) {
  std::string_view rest = path;
  while (rest.substr(0, 2) == "./" || rest.substr(0, 3) == "../") rest.remove_prefix(rest[1] == '/' ? 2 : 3);
  std::size_t start = 0;
  while (true) {
    auto slash = rest.find('/', start);
    auto segment = rest.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (!is_name(segment)) return false;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  auto name = last_segment(rest);
  auto ext = extension(name);
  return name.size() > ext.size() + 1 && is_extension(ext);
}

bool is_url(std::string_view t) { return t.find("://") != std::string_view::npos || t.substr(0, 4) == "www."; }

// "docs.fluidstack.io/instances", "glennklockwood.com": a host whose last label is no file extension.
bool is_domain(std::string_view t) {
  auto host = t.substr(0, t.find('/'));
  auto dot = host.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return false;
  auto tld = host.substr(dot + 1);
  if (tld.size() < 2 || !std::all_of(tld.begin(), tld.end(), [](unsigned char c) { return std::islower(c); }) || is_extension(tld))
    return false;
  std::size_t start = 0;
  for (auto d = host.find('.'); start < host.size(); d = host.find('.', start)) {
    auto label = host.substr(start, d == std::string_view::npos ? std::string_view::npos : d - start);
    if (label.empty() || !is_owner(label)) return false;
    if (d == std::string_view::npos) break;
    start = d + 1;
  }
  return true;
}

// "owner/repo:path", "owner/repo@commit", "owner/repo#123", or "owner/repo" followed by a path
// ("skypilot-org/skypilot sky/provision/x.py"): another repository, unless "owner" is one of this
// repository's top-level folders. A bare pair of words ("POST/DELETE", "start/stop") is not one.
bool is_other_repository(std::string_view t, std::string_view next, const repository_index& repo) {
  auto slash = t.find('/');
  if (slash == std::string_view::npos) return false;
  auto owner = t.substr(0, slash);
  auto rest = t.substr(slash + 1);
  auto end = rest.find_first_of(":@#");
  auto name = rest.substr(0, end);
  if (!is_owner(owner) || !is_name(name) || is_extension(extension(name))) return false;
  if (repo.dirs.count(std::string(owner)) != 0) return false;
  if (end != std::string_view::npos) return true;
  auto path = next.substr(0, next.find_first_of(":@#"));
  return !path.empty() && std::isalnum(static_cast<unsigned char>(path.front())) &&
         (path.find('/') != std::string_view::npos || is_file_like(path));
}

// "path@abc1234": a path pinned to a commit of another repository.
bool has_commit_pin(std::string_view t) {
  for (auto at = t.find('@'); at != std::string_view::npos; at = t.find('@', at + 1)) {
    std::size_t n = 0;
    while (at + 1 + n < t.size() && std::isxdigit(static_cast<unsigned char>(t[at + 1 + n]))) ++n;
    bool ends = at + 1 + n == t.size() || !std::isalnum(static_cast<unsigned char>(t[at + 1 + n]));
    if (n >= 7 && n <= 40 && ends) return true;
  }
  return false;
}

struct token {
  std::string_view text;
  std::size_t column;
  bool in_code;
  bool called;  // followed by "(": code such as response.json(), not a file
};

// "specs/providers/x.json", "tests/": a path that starts in one of this repository's top-level folders.
bool is_repository_path(std::string_view path, const repository_index& repo) {
  auto slash = path.find('/');
  return slash != std::string_view::npos && slash > 0 && repo.dirs.count(std::string(path.substr(0, slash))) != 0;
}

void judge_group(const std::vector<token>& group, std::string_view file, std::size_t line, const repository_index& repo,
                 std::vector<citation_offence>& out) {
  for (std::size_t i = 0; i < group.size(); ++i) {
    auto t = group[i].text;
    auto next = i + 1 < group.size() ? group[i + 1].text : std::string_view{};
    if (is_url(t) || is_domain(t) || is_other_repository(t, next, repo) || has_commit_pin(t)) return;
  }
  for (const auto& t : group) {
    auto cited = t.text;
    while (!cited.empty() && std::string_view(".,:;#@-").find(cited.back()) != std::string_view::npos) cited.remove_suffix(1);
    auto base = cited.substr(0, cited.find_first_of(":#@"));
    if (t.called || base.empty() || base.front() == '/' || base.front() == '~' || base.front() == '$') continue;
    if (repo.names.contains(std::string(base)) ||
        (base.ends_with("'s") && repo.names.contains(std::string(base.substr(0, base.size() - 2)))))
      continue;  // a provider's name (Latitude.sh), not a file
    auto low = lower(base);
    if (std::any_of(private_notes.begin(), private_notes.end(), [&](std::string_view n) { return low.find(n) != std::string::npos; }))
      continue;  // reported as a private note
    bool judged = is_repository_path(base, repo) || (!t.in_code && is_file_like(base));
    if (judged && !repo.has(base, file))
      out.push_back({std::string(file), line, t.column, std::string(cited), "names no file of this repository"});
  }
}

}  // namespace

repository_index repository_index::of(const std::filesystem::path& root) {
  std::set<std::string> ignored{".git"};
  std::ifstream gitignore(root / ".gitignore");
  for (std::string l; std::getline(gitignore, l);)
    if (l.size() > 2 && l.front() == '/' && l.back() == '/') ignored.insert(l.substr(1, l.size() - 2));
  repository_index index;
  for (auto it = std::filesystem::recursive_directory_iterator(root); it != std::filesystem::recursive_directory_iterator(); ++it) {
    auto rel = it->path().lexically_relative(root).generic_string();
    if (it.depth() == 0 && ignored.count(rel) != 0) {
      it.disable_recursion_pending();
      continue;
    }
    (it->is_directory() ? index.dirs : index.files).insert(rel);
  }
  const auto specs = root / "specs" / "providers";
  if (std::filesystem::is_directory(specs))
    for (const auto& e : std::filesystem::directory_iterator(specs)) {
      std::ifstream in(e.path());
      const auto spec = nlohmann::json::parse(in, nullptr, false);
      const auto provider = spec.is_object() ? spec.value("provider", nlohmann::json::object()) : nlohmann::json::object();
      if (provider.is_object() && provider.contains("display_name") && provider["display_name"].is_string())
        index.names.insert(provider["display_name"].get<std::string>());
    }
  return index;
}

bool repository_index::has(std::string_view path, std::string_view citing) const {
  std::string p(path);
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  auto exists = [&](const std::string& q) { return files.count(q) != 0 || dirs.count(q) != 0; };
  if (p.rfind("./", 0) == 0 || p.rfind("../", 0) == 0) {
    auto joined = (std::filesystem::path(std::string(citing)).parent_path() / p).lexically_normal().generic_string();
    return joined.rfind("..", 0) != 0 && exists(joined);
  }
  if (exists(p)) return true;
  auto tail = "/" + p;
  auto ends_with = [&](const std::string& q) {
    return q.size() >= tail.size() && q.compare(q.size() - tail.size(), tail.size(), tail) == 0;
  };
  // A header or source named without its extension ("core/graphql" for core/.../graphql.hpp).
  auto named_without_extension = [&](const std::string& q) {
    auto dot = q.rfind('.');
    return extension(last_segment(p)).empty() && dot != std::string::npos && dot > q.rfind('/') + 1 && ends_with(q.substr(0, dot));
  };
  return std::any_of(files.begin(), files.end(), ends_with) || std::any_of(dirs.begin(), dirs.end(), ends_with) ||
         std::any_of(files.begin(), files.end(), named_without_extension);
}

std::vector<citation_offence> unopenable_citations(std::string_view text, std::string_view file, const repository_index& repo) {
  std::vector<citation_offence> out;
  bool markdown = file.size() >= 3 && file.substr(file.size() - 3) == ".md";
  bool in_fence = false;
  std::size_t line_no = 0;
  for (std::size_t pos = 0; pos <= text.size();) {
    auto nl = text.find('\n', pos);
    auto line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;

    auto low = lower(line);
    std::size_t reported_to = 0;
    for (std::size_t i = 0; i < low.size(); ++i)
      for (auto n : private_notes)
        if (i >= reported_to && low.compare(i, n.size(), n) == 0) {
          out.push_back({std::string(file), line_no, i + 1, std::string(line.substr(i, n.size())),
                         "names the project's private notes (../shared), which no clone has: cite the public source they give"});
          reported_to = i + n.size();
        }

    auto first = line.find_first_not_of(" \t");
    bool fence_line = markdown && first != std::string_view::npos && line.substr(first, 3) == "```";
    if (fence_line) in_fence = !in_fence;
    bool in_code = in_fence || fence_line;
    if (line.substr(first == std::string_view::npos ? 0 : first, 10) == "\"$schema\":") continue;  // a schema pointer, no citation
    std::vector<std::vector<token>> groups(1);                                                     // the open parentheses, innermost last
    for (std::size_t i = 0; i < line.size();) {
      auto& group = groups.back();
      if (markdown && line[i] == '`' && !in_fence && !fence_line) {
        in_code = !in_code;
        ++i;
      } else if (line[i] == '(') {
        groups.emplace_back();
        ++i;
      } else if (line[i] == ')' && groups.size() > 1) {
        judge_group(group, file, line_no, repo, out);
        groups.pop_back();
        ++i;
      } else if (ends_group(line, i)) {
        for (auto& g : groups) {
          judge_group(g, file, line_no, repo, out);
          g.clear();
        }
        groups.resize(1);
        ++i;
      } else if (is_token_char(line[i])) {
        auto start = i;
        while (i < line.size() && is_token_char(line[i]) && !(line[i] == '.' && ends_group(line, i))) ++i;
        group.push_back({line.substr(start, i - start), start + 1, in_code, i < line.size() && line[i] == '('});
      } else {
        ++i;
      }
    }
    for (const auto& g : groups) judge_group(g, file, line_no, repo, out);
  }
  return out;
}

}  // namespace neograde::test
