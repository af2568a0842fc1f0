#pragma once
// A non-loopback IPv4 address of this machine: tests bind the emulator there to play a remote
// provider (where nothing may be created without the live opt-in).

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <optional>
#include <string>

namespace neograde::test {

inline std::optional<std::string> outside_address() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return std::nullopt;
  std::optional<std::string> found;
  for (auto* a = list; a != nullptr && !found; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    char buf[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, buf, sizeof buf);
    if (std::string(buf).rfind("127.", 0) != 0) found = buf;
  }
  freeifaddrs(list);
  return found;
}

}  // namespace neograde::test
