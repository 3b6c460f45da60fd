// rollout.cpp: time and memory of SGLang engines generating a rollout (see docs/rollout.md).
//
// A decode step reads every weight the step's tokens touch and every KV byte of the sequences in
// flight, and multiplies them through; it lasts the slower of the two at the GPU's HBM bandwidth
// (a fitted achieved fraction) and its measured GEMM rate (data/hw/kernels.yaml), plus the TP
// collectives of each layer (data/hw/collectives.yaml) and a fitted per-step host overhead.
// Prefill is compute: its FLOPs at the measured GEMM rate. How many sequences decode at once is
// bounded by the KV pool left in mem_fraction x HBM once the weights are in.

#include "ladle/rl/rollout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "ladle/hw/catalog.hpp"
#include "ladle/model/params.hpp"
#include "ladle/hw/hw_facts.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/util/error.hpp"

namespace ladle::rl {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
/// Bytes per element of SGLang's Mamba / Gated DeltaNet recurrent state (float32 by default,
/// sgl-project/sglang python/sglang/srt/server_args.py --mamba-ssm-dtype) and conv state (BF16).
constexpr double kStateBytes = 4.0;
constexpr double kConvStateBytes = 2.0;
/// Steps of the numerical integration over the drain of a rollout's last wave.
constexpr int kDrainSamples = 256;

struct Split {
  int attn_tp = 1;  ///< GPUs one attention group spans (tp / dp_attention)
};

Split validate(const ModelSpec& m, const EngineLayout& e) {
  if (e.gpus < 1) throw_usage("engine.gpus: expected at least 1 GPU per engine, got {}", e.gpus);
  if (e.tp < 1) throw_usage("engine.tp: expected at least 1, got {}", e.tp);
  if (e.dp_attention < 1) throw_usage("engine.dp_attention: expected at least 1, got {}", e.dp_attention);
  if (e.ep < 1) throw_usage("engine.ep: expected at least 1, got {}", e.ep);
  if (!(e.mem_fraction > 0.0 && e.mem_fraction < 1.0))
    throw_usage("engine.mem_fraction: expected a fraction in (0, 1), got {}", e.mem_fraction);
  if (e.weight_bits != 16 && e.weight_bits != 8)
    throw_usage("engine.weight_bits: expected 16 (BF16) or 8 (FP8), got {}", e.weight_bits);
  if (e.kv_bits != 16 && e.kv_bits != 8)
    throw_usage("engine.kv_bits: expected 16 (BF16) or 8 (FP8), got {}", e.kv_bits);
  if (e.gpus != e.tp)
    throw_usage("engine.tp: SGLang's --tp-size counts every GPU of the engine, so it must equal "
                "the {} GPUs per engine, got {}", e.gpus, e.tp);
  if (e.tp % e.dp_attention != 0)
    throw_usage("engine.dp_attention: {} does not divide --tp-size {}", e.dp_attention, e.tp);
  Split s;
  s.attn_tp = e.tp / e.dp_attention;
  if (m.count_mixer(MixerKind::attention) > 0) {
    if (m.num_heads % s.attn_tp != 0)
      throw_usage("engine.tp: attention TP {} (tp {} / dp_attention {}) does not divide {}'s {} "
                  "attention heads", s.attn_tp, e.tp, e.dp_attention, m.name, m.num_heads);
    // per-layer attention geometry (step3p7, gemma4): every layer's own query heads too
    for (int i = 0; i < m.num_layers; ++i) {
      if (m.mixer_of(i) == MixerKind::attention && m.heads_of(i) % s.attn_tp != 0)
        throw_usage("engine.tp: attention TP {} does not divide {}'s {} attention heads (layer {})", s.attn_tp,
                    m.name, m.heads_of(i), i);
    }
    if (m.attention == AttentionKind::gqa) {
      for (int i = 0; i < m.num_layers; ++i) {
        if (m.mixer_of(i) != MixerKind::attention) continue;
        const int64_t kv = m.kv_heads_of(i);
        if (kv > 0 && kv % s.attn_tp != 0 && s.attn_tp % kv != 0)
          throw_usage("engine.tp: attention TP {} neither divides nor is a multiple of {}'s {} "
                      "key/value heads (layer {})", s.attn_tp, m.name, kv, i);
      }
    }
  }
  if (e.tp % e.ep != 0) throw_usage("engine.ep: {} does not divide --tp-size {}", e.ep, e.tp);
  if (e.ep > 1) {
    if (m.num_experts == 0)
      throw_usage("engine.ep: {} has no routed experts, expected 1, got {}", m.name, e.ep);
    if (m.num_experts % e.ep != 0)
      throw_usage("engine.ep: {} does not divide {}'s {} routed experts", e.ep, m.name, m.num_experts);
  }
  return s;
}

double hbm_bytes(const GpuSpec& gpu) { return plan::hbm_capacity_gib(gpu) * kGiB; }

/// Weight bytes one GPU holds, split into what every step reads and the routed experts.
struct Weights {
  double dense = 0;    ///< attention, dense MLP, shared experts, norms, router, embedding, head
  double experts = 0;  ///< routed experts on this GPU
  double total() const { return dense + experts; }
};

Weights weights_per_gpu(const ModelSpec& m, const EngineLayout& e, const Split& s) {
  const model::ParamCounts c = model::count_params(m);
  const double wb = e.weight_bits / 8.0;
  const double tp = e.tp;
  Weights w;
  w.dense = wb * (static_cast<double>(c.attention + c.indexer) / s.attn_tp +
                  static_cast<double>(c.dense_mlp + c.shared_experts) / tp) +
            2.0 * (static_cast<double>(c.embedding + c.head) / tp + static_cast<double>(c.norms + c.router));
  w.experts = wb * static_cast<double>(c.routed_experts) / tp;
  return w;
}

/// Matrix elements one token multiplies through, by where they sit.
struct TokenFlops {
  double attention = 0;  ///< attention projections and indexers (per attention group)
  double mlp = 0;        ///< dense MLP, shared and top-k routed experts
  double head = 0;       ///< output head
};

TokenFlops token_matmul(const ModelSpec& m) {
  const model::ParamCounts c = model::count_params(m);
  TokenFlops f;
  f.attention = static_cast<double>(c.attention + c.indexer);
  const double routed_active =
      m.num_experts > 0 ? static_cast<double>(c.routed_experts) * m.experts_per_token / m.num_experts : 0.0;
  f.mlp = static_cast<double>(c.dense_mlp + c.shared_experts) + routed_active;
  f.head = static_cast<double>(c.head > 0 ? c.head : c.embedding);
  return f;
}

// ---- deepseek_v4 ----
// DeepSeek-V4's compressed attention at decode (sglang's deepseek_v4.py @ f8101ac7, MQALayer): one
// query against the window's raw keys and the pooled keys (floor(context / ratio); at most
// index_topk of them on ratio-4 layers, whose indexer scores every pooled key), 2 heads (d + d)
// per key: the one key head is also the value head.
double csa_decode_flops(const ModelSpec& m, int layer, double context) {
  const int64_t ratio = m.compress_ratio_of(layer);
  const int64_t window = layer < static_cast<int>(m.sliding_window.size()) ? m.sliding_window[static_cast<size_t>(layer)] : 0;
  double keys = window > 0 ? std::min(context, static_cast<double>(window)) : context;
  double flops = 0;
  if (ratio > 0) {
    double pooled = std::floor(context / static_cast<double>(ratio));
    if (ratio == 4) {
      flops += 2.0 * m.index_n_heads * m.index_head_dim * pooled;
      pooled = std::min(pooled, static_cast<double>(m.index_topk));
    }
    keys += pooled;
  }
  return flops + 2.0 * m.num_heads * 2.0 * m.head_dim * keys;
}

// Cache bytes of one compressed-attention layer for a sequence of `context` tokens: the window's
// raw key/value head (SGLang's DeepSeekV4TokenToKVPool keeps the last sliding_window), the pooled
// keys (head_dim each, one per `ratio` tokens), on ratio-4 layers the indexer's pooled keys
// (index_head_dim each), and each compressor's FP32 state of the tokens not yet pooled
// (Compressor.compute_state_len: at most ratio - 1, plus ratio more on ratio 4's overlapping
// windows, each 2 coff x head size of keys and gate scores; its bound is counted).
double csa_kv_bytes(const ModelSpec& m, int layer, double context, double kvb) {
  const int64_t ratio = m.compress_ratio_of(layer);
  const int64_t window = layer < static_cast<int>(m.sliding_window.size()) ? m.sliding_window[static_cast<size_t>(layer)] : 0;
  const double d = static_cast<double>(m.head_dim);
  double bytes = (window > 0 ? std::min(context, static_cast<double>(window)) : context) * d * kvb;
  if (ratio <= 0) return bytes;
  const double pooled = std::floor(context / static_cast<double>(ratio));
  const auto state = [&](double head) {
    const double coff = ratio == 4 ? 2.0 : 1.0;
    const double tokens = static_cast<double>(ratio - 1) + (ratio == 4 ? static_cast<double>(ratio) : 0.0);
    return tokens * 2.0 * coff * head * kStateBytes;
  };
  bytes += pooled * d * kvb + state(d);
  if (ratio == 4) {
    const double id = static_cast<double>(m.index_head_dim);
    bytes += pooled * id * kvb + state(id);
  }
  return bytes;
}
// ---- end deepseek_v4 ----

/// Attention-core FLOPs (QK^T and PV) of one query token against `context` keys, all layers,
/// all heads; MLA absorbed into the latent (SGLang's decode path), DSA's sparse layers attending
/// their top-k and scoring every key with the indexer.
double attention_core_flops(const ModelSpec& m, double context) {
  double flops = 0;
  for (int i = 0; i < m.num_layers; ++i) {
    if (m.mixer_of(i) != MixerKind::attention) continue;
    if (m.attention == AttentionKind::csa) {  // deepseek_v4
      flops += csa_decode_flops(m, i, context);
      continue;
    }
    double keys = context;
    const int64_t window = i < static_cast<int>(m.sliding_window.size()) ? m.sliding_window[static_cast<size_t>(i)] : 0;
    if (window > 0) keys = std::min(keys, static_cast<double>(window));
    if (m.sparse_of(i)) {  // DSA; MiniMax-M3's sparse layers only
      flops += 2.0 * m.index_n_heads * m.index_head_dim * keys;
      keys = std::min(keys, static_cast<double>(m.index_topk));
    }
    if (m.attention == AttentionKind::mla)
      flops += 2.0 * m.num_heads * (2.0 * m.kv_lora_rank + m.qk_rope_head_dim) * keys;
    else
      flops += 2.0 * m.heads_of(i) * (m.head_dim_of(i) + m.value_head_dim_of(i)) * keys;  // the layer's own geometry
  }
  return flops;
}

double gemm_rate(const GpuSpec& gpu, const EngineLayout& e) {
  const bool fp8 = e.weight_bits <= 8 && gpu.fp8_dense_tflops > 0;
  const double peak = fp8 ? gpu.fp8_dense_tflops : gpu.bf16_dense_tflops;
  return peak * 1e12 * hw::gemm_mamf_fraction(gpu.name, fp8);
}

/// Seconds of one collective moving `bytes` (nccl-tests' size) over the engine's `n` GPUs.
double collective_seconds(const GpuSpec& gpu, hw::Collective kind, double bytes, int n) {
  if (n <= 1 || bytes <= 0) return 0.0;
  const double ring = kind == hw::Collective::all_reduce ? 2.0 * (n - 1) / n : (n - 1.0) / n;
  const int domain = std::max(1, gpu.nvlink_domain_gpus > 0 ? gpu.nvlink_domain_gpus : gpu.gpus_per_node);
  if (n <= domain) {
    const hw::FabricFacts& f = hw::nvlink_facts();
    const double link = gpu.intra_node_gb_per_s * 1e9 * hw::link_fraction(f, kind, bytes, 1);
    return f.latency_s + (link > 0 ? ring * bytes / link : 0.0);
  }
  // Across nodes: the scale-out network of the GPU's first catalog instance.
  for (const InstanceSpec& inst : hw::instances()) {
    if (inst.gpu != gpu.name || inst.network_gbps <= 0) continue;
    const hw::FabricFacts& f = hw::fabric_for(inst.fabric);
    // Hierarchical: reduced inside each node over NVLink, then across nodes, where each node's
    // NICs move the ring's share of the buffer once.
    const double nodes = std::ceil(static_cast<double>(n) / domain);
    const double node_ring = kind == hw::Collective::all_reduce ? 2.0 * (nodes - 1) / nodes : (nodes - 1) / nodes;
    const double wire = node_ring * bytes;
    const double link = inst.network_gbps / 8.0 * 1e9 * hw::link_fraction(f, kind, bytes, nodes);
    return collective_seconds(gpu, kind, bytes, domain) + f.latency_s + (link > 0 ? wire / link : 0.0);
  }
  const hw::FabricFacts& f = hw::nvlink_facts();
  return f.latency_s;
}

struct Engine {
  const ModelSpec& m;
  const GpuSpec& gpu;
  const EngineLayout& e;
  const ServingConstants& k;
  Split split;
  Weights weights;
  TokenFlops per_token;
  double rate = 0;       ///< GEMM FLOP/s per GPU
  double bandwidth = 0;  ///< achieved HBM bytes/s per GPU
  double kv_pool = 0;    ///< KV bytes per GPU
  int attention_layers = 0;

