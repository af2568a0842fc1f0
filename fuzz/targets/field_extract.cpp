// Oracle: mapping any response body onto canonical types (instances, offers, SSH keys, launched
// ids, collections) through any spec never crashes or throws, and what is extracted is
// consistent: a collection has no more items than the body has values, an instance's canonical
// state is the spec's mapping of its provider status word.
#include "support.hpp"

#include <neograde/clients/provider_client.hpp>
#include <neograde/core/json_util.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace neograde;
  if (size < 2) return 0;
  const auto& spec = fuzz_support::spec(data[0]);
  auto& client = fuzz_support::client(data[0]);
  const auto& ops = spec.operations;
  auto it = ops.begin();
  std::advance(it, data[1] % ops.size());
  const auto& op = it->second;

  http::response r;
  r.status = op.success_status.empty() ? 200 : op.success_status.front();
  r.headers = {{"Content-Type", "application/json"}};
  r.body.assign(fuzz_support::as_text(data + 2, size - 2));
  auto result = interpret_response(spec, &op, r);
  NEOGRADE_ORACLE(result.response.has_value());
  NEOGRADE_ORACLE(result.success == !result.error.has_value());

  (void)client.launched_id(result, "client-chosen");
  if (!result.json) return 0;
  const auto& doc = *result.json;
  std::vector<nlohmann::json> objects;
  if (op.items) {
    objects = client.collection(doc, op);
    if (const auto* at = find_pointer(doc, *op.items); at != nullptr && (at->is_array() || at->is_object()))
      NEOGRADE_ORACLE(objects.size() <= at->size());
  }
  if (op.item) {
    if (const auto* one = find_pointer(doc, *op.item)) objects.push_back(*one);
  }
  objects.push_back(doc);
  for (const auto& obj : objects) {
    auto inst = client.to_instance(obj);
    NEOGRADE_ORACLE(inst.state == spec.canonical_state(inst.provider_status));
    (void)client.to_offers(obj);
    (void)client.to_ssh_key(obj, operation_id::ssh_keys_list);
  }
  return 0;
}
