#include "ladle/layout/layout.hpp"

#include <iterator>
#include <vector>
#include <string>

#include "ladle/layout/knob_names.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle {

namespace {

// The value names are the knob table's (knob_names.hpp, in enum order): spelled once.
template <typename Enum, size_t N>
const char* name_of(Enum value, const std::string_view (&names)[N]) {
  const auto index = static_cast<size_t>(value);
  return index < N ? names[index].data() : names[0].data();
}

template <typename Enum, size_t N>
Enum parse_enum(std::string_view what, std::string_view name, const std::string_view (&names)[N]) {
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<Enum>(i);
  }
  const std::vector<std::string> all(std::begin(names), std::end(names));
  throw_usage("unknown {} '{}'{}; expected one of: {}", what, name, util::did_you_mean(name, all),
              util::join(all, ", "));
}

}  // namespace

const char* to_string(RecomputeGranularity value) { return name_of(value, layout::kGranularityNames); }

const char* to_string(RecomputeMethod value) { return name_of(value, layout::kRecomputeMethodNames); }

const char* to_string(MoeDispatcher value) { return name_of(value, layout::kDispatcherNames); }

const char* to_string(StateDtype value) { return name_of(value, layout::kStateDtypeNames); }

RecomputeGranularity parse_recompute_granularity(std::string_view name) {
  return parse_enum<RecomputeGranularity>("recompute granularity", name, layout::kGranularityNames);
}

RecomputeMethod parse_recompute_method(std::string_view name) {
  return parse_enum<RecomputeMethod>("recompute method", name, layout::kRecomputeMethodNames);
}

MoeDispatcher parse_moe_dispatcher(std::string_view name) {
  return parse_enum<MoeDispatcher>("dispatcher", name, layout::kDispatcherNames);
}

StateDtype parse_state_dtype(std::string_view name) {
  return parse_enum<StateDtype>("state dtype", name, layout::kStateDtypeNames);
}

}  // namespace ladle
