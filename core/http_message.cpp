#include <neograde/core/http_message.hpp>

#include <neograde/core/text.hpp>

namespace neograde::http {

std::string response::header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (iequals(k, name)) return v;
  return {};
}

}  // namespace neograde::http
