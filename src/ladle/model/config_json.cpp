#include "ladle/model/config_json.hpp"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <filesystem>
#include <optional>
#include <tuple>
#include <string>
#include <utility>

#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/json.hpp"
#include "ladle/util/limits.hpp"
#include "ladle/util/text.hpp"

// The layer kinds ladle reads from a config.json, and a reader driven by the rows of
// data/models/types.yaml: one row per model_type, naming its attention and MLP kinds, its
// per-layer patterns and which keys give which fields, after the Hugging Face transformers
// configuration classes (transformers/models/<type>/configuration_<type>.py) and the
// checkpoints' tensor names (modeling_<type>.py); see data/models/README.md.

namespace ladle::model {
namespace {

using Json = nlohmann::json;

// Reads fields of one JSON object and reports problems at the key's position in the text.
class ConfigReader {
 public:
  ConfigReader(const Json& root, std::string_view text, std::string file)
      : root_(root), text_(text), file_(std::move(file)) {}

  bool has(const char* key) const { return root_.contains(key) && !root_[key].is_null(); }

  /// Whether `key` holds something that switches a feature on: not null, false, 0, "" or empty.
  bool set(const char* key) const {
    if (!has(key)) return false;
    const Json& value = root_[key];
    if (value.is_boolean()) return value.get<bool>();
    if (value.is_number()) return value.get<double>() != 0.0;
    if (value.is_string() || value.is_array() || value.is_object()) return !value.empty();
    return true;
  }

  /// Whether `key` holds a JSON list.
  bool is_list(const char* key) const { return has(key) && root_[key].is_array(); }

  /// Whether `key` holds a JSON object (a nested config such as `text_config`).
  bool has_object(const char* key) const { return has(key) && root_[key].is_object(); }

  /// A reader of the nested object `key` (which has_object says exists); errors still point into
  /// the same text.
  ConfigReader nested(const char* key) const { return ConfigReader(root_[key], text_, file_); }

  /// Readers of each object in the list `key` (errors point into the same text); `what` names
  /// an entry in errors.
  std::vector<ConfigReader> objects(const char* key) const {
    // A missing key is no list (a const Json's operator[] of a missing key is undefined).
    if (!has(key)) fail(key, "expected a list of objects");
    const Json& value = root_[key];
    if (!value.is_array()) fail(key, "expected a list of objects");
    std::vector<ConfigReader> out;
    for (const Json& item : value) {
      if (!item.is_object()) fail(key, fmt::format("expected a list of objects, got {}", util::show_json(item)));
      out.emplace_back(item, text_, file_);
    }
    return out;
  }

  double number(const char* key) const {
    if (!has(key)) fail(key, "missing required field");
    const Json& value = root_[key];
    if (!value.is_number()) fail(key, fmt::format("expected a number, got {}", util::show_json(value)));
    if (!std::isfinite(value.get<double>())) {
      fail(key, fmt::format("expected a finite number, got {}", util::show_json(value)));
    }
    return value.get<double>();
  }

  int64_t integer(const char* key) const {
    if (!has(key)) fail(key, "missing required field");
    const Json& value = root_[key];
    if (!value.is_number_integer()) {
      fail(key, fmt::format("expected an integer, got {}", util::show_json(value)));
    }
    return bounded(key, value);
  }

  int64_t integer_or(const char* key, int64_t fallback) const {
    return has(key) ? integer(key) : fallback;
  }

  int64_t positive(const char* key) const {
    const int64_t value = integer(key);
    if (value <= 0) fail(key, fmt::format("must be positive, got {}", value));
    return value;
  }

  int64_t non_negative_or(const char* key, int64_t fallback) const {
    const int64_t value = integer_or(key, fallback);
    if (value < 0) fail(key, fmt::format("must not be negative, got {}", value));
    return value;
  }

  bool boolean_or(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    const Json& value = root_[key];
    if (!value.is_boolean()) fail(key, fmt::format("expected true or false, got {}", util::show_json(value)));
    return value.get<bool>();
  }

  std::string text(const char* key) const {
    if (!has(key)) fail(key, "missing required field");
    const Json& value = root_[key];
    if (!value.is_string()) fail(key, fmt::format("expected a string, got {}", util::show_json(value)));
    return value.get<std::string>();
  }

  std::vector<std::string> strings(const char* key) const {
    if (!has(key)) fail(key, "expected a list of strings");
    const Json& value = root_[key];
    if (!value.is_array()) fail(key, "expected a list of strings");
    std::vector<std::string> out;
    for (const Json& item : value) {
      if (!item.is_string()) fail(key, fmt::format("expected a list of strings, got {}", util::show_json(item)));
      out.push_back(item.get<std::string>());
    }
    return out;
  }

  std::vector<int64_t> integers(const char* key) const {
    if (!has(key)) fail(key, "expected a list of integers");
    const Json& value = root_[key];
    if (!value.is_array()) fail(key, "expected a list of integers");
    std::vector<int64_t> out;
    for (const Json& item : value) {
      if (!item.is_number_integer()) {
        fail(key, fmt::format("expected a list of integers, got {}", util::show_json(item)));
      }
      out.push_back(bounded(key, item));
    }
    return out;
  }

  // An integer field within its named limit (util/limits.hpp), so what is sized or multiplied
  // from it stays within memory and int64.
  int64_t bounded(const char* key, const Json& value) const {
    const std::string_view k = key;
    int64_t limit = limits::kMaxModelDimension;
    const char* what = "widths";
    if (k == "vocab_size") {
      limit = limits::kMaxVocabulary;
      what = "vocabularies";
    } else if (k == "num_local_experts" || k == "num_experts" || k == "n_routed_experts" ||
               k == "num_experts_per_tok" || k == "n_shared_experts" || k == "top_k_experts") {
      limit = limits::kMaxExperts;
      what = "experts";
    } else if (k == "num_hidden_layers" || k == "n_layer" || k == "first_k_dense_replace" || k == "max_window_layers" ||
               k == "index_skip_topk_offset" || k == "num_nextn_predict_layers" || k == "num_mtp_modules" ||
               k == "moe_layer_freq" ||
               k == "decoder_sparse_step" || k == "index_topk_freq" || k == "mlp_only_layers") {
      limit = limits::kMaxLayers;
      what = "layers";
    } else if (k == "sliding_window" || k == "index_topk" || k == "n_positions") {
      limit = limits::kMaxSequenceTokens;
      what = "tokens";
    }
    if (value.is_number_unsigned() ? value.get<uint64_t>() > static_cast<uint64_t>(limit)
                                   : value.get<int64_t>() > limit) {
      fail(key, fmt::format("{} is more than {}, ladle's limit for {} (src/ladle/util/limits.hpp)", value.dump(),
                            limit, what));
    }
    return value.get<int64_t>();
  }

  /// The per-layer list `key`: one entry for each of `num_layers` layers, each one of `names`;
  /// returns the index into `names` of each layer's entry. `what` names an entry in errors.
  std::vector<size_t> per_layer(const char* key, int num_layers,
                                std::initializer_list<const char*> names,
                                const char* what = "layer type") const {
    const std::vector<std::string> entries = strings(key);
    if (static_cast<int64_t>(entries.size()) != num_layers) {
      fail(key, fmt::format("has {} entries for {} layers (num_hidden_layers {})", entries.size(),
                            num_layers, num_layers));
    }
    std::string expected;
    size_t k = 0;
    for (const char* name : names) {
      expected += k == 0 ? "" : k + 1 == names.size() ? " or " : ", ";
      expected += name;
      ++k;
    }
    std::vector<size_t> out;
    out.reserve(entries.size());
    for (const std::string& entry : entries) {
      const auto at = std::find_if(names.begin(), names.end(),
                                   [&entry](const char* name) { return entry == name; });
      if (at == names.end()) {
        fail(key, fmt::format("unknown {} '{}' (expected {})", what, entry, expected));
      }
      out.push_back(static_cast<size_t>(at - names.begin()));
    }
    return out;
  }

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw_input(locate(key), "{}", message);
  }

 private:
  // The position of `"key"` in the text (1:1 when the key is absent), so an editor can jump there.
  SourceLocation locate(const std::string& key) const {
    SourceLocation where{file_, 1, 1, key};
    const std::size_t at = text_.find("\"" + key + "\"");
    if (at == std::string_view::npos) return where;
    for (std::size_t i = 0; i < at; ++i) {
      if (text_[i] == '\n') {
        ++where.line;
        where.col = 1;
      } else {
        ++where.col;
      }
    }
    return where;
  }

