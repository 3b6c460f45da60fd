#pragma once
// knob_names.hpp: the value names of the layout knobs' choices and sets, in enum order
// (layout.hpp). knobs.hpp reads them, and so do the recipe's field table (recipe_fields.hpp) and
// schema, so a value the layout accepts is a value the recipe accepts. No dependencies.

#include <string_view>

namespace ladle::layout {

inline constexpr std::string_view kGranularityNames[] = {"none", "selective", "full"};
inline constexpr std::string_view kRecomputeMethodNames[] = {"uniform", "block"};
inline constexpr std::string_view kDispatcherNames[] = {"alltoall", "allgather", "flex"};
inline constexpr std::string_view kStateDtypeNames[] = {"fp32", "bf16", "fp16", "fp8"};
inline constexpr std::string_view kMainGradsNames[] = {"fp32", "bf16"};
inline constexpr std::string_view kMainParamsNames[] = {"fp32", "fp16"};
inline constexpr std::string_view kFp8FormatNames[] = {"none", "e4m3", "hybrid"};
inline constexpr std::string_view kFp8RecipeNames[] = {"delayed", "tensorwise", "blockwise",
                                                       "mxfp8"};
inline constexpr std::string_view kFp8AmaxAlgoNames[] = {"most_recent", "max"};
inline constexpr std::string_view kFp4FormatNames[] = {"none", "e2m1"};
inline constexpr std::string_view kFp4RecipeNames[] = {"nvfp4", "custom", "mxfp4"};
inline constexpr std::string_view kFlexBackendNames[] = {"deepep", "hybridep", "ncclep"};
inline constexpr std::string_view kRouterDtypeNames[] = {"none", "fp32", "fp64"};
inline constexpr std::string_view kCudaGraphNames[] = {"none", "local", "transformer_engine",
                                                       "full_iteration"};
inline constexpr std::string_view kFsdpNames[] = {"none", "megatron", "torch"};
inline constexpr std::string_view kFsdpShardingNames[] = {"no_shard", "optim", "optim_grads",
                                                          "optim_grads_params"};
inline constexpr std::string_view kCrossEntropyImplNames[] = {"native", "te"};
inline constexpr std::string_view kCpCommNames[] = {"p2p", "a2a", "allgather", "a2a+p2p"};
inline constexpr std::string_view kPipelineScheduleNames[] = {"1f1b", "dualpipe"};
inline constexpr std::string_view kRecomputeModuleNames[] = {
    "core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe", "shared_experts"};
inline constexpr std::string_view kGraphModuleNames[] = {
    "attn", "mlp", "moe", "moe_router", "moe_preprocess", "mamba"};
inline constexpr std::string_view kOffloadModuleNames[] = {
    "attn_norm", "qkv_linear", "core_attn", "attn_proj",
    "mlp_norm",  "expert_fc1", "moe_act",   "fused_group_mlp"};

}  // namespace ladle::layout
