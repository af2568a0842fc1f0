#include <neograde/clients/run_names.hpp>

#include <random>

namespace neograde {
namespace {
constexpr std::string_view tool = "neograde";  // the tag of a name no run gave
constexpr std::string_view root = "neograde-";
constexpr std::size_t id_length = 8;
bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
}  // namespace

std::string new_run_id() {
  std::random_device rd;
  std::string id;
  for (std::size_t i = 0; i < id_length; ++i) id += "0123456789abcdef"[rd() % 16];
  return id;
}

std::string run_tag(std::string_view run_id) { return std::string(root) + std::string(run_id); }

std::string run_name_prefix(std::string_view run_id) { return run_tag(run_id) + "-"; }

std::string run_tag_of(std::string_view name) {
  const auto end = name.starts_with(root) ? name.find('-', root.size()) : std::string_view::npos;
  return std::string(end == std::string_view::npos ? tool : name.substr(0, end));
}

bool is_run_name(std::string_view name) {
  if (!name.starts_with(root) || name.size() < root.size() + id_length + 2) return false;
  for (std::size_t i = root.size(); i < root.size() + id_length; ++i)
    if (!is_hex(name[i])) return false;
  return name[root.size() + id_length] == '-';
}

}  // namespace neograde