  const Json& root_;
  std::string_view text_;
  std::string file_;
};


void read_common(const ConfigReader& in, ModelSpec& spec) {
  spec.num_layers = static_cast<int>(in.positive("num_hidden_layers"));
  spec.hidden_size = in.positive("hidden_size");
  spec.vocab_size = in.positive("vocab_size");
  spec.num_heads = in.positive("num_attention_heads");
  spec.tie_word_embeddings = in.boolean_or("tie_word_embeddings", false);
  spec.attention_bias = in.boolean_or("attention_bias", false);
  spec.sliding_window.assign(spec.num_layers, 0);
  spec.has_indexer.assign(spec.num_layers, false);
  spec.mlp.assign(spec.num_layers, MlpKind::dense);
}

void read_gqa(const ConfigReader& in, ModelSpec& spec) {
  spec.attention = AttentionKind::gqa;
  spec.num_kv_heads = in.has("num_key_value_heads") ? in.positive("num_key_value_heads") : spec.num_heads;
  if (spec.num_heads % spec.num_kv_heads != 0) {
    in.fail("num_key_value_heads", fmt::format("num_attention_heads {} is not divisible by "
                                               "num_key_value_heads {}",
                                               spec.num_heads, spec.num_kv_heads));
  }
  if (in.has("head_dim")) {
    spec.head_dim = in.positive("head_dim");
  } else {
    if (spec.hidden_size % spec.num_heads != 0) {
      in.fail("num_attention_heads", fmt::format("hidden_size {} is not divisible by "
                                                 "num_attention_heads {} (and no head_dim is given)",
                                                 spec.hidden_size, spec.num_heads));
    }
    spec.head_dim = spec.hidden_size / spec.num_heads;
  }
}

void read_mla(const ConfigReader& in, ModelSpec& spec) {
  spec.attention = AttentionKind::mla;
  spec.num_kv_heads = spec.num_heads;
  if (in.has("num_key_value_heads") && in.positive("num_key_value_heads") != spec.num_heads) {
    in.fail("num_key_value_heads", "multi-head latent attention needs num_key_value_heads equal "
                                   "to num_attention_heads");
  }
  spec.q_lora_rank = in.non_negative_or("q_lora_rank", 0);  // null: q projected directly
  spec.kv_lora_rank = in.positive("kv_lora_rank");
  spec.qk_nope_head_dim = in.positive("qk_nope_head_dim");
  spec.qk_rope_head_dim = in.positive("qk_rope_head_dim");
  spec.v_head_dim = in.positive("v_head_dim");
  spec.head_dim = spec.qk_nope_head_dim + spec.qk_rope_head_dim;
  if (in.has("qk_head_dim") && in.integer("qk_head_dim") != spec.head_dim) {
    in.fail("qk_head_dim", fmt::format("{} contradicts qk_nope_head_dim + qk_rope_head_dim = {}",
                                       in.integer("qk_head_dim"), spec.head_dim));
  }
}

void check_experts(const ConfigReader& in, const ModelSpec& spec, const char* experts_key) {
  if (spec.experts_per_token > spec.num_experts) {
    in.fail("num_experts_per_tok",
            fmt::format("{} experts per token exceeds the {} experts of {}", spec.experts_per_token,
                        spec.num_experts, experts_key));
  }
}

// DeepSeek-style MoE: routed + shared experts, dense first_k_dense_replace layers.
// DeepSeek's expert keys: n_routed_experts of moe_intermediate_size, top num_experts_per_tok, and
// n_shared_experts fused into one shared MLP.
void deepseek_experts(const ConfigReader& in, ModelSpec& spec) {
  spec.moe_intermediate_size = in.positive("moe_intermediate_size");
  spec.num_experts = in.positive("n_routed_experts");
  spec.experts_per_token = in.positive("num_experts_per_tok");
  check_experts(in, spec, "n_routed_experts");
  spec.num_shared_experts = in.non_negative_or("n_shared_experts", 0);
  spec.shared_expert_intermediate_size = spec.num_shared_experts * spec.moe_intermediate_size;
}

void mlp_deepseek_moe(const ConfigReader& in, ModelSpec& spec) {
  spec.intermediate_size = in.positive("intermediate_size");
  deepseek_experts(in, spec);
  spec.first_k_dense = static_cast<int>(in.non_negative_or("first_k_dense_replace", 0));
  if (spec.first_k_dense > spec.num_layers) {
    in.fail("first_k_dense_replace", fmt::format("{} exceeds num_hidden_layers {}",
                                                 spec.first_k_dense, spec.num_layers));
  }
  if (in.has("moe_layer_freq") && in.is_list("moe_layer_freq")) {
    // One entry per layer, 1 for MoE (MiMo-V2-Flash's configuration_mimo_v2_flash.py).
    const std::vector<int64_t> moe = in.integers("moe_layer_freq");
    if (static_cast<int64_t>(moe.size()) != spec.num_layers) {
      in.fail("moe_layer_freq", fmt::format("has {} entries but num_hidden_layers is {}: the two keys contradict "
                                            "each other",
                                            moe.size(), spec.num_layers));
    }
    for (int i = 0; i < spec.num_layers; ++i) {
      if (moe[i] != 0 && moe[i] != 1) in.fail("moe_layer_freq", fmt::format("layer {} is {} (expected 0 or 1)", i, moe[i]));
      spec.mlp[i] = (i >= spec.first_k_dense && moe[i] == 1) ? MlpKind::moe : MlpKind::dense;
    }
  } else {
    const int64_t freq = in.integer_or("moe_layer_freq", 1);
    if (freq <= 0) in.fail("moe_layer_freq", fmt::format("must be positive, got {}", freq));
    for (int i = 0; i < spec.num_layers; ++i) {
      spec.mlp[i] = (i >= spec.first_k_dense && i % freq == 0) ? MlpKind::moe : MlpKind::dense;
    }
  }
  // noaux_tc routing keeps a per-expert correction bias (DeepSeek-V3 report, sec. 2.1.2).
  spec.router_correction_bias = !in.has("topk_method") || in.text("topk_method") == "noaux_tc";
}

void read_mlp_layer_types(const ConfigReader& in, ModelSpec& spec) {
  if (!in.has("mlp_layer_types")) return;
  const std::vector<size_t> kinds =
      in.per_layer("mlp_layer_types", spec.num_layers, {"dense", "sparse", "moe"});
  const std::vector<std::string> types = in.strings("mlp_layer_types");
  for (int i = 0; i < spec.num_layers; ++i) {
    const MlpKind kind = kinds[i] == 0 ? MlpKind::dense : MlpKind::moe;
    if (kind != spec.mlp[i]) {
      in.fail("mlp_layer_types", fmt::format("layer {} is '{}' but first_k_dense_replace {} says "
                                             "{}",
                                             i, types[i], spec.first_k_dense, to_string(spec.mlp[i])));
    }
  }
}

// Which layers own a DSA indexer: `indexer_types` ("full" owns, "shared" reuses the previous
// layer's top-k); else `index_topk_freq` F with `index_skip_topk_offset` K (layers below K and
// every F-th layer from K + F - 1 own one, which reproduces GLM-5.2's indexer_types); else all.
void read_indexer(const ConfigReader& in, ModelSpec& spec) {
  spec.index_n_heads = in.positive("index_n_heads");
  spec.index_head_dim = in.positive("index_head_dim");
  spec.index_topk = in.positive("index_topk");
  if (in.has("indexer_types")) {
    const std::vector<size_t> types =
        in.per_layer("indexer_types", spec.num_layers, {"full", "shared"}, "indexer type");
    for (int i = 0; i < spec.num_layers; ++i) spec.has_indexer[i] = types[i] == 0;
    if (!spec.has_indexer[0]) in.fail("indexer_types", "layer 0 has no earlier indexer to share");
    return;
  }
  if (in.has("index_topk_freq")) {
    const int64_t freq = in.positive("index_topk_freq");
    const int64_t offset = in.non_negative_or("index_skip_topk_offset", 0);
    for (int i = 0; i < spec.num_layers; ++i) {
      spec.has_indexer[i] = i < offset || (i - offset) % freq == freq - 1;
    }
    spec.has_indexer[0] = true;
    return;
  }
  spec.has_indexer.assign(spec.num_layers, true);
}

void read_sliding_window_layers(const ConfigReader& in, ModelSpec& spec) {
  if (!in.has("layer_types")) return;
  const std::vector<size_t> types =
      in.per_layer("layer_types", spec.num_layers, {"full_attention", "sliding_attention"});
  const int64_t window = in.has("sliding_window") ? in.positive("sliding_window") : 0;
  for (int i = 0; i < spec.num_layers; ++i) {
    if (types[i] == 1) {
      if (window == 0) in.fail("sliding_window", "layer_types has sliding layers but no window");
      spec.sliding_window[i] = window;
    }
  }
}

// Qwen2/Qwen3 windows: layer_types, else (use_sliding_window) layers from max_window_layers on.
void read_qwen_sliding_window(const ConfigReader& in, ModelSpec& spec) {
  if (in.has("layer_types")) {
    read_sliding_window_layers(in, spec);
  } else if (in.boolean_or("use_sliding_window", false) && in.has("sliding_window")) {
    // Qwen2/3: layers from max_window_layers on use the window.
    const int64_t window = in.positive("sliding_window");
    const int64_t first = in.non_negative_or("max_window_layers", spec.num_layers);
    for (int i = 0; i < spec.num_layers; ++i) {
      if (i >= first) spec.sliding_window[i] = window;
    }
  }
}

// Sliding layers from layer_types, else every sliding_window_pattern-th layer is full (Gemma 3's
// older configs spell it `sliding_window_pattern`, newer ones `_sliding_window_pattern` beside
// layer_types).
void read_sliding_window_pattern(const ConfigReader& in, ModelSpec& spec) {
  if (in.has("layer_types")) {
    read_sliding_window_layers(in, spec);
    return;
  }
  const char* key = in.has("sliding_window_pattern") ? "sliding_window_pattern" : "_sliding_window_pattern";
  if (!in.has(key) || !in.has("sliding_window")) return;
  const int64_t pattern = in.positive(key);
  const int64_t window = in.positive("sliding_window");
  for (int i = 0; i < spec.num_layers; ++i) {
    if ((i + 1) % pattern != 0) spec.sliding_window[i] = window;
  }
}

// ---- Layer kinds. Each reads one part of a decoder layer from the config keys that kind uses
// (the names of the Hugging Face configuration classes that define it); which parts a model_type
// has, and the facts of its modeling code, are its row in data/models/types.yaml. ----

// A dense MLP of intermediate_size (SwiGLU unless the row says otherwise).
void mlp_dense(const ConfigReader& in, ModelSpec& spec) {
  spec.intermediate_size = in.positive("intermediate_size");
}

// Every layer MoE: num_local_experts experts as wide as intermediate_size, top num_experts_per_tok
// (Mixtral's block_sparse_moe, gpt-oss, MiniMax-M2).
void mlp_every_layer_moe(const ConfigReader& in, ModelSpec& spec) {
  spec.intermediate_size = in.positive("intermediate_size");
  spec.moe_intermediate_size = spec.intermediate_size;
  spec.num_experts = in.positive("num_local_experts");
  spec.experts_per_token = in.positive("num_experts_per_tok");
  check_experts(in, spec, "num_local_experts");
  spec.mlp.assign(spec.num_layers, MlpKind::moe);
}

// Which layers are MoE in Qwen's scheme: every decoder_sparse_step-th layer (i + 1 divisible by
// it) unless mlp_only_layers lists it.
void qwen_moe_layers(const ConfigReader& in, ModelSpec& spec) {
  const int64_t step = in.integer_or("decoder_sparse_step", 1);
  if (step <= 0) in.fail("decoder_sparse_step", fmt::format("must be positive, got {}", step));
  std::vector<int64_t> dense_layers;
  if (in.has("mlp_only_layers")) dense_layers = in.integers("mlp_only_layers");
  for (int i = 0; i < spec.num_layers; ++i) {
    const bool dense = std::find(dense_layers.begin(), dense_layers.end(), i) != dense_layers.end();
    spec.mlp[i] = (!dense && (i + 1) % step == 0) ? MlpKind::moe : MlpKind::dense;
  }
}

// Qwen3-MoE: a dense width intermediate_size, num_experts routed experts of
// moe_intermediate_size, no shared expert.
void mlp_qwen_moe(const ConfigReader& in, ModelSpec& spec) {
  spec.intermediate_size = in.positive("intermediate_size");
  spec.moe_intermediate_size = in.positive("moe_intermediate_size");
  spec.num_experts = in.positive("num_experts");
  spec.experts_per_token = in.positive("num_experts_per_tok");
  check_experts(in, spec, "num_experts");
  qwen_moe_layers(in, spec);
}

// Qwen3-Next / Qwen3.5: Qwen3-MoE's routed experts plus one shared expert of
// shared_expert_intermediate_size behind a [1, hidden] sigmoid gate; intermediate_size is needed
// only when some layer is dense (Qwen3.5-MoE writes none).
void mlp_qwen_moe_shared_expert(const ConfigReader& in, ModelSpec& spec) {
  if (in.has("intermediate_size")) spec.intermediate_size = in.positive("intermediate_size");
  spec.moe_intermediate_size = in.positive("moe_intermediate_size");
  spec.num_experts = in.positive("num_experts");
  spec.experts_per_token = in.positive("num_experts_per_tok");
  check_experts(in, spec, "num_experts");
  spec.shared_expert_intermediate_size = in.non_negative_or("shared_expert_intermediate_size", 0);
  spec.num_shared_experts = spec.shared_expert_intermediate_size > 0 ? 1 : 0;
  spec.shared_expert_gate = spec.shared_expert_intermediate_size > 0;
  qwen_moe_layers(in, spec);
  if (spec.count_mlp(MlpKind::dense) > 0) spec.intermediate_size = in.positive("intermediate_size");
}

// Every layer's attention uses sliding_window when the config gives one (Mistral, Mixtral).
void every_layer_window(const ConfigReader& in, ModelSpec& spec) {
  if (in.has("sliding_window")) spec.sliding_window.assign(spec.num_layers, in.positive("sliding_window"));
}

// One integer under either of two names that configs of the same model_type use (Ling-lite
// writes num_experts, Ling-plus n_routed_experts); both given must agree.
int64_t integer_of_either(const ConfigReader& in, const char* first, const char* second) {
  if (in.has(first) && in.has(second) && in.integer(first) != in.integer(second)) {
    in.fail(second, fmt::format("{} contradicts {} = {}", in.integer(second), first,
                                in.integer(first)));
  }
  if (in.has(first)) return in.integer(first);
  if (in.has(second)) return in.integer(second);
  in.fail(first, fmt::format("missing required field (or {})", second));
}

// Ling's MoE (BailingMoeForCausalLM, inclusionAI's modeling_bailing_moe.py): DeepSeek-style
// routed + shared experts (shared width = n_shared x expert width) after first_k_dense_replace
// dense layers, the counts under either of two names; no router correction bias.
void mlp_bailing_moe(const ConfigReader& in, ModelSpec& spec) {
  spec.intermediate_size = in.positive("intermediate_size");
  spec.moe_intermediate_size = in.positive("moe_intermediate_size");
  spec.num_experts = integer_of_either(in, "num_experts", "n_routed_experts");
  if (spec.num_experts <= 0) in.fail("num_experts", "must be positive");
  spec.experts_per_token = in.positive("num_experts_per_tok");
  check_experts(in, spec, "num_experts");
  spec.num_shared_experts = in.has("num_shared_experts") || in.has("n_shared_experts")
                                ? integer_of_either(in, "num_shared_experts", "n_shared_experts")
                                : 0;
  if (spec.num_shared_experts < 0) in.fail("num_shared_experts", "must not be negative");
  spec.shared_expert_intermediate_size = spec.num_shared_experts * spec.moe_intermediate_size;
  spec.first_k_dense = static_cast<int>(in.non_negative_or("first_k_dense_replace", 0));
  if (spec.first_k_dense > spec.num_layers) {
    in.fail("first_k_dense_replace", fmt::format("{} exceeds num_hidden_layers {}",
                                                 spec.first_k_dense, spec.num_layers));
  }
  for (int i = 0; i < spec.num_layers; ++i) {
    spec.mlp[i] = i >= spec.first_k_dense ? MlpKind::moe : MlpKind::dense;
  }
}

// Llama 4's vision encoder and projector (transformers modeling_llama4.py: Llama4VisionModel,
// Llama4VisionPixelShuffleMLP, Llama4MultiModalProjector): an unfold-conv patch embedding
// without bias, class and position embeddings, pre/post LayerNorms, encoder layers of biased
// q/k/v/o and a biased fc1/fc2 MLP with two LayerNorms, the pixel-shuffle MLP
// (intermediate -> projector_input_dim -> projector_output_dim) and the linear projector into
// the text width.
int64_t llama4_vision_params(const ConfigReader& v, int64_t text_hidden) {
  const int64_t h = v.positive("hidden_size");
  const int64_t layers = v.positive("num_hidden_layers");
  const int64_t inner = v.positive("intermediate_size");
  const int64_t channels = v.positive("num_channels");
  const int64_t patch = v.positive("patch_size");
  const int64_t image = v.positive("image_size");
  const int64_t proj_in = v.positive("projector_input_dim");
  const int64_t proj_out = v.positive("projector_output_dim");
  const int64_t out_dim = v.positive("vision_output_dim");
  const bool proj_bias = v.boolean_or("multi_modal_projector_bias", false);
  const int64_t side = image / patch;
  int64_t n = channels * patch * patch * h;  // patch embedding
  n += h + (side * side + 1) * h;            // class + position embeddings
  n += 2 * 2 * h;                            // layernorm_pre, layernorm_post
  const int64_t per_layer = 4 * (h * h + h) + (h * inner + inner) + (inner * h + h) + 2 * 2 * h;
  n += layers * per_layer;
  n += inner * proj_in + (proj_bias ? proj_in : 0) + proj_in * proj_out + (proj_bias ? proj_out : 0);
  n += out_dim * text_hidden;  // multi_modal_projector.linear_1, no bias
  return n;
}

// Llama 4 text model (transformers configuration_llama4.py / modeling_llama4.py): MoE layers are
// `moe_layers`, else every interleave_moe_layer_step-th layer (i = step-1, 2 step-1, ...); a MoE
// layer has num_local_experts routed experts of `intermediate_size` (top num_experts_per_tok) and
// one shared expert of the same width; a dense layer an MLP of `intermediate_size_mlp`. Layers
// with RoPE use chunked attention over attention_chunk_size tokens; every
// no_rope_layer_interval-th layer (default 4 in Llama4TextConfig) is a NoPE layer with full
// attention (`no_rope_layers`, 1 = RoPE, or `layer_types` when given). use_qk_norm is an L2 norm
// without weights.
void mlp_llama4_moe(const ConfigReader& in, ModelSpec& spec) {
  spec.intermediate_size = in.positive("intermediate_size_mlp");
  spec.moe_intermediate_size = in.positive("intermediate_size");
  spec.num_experts = in.positive("num_local_experts");
  spec.experts_per_token = in.positive("num_experts_per_tok");
  check_experts(in, spec, "num_local_experts");
  spec.num_shared_experts = 1;
  spec.shared_expert_intermediate_size = spec.moe_intermediate_size;
  if (in.has("moe_layers")) {
    for (int64_t layer : in.integers("moe_layers")) {
      if (layer < 0 || layer >= spec.num_layers) {
        in.fail("moe_layers", fmt::format("layer {} is outside 0..{}", layer, spec.num_layers - 1));
      }
      spec.mlp[layer] = MlpKind::moe;
    }
  } else {
    const int64_t step = in.integer_or("interleave_moe_layer_step", 1);
    if (step <= 0) in.fail("interleave_moe_layer_step", fmt::format("must be positive, got {}", step));
    for (int i = 0; i < spec.num_layers; ++i) {
      if ((i + 1) % step == 0) spec.mlp[i] = MlpKind::moe;
    }
  }
}

// Llama 4's chunked attention layers (see mlp_llama4_moe).
void llama4_chunked_layers(const ConfigReader& in, ModelSpec& spec) {
  std::vector<bool> chunked(spec.num_layers, false);
  if (in.has("layer_types")) {
    const std::vector<size_t> types =
        in.per_layer("layer_types", spec.num_layers, {"chunked_attention", "full_attention"});
    for (int i = 0; i < spec.num_layers; ++i) chunked[i] = types[i] == 0;
  } else if (in.has("no_rope_layers") && !in.integers("no_rope_layers").empty()) {
    const std::vector<int64_t> rope = in.integers("no_rope_layers");
    if (static_cast<int>(rope.size()) != spec.num_layers) {
      in.fail("no_rope_layers", fmt::format("has {} entries for {} layers", rope.size(), spec.num_layers));
    }
    for (int i = 0; i < spec.num_layers; ++i) {
      if (rope[i] != 0 && rope[i] != 1) {
        in.fail("no_rope_layers", fmt::format("expected 0 or 1, got {}", rope[i]));
      }
      chunked[i] = rope[i] == 1;
    }
  } else {
    // An empty or absent no_rope_layers means the default pattern (Llama4TextConfig); Maverick's
    // config spells the interval nope_layer_interval.
    const char* key = in.has("no_rope_layer_interval") ? "no_rope_layer_interval" : "nope_layer_interval";
    const int64_t interval = in.has(key) ? in.positive(key) : 4;
    for (int i = 0; i < spec.num_layers; ++i) chunked[i] = (i + 1) % interval != 0;
  }
  spec.attention_chunk.assign(spec.num_layers, 0);
  if (std::find(chunked.begin(), chunked.end(), true) != chunked.end()) {
    const int64_t chunk = in.positive("attention_chunk_size");
    for (int i = 0; i < spec.num_layers; ++i) {
      if (chunked[i]) spec.attention_chunk[i] = chunk;
    }
  }
}

// Gated DeltaNet layers (transformers configuration_qwen3_next.py / modeling_qwen3_next.py):
// layer_types, else every full_attention_interval-th layer (default 4) is softmax attention and
// the others Gated DeltaNet of linear_num_{key,value}_heads heads.
void gated_deltanet_layers(const ConfigReader& in, ModelSpec& spec) {
  spec.linear_attention.assign(spec.num_layers, false);
  if (in.has("layer_types")) {
    const std::vector<size_t> types =
        in.per_layer("layer_types", spec.num_layers, {"linear_attention", "full_attention"});
    for (int i = 0; i < spec.num_layers; ++i) spec.linear_attention[i] = types[i] == 0;
  } else {
    const int64_t interval = in.has("full_attention_interval") ? in.positive("full_attention_interval") : 4;
    for (int i = 0; i < spec.num_layers; ++i) spec.linear_attention[i] = (i + 1) % interval != 0;
  }
  if (spec.count_linear_attention() > 0) {
    spec.linear_num_key_heads = in.positive("linear_num_key_heads");
    spec.linear_num_value_heads = in.positive("linear_num_value_heads");
    spec.linear_key_head_dim = in.positive("linear_key_head_dim");
    spec.linear_value_head_dim = in.positive("linear_value_head_dim");
    spec.linear_conv_kernel = in.positive("linear_conv_kernel_dim");
    if (spec.linear_num_value_heads % spec.linear_num_key_heads != 0) {
      in.fail("linear_num_value_heads",
              fmt::format("{} is not a multiple of linear_num_key_heads {}",
                          spec.linear_num_value_heads, spec.linear_num_key_heads));
    }
  }
}

// ---- kimi_linear, kimi_k3 ----
// Kimi Linear's and Kimi-K3's layers (sgl-project/sglang python/sglang/srt/models/kimi_k3.py @
// 0000e9b4, KimiK3DecoderLayer and KimiK3DeltaAttention): linear_attn_config lists the 1-based
// layers of Kimi Delta Attention (kda_layers) and of full MLA (full_attn_layers), together every
// layer once; KDA has num_heads heads of head_dim for q, k and v alike and a short causal conv of
// short_conv_kernel_size over each; use_full_rank_gate makes its output gate one full-rank
// projection.
void kda_layers(const ConfigReader& in, ModelSpec& spec) {
  if (!in.has_object("linear_attn_config")) {
    in.fail("linear_attn_config", "expected an object listing kda_layers and full_attn_layers");
  }
  const ConfigReader la = in.nested("linear_attn_config");
  const std::vector<int64_t> kda = la.integers("kda_layers");
  const std::vector<int64_t> full = la.integers("full_attn_layers");
  std::vector<int> seen(static_cast<size_t>(spec.num_layers), 0);
  spec.linear_attention.assign(spec.num_layers, false);
  for (const auto& [list, key, linear] : {std::tuple{&kda, "kda_layers", true}, std::tuple{&full, "full_attn_layers", false}}) {
    for (const int64_t n : *list) {
      if (n < 1 || n > spec.num_layers) {
        la.fail(key, fmt::format("layer {} is outside 1..num_hidden_layers {} (the lists are 1-based)", n, spec.num_layers));
      }
      if (++seen[static_cast<size_t>(n - 1)] > 1) {
        la.fail(key, fmt::format("layer {} is listed twice in kda_layers and full_attn_layers", n));
      }
      spec.linear_attention[static_cast<size_t>(n - 1)] = linear;
    }
  }
  if (kda.size() + full.size() != static_cast<size_t>(spec.num_layers)) {
    la.fail("kda_layers", fmt::format("kda_layers ({}) and full_attn_layers ({}) cover {} layers but "
                                      "num_hidden_layers is {}: the keys contradict each other",
                                      kda.size(), full.size(), kda.size() + full.size(), spec.num_layers));
  }
  spec.kda = true;
  spec.linear_num_key_heads = la.positive("num_heads");
  spec.linear_num_value_heads = spec.linear_num_key_heads;
  spec.linear_key_head_dim = la.positive("head_dim");
  spec.linear_value_head_dim = spec.linear_key_head_dim;
  spec.linear_conv_kernel = la.positive("short_conv_kernel_size");
  spec.kda_full_rank_gate = la.boolean_or("use_full_rank_gate", false);
}

// Kimi's experts (KimiK3MoE in the same file): num_experts of moe_intermediate_size, top
// num_experts_per_token, num_shared_experts fused into one shared MLP of their total width, the
// first first_k_dense_replace layers dense of intermediate_size, then every moe_layer_freq-th
// layer MoE; sigmoid routing with a correction bias (noaux_tc). Under routed_expert_hidden_size
// the routed experts work in that latent width, behind routed_expert_down_proj, an RMSNorm
// (latent_moe_use_norm) and routed_expert_up_proj. hidden_act silu is SwiGLU; situ (Kimi-K3's
// SiTU-GLU) is a GLU of another activation, read as not SiLU.
void mlp_kimi_moe(const ConfigReader& in, ModelSpec& spec) {
  spec.intermediate_size = in.positive("intermediate_size");
  spec.moe_intermediate_size = in.positive("moe_intermediate_size");
  spec.num_experts = in.positive("num_experts");
  spec.experts_per_token = in.positive("num_experts_per_token");
  check_experts(in, spec, "num_experts");
  spec.num_shared_experts = in.non_negative_or("num_shared_experts", 0);
  spec.shared_expert_intermediate_size = spec.num_shared_experts * spec.moe_intermediate_size;
  spec.first_k_dense = static_cast<int>(in.non_negative_or("first_k_dense_replace", 0));
  if (spec.first_k_dense > spec.num_layers) {
    in.fail("first_k_dense_replace", fmt::format("{} exceeds num_hidden_layers {}", spec.first_k_dense, spec.num_layers));
  }
  const int64_t freq = in.integer_or("moe_layer_freq", 1);
  if (freq <= 0) in.fail("moe_layer_freq", fmt::format("must be positive, got {}", freq));
  for (int i = 0; i < spec.num_layers; ++i) {
    spec.mlp[i] = (i >= spec.first_k_dense && i % freq == 0) ? MlpKind::moe : MlpKind::dense;
  }
  spec.router_correction_bias = !in.has("topk_method") || in.text("topk_method") == "noaux_tc";
  const std::string act = in.has("hidden_act") ? in.text("hidden_act") : "silu";
  if (act != "silu" && act != "situ") in.fail("hidden_act", fmt::format("'{}' is not read (expected silu or situ)", act));
  spec.silu_glu = act == "silu";
  if (in.has("routed_expert_hidden_size")) {
    spec.moe_latent_size = in.positive("routed_expert_hidden_size");
    spec.moe_latent_norm = in.boolean_or("latent_moe_use_norm", false);
  }
}

// Block attention residuals (KimiK3DecoderLayer and KimiK3LinearModel): attn_res_block_size
// layers make a block.
void attention_residuals(const ConfigReader& in, ModelSpec& spec) {
  if (in.has("attn_res_block_size")) spec.attn_res_block_size = in.positive("attn_res_block_size");
}
// ---- end kimi_linear, kimi_k3 ----

// Nemotron-H (NVIDIA's configuration_nemotron_h.py / modeling_nemotron_h.py): one block per
// character of hybrid_override_pattern, each a norm and one mixer: 'M' a Mamba-2 mixer, '*' GQA
// attention (attention_head_dim per head), '-' a two-matrix MLP (up_proj -> relu2 -> down_proj).
// Mamba-2: in_proj [inner + conv + heads, h] (z, x B C, dt), a depthwise conv1d over x, B and C
// (inner + 2 groups x state channels), dt_bias, A_log and D per head, a gated RMSNorm of inner,
// out_proj [h, inner]; inner = mamba_num_heads x mamba_head_dim.
void hybrid_override_pattern(const ConfigReader& in, ModelSpec& spec) {
  spec.attention = AttentionKind::gqa;
  spec.num_kv_heads = in.has("num_key_value_heads") ? in.positive("num_key_value_heads") : spec.num_heads;
  if (spec.num_heads % spec.num_kv_heads != 0) {
    in.fail("num_key_value_heads", fmt::format("num_attention_heads {} is not divisible by num_key_value_heads {}",
                                               spec.num_heads, spec.num_kv_heads));
  }
  const char* head_key = in.has("attention_head_dim") ? "attention_head_dim" : "head_dim";
  if (in.has(head_key)) {
    spec.head_dim = in.positive(head_key);
  } else {
    spec.head_dim = spec.hidden_size / spec.num_heads;
  }
  spec.attention_out_bias = spec.attention_bias;
  spec.gated_mlp = false;
  spec.silu_glu = false;
  const std::string act = in.has("mlp_hidden_act") ? in.text("mlp_hidden_act") : "relu2";
  if (act != "relu2") in.fail("mlp_hidden_act", fmt::format("'{}' is not read (expected relu2)", act));
  spec.relu2_mlp = true;
  spec.mlp_bias = in.boolean_or("mlp_bias", false);
  const std::string pattern = in.text("hybrid_override_pattern");
  if (static_cast<int64_t>(pattern.size()) != spec.num_layers) {
    in.fail("hybrid_override_pattern",
            fmt::format("has {} layers but num_hidden_layers is {}: the two keys contradict each other",
                        pattern.size(), spec.num_layers));
  }
  spec.mixer.assign(spec.num_layers, MixerKind::none);
  for (int i = 0; i < spec.num_layers; ++i) {
    switch (pattern[static_cast<size_t>(i)]) {
      case 'M': spec.mixer[i] = MixerKind::mamba; spec.mlp[i] = MlpKind::none; break;
      case '*': spec.mixer[i] = MixerKind::attention; spec.mlp[i] = MlpKind::none; break;
      case '-': spec.mixer[i] = MixerKind::none; spec.mlp[i] = MlpKind::dense; break;
      case 'E':
        in.fail("hybrid_override_pattern", fmt::format("layer {} is 'E', a MoE layer, which ladle does not read "
                                                       "for nemotron_h (expected M, * or -)", i));
      default:
        in.fail("hybrid_override_pattern", fmt::format("layer {} is '{}' (expected M for Mamba-2, * for attention "
                                                       "or - for an MLP)", i, pattern[static_cast<size_t>(i)]));
    }
  }
  if (spec.count_mlp(MlpKind::dense) > 0) spec.intermediate_size = in.positive("intermediate_size");
  if (spec.count_mixer(MixerKind::mamba) > 0) {
    spec.mamba_heads = in.positive("mamba_num_heads");
    spec.mamba_head_dim = in.positive("mamba_head_dim");
    spec.mamba_groups = in.positive("n_groups");
    spec.mamba_state = in.positive("ssm_state_size");
    spec.mamba_conv_kernel = in.positive("conv_kernel");
    spec.mamba_chunk = in.has("chunk_size") ? in.positive("chunk_size") : 256;
    spec.mamba_conv_bias = in.boolean_or("use_conv_bias", true);
    spec.mamba_proj_bias = in.boolean_or("use_bias", false);
    if (spec.mamba_heads % spec.mamba_groups != 0) {
      in.fail("n_groups", fmt::format("mamba_num_heads {} is not divisible by n_groups {}", spec.mamba_heads,
                                      spec.mamba_groups));
    }
  }
}

// Nemotron-NAS (DeciLM, NVIDIA's configuration_decilm.py / modeling_decilm.py): Llama layers
// whose attention and MLP each come from one entry of block_configs: attention no_op drops the
// attention and its input_layernorm, else GQA with num_attention_heads / n_heads_in_group kv
// heads; ffn no_op drops the MLP and post_attention_layernorm, else SwiGLU of width
// round_up(int(2 ffn_mult hidden / 3), 256) (_ffn_mult_to_intermediate_size).
void block_configs(const ConfigReader& in, ModelSpec& spec) {
  spec.attention = AttentionKind::gqa;
  if (spec.hidden_size % spec.num_heads != 0) {
    in.fail("num_attention_heads", fmt::format("hidden_size {} is not divisible by num_attention_heads {}",
                                               spec.hidden_size, spec.num_heads));
  }
  spec.head_dim = in.has("head_dim") ? in.positive("head_dim") : spec.hidden_size / spec.num_heads;
  spec.num_kv_heads = spec.num_heads;
  spec.attention_out_bias = spec.attention_bias;
  spec.mlp_bias = in.boolean_or("mlp_bias", false);
  const std::vector<ConfigReader> blocks = in.objects("block_configs");
  if (static_cast<int64_t>(blocks.size()) != spec.num_layers) {
    in.fail("block_configs", fmt::format("has {} entries but num_hidden_layers is {}: the two keys contradict "
                                         "each other",
                                         blocks.size(), spec.num_layers));
  }
  spec.mixer.assign(spec.num_layers, MixerKind::attention);
  spec.layer_ffn.assign(spec.num_layers, 0);
  spec.layer_kv_heads.assign(spec.num_layers, 0);
  const auto refuse = [&in](size_t i, const char* part, const char* key) {
    in.fail("block_configs", fmt::format("entry {} sets {}.{}, which ladle does not read", i, part, key));
  };
  int64_t kv_first = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const int layer = static_cast<int>(i);
    if (!blocks[i].has_object("attention") || !blocks[i].has_object("ffn")) {
      in.fail("block_configs", fmt::format("entry {} needs an attention and an ffn object", i));
    }
    const ConfigReader attn = blocks[i].nested("attention");
    const ConfigReader ffn = blocks[i].nested("ffn");
    if (attn.boolean_or("replace_with_linear", false)) refuse(i, "attention", "replace_with_linear");
    if (attn.set("sparsify")) refuse(i, "attention", "sparsify");
    if (attn.set("num_sink_tokens")) refuse(i, "attention", "num_sink_tokens");
    if (attn.set("window_length")) refuse(i, "attention", "window_length");
    if (ffn.boolean_or("replace_with_linear", false)) refuse(i, "ffn", "replace_with_linear");
    if (ffn.set("sparsify")) refuse(i, "ffn", "sparsify");
    if (attn.boolean_or("no_op", false)) {
      spec.mixer[layer] = MixerKind::none;
    } else {
      const int64_t group = attn.positive("n_heads_in_group");
      if (spec.num_heads % group != 0) {
        attn.fail("n_heads_in_group", fmt::format("entry {}: num_attention_heads {} is not divisible by {}", i,
                                                  spec.num_heads, group));
      }
      spec.layer_kv_heads[layer] = spec.num_heads / group;
      if (kv_first == 0) kv_first = spec.num_heads / group;
    }
    if (ffn.boolean_or("no_op", false)) {
      spec.mlp[layer] = MlpKind::none;
    } else {
      const double mult = ffn.number("ffn_mult");
      if (!(mult > 0) || mult > 64) ffn.fail("ffn_mult", fmt::format("entry {}: expected a number in (0, 64], got {}", i, mult));
      const auto width = static_cast<int64_t>(2.0 * mult * static_cast<double>(spec.hidden_size) / 3.0);
      spec.layer_ffn[layer] = (width + 255) / 256 * 256;
    }
  }
  // The layers without attention take the first attention layer's kv heads (unused: no tensors).
  for (int i = 0; i < spec.num_layers; ++i) {
    if (spec.layer_kv_heads[i] == 0) spec.layer_kv_heads[i] = kv_first > 0 ? kv_first : spec.num_heads;
  }
  spec.num_kv_heads = kv_first > 0 ? kv_first : spec.num_heads;
  int64_t widest = 0;
  for (int64_t w : spec.layer_ffn) widest = std::max(widest, w);
  spec.intermediate_size = widest;
}

