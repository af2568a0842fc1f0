#include <neograde/core/text.hpp>

namespace neograde {

std::optional<std::string_view> find_any_ignoring_case(std::string_view haystack, std::span<const std::string_view> needles) {
  thread_local std::string lowered;
  lowered.resize(haystack.size());
  std::transform(haystack.begin(), haystack.end(), lowered.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
  std::optional<std::string_view> found;
  for (auto needle : needles)
    if (lowered.find(needle) != std::string::npos) {
      found = needle;
      break;
    }
  if (lowered.capacity() > 1024 * 1024) lowered = std::string();
  return found;
}

}  // namespace neograde
