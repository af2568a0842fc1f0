#include <neograde/core/clock.hpp>

#include <algorithm>
#include <ctime>
#include <thread>

namespace neograde {
namespace {
std::string utc_now(const char* format, long long seconds_ago = 0) {
  std::time_t t = std::time(nullptr) - static_cast<std::time_t>(seconds_ago);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}
}  // namespace

std::string utc_now_iso8601() { return utc_now("%Y-%m-%dT%H:%M:%SZ"); }

std::string utc_iso8601_ago(long long seconds) { return utc_now("%Y-%m-%dT%H:%M:%SZ", std::max(seconds, 0LL)); }

std::string http_date_now() { return utc_now("%a, %d %b %Y %H:%M:%S GMT"); }

std::optional<long long> seconds_until_utc(const std::string& text, const char* format) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), format, &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  const std::time_t when = timegm(&tm);
  return static_cast<long long>(when) - static_cast<long long>(std::time(nullptr));
}

run_clock& real_clock() {
  struct steady final : run_clock {
    time_point now() override { return std::chrono::steady_clock::now(); }
    void sleep(std::chrono::milliseconds d) override { std::this_thread::sleep_for(d); }
  };
  static steady clock;
  return clock;
}

}  // namespace neograde
