// Oracle: validating any provider response against the specs' response schemas never crashes or
// throws; every violation names a JSON pointer that is well-formed (empty or starting with '/').
#include "support.hpp"

#include <neograde/core/json_schema.hpp>
#include <neograde/core/json_util.hpp>

#include <vector>

namespace {
struct compiled {
  std::vector<neograde::json_schema> schemas;
};

const compiled& all() {
  static const compiled c = [] {
    compiled out;
    for (std::size_t i = 0; i < neograde::fuzz_support::spec_count(); ++i)
      for (const auto& [id, op] : neograde::fuzz_support::spec(i).operations) {
        if (op.response_schema) out.schemas.emplace_back(*op.response_schema);
        if (op.request_schema) out.schemas.emplace_back(*op.request_schema);
      }
    return out;
  }();
  return c;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace neograde;
  const auto& schemas = all().schemas;
  if (size < 1 || schemas.empty()) return 0;
  const auto& schema = schemas[data[0] % schemas.size()];
  auto doc = parse_json(fuzz_support::as_text(data + 1, size - 1));
  if (!doc) return 0;
  for (const auto& v : schema.validate(*doc)) {
    NEOGRADE_ORACLE(v.pointer.empty() || v.pointer.front() == '/');
    NEOGRADE_ORACLE(!v.message.empty());
  }
  return 0;
}
