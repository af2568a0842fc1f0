// Oracle: any bytes read as a neograde-gpu-smoke record (what `--regrade` reads, and what an
// instance sends back to --remote-exec) are refused with a JSON error or graded without
// crashing, against the ordered SKU and against none; the graded document reads back as the
// same record and grades the same. Any JSON value read as a SKU is accepted or refused with
// sku_error, never anything else.
#include "support.hpp"

#include <neograde/gpu_smoke/verdict.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace neograde::gpu_smoke;
  using nlohmann::json;
  const auto doc = json::parse(neograde::fuzz_support::as_text(data, size), nullptr, false);
  if (doc.is_discarded()) return 0;
  try {
    (void)parse_sku(doc);
  } catch (const sku_error&) {}
  node_record node;
  try {
    node = doc.get<node_record>();
  } catch (const json::exception&) {
    return 0;
  }
  for (const expectation& e : {expectation{}, expectation{"h100-sxm5-80gb", 8}}) {
    const auto v = grade_node(node, catalogue::builtin(), e);
    NEOGRADE_ORACLE(v.status == "pass" || v.status == "fail" || v.status == "no_gpu");
    const auto graded = to_document(node, e, v);
    (void)summary_text(node, v);
    const auto again = graded.get<node_record>();
    NEOGRADE_ORACLE(json(again) == json(node));
    const auto v2 = grade_node(again, catalogue::builtin(), e);
    NEOGRADE_ORACLE(v2.status == v.status && v2.checks.size() == v.checks.size());
  }
  return 0;
}
