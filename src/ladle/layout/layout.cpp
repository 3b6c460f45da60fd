#include "ladle/layout/layout.hpp"

#include <array>
#include <string>

#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle {

namespace {

template <typename Enum, size_t N>
Enum parse_enum(std::string_view what, std::string_view name, const std::array<Enum, N>& values) {
  std::vector<std::string> names;
  for (Enum value : values) {
    names.emplace_back(to_string(value));
    if (name == names.back()) return value;
  }
  throw_usage("unknown {} '{}'{}; expected one of: {}", what, name, util::did_you_mean(name, names),
              util::join(names, ", "));
}

}  // namespace

const char* to_string(RecomputeGranularity value) {
  switch (value) {
    case RecomputeGranularity::none: return "none";
    case RecomputeGranularity::selective: return "selective";
    case RecomputeGranularity::full: return "full";
  }
  return "none";
}

const char* to_string(RecomputeMethod value) {
  return value == RecomputeMethod::block ? "block" : "uniform";
}

const char* to_string(MoeDispatcher value) {
  switch (value) {
    case MoeDispatcher::alltoall: return "alltoall";
    case MoeDispatcher::allgather: return "allgather";
    case MoeDispatcher::flex: return "flex";
  }
  return "alltoall";
}

const char* to_string(StateDtype value) {
  switch (value) {
    case StateDtype::fp32: return "fp32";
    case StateDtype::bf16: return "bf16";
    case StateDtype::fp16: return "fp16";
    case StateDtype::fp8: return "fp8";
  }
  return "fp32";
}

RecomputeGranularity parse_recompute_granularity(std::string_view name) {
  return parse_enum("recompute granularity", name,
                    std::array{RecomputeGranularity::none, RecomputeGranularity::selective,
                               RecomputeGranularity::full});
}

RecomputeMethod parse_recompute_method(std::string_view name) {
  return parse_enum("recompute method", name,
                    std::array{RecomputeMethod::uniform, RecomputeMethod::block});
}

MoeDispatcher parse_moe_dispatcher(std::string_view name) {
  return parse_enum("dispatcher", name,
                    std::array{MoeDispatcher::alltoall, MoeDispatcher::allgather, MoeDispatcher::flex});
}

StateDtype parse_state_dtype(std::string_view name) {
  return parse_enum("state dtype", name, std::array{StateDtype::fp32, StateDtype::bf16, StateDtype::fp16, StateDtype::fp8});
}

}  // namespace ladle
