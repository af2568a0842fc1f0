#pragma once
// neograde's embedded provider emulator: a provider_model served over HTTP or HTTPS on a
// background thread.

#include <neograde/core/http_message.hpp>
#include <neograde/emulator/model.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace neograde::emulator {

struct server_options {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;  // 0: any free port
  bool tls = false;
  std::string cert_file;  // PEM certificate (chain) and key; generated when empty
  std::string key_file;
  // Answers a request before the provider's model does (nullopt: the model answers): another
  // service on the same port, e.g. the RDAP emulator (rdap.hpp).
  std::function<std::optional<http::response>(const http::request&)> intercept;
};

class emulator {
 public:
  emulator(const provider_spec& spec, model_options model, server_options server = {});
  ~emulator();
  emulator(const emulator&) = delete;
  emulator& operator=(const emulator&) = delete;

  // Binds and starts serving; throws std::runtime_error when it cannot.
  void start();
  void stop();

  // Where clients should point: scheme, host, port and the spec's base path.
  [[nodiscard]] std::string base_url() const;
  [[nodiscard]] std::uint16_t port() const;
  // The PEM certificate clients must trust for TLS (empty without TLS).
  [[nodiscard]] const std::string& certificate_pem() const;
  [[nodiscard]] provider_model& model();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace neograde::emulator
