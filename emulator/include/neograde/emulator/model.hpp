#pragma once
// The emulated provider: accounts, instances, capacity and SSH keys, answering requests in the
// provider's own format as its spec declares it. Transport-free, so it is tested directly.

#include <neograde/core/http_message.hpp>
#include <neograde/core/spec.hpp>
#include <neograde/emulator/quirks.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace neograde::emulator {

using clock = std::chrono::steady_clock;

struct model_options {
  std::vector<std::string> api_keys;  // each key is one isolated account
  quirk_set quirks;
  double time_scale = 1.0;  // multiplies every delay (boot, terminate); 0.01 in tests
  bool rate_limit = true;
  // A HEAD answer carries the Content-Length its GET would have, and no content (RFC 9110
  // §9.3.2, §8.6), as nginx, Apache and most frameworks send it; false: no Content-Length.
  bool head_content_length = true;
  // The address running instances report; empty: one per instance from 198.51.100.0/24 (RFC
  // 5737, reaches nothing). Tests point it at a local sshd for --remote-exec.
  std::string instance_address;
  // The SSH port and user running instances report through the spec's `ssh` section (each
  // provider's own fields: RunPod's ssh.direct and runtime ports, Vast.ai's ssh_port, Prime
  // Intellect's sshConnection, Spheron's sshPort and user); 0 and "": the spec's defaults.
  int instance_ssh_port = 0;
  std::string instance_ssh_user;
  std::function<clock::time_point()> now;  // defaults to clock::now
};

// n fresh API keys in the form the spec's first auth scheme takes ("id:secret" for OAuth2
// client credentials, "access:base64url-secret" for HMAC), each starting with `prefix`.
[[nodiscard]] std::vector<std::string> make_api_keys(const provider_spec& spec, std::size_t n, const std::string& prefix = "emu");

class provider_model {
 public:
  provider_model(const provider_spec& spec, model_options options);
  ~provider_model();
  provider_model(const provider_model&) = delete;
  provider_model& operator=(const provider_model&) = delete;

  // Answers one request; `req.url` is the origin-form target ("/api/v1/instances?x=1").
  // Thread-safe.
  [[nodiscard]] http::response handle(const http::request& req);

  // The path prefix the API lives under, from the spec's base URL ("/api/v1").
  [[nodiscard]] const std::string& base_path() const;
  // Instances not yet terminated, over all accounts (the leak check of tests).
  [[nodiscard]] std::size_t live_instances() const;
  // Instances ever launched, terminated ones included (did a run create anything at all?).
  [[nodiscard]] std::size_t instances_created() const;
  // Authenticated requests to an operation that creates (launch, SSH key add), answered or
  // refused (a body refused as invalid included): zero after a read-only audit.
  [[nodiscard]] std::size_t create_requests() const;
  // SSH keys ever added, over all accounts.
  [[nodiscard]] std::size_t ssh_keys_created() const;
  [[nodiscard]] const provider_spec& spec() const;
  [[nodiscard]] const model_options& options() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace neograde::emulator