  Engine(const ModelSpec& model, const GpuSpec& g, const EngineLayout& layout, const ServingConstants& c)
      : m(model), gpu(g), e(layout), k(c), split(validate(model, layout)) {
    weights = weights_per_gpu(m, e, split);
    per_token = token_matmul(m);
    rate = gemm_rate(gpu, e);
    bandwidth = gpu.hbm_tb_per_s * 1e12 * k.hbm_fraction;
    const double static_bytes = e.mem_fraction * hbm_bytes(gpu);
    kv_pool = static_bytes - weights.total();
    if (kv_pool <= 0)
      throw_no("engine.mem_fraction: the rollout engine does not fit: {}'s weights take {:.1f} GiB per GPU at "
               "tp {} ({}-bit), more than the {:.1f} GiB that mem_fraction {} of {}'s {:.1f} GiB holds for "
               "weights and KV cache",
               m.name, weights.total() / kGiB, e.tp, e.weight_bits, e.mem_fraction * hbm_bytes(gpu) / kGiB,
               e.mem_fraction, gpu.name, hbm_bytes(gpu) / kGiB);
    for (int i = 0; i < m.num_layers; ++i)
      if (m.mixer_of(i) != MixerKind::none) ++attention_layers;
  }

  /// Sequences of `context` tokens the whole engine holds at once.
  double capacity(double context) const {
    const double per_seq = kv_bytes_per_sequence(m, e, static_cast<int64_t>(std::ceil(context)));
    return per_seq > 0 ? e.dp_attention * std::floor(kv_pool / per_seq) : 1e18;
  }