// ---- step3p7: Step-3.7-Flash's text model (per-layer attention geometry) ----
// Step3p5ForCausalLM (sgl-project/sglang python/sglang/srt/models/step3p5.py @ 01b5f572:
// Step3p5Attention, Step3p5DecoderLayer): GQA of num_attention_heads over num_attention_groups
// key/value heads (the flattened configs spell it num_key_value_heads) and head_dim; the layers
// whose layer_types entry is attention_other_setting's attention_type take that object's query
// heads, key/value groups and head size; layer_types may list the MTP layers after the decoder
// layers (num_hidden_layers + num_nextn_predict_layers entries); sliding layers attend
// sliding_window tokens; use_head_wise_attn_gate adds g_proj, one sigmoid gate per query head; q
// and k have per-head RMSNorms. The MLP: dense SwiGLU of intermediate_size on the layers before
// the MoE ones (moe_layers_enum, else first_k_dense_replace), else moe_num_experts (num_experts)
// routed experts of moe_intermediate_size, top moe_top_k (num_experts_per_tok), one shared expert
// of share_expert_dim, and a per-expert selection bias when use_moe_router_bias.
void step3p5_attention(const ConfigReader& in, ModelSpec& spec) {
  spec.attention = AttentionKind::gqa;
  const char* kv_key = in.has("num_attention_groups") ? "num_attention_groups" : "num_key_value_heads";
  spec.num_kv_heads = in.positive(kv_key);
  if (spec.num_heads % spec.num_kv_heads != 0) {
    in.fail(kv_key, fmt::format("num_attention_heads {} is not divisible by {} {}", spec.num_heads, kv_key,
                                spec.num_kv_heads));
  }
  if (in.has("head_dim")) {
    spec.head_dim = in.positive("head_dim");
  } else if (spec.hidden_size % spec.num_heads == 0) {
    spec.head_dim = spec.hidden_size / spec.num_heads;
  } else {
    in.fail("num_attention_heads", fmt::format("hidden_size {} is not divisible by num_attention_heads {} (and no "
                                               "head_dim is given)",
                                               spec.hidden_size, spec.num_heads));
  }
  spec.head_wise_attention_gate = in.boolean_or("use_head_wise_attn_gate", false);
  if (!in.has("layer_types")) return;
  std::vector<std::string> types = in.strings("layer_types");
  const int64_t mtp = in.non_negative_or("num_nextn_predict_layers", 0);
  const auto n = static_cast<int64_t>(types.size());
  if (n != spec.num_layers && n != spec.num_layers + mtp) {
    in.fail("layer_types", fmt::format("has {} entries but num_hidden_layers is {} (num_nextn_predict_layers {}): the "
                                       "two keys contradict each other",
                                       n, spec.num_layers, mtp));
  }
  types.resize(static_cast<size_t>(spec.num_layers));  // the MTP layers' entries follow the decoder's
  std::string other_type = "sliding_attention";
  int64_t other_heads = spec.num_heads;
  int64_t other_kv = spec.num_kv_heads;
  int64_t other_dim = spec.head_dim;
  if (in.has_object("attention_other_setting")) {
    const ConfigReader other = in.nested("attention_other_setting");
    if (other.has("attention_type")) other_type = other.text("attention_type");
    other_heads = other.positive("num_attention_heads");
    if (other.has("num_attention_groups")) other_kv = other.positive("num_attention_groups");
    if (other.has("head_dim")) other_dim = other.positive("head_dim");
    if (other_heads % other_kv != 0) {
      other.fail("num_attention_groups", fmt::format("attention_other_setting: num_attention_heads {} is not "
                                                     "divisible by num_attention_groups {}",
                                                     other_heads, other_kv));
    }
  }
  spec.layer_heads.assign(static_cast<size_t>(spec.num_layers), spec.num_heads);
  spec.layer_kv_heads.assign(static_cast<size_t>(spec.num_layers), spec.num_kv_heads);
  spec.layer_head_dim.assign(static_cast<size_t>(spec.num_layers), spec.head_dim);
  for (int i = 0; i < spec.num_layers; ++i) {
    const std::string& type = types[static_cast<size_t>(i)];
    if (type != "full_attention" && type != "sliding_attention") {
      in.fail("layer_types", fmt::format("unknown layer type '{}' (expected full_attention or sliding_attention)", type));
    }
    if (type == "sliding_attention") spec.sliding_window[i] = in.positive("sliding_window");
    if (type == other_type) {
      spec.layer_heads[static_cast<size_t>(i)] = other_heads;
      spec.layer_kv_heads[static_cast<size_t>(i)] = other_kv;
      spec.layer_head_dim[static_cast<size_t>(i)] = other_dim;
    }
  }
}

