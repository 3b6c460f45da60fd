// memory_activations.cpp: the activations one layer keeps for backward (see memory_activations.hpp).
#include "ladle/plan/memory_activations.hpp"

#include <algorithm>

#include "ladle/plan/cost_compressed_attention.hpp"
#include "ladle/plan/cost_linear_attention.hpp"
#include "ladle/plan/cost_mamba.hpp"

namespace ladle::plan::mem {

// Activation bytes one layer of `kind` keeps per token of the microbatch (per CP rank), term by
// term as Megatron-LM's layers save them for backward (megatron/core/transformer/*; the counts
// follow Korthikanti et al. 2022, arXiv 2205.05198, section 4, without dropout masks: every
// recipe ladle writes trains without dropout).
double layer_activation_bytes(const ModelCosts& c, const LayerKind& kind, const Layout& l, const Storage& st,
                              double imbalance) {
  const double tp = static_cast<double>(l.tp);
  const double sp_div = l.sp ? tp : 1.0;
  // PyTorch's DTensor TP saves each column-parallel matmul's all-gathered input (the whole
  // sequence); Transformer Engine keeps the s/TP shard and gathers it again in backward. Under an
  // FP8 or FP4 recipe that shard is the quantized norm output, not the gathered tensor: TE frees
  // the gathered input after the forward GEMM, saves ln_out (delayed and current scaling: the
  // row-wise FP8 data it re-gathers; MXFP8 and blockwise: the column-wise copy only, row-wise
  // usage dropped) and re-gathers it with the input quantizer for the weight gradient
  // (NVIDIA/TransformerEngine @ d0067d0da6cb01811b8072a7d304f0e00344ce2b,
  // transformer_engine/pytorch/module/layernorm_linear.py: forward, clear_tensor_data(ln_out_total)
  // and ln_out.update_usage(rowwise_usage=False); backward, ctx.ln_out_needs_gather): one quantized
  // copy of the shard, st.linear_input bytes an element over sp_div.
  const double gathered_div = st.torch ? 1.0 : sp_div;
  const double h = static_cast<double>(c.hidden);
  const double heads = static_cast<double>(c.heads);
  const double lin = st.linear_input / kBf16;  // a linear input's bytes in BF16 elements
  // --recompute-granularity selective --recompute-modules (transformer_config.py): each module
  // named is rerun in backward, so what only it needs is not kept. core_attn saves nothing more
  // under flash attention, which keeps no score matrix.
  const bool selective = l.recompute == RecomputeGranularity::selective;
  const auto recomputed = [&](RecomputeModule m) { return selective && has(l.recompute_modules, m); };
  const double norm_out = recomputed(RecomputeModule::layernorm) ? 0.0 : 1.0;  // the norms' outputs
  const double up_proj = recomputed(RecomputeModule::mla_up_proj) ? 0.0 : 1.0;  // MLA q, k, v
  // The two norms' inputs (the residual stream); one in a layer of a single block (Nemotron-H).
  double elements = (kind.mixer == MixerKind::none || !kind.has_mlp ? 1 : 2) * h / sp_div;
  // Flash attention's saved q, k, v: BF16, or FP8 under fp8_dot_product_attention (Transformer
  // Engine's FusedAttention saves its FP8 q, k, v and output; the projection keeps the BF16
  // output it is given, set_save_original_input).
  const double attn_in = st.fp8_attention ? 0.5 : 1.0;
  // The attention output, the output projection's input: BF16, or in DeepSeek's trainer under FP8
  // one E5M6 copy that serves the attention's backward and the projection's weight gradient both
  // ("We adopt a customized E5M6 data format exclusively for these activations", DeepSeek-V3
  // report, section 3.3.3).
  const double attn_out = st.deepseek && st.fp8 ? kDeepSeekE5m6Tile / kBf16 : 1.0;
  if (kind.mixer == MixerKind::mamba) {
    elements += mamba_activation_elements(c, tp, norm_out * lin * h / gathered_div, lin);
  } else if (kind.mixer == MixerKind::linear) {
    elements += linear_attention_activation_elements(c, tp, norm_out * lin * h / gathered_div, lin);
  } else if (kind.mixer == MixerKind::none) {
  } else if (c.csa) {  // deepseek_v4 (cost_compressed_attention)
    elements += compressed_attention_activation_elements(c, kind, tp, sp_div, norm_out * lin * h / sp_div, lin);
  } else if (c.mla) {
    // multi_latent_attention.py: the down-projections are replicated linears that run on the
    // s/TP tokens of the sequence-parallel region, so their input, outputs and the latent norms'
    // outputs are all s/TP under SP; the up-projections' inputs are gathered again in backward.
    elements += norm_out * lin * h / sp_div;                                                  // down-projection input
    elements += static_cast<double>(c.q_lora_rank + c.kv_lora_rank + c.rope_dim) / sp_div;  // down outputs
    // The latent norms' outputs: the up-projections' (quantized) inputs, or under mla_up_proj
    // the BF16 inputs the checkpoint keeps (CheckpointWithoutOutput over
    // qkv_up_proj_and_rope_apply, which starts after q_layernorm and kv_layernorm).
    // DeepSeek's trainer recomputes "all RMSNorm operations and MLA up-projections during
    // back-propagation, thereby eliminating the need to persistently store their output
    // activations" (DeepSeek-V3 report, section 3.2.3): with both recomputed it reruns the latent
    // norms from their inputs (the down outputs above) and keeps no normed latent.
    const double latent = up_proj > 0 ? lin : st.deepseek && norm_out == 0 ? 0.0 : 1.0;
    elements += latent * static_cast<double>(c.q_lora_rank + c.kv_lora_rank) / sp_div;  // normed latents
    elements += up_proj * attn_in * heads * static_cast<double>(c.qk_head_dim) / tp;                  // q
    elements += up_proj * attn_in * heads * static_cast<double>(c.qk_head_dim + c.v_head_dim) / tp;   // k, v
    elements += attn_out * heads * static_cast<double>(c.v_head_dim) / tp;                  // attention output
    if (st.fp8_attention) elements += 0.5 * heads * static_cast<double>(c.v_head_dim) / tp;  // its FP8 copy
    if (st.fp8_second_copy) elements += lin * heads * static_cast<double>(c.v_head_dim) / tp;  // its FP8 copy
  } else {
    // The layer's own geometry (per-layer attention geometry: step3p7, gemma4); values are
    // value-head wide (MiMo-V2-Flash: 128 beside q/k's 192), as is the attention output.
    const double q_heads = static_cast<double>(kind.heads > 0 ? kind.heads : c.heads);
    const double d = static_cast<double>(kind.head_dim > 0 ? kind.head_dim : c.head_dim);
    const double dv = static_cast<double>(kind.v_head_dim > 0 ? kind.v_head_dim : c.v_head_dim);
    const double kv = static_cast<double>(kind.kv_heads > 0 ? kind.kv_heads : c.kv_heads);
    elements += norm_out * lin * h / gathered_div;             // qkv input
    elements += attn_in * (q_heads * d + kv * (d + dv)) / tp;  // q, k, v (flash attention's inputs)
    if (c.qk_norm) elements += (q_heads + kv) * d / tp;        // q/k-norm inputs (Qwen3's per-head RMSNorm)
    elements += attn_out * q_heads * dv / tp;                  // attention output (the projection's input)
    if (st.fp8_attention) elements += 0.5 * q_heads * dv / tp;  // the FP8 output the attention saves
    if (st.fp8_second_copy) elements += lin * q_heads * dv / tp;  // the projection's FP8 copy of it
  }
  if (kind.indexer) elements += static_cast<double>(c.index_heads * c.index_head_dim + c.index_head_dim);
  elements += hyper_connection_activation_elements(c, sp_div);  // deepseek_v4's hc_mult copies
  double bytes = elements * kBf16;
  // SwiGLU's saved input, fc1's output: BF16, or E4M3 under activation_func_fp8_input_store (the
  // fused bias_swiglu and weighted_bias_swiglu cast what they save to float8_e4m3fn with no scale,
  // fusions/fused_bias_swiglu.py; the BF16 fc1 output is then freed, nothing else keeps it).
  // Only the fused kernel stores FP8: unfused (swiglu_fusion=off), autograd keeps fc1's BF16
  // output.
  const double swiglu_input = l.act_fp8_store && l.swiglu_fusion ? 1.0 : kBf16;
  if (!kind.has_mlp) return bytes;
  // The unfused gated activation (swiglu_fusion=off, Megatron-LM --no-bias-swiglu-fusion) runs
  // glu() op by op (megatron/core/transformer/mlp.py and moe/experts.py at d98e8a64:
  // chunk(fc1_out, 2), activation_func(x_glu) * (x_linear + glu_linear_offset)), and autograd
  // keeps what each op's backward reads (pytorch/pytorch tools/autograd/derivatives.yaml: chunk
  // and an add of a scalar save nothing; silu saves its input; mul saves both operands): silu's
  // input is a view of fc1's output, which stays as the fused kernel's saved input does, and the
  // product keeps silu's output and x_linear + offset, two more BF16 tensors of the half width.
  // The routed experts then multiply by the routing probabilities op by op (experts.py,
  // bias_act_func: intermediate_parallel * permuted_probs), and that mul keeps the glu's output,
  // a third. The fused bias_swiglu / weighted_bias_swiglu keep fc1's output alone. Not counted:
  // a clamped GLU's clamp outputs (gpt-oss) and non-SiLU activations' own intermediates.
  const bool unfused_glu = c.gated_mlp && !l.swiglu_fusion;
  const double glu_extra = unfused_glu ? 2 * kBf16 : 0.0;       // per element of the half width
  const double routed_glu_extra = unfused_glu ? 3 * kBf16 : 0.0;  // and for each routed copy
  const double ffn = static_cast<double>(kind.ffn > 0 ? kind.ffn : c.ffn);
  const double mlp_input = norm_out * st.linear_input * h / gathered_div;  // fc1's input, the norm's output
  if (!kind.moe) {
    // Dense MLP: fc1 input, fc1 output (SwiGLU's gate and up, 2 x ffn; GPT's GELU input, ffn:
    // Korthikanti et al. 2022, sec. 4.1, "8sbh" for 4h) and the activation's output (fc2's
    // input: FP8 under TE's FP8, which frees the BF16 one); --recompute-modules mlp keeps only
    // the MLP's input.
    if (recomputed(RecomputeModule::mlp)) return bytes + kBf16 * h / sp_div;
    const double fc1_out = c.gated_mlp ? 2 * ffn : ffn;
    bytes += mlp_input + (c.gated_mlp ? swiglu_input : kBf16) * fc1_out / tp + st.linear_input * ffn / tp;
    return bytes + glu_extra * ffn / tp;
  }
  // --recompute-modules moe reruns the whole MoE layer: only its input is kept.
  if (recomputed(RecomputeModule::moe)) return bytes + kBf16 * h / sp_div;
  const double etp = static_cast<double>(l.etp);
  // The router's input is the pre-MLP norm's BF16 output (router.py's gating linear saves it);
  // --recompute-modules layernorm discards it after the MLP's forward
  // (transformer_layer.py, recompute_pre_mlp_layernorm). Its FP32 logits per expert.
  bytes += norm_out * kBf16 * h / sp_div + kFp32 * static_cast<double>(c.experts) / sp_div;
  // Routed copies held per GPU for each token of the microbatch: top-k spread over the TP ranks'
  // shares, each ETP rank seeing its experts' tokens; the busiest rank holds `imbalance` times
  // the mean (1.0 under --moe-router-force-load-balancing).
  const double copies = static_cast<double>(c.top_k) * etp / tp * imbalance;
  // moe/experts.py TEGroupedMLP.forward: per copy the backward keeps fc1's input (h), fc1's
  // output (2 x ffn, gate and up) and the activation's output (ffn); the router probabilities are
  // applied inside the activation (bias_swiglu / weighted_squared_relu), so no second h-sized
  // tensor per copy. --recompute-modules moe_act drops the activation's output (recomputed from
  // fc1's output, which stays); TE's FP8 stores fc1's and fc2's inputs quantized. fc1's output is
  // SwiGLU's saved input, in FP8 under act_fp8_store, except where the activation is checkpointed
  // (moe_act: CheckpointWithoutOutput keeps its BF16 input and runs it without saving) or offloaded
  // (moe_act / expert_fc1 offload takes the unfused activation, which does not store FP8).
  const double moe_ffn = static_cast<double>(c.moe_ffn) / etp;
  const bool moe_act = recomputed(RecomputeModule::moe_act);
  const bool act_offloaded =
      l.act_offload && (has(l.offload_modules, OffloadModule::moe_act) || has(l.offload_modules, OffloadModule::expert_fc1));
  double expert_swiglu_input = moe_act || act_offloaded ? kBf16 : swiglu_input;
  // DeepSeek's trainer under FP8 keeps moe_act's checkpointed input in FP8 tiles: "we cache the
  // inputs of the SwiGLU operator and recompute its output in the backward pass. These activations
  // are also stored in FP8 with our fine-grained quantization method" (DeepSeek-V3 report, section
  // 3.3.3). moe_act names the routed experts' activation only, so the shared expert keeps
  // Megatron-LM's count below.
  if (st.deepseek && st.fp8 && moe_act) expert_swiglu_input = kDeepSeekFp8Tile;
  // Under moe_act the checkpoint keeps none of the activation's intermediates; offloaded
  // (moe_act), the activation's saved tensors go to the host with fc1's output.
  const bool act_intermediates_kept = !moe_act && !(l.act_offload && has(l.offload_modules, OffloadModule::moe_act));
  bytes += copies * (st.linear_input * h + expert_swiglu_input * 2 * moe_ffn + (moe_act ? 0.0 : st.linear_input * moe_ffn) +
                     (act_intermediates_kept ? routed_glu_extra * moe_ffn : 0.0));
  if (c.shared_ffn > 0) {
    // The shared expert's own MLP; --recompute-modules shared_experts keeps only its input. That
    // input is the router's (the same BF16 norm output) except for the quantized copy delayed
    // scaling keeps when the shared expert is not recomputed.
    const double shared = static_cast<double>(c.shared_ffn);
    if (st.fp8_second_copy && !recomputed(RecomputeModule::shared_experts)) bytes += mlp_input;
    if (!recomputed(RecomputeModule::shared_experts)) {
      bytes += swiglu_input * 2 * shared / tp + st.linear_input * shared / tp + glu_extra * shared / tp;
    }
  }
  return bytes;
}

// What torchtitan's per-op selective activation checkpointing keeps of a dense layer, per token
// (torchtitan/models/llama3/infra/parallelize.py, _apply_ac_to_transformer_block, op mode): the
// block's input, and the outputs of the ops in its save list, with every second matmul
// recomputed. The layer's matmuls run wq, wk, wv, wo, w1, w3, w2, so wq's, wv's, w1's and w2's
// outputs are kept (w2's before its TP reduce-scatter: the whole sequence), the flash attention
// output, and under TP the reduce-scatter outputs of wo and w2 (reduce_scatter_tensor is in
// the list). Everything else is recomputed in backward.
double torch_selective_bytes(const ModelCosts& c, const Layout& l) {
  const double tp = static_cast<double>(l.tp);
  const double sp_div = l.sp ? tp : 1.0;
  const double h = static_cast<double>(c.hidden);
  const double q = static_cast<double>(c.heads * c.head_dim);
  const double kv = static_cast<double>(c.kv_heads * c.head_dim);
  double elements = h / sp_div + q / tp + kv / tp + q / tp + static_cast<double>(c.ffn) / tp + h;
  if (l.tp > 1) elements += 2 * h / sp_div;
  return kBf16 * elements;
}

double logits_bytes(const ModelCosts& c, const Layout& l, const Storage& st, double tokens) {
  // Logits per token and vocabulary entry (over TP). Megatron-LM: BF16 for the head and each
  // MTP head, plus the FP32 copy the unfused loss works on (tensor_parallel/cross_entropy.py);
  // Transformer Engine's fused loss (--cross-entropy-loss-fusion --cross-entropy-fusion-impl
  // te) computes in place and keeps none. torchtitan (train.py, loss_fn: cross_entropy of
  // pred.float(), then `del pred` before backward; pytorch/torchtitan at e846b694): the
  // forward holds the BF16 logits, their FP32 copy and log_softmax's FP32 output (10 bytes an
  // entry), and the backward more: log_softmax's backward reads its FP32 output and the FP32
  // gradient nll_loss gives it and writes an FP32 gradient, 12 bytes an entry, the peak.
  const bool te_loss = l.ce_fusion && l.ce_impl == CrossEntropyImpl::te;
  const double per_entry = st.torch ? 3 * kFp32
                                    : kBf16 * static_cast<double>(1 + c.num_mtp_layers) + (te_loss ? 0.0 : kFp32);
  return tokens * static_cast<double>(c.vocab) / static_cast<double>(l.tp) * per_entry;
}

double routed_imbalance(const Layout& l, const Calibration& cal) {
  // Routed copies on the busiest expert rank over the mean: 1.0 under
  // --moe-router-force-load-balancing, the stated default otherwise. A capacity factor caps each
  // expert at ceil(tokens x top-k / experts x factor) copies (moe/moe_utils.py get_capacity, as
  // apply_router_token_dropping calls it); --moe-pad-expert-input-to-capacity fills every expert
  // to exactly that.
  double imbalance = l.force_balance ? 1.0 : cal.moe_memory_imbalance;
  if (l.capacity > 0) imbalance = l.pad_capacity ? l.capacity : std::min(imbalance, l.capacity);
  // Sync-free MoE (Megatron-LM docs/user-guide/features/paged_stash.md at d98e8a64): with
  // --moe-expert-rank-capacity-factor F the dispatch and grouped-expert buffers are pre-sized to F
  // times the balanced count ("multipliers on buffer size relative to the perfectly balanced
  // case"), so what the routed experts save for backward is F times the mean whatever the
  // routing (tokens beyond it are dropped or the step reruns). --moe-paged-stash packs those
  // activations into paged buffers of --moe-paged-stash-buffer-size-factor-cuda times the
  // balanced count (moe/paged_stash.py, allocate_stash_buffers: positive factors scale the
  // average-based count, negative ones the largest count seen, itself at most F).
  if (l.rank_capacity > 0) {
    const double busiest = std::min(imbalance, l.rank_capacity);
    imbalance = l.rank_capacity;
    if (l.paged_stash) imbalance = l.stash_factor >= 0 ? l.stash_factor : -l.stash_factor * busiest;
  }
  return imbalance;
}

}  // namespace ladle::plan::mem