  struct Step {
    double seconds = 0;
    std::string bound;
  };

  /// One decode step of `batch` sequences (whole engine) at `context` tokens each.
  Step decode_step(double batch, double context) const {
    batch = std::max(batch, 1.0);
    const double group = std::max(1.0, batch / e.dp_attention);  // sequences one attention group holds
    double touched = 1.0;  // share of the routed experts some token of the step uses
    if (m.num_experts > 0) {
      const double p = static_cast<double>(m.experts_per_token) / m.num_experts;
      touched = 1.0 - std::pow(1.0 - p, batch);
    }
    // The step's GEMMs stream the weights its tokens touch; its attention kernels stream the KV
    // cache of the sequences in flight. Each kernel runs at the slower of its bytes and its FLOPs.
    const double weight_bytes = weights.dense + weights.experts * touched;
    const double gemm_flops = 2.0 * (group * per_token.attention / split.attn_tp +
                                     batch * (per_token.mlp + per_token.head) / e.tp);
    const double t_gemm = std::max(weight_bytes / bandwidth, gemm_flops / rate);
    const double kv_bytes = group * kv_bytes_per_sequence(m, e, static_cast<int64_t>(std::ceil(context)));
    const double attn_flops = group * attention_core_flops(m, context) / split.attn_tp;
    const double t_attn = std::max(kv_bytes / bandwidth, attn_flops / rate);
    const double t_mem = (weight_bytes + kv_bytes) / bandwidth;
    const double t_flop = (gemm_flops + attn_flops) / rate;
    // Two collectives per layer: all-reduces of the attention and MLP outputs (TP), or the
    // all-gather and reduce-scatter around the MLP (DP attention).
    double t_comm = 0;
    if (e.tp > 1) {
      const double act = 2.0 * static_cast<double>(m.hidden_size);
      if (e.dp_attention == 1)
        t_comm = 2.0 * attention_layers * collective_seconds(gpu, hw::Collective::all_reduce, batch * act, e.tp);
      else
        t_comm = attention_layers * (collective_seconds(gpu, hw::Collective::all_gather, batch * act, e.tp) +
                                     collective_seconds(gpu, hw::Collective::reduce_scatter, batch * act, e.tp));
    }
    Step s;
    const double t_fixed = k.step_overhead_s + k.layer_overhead_s * m.num_layers;
    s.seconds = t_gemm + t_attn + t_comm + t_fixed;
    if (t_comm > t_gemm + t_attn) s.bound = "TP collectives";
    else if (t_fixed > t_gemm + t_attn) s.bound = "per-step overhead";
    else s.bound = t_mem >= t_flop ? "HBM bandwidth" : "GEMM compute";
    return s;
  }