void step3p5_moe(const ConfigReader& in, ModelSpec& spec) {
  spec.intermediate_size = in.positive("intermediate_size");
  spec.moe_intermediate_size = in.positive("moe_intermediate_size");
  spec.num_experts = integer_of_either(in, "moe_num_experts", "num_experts");
  if (spec.num_experts <= 0) in.fail("moe_num_experts", "must be positive");
  spec.experts_per_token = integer_of_either(in, "moe_top_k", "num_experts_per_tok");
  if (spec.experts_per_token <= 0) in.fail("moe_top_k", "must be positive");
  if (spec.experts_per_token > spec.num_experts) {
    in.fail(in.has("moe_top_k") ? "moe_top_k" : "num_experts_per_tok",
            fmt::format("{} experts per token exceeds the {} experts", spec.experts_per_token, spec.num_experts));
  }
  spec.shared_expert_intermediate_size = in.non_negative_or("share_expert_dim", 0);
  spec.num_shared_experts = spec.shared_expert_intermediate_size > 0 ? 1 : 0;
  if (in.has("n_shared_experts") && in.non_negative_or("n_shared_experts", 0) != spec.num_shared_experts) {
    in.fail("n_shared_experts", fmt::format("{} contradicts share_expert_dim {} (one shared expert of that width)",
                                            in.integer("n_shared_experts"), spec.shared_expert_intermediate_size));
  }
  if (in.has("moe_layers_enum")) {
    spec.mlp.assign(static_cast<size_t>(spec.num_layers), MlpKind::dense);
    for (const std::string& item : util::split(in.text("moe_layers_enum"), ',')) {
      const std::string_view t = util::trim(item);
      if (t.empty()) continue;
      int64_t layer = -1;
      const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), layer);
      if (ec != std::errc() || end != t.data() + t.size() || layer < 0 || layer >= spec.num_layers) {
        in.fail("moe_layers_enum", fmt::format("'{}' is not a layer 0..{}", t, spec.num_layers - 1));
      }
      spec.mlp[static_cast<size_t>(layer)] = MlpKind::moe;
    }
  } else {
    spec.first_k_dense = static_cast<int>(in.non_negative_or("first_k_dense_replace", 0));
    if (spec.first_k_dense > spec.num_layers) {
      in.fail("first_k_dense_replace", fmt::format("{} exceeds num_hidden_layers {}", spec.first_k_dense,
                                                   spec.num_layers));
    }
    for (int i = 0; i < spec.num_layers; ++i) spec.mlp[i] = i >= spec.first_k_dense ? MlpKind::moe : MlpKind::dense;
  }
  int dense = 0;
  while (dense < spec.num_layers && spec.mlp[static_cast<size_t>(dense)] == MlpKind::dense) ++dense;
  spec.first_k_dense = dense;
  spec.router_correction_bias = in.boolean_or("use_moe_router_bias", false);
}

// The whole layer of step3p7 (its row's `layers`): attention then MLP.
void step3p5_layers(const ConfigReader& in, ModelSpec& spec) {
  step3p5_attention(in, spec);
  step3p5_moe(in, spec);
}
// ---- end step3p7 ----

