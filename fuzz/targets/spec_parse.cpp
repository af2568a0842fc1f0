// Oracle: loading a spec never crashes, throws or hangs, whatever the text. A rejected spec gets
// an error with a message; an accepted one renders every operation's path and body without
// throwing.
#include "support.hpp"

#include <neograde/core/template.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace neograde;
  auto parsed = parse_spec(fuzz_support::as_text(data, size), "fuzz.json");
  if (!parsed) {
    NEOGRADE_ORACLE(!parsed.error().message.empty());
    NEOGRADE_ORACLE(!parsed.error().what().empty());
    return 0;
  }
  const template_vars vars{{"id", "i-1"},         {"instance_type", "gpu_1x_a100"},  {"region", "us-east-1"}, {"name", "n"},
                           {"ssh_key_name", "k"}, {"public_key", "ssh-ed25519 AAAA"}};
  for (const auto& [id, op] : parsed->operations) {
    (void)render_path(op.path, vars);
    if (op.body) (void)render_body(*op.body, vars);
  }
  return 0;
}
