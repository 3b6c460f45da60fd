#include "ladle/plan/cost_compressed_attention.hpp"

#include <string>

#include "ladle/model/flops.hpp"

namespace ladle::plan {

namespace {
constexpr double kBf16Bytes = 2.0;
constexpr double kFp32InBf16 = 2.0;  // an FP32 element is two BF16 elements' bytes
}  // namespace

void set_compressed_attention(const ModelSpec& spec, int layer, int64_t row_tokens, LayerKind& kind) {
  kind.compress_ratio = spec.compress_ratio_of(layer);
  kind.attention_flops = model::csa_attention_forward(spec, layer, row_tokens);
  kind.indexer_flops = model::csa_indexer_forward(spec, layer, row_tokens);
  kind.window = 0;
  const std::string attention =
      kind.compress_ratio > 0 ? "csa-c" + std::to_string(kind.compress_ratio) : std::string("csa-window");
  kind.name = attention + (kind.indexer ? "+indexer" : "") + (kind.moe ? "+moe" : "+dense");
}

double compressed_attention_activation_elements(const ModelCosts& c, const LayerKind& kind, double tp,
                                                double sp_div, double input_elements, double linear_scale) {
  const double heads = static_cast<double>(c.heads);
  const double d = static_cast<double>(c.head_dim);
  const double q = static_cast<double>(c.q_lora_rank);
  double elements = input_elements;                // wq_a, wkv and the compressors' input
  elements += (q + linear_scale * q) / sp_div;     // q latent, its norm's output (wq_b's input)
  elements += 2 * d / sp_div;                      // the key/value head and its norm's output
  elements += heads * d / tp;                      // q (the attention's input)
  elements += heads * d / tp;                      // the attention output (wo_a's input)
  elements += linear_scale * static_cast<double>(c.o_groups * c.o_lora_rank) / tp;  // wo_b's input
  if (kind.compress_ratio > 0) {
    const double coff = kind.compress_ratio == 4 ? 2.0 : 1.0;
    elements += kFp32InBf16 * 2 * coff * d;  // the compressor's FP32 keys and gate scores
  }
  if (kind.indexer) {
    const double id = static_cast<double>(c.index_head_dim);
    elements += static_cast<double>(c.index_heads);  // the head weights
    elements += kFp32InBf16 * 2 * 2 * id;           // its ratio-4 compressor's scores
  }
  return elements;
}

double hyper_connection_activation_elements(const ModelCosts& c, double sp_div) {
  if (c.hc_mult <= 1) return 0.0;
  const double m = static_cast<double>(c.hc_mult);
  const double h = static_cast<double>(c.hidden);
  return 2 * ((m - 1) * h / sp_div + kFp32InBf16 * (2 + m) * m);
}

double hyper_connection_stream_bytes(const ModelCosts& c) {
  if (c.hc_mult <= 1) return 0.0;
  const double m = static_cast<double>(c.hc_mult);
  const double h = static_cast<double>(c.hidden);
  return kBf16Bytes * 2 * ((m * h + h) + (h + 2 * m * h));
}

}  // namespace ladle::plan
