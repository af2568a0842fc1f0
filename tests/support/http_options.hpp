#pragma once
// Client options for tests against loopback servers: short deadlines, retries that do not sleep.

#include <neograde/clients/http.hpp>

#include <chrono>

namespace neograde::test {

inline http::client_options fast_options() {
  using namespace std::chrono_literals;
  http::client_options o;
  o.connect_timeout = 2s;
  o.read_timeout = 2s;
  o.sleep = [](std::chrono::milliseconds) {};
  return o;
}

}  // namespace neograde::test