// ---- gemma4: Gemma 4's global layers (per-layer attention geometry) and its MoE block ----
// Gemma4TextModel (sgl-project/sglang python/sglang/srt/models/gemma4_causal.py @ ffc490ec;
// huggingface/transformers src/transformers/models/gemma4/modeling_gemma4.py @ c308a309,
// Gemma4TextAttention; google/gemma-4-31B-it's checkpoint shapes): layer_types full/sliding; the
// full (global) layers have heads of global_head_dim and, under attention_k_eq_v, keys that are
// their values (no v_proj) over num_global_key_value_heads key/value heads (without it they keep
// num_key_value_heads); q/k norms per head of the layer's head size. The parts of the smaller
// checkpoints (layers sharing earlier layers' keys and values, per-layer token embeddings, the
// double-wide MLP of shared layers) are refused by name.
void gemma4_layers(const ConfigReader& in, ModelSpec& spec) {
  if (in.non_negative_or("num_kv_shared_layers", 0) > 0) {
    in.fail("num_kv_shared_layers", "layers sharing earlier layers' keys and values are not read for gemma4 (expected 0)");
  }
  if (in.non_negative_or("hidden_size_per_layer_input", 0) > 0) {
    in.fail("hidden_size_per_layer_input", "per-layer token embeddings are not read for gemma4 (expected 0)");
  }
  if (in.boolean_or("use_double_wide_mlp", false)) {
    in.fail("use_double_wide_mlp", "the double-wide MLP is not read for gemma4 (expected false)");
  }
  if (!in.has("layer_types")) in.fail("layer_types", "missing required field (gemma4's full and sliding layers)");
  const std::vector<size_t> types =
      in.per_layer("layer_types", spec.num_layers, {"full_attention", "sliding_attention"});
  const bool k_eq_v = in.boolean_or("attention_k_eq_v", false);
  // Gemma4TextAttention takes num_global_key_value_heads only on the layers whose keys are values.
  const int64_t global_kv =
      k_eq_v && in.has("num_global_key_value_heads") ? in.positive("num_global_key_value_heads") : spec.num_kv_heads;
  const int64_t global_dim = in.has("global_head_dim") ? in.positive("global_head_dim") : spec.head_dim;
  if (spec.num_heads % global_kv != 0) {
    in.fail("num_global_key_value_heads", fmt::format("num_attention_heads {} is not divisible by {}", spec.num_heads,
                                                      global_kv));
  }
  const auto n = static_cast<size_t>(spec.num_layers);
  spec.layer_kv_heads.assign(n, spec.num_kv_heads);
  spec.layer_head_dim.assign(n, spec.head_dim);
  spec.layer_value_head_dim.assign(n, spec.head_dim);
  spec.layer_k_eq_v.assign(n, false);
  for (size_t i = 0; i < n; ++i) {
    if (types[i] == 1) {
      spec.sliding_window[i] = in.positive("sliding_window");
    } else {
      spec.layer_kv_heads[i] = global_kv;
      spec.layer_head_dim[i] = global_dim;
      spec.layer_value_head_dim[i] = global_dim;
      spec.layer_k_eq_v[i] = k_eq_v;
    }
  }
}

// Gemma 4's MLP (modeling_gemma4.py @ c308a309, Gemma4TextDecoderLayer): every layer has a dense
// GeGLU MLP of intermediate_size; under enable_moe_block every layer also routes the same input
// to top_k_experts of num_experts experts of moe_intermediate_size (Gemma4TextRouter: a scale of
// hidden and one per expert beside its [experts, hidden] projection) and sums both outputs, each
// with its own norms. The dense MLP runs for every token beside the routed experts, which is what
// a shared expert of intermediate_size is, so it is read as one (Megatron-Core's
// moe_shared_expert_intermediate_size).
void mlp_gemma4_moe(const ConfigReader& in, ModelSpec& spec) {
  spec.intermediate_size = in.positive("intermediate_size");
  if (!in.boolean_or("enable_moe_block", false)) return;  // the dense checkpoints (31B)
  spec.moe_intermediate_size = in.positive("moe_intermediate_size");
  spec.num_experts = in.positive("num_experts");
  spec.experts_per_token = in.positive("top_k_experts");
  if (spec.experts_per_token > spec.num_experts) {
    in.fail("top_k_experts", fmt::format("{} experts per token exceeds the {} experts of num_experts",
                                         spec.experts_per_token, spec.num_experts));
  }
  spec.num_shared_experts = 1;
  spec.shared_expert_intermediate_size = spec.intermediate_size;
  spec.mlp.assign(static_cast<size_t>(spec.num_layers), MlpKind::moe);
}
// ---- end gemma4 ----

// GPT-2 and the GPT-3-style dense models Megatron-LM trains (transformers
// configuration_gpt2.py / modeling_gpt2.py): its own key names (n_embd, n_layer, n_head,
// n_positions; n_inner null means 4 x n_embd), multi-head attention through one fused c_attn
// projection and c_proj, both with biases; LayerNorms with biases; learned position embeddings
// (wpe, n_positions rows); a two-matrix MLP c_fc -> activation -> c_proj with biases; the output
// head tied to the token embedding unless tie_word_embeddings says otherwise (the
// PretrainedConfig default is true).
void read_gpt2_common(const ConfigReader& in, ModelSpec& spec) {
  spec.num_layers = static_cast<int>(in.positive("n_layer"));
  spec.hidden_size = in.positive("n_embd");
  spec.vocab_size = in.positive("vocab_size");
  spec.num_heads = in.positive("n_head");
  spec.tie_word_embeddings = in.boolean_or("tie_word_embeddings", true);
  spec.sliding_window.assign(spec.num_layers, 0);
  spec.has_indexer.assign(spec.num_layers, false);
  spec.mlp.assign(spec.num_layers, MlpKind::dense);
}

void gpt2_attention(const ConfigReader& in, ModelSpec& spec) {
  spec.attention = AttentionKind::gqa;
  spec.num_kv_heads = spec.num_heads;
  if (spec.hidden_size % spec.num_heads != 0) {
    in.fail("n_head", fmt::format("n_embd {} is not divisible by n_head {}", spec.hidden_size,
                                  spec.num_heads));
  }
  spec.head_dim = spec.hidden_size / spec.num_heads;
  spec.position_embeddings = in.positive("n_positions");
}

// GPT-2's two-matrix MLP: n_inner wide (null: 4 x n_embd), one activation between the matrices.
void gpt2_mlp(const ConfigReader& in, ModelSpec& spec) {
  spec.intermediate_size = in.has("n_inner") ? in.positive("n_inner") : 4 * spec.hidden_size;
  // Activations GPT-2's MLP accepts (transformers activations.py ACT2FN) that ladle prices as one
  // elementwise op between the two matrices.
  static constexpr const char* kActivations[] = {"gelu_new",          "gelu",       "gelu_fast",
                                                 "gelu_pytorch_tanh", "quick_gelu", "relu"};
  if (in.has("activation_function")) {
    const std::string act = in.text("activation_function");
    if (std::find_if(std::begin(kActivations), std::end(kActivations),
                     [&act](const char* name) { return act == name; }) == std::end(kActivations)) {
      std::vector<std::string> names(std::begin(kActivations), std::end(kActivations));
      in.fail("activation_function",
              fmt::format("unknown activation '{}'{} (expected one of {})", act,
                          util::did_you_mean(act, names), util::join(names, ", ")));
    }
  }
}

// Gemma 3's SigLIP vision tower and projector (transformers modeling_siglip.py, Gemma3's
// Gemma3MultiModalProjector): a biased conv patch embedding, a position embedding per patch of
// the image, encoder layers of biased q/k/v/out and fc1/fc2 with two LayerNorms, post_layernorm;
// the projector's RMSNorm and its [vision hidden, text hidden] projection without bias.
int64_t siglip_vision_params(const ConfigReader&, const ConfigReader& v, int64_t text_hidden) {
  if (v.boolean_or("vision_use_head", false)) v.fail("vision_use_head", "a SigLIP pooling head is not counted (expected false)");
  const int64_t h = v.positive("hidden_size");
  const int64_t layers = v.positive("num_hidden_layers");
  const int64_t inner = v.positive("intermediate_size");
  const int64_t channels = v.has("num_channels") ? v.positive("num_channels") : 3;
  const int64_t patch = v.positive("patch_size");
  const int64_t side = v.positive("image_size") / patch;
  int64_t n = channels * patch * patch * h + h + side * side * h;
  n += layers * (4 * (h * h + h) + (h * inner + inner) + (inner * h + h) + 2 * 2 * h);
  n += 2 * h;                  // post_layernorm
  n += h + h * text_hidden;    // mm_soft_emb_norm, mm_input_projection_weight
  return n;
}

// Qwen3-VL's vision tower (transformers modeling_qwen3_vl.py): a biased Conv3d patch embedding
// (temporal x patch x patch), a learned position table of num_position_embeddings, `depth` blocks
// of LayerNorm, biased fused qkv and proj, LayerNorm, biased fc1/fc2; the patch merger (LayerNorm
// of the hidden, fc1 [h m^2 -> h m^2], fc2 -> out_hidden_size, biased) and one more merger, with
// its LayerNorm after the shuffle (h m^2), for each deepstack_visual_indexes entry.
int64_t qwen3_vl_vision_params(const ConfigReader&, const ConfigReader& v, int64_t) {
  const int64_t h = v.positive("hidden_size");
  const int64_t depth = v.positive("depth");
  const int64_t inner = v.positive("intermediate_size");
  const int64_t channels = v.has("in_channels") ? v.positive("in_channels") : 3;
  const int64_t patch = v.positive("patch_size");
  const int64_t temporal = v.positive("temporal_patch_size");
  const int64_t positions = v.positive("num_position_embeddings");
  const int64_t out = v.positive("out_hidden_size");
  const int64_t merge = v.positive("spatial_merge_size");
  const int64_t deepstack = v.has("deepstack_visual_indexes")
                                ? static_cast<int64_t>(v.integers("deepstack_visual_indexes").size())
                                : 0;
  int64_t n = channels * temporal * patch * patch * h + h + positions * h;
  n += depth * (2 * 2 * h + (3 * h * h + 3 * h) + (h * h + h) + (h * inner + inner) + (inner * h + h));
  const int64_t merged = h * merge * merge;
  const auto merger = [&](int64_t norm) { return 2 * norm + merged * merged + merged + merged * out + out; };
  n += merger(h) + deepstack * merger(merged);
  return n;
}

// The shape of Qwen3-VL's vision tower, for its FLOPs per image token (plan/cost_vision).
void qwen3_vl_vision_shape(const ConfigReader& v, ModelSpec& spec) {
  VisionShape& s = spec.vision;
  s.depth = v.positive("depth");
  s.hidden = v.positive("hidden_size");
  s.intermediate = v.positive("intermediate_size");
  s.patch = v.positive("patch_size");
  s.temporal_patch = v.positive("temporal_patch_size");
  s.channels = v.has("in_channels") ? v.positive("in_channels") : 3;
  s.merge = v.positive("spatial_merge_size");
  s.out_hidden = v.positive("out_hidden_size");
  s.deepstack = v.has("deepstack_visual_indexes") ? static_cast<int64_t>(v.integers("deepstack_visual_indexes").size()) : 0;
}

// Mistral 3's Pixtral tower and projector (transformers modeling_pixtral.py, modeling_mistral3.py):
// a conv patch embedding without bias, ln_pre, layers of attention_norm, q/k/v/o without biases,
// ffn_norm and a SwiGLU feed_forward; the projector's RMSNorm, the patch merger [h m^2 -> h] and
// linear_1 [h -> text], linear_2 [text -> text] (biased when multimodal_projector_bias).
int64_t pixtral_vision_params(const ConfigReader& top, const ConfigReader& v, int64_t text_hidden) {
  const int64_t h = v.positive("hidden_size");
  const int64_t layers = v.positive("num_hidden_layers");
  const int64_t inner = v.positive("intermediate_size");
  const int64_t channels = v.has("num_channels") ? v.positive("num_channels") : 3;
  const int64_t patch = v.positive("patch_size");
  const int64_t heads = v.positive("num_attention_heads");
  const int64_t head_dim = v.has("head_dim") ? v.positive("head_dim") : h / heads;
  const int64_t merge = top.has("spatial_merge_size") ? top.positive("spatial_merge_size") : 2;
  const bool bias = top.boolean_or("multimodal_projector_bias", false);
  const int64_t q = heads * head_dim;
  int64_t n = channels * patch * patch * h + h;
  n += layers * (2 * h + 4 * h * q + 3 * h * inner);
  n += h + h * merge * merge * h;
  n += h * text_hidden + (bias ? text_hidden : 0) + text_hidden * text_hidden + (bias ? text_hidden : 0);
  return n;
}