  /// Prefill of one request of `tokens` prompt tokens, the whole engine's GPUs working on it.
  double prefill(double tokens) const {
    if (tokens <= 0) return 0.0;
    const double flops = tokens * (2.0 * (per_token.attention + per_token.mlp + per_token.head) +
                                   attention_core_flops(m, tokens / 2.0));
    double t = flops / (rate * e.gpus);
    if (e.tp > 1)
      t += 2.0 * attention_layers *
           collective_seconds(gpu, hw::Collective::all_reduce, tokens * 2.0 * m.hidden_size / e.dp_attention, e.tp);
    return t;
  }
};

RolloutMemory memory_of(const Engine& en, double context) {
  RolloutMemory mem;
  mem.weights_bytes = en.weights.total();
  mem.kv_bytes = en.kv_pool;
  mem.other_bytes = (1.0 - en.e.mem_fraction) * hbm_bytes(en.gpu);
  const double per_seq = kv_bytes_per_sequence(en.m, en.e, static_cast<int64_t>(std::ceil(std::max(context, 1.0))));
  mem.kv_tokens = per_seq > 0 ? en.e.dp_attention * en.kv_pool / per_seq * std::max(context, 1.0) : 0.0;
  return mem;
}

}  // namespace

double kv_bytes_per_sequence(const ModelSpec& m, const EngineLayout& e, int64_t context) {
  const Split s = validate(m, e);
  const double kvb = e.kv_bits / 8.0;
  const double ctx = static_cast<double>(std::max<int64_t>(context, 0));
  double bytes = 0;
  for (int i = 0; i < m.num_layers; ++i) {
    switch (m.mixer_of(i)) {
      case MixerKind::attention: {
        if (m.attention == AttentionKind::csa) {  // deepseek_v4: replicated over attention TP
          bytes += csa_kv_bytes(m, i, ctx, kvb);
          break;
        }
        double per_token = 0;
        if (m.attention == AttentionKind::mla) {
          per_token = (m.kv_lora_rank + m.qk_rope_head_dim) * kvb;  // whole on every rank
        } else {
          // The layer's own keys and values (per-layer attention geometry: step3p7, gemma4):
          // values value_head_dim wide; a layer reusing an earlier layer's keys and values
          // (Gemma 4's num_kv_shared_layers) caches none. Keys that are values (attention_k_eq_v)
          // still cache both: the keys are normed and rotated, the values only normed
          // (gemma4_causal.py), so the two differ.
          const int64_t kv = m.kv_heads_of(i);
          const double local = std::max(1.0, static_cast<double>(kv) / s.attn_tp);
          const double width = m.kv_shared_of(i) ? 0.0 : static_cast<double>(m.head_dim_of(i) + m.value_head_dim_of(i));
          per_token = local * width * kvb;
        }
        if (m.sparse_of(i)) per_token += m.index_head_dim * kvb;  // the indexer's key cache (minimax_m3: its sparse layers')
        double tokens = ctx;
        const int64_t window = i < static_cast<int>(m.sliding_window.size()) ? m.sliding_window[static_cast<size_t>(i)] : 0;
        if (window > 0) tokens = std::min(tokens, static_cast<double>(window));
        bytes += per_token * tokens;
        break;
      }
      case MixerKind::linear: {
        const double state = static_cast<double>(m.linear_num_value_heads) * m.linear_key_head_dim *
                             m.linear_value_head_dim * kStateBytes;
        const double conv_dim = 2.0 * m.linear_num_key_heads * m.linear_key_head_dim +
                                static_cast<double>(m.linear_num_value_heads) * m.linear_value_head_dim;
        const double conv = std::max<int64_t>(m.linear_conv_kernel - 1, 0) * conv_dim * kConvStateBytes;
        bytes += (state + conv) / s.attn_tp;
        break;
      }
      case MixerKind::mamba: {
        const double state = static_cast<double>(m.mamba_heads) * m.mamba_head_dim * m.mamba_state * kStateBytes;
        const double conv = std::max<int64_t>(m.mamba_conv_kernel - 1, 0) *
                            static_cast<double>(m.mamba_conv_dim()) * kConvStateBytes;
        bytes += (state + conv) / s.attn_tp;
        break;
      }
      case MixerKind::none:
        break;
    }
  }
  return bytes;
}

