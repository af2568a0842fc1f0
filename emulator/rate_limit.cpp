// Rate limiting: a token bucket per credential, refilled at the spec's rate, and the headers that
// tell a client where its bucket stands.

#include "model_impl.hpp"

#include <algorithm>
#include <cmath>

namespace neograde::emulator {

// Requests per second a bucket refills with: the spec's, sped up with the time scale but at
// most 20-fold, so that a burst can still be probed.
double provider_model::impl::refill_rate() const { return emu.rate_limit->per_second / std::max(opts.time_scale, 0.05); }

// The rate-limit headers the spec declares, for a bucket with `remaining` requests left that
// is full again in `reset_s` seconds: RateLimit and RateLimit-Policy
// (draft-ietf-httpapi-ratelimit-headers, as RunPod sends them on every authenticated
// response), ratelimit-limit/-remaining/-reset (an epoch second, as DigitalOcean sends them).
// Retry-After belongs to the 429 alone.
header_list provider_model::impl::rate_headers(long remaining, long reset_s) const {
  const auto& rl = *emu.rate_limit;
  const auto limit = std::to_string(static_cast<long>(rl.burst));
  header_list h;
  if (rl.ratelimit) h.emplace_back("RateLimit", "\"burst\";r=" + std::to_string(remaining) + ";t=" + std::to_string(reset_s));
  if (rl.ratelimit_policy)
    h.emplace_back("RateLimit-Policy",
                   "\"burst\";q=" + limit + ";w=" + std::to_string(static_cast<long>(std::ceil(rl.burst / refill_rate()))));
  if (rl.ratelimit_x) {
    const auto epoch = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    h.emplace_back("ratelimit-limit", limit);
    h.emplace_back("ratelimit-remaining", std::to_string(remaining));
    h.emplace_back("ratelimit-reset", std::to_string(epoch + reset_s));
  }
  return h;
}

// Token bucket per credential: nullopt when allowed (`advertised` then holds the headers that
// tell the client where its bucket stands), else the 429 to send. With the rate limit off the
// bucket is always full.
std::optional<http::response> provider_model::impl::throttle(const http::request& req, clock::time_point now, header_list& advertised) {
  if (!emu.rate_limit) return std::nullopt;
  const auto& rl = *emu.rate_limit;
  const double burst = rl.burst;
  if (!opts.rate_limit) {
    advertised = rate_headers(static_cast<long>(burst), 0);
    return std::nullopt;
  }
  const double rate = refill_rate();
  const std::string who = header_of(req, "Authorization");
  auto [it, fresh] = buckets.try_emplace(who, bucket{burst, now});
  auto& b = it->second;
  b.tokens = std::min(burst, b.tokens + std::chrono::duration<double>(now - b.last).count() * rate);
  b.last = now;
  if (b.tokens >= 1) {
    b.tokens -= 1;
    advertised = rate_headers(static_cast<long>(b.tokens), static_cast<long>(std::ceil((burst - b.tokens) / rate)));
    return std::nullopt;
  }
  const long wait_s = static_cast<long>(std::ceil((1 - b.tokens) / rate));
  http::response r;
  if (rl.text_body || has(quirk::rate_limit_text)) {
    r.status = spec.errors.kinds.contains("rate_limited") ? spec.errors.kinds.at("rate_limited").status : 429;
    r.headers.emplace_back("Content-Type", "text/plain");
    r.body = rl.text_body.value_or("Too many requests");
  } else {
    r = error_response("rate_limited");
  }
  if (has(quirk::no_retry_after_header)) return r;
  if (rl.retry_after) r.headers.emplace_back("Retry-After", std::to_string(wait_s));
  for (auto& h : rate_headers(0, wait_s)) r.headers.push_back(std::move(h));
  return r;
}

}  // namespace neograde::emulator
