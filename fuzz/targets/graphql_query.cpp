// Oracle: any text given as a GraphQL request document (what a client posts to an emulator) is
// parsed or refused with an error that says where, without crashing or recursing without bound;
// a parsed document's fields all have names, and resolving and selecting with it never throws.
#include "support.hpp"

#include <neograde/core/graphql.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace neograde;
  const auto text = fuzz_support::as_text(data, size);
  auto r = graphql::parse(text);
  NEOGRADE_ORACLE(r.doc.has_value() != !r.error.empty());
  if (!r.doc) {
    NEOGRADE_ORACLE(r.error.rfind("at offset ", 0) == 0);
    return 0;
  }
  NEOGRADE_ORACLE(!r.doc->operations.empty());
  const nlohmann::json variables = {{"input", {{"id", "x"}}}, {"n", 1}};
  const nlohmann::json sample = {{"id", "p"}, {"machine", {{"gpuTypeId", "A40"}}}, {"pods", nlohmann::json::array({{{"id", "q"}}})}};
  for (const auto& op : r.doc->operations)
    for (const auto& f : op.selections) {
      NEOGRADE_ORACLE(!f.name.empty());
      (void)graphql::resolve(f.arguments, variables);
      (void)graphql::select(sample, f.selections);
    }
  return 0;
}