RolloutMemory engine_memory(const ModelSpec& model, const GpuSpec& gpu, const EngineLayout& engine) {
  const ServingConstants unused;  // memory needs no fitted constant
  const Engine en(model, gpu, engine, unused);
  RolloutMemory mem = memory_of(en, 1.0);
  // Tokens of context the pool holds: what one more token of a sequence adds (its attention
  // layers' keys and values), without the fixed state of linear and Mamba layers.
  const double per_token = kv_bytes_per_sequence(model, engine, 2) - kv_bytes_per_sequence(model, engine, 1);
  mem.kv_tokens = per_token > 0 ? engine.dp_attention * std::floor(en.kv_pool / per_token) : 0.0;
  return mem;
}

ServingEstimate estimate_serving(const ModelSpec& model, const GpuSpec& gpu, const EngineLayout& engine,
                                 const ServingPoint& point, const ServingConstants& constants) {
  if (point.concurrency < 1) throw_usage("concurrency: expected at least 1 request in flight, got {}", point.concurrency);
  if (point.input_tokens < 0) throw_usage("input_tokens: expected 0 or more, got {}", point.input_tokens);
  if (point.output_tokens < 1) throw_usage("output_tokens: expected at least 1, got {}", point.output_tokens);
  const Engine en(model, gpu, engine, constants);
  const double in = static_cast<double>(point.input_tokens);
  const double out = static_cast<double>(point.output_tokens);
  const double context = in + out / 2.0;  // a sequence's mean length while it decodes
  const double cap = en.capacity(in + out);
  if (cap < 1)
    throw_no("engine.mem_fraction: the rollout engine does not fit: its KV pool of {:.1f} GiB per GPU holds no "
             "sequence of {} tokens",
             en.kv_pool / kGiB, point.input_tokens + point.output_tokens);
  const double held = engine.reserve_full_output ? in + out : context;  // KV each admitted request takes
  const double batch = std::min(static_cast<double>(point.concurrency), en.capacity(held));
  // Each request: its prefill, then `out` decode steps shared with `batch - 1` others.
  const double step = en.decode_step(batch, context).seconds;
  const double per_request = out * step / batch + en.prefill(in);
  ServingEstimate s;
  s.output_tokens_per_s = out / per_request;
  s.lo = s.output_tokens_per_s * std::exp(constants.log_lo);
  s.hi = s.output_tokens_per_s * std::exp(constants.log_hi);
  return s;
}

