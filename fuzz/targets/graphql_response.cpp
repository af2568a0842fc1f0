// Oracle: a GraphQL answer (RunPod's), whatever its shape, is read without crashing or throwing;
// a body whose "errors" member is a non-empty array is never taken for success, whatever its
// status; extraction of pods, GPU types and launched ids from any "data" is safe.
#include "support.hpp"

#include <neograde/clients/provider_client.hpp>
#include <neograde/core/json_util.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace neograde;
  if (size < 1) return 0;
  const auto& spec = fuzz_support::spec_named("runpod-graphql");
  auto it = spec.operations.begin();
  std::advance(it, data[0] % spec.operations.size());
  const auto& op = it->second;

  http::response r;
  r.status = 200;
  r.headers = {{"Content-Type", "application/json"}};
  r.body.assign(fuzz_support::as_text(data + 1, size - 1));
  auto result = interpret_response(spec, &op, r);
  if (result.json && result.json->is_object()) {
    auto errors = result.json->find("errors");
    if (errors != result.json->end() && errors->is_array() && !errors->empty()) NEOGRADE_ORACLE(!result.success);
  }
  auto& client = fuzz_support::client_named("runpod-graphql");
  (void)client.launched_id(result, "");
  if (result.json && op.items) {
    for (const auto& obj : client.collection(*result.json, op)) {
      (void)client.to_instance(obj);
      (void)client.to_offers(obj);
    }
  }
  if (result.json && op.item)
    if (const auto* one = find_pointer(*result.json, *op.item)) (void)client.to_instance(*one);
  return 0;
}
