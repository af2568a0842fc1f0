#include <neograde/core/clock.hpp>

#include <ctime>

namespace neograde {
namespace {
std::string utc_now(const char* format) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}
}  // namespace

std::string utc_now_iso8601() { return utc_now("%Y-%m-%dT%H:%M:%SZ"); }

std::string http_date_now() { return utc_now("%a, %d %b %Y %H:%M:%S GMT"); }

}  // namespace neograde