// MiniMax-M3's vision tower (minimax_m3_vl; NVIDIA-NeMo/Automodel
// nemo_automodel/components/models/minimax_m3_vl/vision_encoder.py @ 2a3504d1): a Conv3d patch
// embedding without bias (temporal_patch_size x patch x patch), pre_layrnorm, CLIP layers of two
// LayerNorms, biased q/k/v/out_proj and fc1/fc2, positions by 3D rope (no table); then the
// multi_modal_projector [vision hidden -> projector_hidden_size -> text hidden] and the
// patch_merge_mlp [text hidden x spatial_merge_size^2 -> projector_hidden_size -> text hidden],
// biased by multimodal_projector_bias and patch_merge_bias (both default true, as sglang's and
// Automodel's readers take them).
int64_t minimax_m3_vl_vision_params(const ConfigReader& top, const ConfigReader& v, int64_t text_hidden) {
  if (v.has("position_embedding_type") && v.text("position_embedding_type") != "rope") {
    v.fail("position_embedding_type",
           fmt::format("'{}' is not read (expected rope)", v.text("position_embedding_type")));
  }
  const int64_t h = v.positive("hidden_size");
  const int64_t layers = v.positive("num_hidden_layers");
  const int64_t inner = v.positive("intermediate_size");
  const int64_t channels = v.has("num_channels") ? v.positive("num_channels") : 3;
  const int64_t patch = v.positive("patch_size");
  if (!v.has_object("img_token_compression_config")) {
    v.fail("img_token_compression_config", "missing required field (temporal_patch_size, spatial_merge_size)");
  }
  const ConfigReader merge_cfg = v.nested("img_token_compression_config");
  const int64_t temporal = merge_cfg.positive("temporal_patch_size");
  const int64_t merge = merge_cfg.positive("spatial_merge_size");
  const int64_t proj = top.positive("projector_hidden_size");
  const bool projector_bias = top.boolean_or("multimodal_projector_bias", true);
  const bool merge_bias = top.boolean_or("patch_merge_bias", true);
  int64_t n = channels * temporal * patch * patch * h + 2 * h;
  n += layers * (2 * 2 * h + 4 * (h * h + h) + (h * inner + inner) + (inner * h + h));
  n += h * proj + proj * text_hidden + (projector_bias ? proj + text_hidden : 0);
  n += text_hidden * merge * merge * proj + proj * text_hidden + (merge_bias ? proj + text_hidden : 0);
  return n;
}

int64_t llama4_vision(const ConfigReader&, const ConfigReader& v, int64_t text_hidden) {
  return llama4_vision_params(v, text_hidden);
}

// Parts of a model's shape that its config's keys show, for telling a user which supported
// model_type is nearest to an unknown one by what the config holds rather than by its name.
enum Shape : unsigned {
  kMla = 1u << 0,           // multi-head latent attention
  kDsa = 1u << 1,           // DeepSeek Sparse Attention indexer
  kExperts = 1u << 2,       // routed experts
  kShared = 1u << 3,        // shared experts
  kTextConfig = 1u << 4,    // language model under text_config
  kVision = 1u << 5,        // vision tower
  kSliding = 1u << 6,       // sliding-window or per-layer attention types
  kLinear = 1u << 7,        // linear attention (Gated DeltaNet)
  kMamba = 1u << 8,         // Mamba-2 layers
  kBlockConfigs = 1u << 9,  // per-layer block configs (Nemotron-NAS)
  kMtp = 1u << 10,          // multi-token prediction layers
  kCompressed = 1u << 11,   // compressed attention, hyper-connections (deepseek_v4)
  kBlockSparse = 1u << 12,  // block-sparse attention with its own index (minimax_m3)
  kLatentExperts = 1u << 13,  // routed experts in a latent width (kimi_k3)
  kAttnResiduals = 1u << 14,  // block attention residuals (kimi_k3)
};

// The keys that show each part, the first one the config holds named in errors.
struct ShapeKeys {
  Shape part;
  const char* what;
  std::initializer_list<const char*> keys;
};

const ShapeKeys kShapeKeys[] = {
    {kMla, "multi-head latent attention", {"kv_lora_rank", "q_lora_rank"}},
    {kDsa, "a DeepSeek Sparse Attention indexer", {"index_topk", "index_n_heads", "index_head_dim", "indexer_types"}},
    {kExperts, "routed experts", {"n_routed_experts", "num_experts", "num_local_experts"}},
    {kShared, "shared experts", {"n_shared_experts", "num_shared_experts", "shared_expert_intermediate_size", "shared_intermediate_size", "share_expert_dim"}},
    {kTextConfig, "a text_config", {"text_config"}},
    {kVision, "a vision tower", {"vision_config"}},
    {kSliding, "sliding-window layers", {"layer_types", "sliding_window_pattern", "_sliding_window_pattern"}},
    {kLinear, "linear attention", {"linear_num_value_heads", "linear_num_key_heads", "linear_attn_config"}},
    {kMamba, "Mamba-2 layers", {"hybrid_override_pattern", "mamba_num_heads", "ssm_state_size"}},
    {kBlockConfigs, "per-layer block configs", {"block_configs"}},
    {kMtp, "MTP layers", {"num_nextn_predict_layers", "mtp_num_hidden_layers", "num_mtp_modules"}},
    {kCompressed, "compressed attention or hyper-connections", {"compress_ratios", "o_groups", "hc_mult", "num_hash_layers"}},
    {kBlockSparse, "block-sparse attention", {"sparse_attention_config"}},
    {kLatentExperts, "latent experts", {"routed_expert_hidden_size"}},
    {kAttnResiduals, "attention residuals", {"attn_res_block_size"}},
};

// Parts a type that lacks them would silently drop: a config that has one under such a type is
// refused rather than counted without it.
constexpr unsigned kStructural =
    kMla | kDsa | kLinear | kMamba | kBlockConfigs | kCompressed | kBlockSparse | kLatentExperts | kAttnResiduals;

// The parts the config shows, looking into text_config too.
unsigned config_shape(const ConfigReader& top) {
  unsigned shape = 0;
  for (const ShapeKeys& part : kShapeKeys) {
    for (const char* key : part.keys) {
      if (top.set(key) || (top.has_object("text_config") && top.nested("text_config").set(key))) {
        shape |= part.part;
      }
    }
  }
  return shape;
}

// MiMo-V2-Flash's attention (configuration_mimo_v2_flash.py / modeling_mimo_v2_flash.py):
// hybrid_layer_pattern gives each layer 1 (sliding, sliding_window tokens) or 0 (full); values
// are v_head_dim wide beside head_dim queries and keys; sliding layers have
// swa_num_key_value_heads kv heads and sink logits when add_swa_attention_sink_bias (full layers
// when add_full_attention_sink_bias). Sliding layers whose query heads or head sizes differ from
// the full layers' are refused: no per-layer query heads or head sizes are read.
void sliding_full_hybrid(const ConfigReader& in, ModelSpec& spec) {
  const std::vector<int64_t> pattern = in.integers("hybrid_layer_pattern");
  if (static_cast<int64_t>(pattern.size()) != spec.num_layers) {
    in.fail("hybrid_layer_pattern", fmt::format("has {} entries but num_hidden_layers is {}: the two keys "
                                                "contradict each other",
                                                pattern.size(), spec.num_layers));
  }
  if (in.has("v_head_dim")) spec.value_head_dim = in.positive("v_head_dim");
  const auto same = [&in](const char* key, int64_t expected, const char* full_key) {
    if (in.has(key) && in.positive(key) != expected) {
      in.fail(key, fmt::format("{} differs from {} {}: sliding layers of another shape are not read",
                               in.integer(key), full_key, expected));
    }
  };
  same("swa_num_attention_heads", spec.num_heads, "num_attention_heads");
  same("swa_head_dim", spec.head_dim, "head_dim");
  same("swa_v_head_dim", spec.gqa_value_head_dim(), "v_head_dim");
  const int64_t swa_kv = in.has("swa_num_key_value_heads") ? in.positive("swa_num_key_value_heads") : spec.num_kv_heads;
  if (spec.num_heads % swa_kv != 0) {
    in.fail("swa_num_key_value_heads", fmt::format("num_attention_heads {} is not divisible by {}", spec.num_heads, swa_kv));
  }
  const bool swa_sinks = in.boolean_or("add_swa_attention_sink_bias", false);
  const bool full_sinks = in.boolean_or("add_full_attention_sink_bias", false);
  spec.layer_kv_heads.assign(spec.num_layers, spec.num_kv_heads);
  spec.layer_sinks.assign(spec.num_layers, full_sinks);
  for (int i = 0; i < spec.num_layers; ++i) {
    if (pattern[i] != 0 && pattern[i] != 1) {
      in.fail("hybrid_layer_pattern", fmt::format("layer {} is {} (expected 0 for full or 1 for sliding attention)", i,
                                                  pattern[i]));
    }
    if (pattern[i] == 1) {
      spec.sliding_window[i] = in.positive("sliding_window");
      spec.layer_kv_heads[i] = swa_kv;
      spec.layer_sinks[i] = swa_sinks;
    }
  }
  spec.attention_sinks = swa_sinks || full_sinks;
}

// ---- deepseek_v4: compressed attention, hyper-connections, hash-routed MoE ----
// DeepSeek-V4 (sgl-project/sglang python/sglang/srt/models/deepseek_v4.py @ f8101ac7, MQALayer,
// Compressor, C4Indexer, DeepseekV4DecoderLayer): queries through a low-rank q (wq_a, q_norm,
// wq_b) of num_attention_heads x head_dim; one key head of head_dim that is also the value head
// (wkv, kv_norm; num_key_value_heads must be 1); the output through o_groups groups of rank
// o_lora_rank (wo_a) and wo_b; a sink logit per head. compress_ratios gives each layer (then each
// MTP layer) its ratio: 0 attends to the last sliding_window keys only, r > 0 adds keys pooled r to
// one by a compressor, and ratio 4 selects index_topk of them with its own indexer (MQALayer
// builds a C4Indexer only when the ratio is 4; the engine asserts ratios 0, 4 and 128).
void read_csa(const ConfigReader& in, ModelSpec& spec) {
  spec.attention = AttentionKind::csa;
  spec.num_kv_heads = in.has("num_key_value_heads") ? in.positive("num_key_value_heads") : 1;
  if (spec.num_kv_heads != 1) {
    in.fail("num_key_value_heads", fmt::format("{} (expected 1: the compressed attention has one key/value head)",
                                               spec.num_kv_heads));
  }
  spec.head_dim = in.positive("head_dim");
  spec.value_head_dim = spec.head_dim;  // the one head's keys are its values
  spec.qk_rope_head_dim = in.positive("qk_rope_head_dim");
  if (spec.qk_rope_head_dim > spec.head_dim) {
    in.fail("qk_rope_head_dim", fmt::format("{} exceeds head_dim {}", spec.qk_rope_head_dim, spec.head_dim));
  }
  spec.q_lora_rank = in.positive("q_lora_rank");
  spec.o_groups = in.positive("o_groups");
  spec.o_lora_rank = in.positive("o_lora_rank");
  if (spec.num_heads % spec.o_groups != 0) {
    in.fail("o_groups", fmt::format("num_attention_heads {} is not divisible by o_groups {}", spec.num_heads,
                                    spec.o_groups));
  }
  spec.attention_sinks = true;  // attn_sink: one learned logit per head
  spec.sliding_window.assign(spec.num_layers, in.positive("sliding_window"));
  spec.index_n_heads = in.positive("index_n_heads");
  spec.index_head_dim = in.positive("index_head_dim");
  spec.index_topk = in.positive("index_topk");
  const int mtp = static_cast<int>(in.non_negative_or("num_nextn_predict_layers", 0));
  const std::vector<int64_t> ratios = in.integers("compress_ratios");
  if (static_cast<int64_t>(ratios.size()) != spec.num_layers + mtp) {
    in.fail("compress_ratios", fmt::format("has {} entries but num_hidden_layers {} + num_nextn_predict_layers {} "
                                           "is {}: the keys contradict each other",
                                           ratios.size(), spec.num_layers, mtp, spec.num_layers + mtp));
  }
  for (size_t i = 0; i < ratios.size(); ++i) {
    if (ratios[i] != 0 && ratios[i] != 4 && ratios[i] != 128) {
      in.fail("compress_ratios", fmt::format("entry {} is {} (expected 0, 4 or 128, the ratios the model "
                                             "code builds)",
                                             i, ratios[i]));
    }
  }
  spec.compress_ratio = ratios;
  for (int i = 0; i < spec.num_layers; ++i) spec.has_indexer[i] = ratios[static_cast<size_t>(i)] == 4;
  // Hyper-connections (DeepseekV4DecoderLayer.hc_pre/hc_post): hc_mult residual copies.
  spec.hc_mult = in.positive("hc_mult");
  spec.hc_sinkhorn_iters = in.non_negative_or("hc_sinkhorn_iters", 0);
}

// DeepSeek-V4's MoE (DeepseekV2MoE with is_deepseek_v4; DeepSeek-V4's SGLANG_DSV4_MODE 2604 has
// no dense layers): every layer n_routed_experts of moe_intermediate_size, top
// num_experts_per_tok, n_shared_experts fused into one shared MLP; the first num_hash_layers
// route by a token-id table (tid2eid) and keep no correction bias, the others noaux_tc's.
void mlp_deepseek_v4_moe(const ConfigReader& in, ModelSpec& spec) {
  deepseek_experts(in, spec);
  if (in.non_negative_or("first_k_dense_replace", 0) > 0) {
    in.fail("first_k_dense_replace", "dense layers are not read for deepseek_v4 (expected 0)");
  }
  spec.num_hash_layers = static_cast<int>(in.non_negative_or("num_hash_layers", 0));
  if (spec.num_hash_layers > spec.num_layers) {
    in.fail("num_hash_layers", fmt::format("{} exceeds num_hidden_layers {}", spec.num_hash_layers, spec.num_layers));
  }
  spec.mlp.assign(spec.num_layers, MlpKind::moe);
  spec.router_correction_bias = !in.has("topk_method") || in.text("topk_method") == "noaux_tc";
}
// ---- end deepseek_v4 ----

