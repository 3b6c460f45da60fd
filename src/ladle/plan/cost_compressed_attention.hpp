#pragma once
// cost_compressed_attention.hpp: what DeepSeek-V4's compressed attention and hyper-connections
// cost the memory and time models, beside their matrices (wq_a, wq_b, wkv, wo_a, wo_b, the
// compressors' wkv/wgate, the indexer's wq_b and weights_proj, the hc_*_fn mixing weights), which
// the tensor inventory prices as GEMMs.
//
// No public measurement of the compressed attention's kernels (FlashMLA's sparse and compressed
// paths) or of the hyper-connection kernels exists that ladle could fit, so both are priced from
// their FLOPs and bytes with the existing machinery: the attention core (window, pooled keys,
// compressor pooling: model::csa_attention_forward) and the indexer's scoring
// (model::csa_indexer_forward) at the flash-attention rate, as DSA's top-k attention is; the
// hyper-connection mixing as memory-bound elementwise traffic at the HBM rate, with the
// elementwise kernels.

#include "ladle/plan/model_costs.hpp"

namespace ladle::plan {

/// Sets what a DeepSeek-V4 layer `layer` costs beyond its tensors: its attention and indexer
/// FLOPs per token at `row_tokens`, its compress ratio, its name ("csa-c4+indexer+moe") and no
/// sliding-window tile loss (the window's keys are one part of what the kernel gathers).
void set_compressed_attention(const ModelSpec& spec, int layer, int64_t row_tokens, LayerKind& kind);

/// Activation elements (BF16) one compressed-attention layer keeps per token for backward,
/// beside the generic indexer query the memory model adds: the down-projections' input
/// (`input_elements`, scaled by the caller for SP and FP8), the q latent before and after its norm
/// (`linear_scale` times BF16 for the quantized copy), the key (= value) head before and after its
/// norm, q (heads x d / tp), the attention output (heads x d / tp, wo_a's input), wo_a's output
/// (groups x rank / tp, wo_b's input), the compressor's scores (2 coff d) and, on ratio-4
/// layers, the indexer's weights and its compressor's scores.
double compressed_attention_activation_elements(const ModelCosts& c, const LayerKind& kind, double tp,
                                                double sp_div, double input_elements, double linear_scale);

/// Activation elements (BF16 and FP32 in BF16 units) the hyper-connections keep per token and
/// layer beyond a plain residual: each of the two sublayers saves its m-copy residual input (m h,
/// of which h is what a plain layer keeps) and its FP32 mixes ((2 + m) m); 0 without
/// hyper-connections.
double hyper_connection_activation_elements(const ModelCosts& c, double sp_div);

/// Bytes per token the hyper-connection mixing moves in one layer's forward pass, BF16: per
/// sublayer the pre-mix reads the m copies and writes the sublayer's input (m h + h), the post-mix
/// reads the output and the copies and writes the new copies (h + 2 m h); 0 without them.
double hyper_connection_stream_bytes(const ModelCosts& c);

}  // namespace ladle::plan
