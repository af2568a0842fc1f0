// Who owns the address: once the run's main instance runs with an address, one RDAP lookup of
// it (clients/rdap.hpp), kept as the measurement address_owner and, with --remote-exec, in the
// hardware record. Live runs only (IANA's bootstrap finds the registry), or wherever --rdap-url
// names the server; never with --no-rdap. A failed lookup is recorded, never a check's failure.

#include "context.hpp"

#include <neograde/clients/rdap.hpp>

namespace neograde::conformance::detail {

void record_address_owner(context& ctx, const instance& running) {
  if (ctx.opts.rdap.disabled || !running.ip) return;
  const bool named = !ctx.opts.rdap.url.empty();
  if (!named && (!ctx.session.live() || ctx.session.options().replay)) return;
  rdap::lookup_options o;
  o.rdap_url = ctx.opts.rdap.url;
  o.ca_file = ctx.session.options().http.extra_ca_file;
  const auto owner = rdap::lookup_ip_owner(*running.ip, o).to_json();
  ctx.measurements["address_owner"] = owner;
  if (ctx.hardware != nullptr && ctx.hardware->is_object()) (*ctx.hardware)["address_owner"] = owner;
}

}  // namespace neograde::conformance::detail