// ---- minimax_m3 (sgl-project/sglang python/sglang/srt/models/minimax_m3.py) ----
// MiniMax-M3's MLP: first_k_dense_replace (and moe_layer_freq, one entry per layer) dense layers of
// dense_intermediate_size, then MoE layers of num_local_experts experts as wide as
// intermediate_size (MiniMaxM3MoE builds its experts from intermediate_size) and one shared SwiGLU
// of n_shared_experts x intermediate_size.
void mlp_minimax_m3_moe(const ConfigReader& in, ModelSpec& spec) {
  spec.intermediate_size = in.positive("dense_intermediate_size");
  spec.moe_intermediate_size = in.positive("intermediate_size");
  if (in.has("moe_intermediate_size") && in.positive("moe_intermediate_size") != spec.moe_intermediate_size) {
    in.fail("moe_intermediate_size", fmt::format("{} contradicts intermediate_size {}, the experts' width",
                                                 in.positive("moe_intermediate_size"), spec.moe_intermediate_size));
  }
  spec.num_experts = in.positive("num_local_experts");
  spec.experts_per_token = in.positive("num_experts_per_tok");
  check_experts(in, spec, "num_local_experts");
  spec.num_shared_experts = in.non_negative_or("n_shared_experts", 0);
  spec.shared_expert_intermediate_size = spec.num_shared_experts * spec.moe_intermediate_size;
  if (in.has("shared_intermediate_size") && spec.num_shared_experts > 0 &&
      in.positive("shared_intermediate_size") != spec.moe_intermediate_size) {
    in.fail("shared_intermediate_size", fmt::format("{} contradicts intermediate_size {}, the shared expert's width",
                                                    in.positive("shared_intermediate_size"), spec.moe_intermediate_size));
  }
  spec.first_k_dense = static_cast<int>(in.non_negative_or("first_k_dense_replace", 0));
  if (spec.first_k_dense > spec.num_layers) {
    in.fail("first_k_dense_replace", fmt::format("{} exceeds num_hidden_layers {}", spec.first_k_dense, spec.num_layers));
  }
  // Without moe_layer_freq, the layers from first_k_dense_replace on are MoE.
  std::vector<int64_t> moe(static_cast<size_t>(spec.num_layers), 1);
  for (int i = 0; i < spec.first_k_dense; ++i) moe[static_cast<size_t>(i)] = 0;
  if (in.has("moe_layer_freq")) {
    moe = in.integers("moe_layer_freq");
    if (static_cast<int64_t>(moe.size()) != spec.num_layers) {
      in.fail("moe_layer_freq", fmt::format("has {} entries but num_hidden_layers is {}", moe.size(), spec.num_layers));
    }
    // sglang's MiniMaxM3DecoderLayer reads moe_layer_freq alone; a config without
    // first_k_dense_replace (nvidia/MiniMax-M3-NVFP4's text_config) has its leading dense layers
    // there, and one with it is checked against it below.
    if (!in.has("first_k_dense_replace")) {
      while (spec.first_k_dense < spec.num_layers && moe[static_cast<size_t>(spec.first_k_dense)] == 0) {
        ++spec.first_k_dense;
      }
    }
  }
  for (int i = 0; i < spec.num_layers; ++i) {
    const int64_t m = moe[static_cast<size_t>(i)];
    if (m != 0 && m != 1) in.fail("moe_layer_freq", fmt::format("layer {} is {} (expected 0 or 1)", i, m));
    if ((m == 1) != (i >= spec.first_k_dense)) {
      in.fail("moe_layer_freq", fmt::format("layer {} is {} but first_k_dense_replace {} says {}", i, m,
                                            spec.first_k_dense, i >= spec.first_k_dense ? "moe" : "dense"));
    }
    spec.mlp[i] = m == 1 ? MlpKind::moe : MlpKind::dense;
  }
}

// MiniMax-M3's sparse attention (sparse_attention_config): on the layers sparse_attention_freq
// marks, an index of sparse_num_index_heads query heads and one key head of sparse_index_dim
// selects sparse_topk_blocks blocks of sparse_block_size keys for each query. The index's value
// branch (sparse_disable_index_value 0) is not read, so a sparse layer with one is refused.
void minimax_sparse_attention(const ConfigReader& in, ModelSpec& spec) {
  if (spec.qk_norm && in.has("qk_norm_type") && in.text("qk_norm_type") != "per_head") {
    in.fail("qk_norm_type", fmt::format("'{}' is not read (expected per_head)", in.text("qk_norm_type")));
  }
  if (in.boolean_or("attention_output_gate", false)) {
    in.fail("attention_output_gate", "an attention output gate is not read for minimax_m3 (expected false)");
  }
  spec.sparse_attention.assign(spec.num_layers, false);
  if (!in.has_object("sparse_attention_config")) return;
  const ConfigReader sparse = in.nested("sparse_attention_config");
  if (!sparse.boolean_or("use_sparse_attention", false)) return;
  spec.index_n_heads = sparse.positive("sparse_num_index_heads");
  spec.index_head_dim = sparse.positive("sparse_index_dim");
  spec.index_block_size = sparse.positive("sparse_block_size");
  spec.index_topk = sparse.positive("sparse_topk_blocks") * spec.index_block_size;
  for (const char* key : {"sparse_attention_freq", "sparse_disable_index_value"}) {
    if (!sparse.has(key)) sparse.fail(key, "missing required field (one entry per layer)");
  }
  const std::vector<int64_t> freq = sparse.integers("sparse_attention_freq");
  const std::vector<int64_t> no_value = sparse.integers("sparse_disable_index_value");
  for (const auto* list : {&freq, &no_value}) {
    if (static_cast<int64_t>(list->size()) != spec.num_layers) {
      sparse.fail(list == &freq ? "sparse_attention_freq" : "sparse_disable_index_value",
                  fmt::format("has {} entries for {} layers (num_hidden_layers {})", list->size(), spec.num_layers,
                              spec.num_layers));
    }
  }
  for (int i = 0; i < spec.num_layers; ++i) {
    const auto at = static_cast<size_t>(i);
    if (freq[at] != 0 && freq[at] != 1) {
      sparse.fail("sparse_attention_freq", fmt::format("layer {} is {} (expected 0 or 1)", i, freq[at]));
    }
    if (freq[at] == 1 && no_value[at] != 1) {
      sparse.fail("sparse_disable_index_value",
                  fmt::format("layer {} is sparse with an index value branch, which is not read (expected 1)", i));
    }
    spec.sparse_attention[at] = freq[at] == 1;
    spec.has_indexer[at] = freq[at] == 1;
  }
  if (spec.count_indexers() == 0) spec.index_topk = 0;  // no sparse layer: dense attention
}
// ---- end minimax_m3 ----

// ---- The model-type table (data/models/types.yaml): the names its rows may use. ----

using Part = void (*)(const ConfigReader&, ModelSpec&);

struct NamedPart {
  const char* name;
  Part read;  // nullptr: nothing to read at this step (a layer pattern reads it)
};

// Fields every type has (layers, width, vocabulary, heads), under Llama's names or GPT-2's.
constexpr NamedPart kCommonParts[] = {{"standard", read_common}, {"gpt2", read_gpt2_common}};
// Attention kinds.
constexpr NamedPart kAttentionParts[] = {
    {"gqa", read_gqa}, {"mla", read_mla}, {"gpt2_mha", gpt2_attention}, {"per_layer_pattern", nullptr},
    {"csa", read_csa}};
// MLP kinds and which layers have them.
constexpr NamedPart kMlpParts[] = {
    {"dense", mlp_dense},
    {"gpt2_mlp", gpt2_mlp},
    {"every_layer_moe", mlp_every_layer_moe},
    {"qwen_moe", mlp_qwen_moe},
    {"qwen_moe_shared_expert", mlp_qwen_moe_shared_expert},
    {"deepseek_moe", mlp_deepseek_moe},
    {"bailing_moe", mlp_bailing_moe},
    {"llama4_moe", mlp_llama4_moe},
    {"per_layer_pattern", nullptr},
    {"deepseek_v4_moe", mlp_deepseek_v4_moe},
    {"minimax_m3_moe", mlp_minimax_m3_moe},  // minimax_m3
    {"gemma4_moe", mlp_gemma4_moe},          // gemma4
    {"kimi_moe", mlp_kimi_moe},              // kimi_linear, kimi_k3
};
// Per-layer patterns, read in the row's order after attention and MLP.
constexpr NamedPart kLayerParts[] = {
    {"layer_types_window", read_sliding_window_layers},
    {"qwen_window", read_qwen_sliding_window},
    {"every_layer_window", every_layer_window},
    {"window_pattern", read_sliding_window_pattern},
    {"llama4_chunked", llama4_chunked_layers},
    {"gated_deltanet", gated_deltanet_layers},
    {"dsa_indexer", read_indexer},
    {"mlp_layer_types", read_mlp_layer_types},
    {"hybrid_override_pattern", hybrid_override_pattern},
    {"block_configs", block_configs},
    {"sliding_full_hybrid", sliding_full_hybrid},
    {"step3p5_layers", step3p5_layers},  // step3p7
    {"gemma4_layers", gemma4_layers},    // gemma4
    {"minimax_sparse_attention", minimax_sparse_attention},  // minimax_m3
    {"kda_layers", kda_layers},                  // kimi_linear, kimi_k3
    {"attention_residuals", attention_residuals},  // kimi_k3
};

struct VisionPart {
  const char* name;
  /// Counts the vision tower and projector of `vision_config`.
  int64_t (*params)(const ConfigReader& top, const ConfigReader& vision, int64_t text_hidden);
  /// Reads the vision tower's shape for its FLOPs (nullptr: its compute is not priced).
  void (*shape)(const ConfigReader& vision, ModelSpec& spec);
};

constexpr VisionPart kVisionParts[] = {
    {"siglip", siglip_vision_params, nullptr},
    {"pixtral", pixtral_vision_params, nullptr},
    {"llama4", llama4_vision, nullptr},
    {"qwen3_vl", qwen3_vl_vision_params, qwen3_vl_vision_shape},
    {"minimax_m3_vl", minimax_m3_vl_vision_params, nullptr},
};

// The ModelSpec flags a row may set to a constant (`set`) or read from a key (`keys`).
struct BoolField {
  const char* name;
  bool ModelSpec::*member;
};

constexpr BoolField kBoolFields[] = {
    {"tie_word_embeddings", &ModelSpec::tie_word_embeddings},
    {"norm_bias", &ModelSpec::norm_bias},
    {"attention_bias", &ModelSpec::attention_bias},
    {"attention_out_bias", &ModelSpec::attention_out_bias},
    {"qk_norm", &ModelSpec::qk_norm},
    {"qk_norm_full_width", &ModelSpec::qk_norm_full_width},
    {"attention_sinks", &ModelSpec::attention_sinks},
    {"attention_output_gate", &ModelSpec::attention_output_gate},
    {"fused_qkv", &ModelSpec::fused_qkv},
    {"gated_mlp", &ModelSpec::gated_mlp},
    {"silu_glu", &ModelSpec::silu_glu},
    {"router_bias", &ModelSpec::router_bias},
    {"router_correction_bias", &ModelSpec::router_correction_bias},
    {"mlp_bias", &ModelSpec::mlp_bias},
};

constexpr std::pair<const char*, NormPlacement> kNormPlacements[] = {
    {"pre", NormPlacement::pre}, {"pre_and_post", NormPlacement::pre_and_post}, {"post", NormPlacement::post}};

constexpr std::pair<const char*, Shape> kShapeNames[] = {
    {"mla", kMla},         {"dsa", kDsa},       {"experts", kExperts},
    {"shared_experts", kShared}, {"text_config", kTextConfig}, {"vision", kVision},
    {"sliding", kSliding}, {"linear", kLinear}, {"mamba", kMamba},
    {"block_configs", kBlockConfigs}, {"mtp", kMtp}, {"compressed", kCompressed},
    {"block_sparse", kBlockSparse}, {"latent_experts", kLatentExperts}, {"attention_residuals", kAttnResiduals},
};

// A flag read from a config key, with the value the configuration class defaults it to.
struct KeyFlag {
  bool ModelSpec::*member;
  std::string key;
  bool fallback = false;
};

// A key whose value the type's reader refuses unless it is 0 (a part ladle does not read).
struct ZeroKey {
  std::string key;
  std::string message;
};

// One model_type: which parts its layers have and which keys give which fields.
struct ModelTypeRow {
  std::string model_type;
  bool text_config = false;  // text fields may sit in a nested text_config (multimodal checkpoints)
  unsigned shape = 0;        // the parts its configs show (Shape bits); structural ones it reads
  Part common = nullptr;
  Part attention = nullptr;
  Part mlp = nullptr;
  std::vector<Part> layers;
  std::vector<std::pair<bool ModelSpec::*, bool>> set;
  std::optional<NormPlacement> norms;
  std::vector<KeyFlag> keys;
  // q/k norm width by a key's value (MiniMax-M2's qk_norm_type), read when qk_norm is on.
  std::string qk_norm_type_key;
  std::string qk_norm_type_default;
  std::vector<std::string> qk_norm_full_width_types;
  std::vector<ZeroKey> zero_keys;
  std::vector<std::string> mtp_keys;  // the first present gives the MTP layers
  bool mtp_stores_embedding_and_head = false;
  const VisionPart* vision = nullptr;
  // Values a config of this type may lack that the row supplies from a published source
  // (`published`: key -> {value, source}); each use is recorded in ModelSpec::assumed.
  struct Published {
    std::string key;
    Json value;
    std::string source;
  };
  std::vector<Published> published;
};

