// Who owns the address: once the run's main instance runs with an address, one RDAP lookup of
// it (clients/rdap.hpp), kept as the measurement address_owner and, with --remote-exec, in the
// hardware record. The address is the SSH endpoint's host where that is an address literal (the
// machine the run reaches), else the instance's chosen address; how that was chosen among the
// addresses listed is kept as the measurement address_choice. Live runs only (IANA's bootstrap
// finds the registry), or wherever --rdap-url names the server; never with --no-rdap. A failed
// lookup is recorded, never a check's failure.

#include "context.hpp"

#include <neograde/clients/rdap.hpp>

namespace neograde::conformance::detail {
namespace {

// An IPv4 or IPv6 literal, not a host name (a marketplace's SSH proxy, ssh5.vast.ai).
bool address_literal(const std::string& h) {
  return !h.empty() && h.find_first_not_of("0123456789abcdefABCDEF.:") == std::string::npos &&
         (h.find(':') != std::string::npos || h.find_first_of("abcdefABCDEF") == std::string::npos);
}

}  // namespace

void record_address_owner(context& ctx, const instance& running) {
  if (running.ip && !running.address_choice.empty())
    ctx.measurements["address_choice"] = {{"address", *running.ip}, {"why", running.address_choice}};
  if (running.ssh)
    ctx.measurements["ssh_endpoint"] = {
        {"host", running.ssh->host}, {"port", running.ssh->port}, {"user", running.ssh->user}, {"from", running.ssh->from}};
  const auto address = running.ssh && address_literal(running.ssh->host) ? std::optional<std::string>(running.ssh->host) : running.ip;
  if (ctx.opts.rdap.disabled || !address) return;
  const bool named = !ctx.opts.rdap.url.empty();
  if (!named && (!ctx.session.live() || ctx.session.options().replay)) return;
  rdap::lookup_options o;
  o.rdap_url = ctx.opts.rdap.url;
  o.ca_file = ctx.session.options().http.extra_ca_file;
  const auto owner = rdap::lookup_ip_owner(*address, o).to_json();
  ctx.measurements["address_owner"] = owner;
  if (ctx.hardware != nullptr && ctx.hardware->is_object()) (*ctx.hardware)["address_owner"] = owner;
}

}  // namespace neograde::conformance::detail
