#pragma once
// Plain HTTP messages, as clients send and receive them and the emulator answers them: no
// transport here (the Beast client is neograde/clients/http.hpp).

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace neograde {

using header_list = std::vector<std::pair<std::string, std::string>>;

}  // namespace neograde

namespace neograde::http {

struct request {
  std::string method = "GET";
  std::string url;  // absolute (http://host:port/path?query); origin-form for the emulator
  header_list headers;
  std::string body;
};

struct response {
  int status = 0;
  header_list headers;
  std::string body;
  // First value of a header, case-insensitively; empty when absent.
  [[nodiscard]] std::string header(std::string_view name) const;
};

}  // namespace neograde::http