// A type no row reads, refused with what ladle does not count or price.
struct RefusedType {
  std::string model_type;
  std::string reason;
};

struct TypeTable {
  std::vector<ModelTypeRow> rows;
  std::vector<RefusedType> refused;
};

constexpr const char* kTypesPath = "data/models/types.yaml";

// A fault in the embedded table is ladle's, not the user's: it names the row and the entry.
[[noreturn]] void bad_row(const std::string& type, const std::string& what) {
  const std::string message = fmt::format("{}: model_type '{}': {}", kTypesPath, type, what);
  LADLE_ASSERT(false, message.c_str());
  std::abort();
}

template <typename Named>
auto find_named(const Named& table, const std::string& name, const std::string& type, const char* what) {
  for (const auto& entry : table) {
    if (name == entry.name) return &entry;
  }
  bad_row(type, fmt::format("unknown {} '{}'", what, name));
}

bool ModelSpec::*bool_field(const std::string& name, const std::string& type) {
  return find_named(kBoolFields, name, type, "field")->member;
}

// A YAML value of the type table as JSON: maps, lists, and scalars as integers, booleans or text.
Json yaml_to_json(const YAML::Node& node) {
  if (node.IsMap()) {
    Json out = Json::object();
    for (const auto& item : node) out[item.first.as<std::string>()] = yaml_to_json(item.second);
    return out;
  }
  if (node.IsSequence()) {
    Json out = Json::array();
    for (const YAML::Node& item : node) out.push_back(yaml_to_json(item));
    return out;
  }
  const std::string text = node.as<std::string>();
  int64_t number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec == std::errc() && end == text.data() + text.size()) return Json(number);
  if (text == "true" || text == "false") return Json(text == "true");
  return Json(text);
}

ModelTypeRow read_row(const YAML::Node& node) {
  ModelTypeRow row;
  row.model_type = node["model_type"].as<std::string>();
  const std::string& type = row.model_type;
  if (!node["source"]) bad_row(type, "no source (the configuration class its keys come from)");
  row.text_config = node["text_config"] && node["text_config"].as<bool>();
  for (const YAML::Node& part : node["shape"]) {
    const std::string name = part.as<std::string>();
    const auto at = std::find_if(std::begin(kShapeNames), std::end(kShapeNames),
                                 [&name](const auto& entry) { return name == entry.first; });
    if (at == std::end(kShapeNames)) bad_row(type, fmt::format("unknown shape part '{}'", name));
    row.shape |= at->second;
  }
  row.common = find_named(kCommonParts, node["common"] ? node["common"].as<std::string>() : "standard", type,
                          "common fields")->read;
  row.attention = find_named(kAttentionParts, node["attention"].as<std::string>(), type, "attention kind")->read;
  row.mlp = find_named(kMlpParts, node["mlp"].as<std::string>(), type, "MLP kind")->read;
  for (const YAML::Node& part : node["layers"]) {
    row.layers.push_back(find_named(kLayerParts, part.as<std::string>(), type, "layer pattern")->read);
  }
  for (const auto& item : node["set"]) {
    const std::string field = item.first.as<std::string>();
    if (field == "norms") {
      const std::string value = item.second.as<std::string>();
      const auto at = std::find_if(std::begin(kNormPlacements), std::end(kNormPlacements),
                                   [&value](const auto& entry) { return value == entry.first; });
      if (at == std::end(kNormPlacements)) bad_row(type, fmt::format("unknown norms '{}'", value));
      row.norms = at->second;
    } else {
      row.set.emplace_back(bool_field(field, type), item.second.as<bool>());
    }
  }
  for (const auto& item : node["keys"]) {
    KeyFlag flag{bool_field(item.first.as<std::string>(), type), {}, false};
    if (item.second.IsScalar()) {
      flag.key = item.second.as<std::string>();
    } else {
      flag.key = item.second["key"].as<std::string>();
      flag.fallback = item.second["default"].as<bool>();
    }
    row.keys.push_back(std::move(flag));
  }
  if (const YAML::Node q = node["qk_norm_type"]) {
    row.qk_norm_type_key = q["key"].as<std::string>();
    row.qk_norm_type_default = q["default"].as<std::string>();
    for (const YAML::Node& t : q["full_width"]) row.qk_norm_full_width_types.push_back(t.as<std::string>());
  }
  for (const auto& item : node["zero_keys"]) {
    row.zero_keys.push_back({item.first.as<std::string>(), item.second.as<std::string>()});
  }
  if (const YAML::Node mtp = node["mtp"]) {
    for (const YAML::Node& key : mtp["keys"]) row.mtp_keys.push_back(key.as<std::string>());
    row.mtp_stores_embedding_and_head = mtp["stores_embedding_and_head"].as<bool>();
  }
  if (node["vision"]) row.vision = find_named(kVisionParts, node["vision"].as<std::string>(), type, "vision tower");
  for (const auto& item : node["published"]) {
    if (!item.second["value"] || !item.second["source"]) bad_row(type, "a published value needs value and source");
    row.published.push_back({item.first.as<std::string>(), yaml_to_json(item.second["value"]),
                             item.second["source"].as<std::string>()});
  }
  return row;
}

const TypeTable& type_table() {
  static const TypeTable table = [] {
    const auto bytes = util::find_embedded(kTypesPath);
    LADLE_ASSERT(bytes.has_value(), "data/models/types.yaml is embedded by cmake/embed.cmake");
    const YAML::Node root = YAML::Load(std::string(*bytes));
    TypeTable out;
    for (const YAML::Node& node : root["types"]) out.rows.push_back(read_row(node));
    for (const YAML::Node& node : root["refused"]) {
      out.refused.push_back({node["model_type"].as<std::string>(), node["reason"].as<std::string>()});
    }
    std::sort(out.rows.begin(), out.rows.end(),
              [](const ModelTypeRow& a, const ModelTypeRow& b) { return a.model_type < b.model_type; });
    return out;
  }();
  return table;
}

// Reads a config's text fields as its row says: common fields, the row's constants, the flags
// its keys give, attention, MLP, the per-layer patterns in order, then MTP.
void read_by_row(const ConfigReader& in, const ModelTypeRow& row, ModelSpec& spec) {
  row.common(in, spec);
  for (const auto& [member, value] : row.set) spec.*member = value;
  if (row.norms) spec.norms = *row.norms;
  for (const KeyFlag& flag : row.keys) spec.*(flag.member) = in.boolean_or(flag.key.c_str(), flag.fallback);
  if (!row.qk_norm_type_key.empty() && spec.qk_norm) {
    const char* key = row.qk_norm_type_key.c_str();
    const std::string type = in.has(key) ? in.text(key) : row.qk_norm_type_default;
    const auto& full = row.qk_norm_full_width_types;
    if (std::find(full.begin(), full.end(), type) == full.end()) {
      in.fail(key, fmt::format("'{}' is not read (expected {})", type, util::join(full, " or ")));
    }
    spec.qk_norm_full_width = true;
  }
  if (row.attention != nullptr) row.attention(in, spec);
  if (row.mlp != nullptr) row.mlp(in, spec);
  for (const Part part : row.layers) part(in, spec);
  for (const ZeroKey& zero : row.zero_keys) {
    if (in.non_negative_or(zero.key.c_str(), 0) > 0) in.fail(zero.key, zero.message);
  }
  for (const std::string& key : row.mtp_keys) {
    if (!in.has(key.c_str())) continue;
    spec.num_mtp_layers = static_cast<int>(in.non_negative_or(key.c_str(), 0));
    break;
  }
  spec.mtp_stores_embedding_and_head = row.mtp_stores_embedding_and_head;
}

// "routed experts, shared experts" for the parts of `shape`; "dense attention and MLP" for none.
std::string describe_shape(unsigned shape) {
  std::vector<std::string> parts;
  for (const ShapeKeys& part : kShapeKeys) {
    if ((shape & part.part) != 0) parts.emplace_back(part.what);
  }
  return parts.empty() ? "dense attention and MLP" : util::join(parts, ", ");
}

// The supported types whose shape differs from `shape` in the fewest parts (at most four).
std::vector<std::string> nearest_by_shape(unsigned shape) {
  const std::vector<ModelTypeRow>& rows = type_table().rows;
  int best = 1 << 10;
  for (const ModelTypeRow& row : rows) best = std::min(best, std::popcount(shape ^ row.shape));
  std::vector<std::string> out;
  for (const ModelTypeRow& row : rows) {
    if (std::popcount(shape ^ row.shape) == best && out.size() < 4) out.emplace_back(row.model_type);
  }
  return out;
}

// Refuses a config that holds a structural part (MLA, a DSA indexer, linear attention, Mamba,
// block configs) its model_type's reader does not read, naming the key, rather than counting the
// model without it (deepseek_v32 renamed deepseek_v3 would lose its indexer).
void check_structural_keys(const ConfigReader& in, const ModelTypeRow& row) {
  for (const ShapeKeys& part : kShapeKeys) {
    if ((part.part & kStructural) == 0 || (row.shape & part.part) != 0) continue;
    for (const char* key : part.keys) {
      if (!in.set(key)) continue;
      std::vector<std::string> readers;
      for (const ModelTypeRow& other : type_table().rows) {
        if ((other.shape & part.part) != 0) readers.emplace_back(other.model_type);
      }
      in.fail(key, fmt::format("a key of {}, which model_type '{}' does not read (the model would "
                               "be counted without it){}",
                               part.what, row.model_type,
                               readers.empty() ? std::string("; no supported type reads it")
                                               : "; types that read it: " + util::join(readers, ", ")));
    }
  }
}

const ModelTypeRow* find_model_type(const std::string& type) {
  for (const ModelTypeRow& row : type_table().rows) {
    if (type == row.model_type) return &row;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> supported_model_types() {
  std::vector<std::string> out;
  for (const ModelTypeRow& row : type_table().rows) out.emplace_back(row.model_type);
  return out;
}

ModelSpec parse_config(std::string_view json_text, const std::string& file, const std::string& name) {
  // Python's json module writes Infinity and NaN into configs (Nemotron-H's time_step_limit).
  const Json root = util::parse_json_with_non_finite(json_text, SourceLocation{file, 0, 0, ""}, "not valid JSON");
  if (!root.is_object()) throw_input(SourceLocation{file, 1, 1, ""}, "expected a JSON object");
  const ConfigReader in(root, json_text, file);

  ModelSpec spec;
  spec.name = name;
  spec.source = file;
  spec.model_type = in.text("model_type");
  const std::string& type = spec.model_type;
  for (const RefusedType& refused : type_table().refused) {
    if (type == refused.model_type) {
      in.fail("model_type", fmt::format("'{}' is not supported: {}", type, refused.reason));
    }
  }
  const ModelTypeRow* row = find_model_type(type);
  if (row == nullptr) {
    // Suggested by what the config holds, not by the name: `mistral` is not `mixtral`.
    const unsigned shape = config_shape(in);
    in.fail("model_type", fmt::format("unsupported model_type '{}'; nearest by its keys ({}): {}; "
                                      "supported: {}",
                                      type, describe_shape(shape), util::join(nearest_by_shape(shape), ", "),
                                      util::join(supported_model_types(), ", ")));
  }
  // A multimodal checkpoint keeps its language model's fields in text_config (some copies also
  // flatten them to the top level; text_config wins).
  const bool nested = row->text_config && in.has_object("text_config");
  // Values the row publishes for keys the config lacks (step3p7's flattened configs drop
  // attention_other_setting): read as if the config held them, and recorded.
  const Json& text_json = nested ? root["text_config"] : root;
  Json with_published;
  std::vector<ModelSpec::AssumedValue> assumed;
  if (!row->published.empty()) {
    with_published = text_json;
    for (const ModelTypeRow::Published& p : row->published) {
      if (with_published.contains(p.key) && !with_published[p.key].is_null()) continue;
      with_published[p.key] = p.value;
      assumed.push_back({p.key, p.value.dump(), p.source});
    }
  }
  const ConfigReader text(row->published.empty() ? text_json : with_published, json_text, file);
  check_structural_keys(text, *row);
  if (nested) check_structural_keys(in, *row);
  read_by_row(text, *row, spec);
  spec.assumed = std::move(assumed);
  // A nested config's top level may say whether the head is tied (Qwen3-VL's does).
  if (nested && !text.has("tie_word_embeddings") && in.has("tie_word_embeddings")) {
    spec.tie_word_embeddings = in.boolean_or("tie_word_embeddings", false);
  }
  if (row->vision != nullptr && in.has_object("vision_config")) {
    spec.vision_params = row->vision->params(in, in.nested("vision_config"), spec.hidden_size);
    if (row->vision->shape != nullptr) row->vision->shape(in.nested("vision_config"), spec);
  }
  return spec;
}

ModelSpec read_config_file(const std::string& path) {
  const std::string text = util::read_file(path, limits::FileKind::model_config);
  // "models/glm-5.2/config.json" is named after its folder, "glm-5.2.json" after itself.
  const std::filesystem::path file(path);
  std::string name = file.stem().string();
  if (name == "config" && file.has_parent_path() && !file.parent_path().filename().empty()) {
    name = file.parent_path().filename().string();
  }
  return parse_config(text, path, name);
}

}  // namespace ladle::model