ServingEstimate estimate_serving(const ModelSpec& model, const GpuSpec& gpu, const EngineLayout& engine,
                                 const ServingPoint& point) {
  return estimate_serving(model, gpu, engine, point, serving_constants());
}

RolloutEstimate estimate_rollout(const ModelSpec& model, const GpuSpec& gpu, const EngineLayout& engine,
                                 int engines, const RolloutWorkload& w, const ServingConstants& constants) {
  if (engines < 1) throw_usage("engines: expected at least 1 engine, got {}", engines);
  if (w.prompts < 1) throw_usage("prompts: expected at least 1 prompt per rollout, got {}", w.prompts);
  if (w.samples_per_prompt < 1)
    throw_usage("samples_per_prompt: expected at least 1, got {}", w.samples_per_prompt);
  if (w.prompt_tokens < 0) throw_usage("prompt_tokens: expected 0 or more, got {}", w.prompt_tokens);
  if (w.response_mean < 1) throw_usage("response_mean: expected at least 1 token, got {}", w.response_mean);
  if (w.response_max < w.response_mean)
    throw_usage("response_max: expected at least the mean response length {}, got {}", w.response_mean,
                w.response_max);
  const Engine en(model, gpu, engine, constants);
  const double n = std::ceil(static_cast<double>(w.prompts * w.samples_per_prompt) / engines);
  const double prompt = static_cast<double>(w.prompt_tokens);
  const double mean = static_cast<double>(w.response_mean);
  const double longest = static_cast<double>(w.response_max);
  if (en.capacity(prompt + longest) < 1)
    throw_no("engine.mem_fraction: the rollout engine does not fit: its KV pool of {:.1f} GiB per GPU holds no "
             "sequence of {} tokens (prompt {} + response_max {})",
             en.kv_pool / kGiB, w.prompt_tokens + w.response_max, w.prompt_tokens, w.response_max);
  const double cap = en.capacity(engine.reserve_full_output ? prompt + longest : prompt + mean / 2.0);
  const double batch = std::min(n, std::max(cap, 1.0));

  RolloutEstimate r;
  r.prefill_seconds = n * en.prefill(prompt);
  // Response lengths: survival (1 - t / max)^a with a = max / mean - 1, the one-parameter family
  // with the given mean whose longest response is max (a = 1: uniform; a = 0: all run to max).
  const double a = longest / mean - 1.0;
  double decode = 0;
  // While sequences wait, the engine decodes a full batch; a slot frees every mean / batch steps.
  const Engine::Step full = en.decode_step(batch, prompt + mean / 2.0);
  if (n > batch) decode += (n - batch) * mean / batch * full.seconds;
  // The last wave drains: its sequences end one by one, the longest at response_max.
  const double dt = longest / kDrainSamples;
  for (int j = 0; j < kDrainSamples; ++j) {
    const double t = (j + 0.5) * dt;
    const double alive = std::max(1.0, batch * std::pow(1.0 - t / longest, a));
    decode += dt * en.decode_step(alive, prompt + t).seconds;
  }
  r.decode_seconds = decode;
  r.seconds = r.prefill_seconds + r.decode_seconds;
  // Time is the inverse of throughput: the throughput interval flips.
  r.seconds_lo = r.seconds * std::exp(-constants.log_hi);
  r.seconds_hi = r.seconds * std::exp(-constants.log_lo);
  r.output_tokens_per_s = static_cast<double>(w.prompts * w.samples_per_prompt) * mean / r.seconds;
  r.concurrency = static_cast<int64_t>(batch);
  r.memory = memory_of(en, prompt + mean / 2.0);
  r.bound = cap < n ? "KV capacity" : full.bound;
  return r;
}

RolloutEstimate estimate_rollout(const ModelSpec& model, const GpuSpec& gpu, const EngineLayout& engine,
                                 int engines, const RolloutWorkload& work) {
  return estimate_rollout(model, gpu, engine, engines, work, serving_constants());
}

}  // namespace ladle::rl
