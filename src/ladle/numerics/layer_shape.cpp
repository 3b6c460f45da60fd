#include "ladle/numerics/layer_shape.hpp"

#include <charconv>
#include <cmath>

#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::numerics {

namespace {
constexpr int64_t kMaxDimension = int64_t{1} << 24;

int64_t parse_positive(const std::string& key, const std::string& text, bool allow_zero) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < (allow_zero ? 0 : 1) || value > kMaxDimension) {
    throw_usage("--shape: {}: expected {} integer up to {}, got '{}'", key,
                allow_zero ? "a non-negative" : "a positive", kMaxDimension, text);
  }
  return value;
}
}  // namespace

LayerShape parse_layer_shape(const std::string& spec) {
  static const std::vector<std::string> kKeys = {"hidden", "experts", "topk",   "ffn", "shared_ffn",
                                                 "ep",     "etp",     "tokens", "name"};
  LayerShape shape;
  for (const std::string& raw : util::split(spec, ',')) {
    const std::string item(util::trim(raw));
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      throw_usage("--shape: expected key=value, got '{}'", item);
    }
    const std::string key(util::trim(item.substr(0, eq)));
    const std::string value(util::trim(item.substr(eq + 1)));
    if (key == "name") {
      if (value.empty()) throw_usage("--shape: name: expected a model name, got ''");
      shape.name = value;
    } else if (key == "hidden") {
      shape.hidden = parse_positive(key, value, false);
    } else if (key == "experts") {
      shape.experts = parse_positive(key, value, false);
    } else if (key == "topk") {
      shape.topk = parse_positive(key, value, false);
    } else if (key == "ffn") {
      shape.expert_ffn = parse_positive(key, value, false);
    } else if (key == "shared_ffn") {
      shape.shared_ffn = parse_positive(key, value, true);
    } else if (key == "ep") {
      shape.ep = parse_positive(key, value, false);
    } else if (key == "etp") {
      shape.etp = parse_positive(key, value, false);
    } else if (key == "tokens") {
      shape.tokens = parse_positive(key, value, false);
    } else {
      throw_usage("--shape: unknown key '{}'{}", key, util::did_you_mean(key, kKeys));
    }
  }
  if (shape.experts % shape.ep != 0) {
    throw_usage("--shape: experts ({}) must be divisible by ep ({})", shape.experts, shape.ep);
  }
  if (shape.expert_ffn % shape.etp != 0) {
    throw_usage("--shape: ffn ({}) must be divisible by etp ({})", shape.expert_ffn, shape.etp);
  }
  if (shape.topk > shape.experts) {
    throw_usage("--shape: topk ({}) must not exceed experts ({})", shape.topk, shape.experts);
  }
  return shape;
}

int64_t local_experts(const LayerShape& shape) { return shape.experts / shape.ep; }

int64_t kept_experts(const LayerShape& shape, double scale) {
  const auto kept = static_cast<int64_t>(std::llround(static_cast<double>(local_experts(shape)) * scale));
  return kept < 1 ? 1 : kept;
}

std::vector<TensorSpec> layer_tensors(const LayerShape& shape, double scale) {
  std::vector<TensorSpec> tensors;
  tensors.push_back({"router.weight", shape.experts, shape.hidden});
  if (shape.shared_ffn > 0) {
    tensors.push_back({"shared_experts.linear_fc1.weight", 2 * shape.shared_ffn, shape.hidden});
    tensors.push_back({"shared_experts.linear_fc2.weight", shape.hidden, shape.shared_ffn});
    tensors.push_back({"shared_experts.gate_weight", 1, shape.hidden});
  }
  const int64_t ffn_per_rank = shape.expert_ffn / shape.etp;
  const int64_t kept = kept_experts(shape, scale);
  for (int64_t e = 0; e < kept; ++e) {
    tensors.push_back({fmt::format("experts.linear_fc1.weight{}", e), 2 * ffn_per_rank, shape.hidden});
    tensors.push_back({fmt::format("experts.linear_fc2.weight{}", e), shape.hidden, ffn_per_rank});
  }
  return tensors;
}

std::string describe_shape(const LayerShape& shape, double scale) {
  std::string text = fmt::format(
      "one {} MoE layer: hidden {}, {} experts, top-{}, expert FFN {}", shape.name,
      util::format_grouped(static_cast<long long>(shape.hidden)),
      util::format_grouped(static_cast<long long>(shape.experts)), shape.topk,
      util::format_grouped(static_cast<long long>(shape.expert_ffn)));
  if (shape.shared_ffn > 0) {
    text += fmt::format(", shared expert FFN {}", util::format_grouped(static_cast<long long>(shape.shared_ffn)));
  }
  text += fmt::format(", EP {}, ETP {}, {} tokens per rank", shape.ep, shape.etp,
                      util::format_grouped(static_cast<long long>(shape.tokens)));
  const int64_t kept = kept_experts(shape, scale);
  if (kept != local_experts(shape)) {
    text += fmt::format("; {} of the rank's {} local experts kept", kept, local_experts(shape));
  }
  return text;
}

}  // namespace ladle::numerics
