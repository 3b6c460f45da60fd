// cmd_model.cpp: `ladle model NAME|config.json`, prints a model's architecture, its parameter
// counts under every convention, N and its FLOPs per token by layer kind.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <string>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/model/flops.hpp"
#include "ladle/model/model_json.hpp"
#include "ladle/model/params.hpp"
#include "ladle/model/tensor_inventory.hpp"
#include "ladle/util/table.hpp"
#include "ladle/util/text.hpp"

namespace ladle::cli {
namespace {

// The row length of the seed recipes (one 8,192-token row).
constexpr int64_t kDefaultSeqLen = 8192;

struct ModelOptions {
  std::string model;
  int64_t seq_len = kDefaultSeqLen;
  std::string params;  // one convention only
  bool tensors = false;
  bool json = false;
};

struct ModelReport {
  ModelSpec spec;
  model::ParamCounts counts;
  model::FlopsPerToken flops;
  std::vector<model::TensorInfo> tensors;  // only with --tensors
};

std::string grouped(double value) { return util::format_grouped(static_cast<long long>(std::llround(value))); }
std::string grouped(int64_t value) { return util::format_grouped(static_cast<long long>(value)); }
std::string gflop(double value) { return fmt::format("{:.3f}", value / 1e9); }

std::string shape_text(const std::vector<int64_t>& shape) {
  std::vector<std::string> dims;
  for (int64_t d : shape) dims.push_back(std::to_string(d));
  return "[" + util::join(dims, ", ") + "]";
}

// The command composes the model module's objects; key order is the output's.
nlohmann::ordered_json report_json(const ModelReport& r) {
  nlohmann::ordered_json out = model::to_json(r.spec);
  out.update(model::to_json(r.counts));
  out["flops_per_token"] = model::to_json(r.flops);
  if (!r.tensors.empty()) {
    nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
    for (const model::TensorInfo& t : r.tensors) tensors.push_back(model::to_json(t));
    out["tensors"] = tensors;
  }
  return out;
}

void render_text(const ModelReport& r, std::ostream& out) {
  const ModelSpec& s = r.spec;
  out << fmt::format("model: {} ({})\n", s.name, s.model_type);
  out << fmt::format("source: {}\n", s.source);
  if (s.num_experts > 0) {
    out << fmt::format("layers: {} decoder ({} dense, {} MoE) + {} MTP\n", s.num_layers,
                       s.count_mlp(MlpKind::dense), s.count_mlp(MlpKind::moe), s.num_mtp_layers);
  } else {
    out << fmt::format("layers: {} decoder (dense) + {} MTP\n", s.num_layers, s.num_mtp_layers);
  }
  out << fmt::format("hidden: {}, vocab: {}, tied embeddings: {}\n", s.hidden_size, s.vocab_size,
                     s.tie_word_embeddings ? "yes" : "no");
  if (s.position_embeddings > 0) {
    out << fmt::format("position embeddings: learned, {} positions\n", s.position_embeddings);
  }
  if (s.norm_bias) out << "norms: LayerNorm with bias\n";
  if (s.attention == AttentionKind::csa) {  // deepseek_v4
    out << fmt::format("attention: csa, {} heads, 1 kv head (keys are values), head dim {} (rope {}), q_lora {}, "
                       "output {} groups x rank {}, sinks\n",
                       s.num_heads, s.head_dim, s.qk_rope_head_dim, s.q_lora_rank, s.o_groups, s.o_lora_rank);
    std::map<int64_t, int> by_ratio;
    for (int i = 0; i < s.num_layers; ++i) ++by_ratio[s.compress_ratio_of(i)];
    std::vector<std::string> parts;
    for (const auto& [ratio, layers] : by_ratio) {
      parts.push_back(ratio == 0 ? fmt::format("window only on {}", layers)
                                 : fmt::format("ratio {} on {}", ratio, layers));
    }
    out << fmt::format("compressed keys: {} of {} layers\n", util::join(parts, ", "), s.num_layers);
    out << fmt::format("hyper-connections: {} residual copies, {} Sinkhorn iterations; hash routing on the first {} "
                       "layers\n",
                       s.hc_mult, s.hc_sinkhorn_iters, s.num_hash_layers);
  } else if (s.attention == AttentionKind::mla) {
    out << fmt::format("attention: mla, {} heads, q_lora {}, kv_lora {}, qk {}+{}, v {}\n",
                       s.num_heads, s.q_lora_rank, s.kv_lora_rank, s.qk_nope_head_dim,
                       s.qk_rope_head_dim, s.v_head_dim);
  } else {
    out << fmt::format("attention: gqa, {} heads, {} kv heads, head dim {}{}{}{}{}\n", s.num_heads,
                       s.num_kv_heads, s.head_dim, s.attention_bias ? ", qkv bias" : "",
                       s.qk_norm ? ", qk norm" : "", s.attention_sinks ? ", sinks" : "",
                       s.attention_output_gate ? ", output gate" : "");
  }
  if (s.count_linear_attention() > 0) {
    out << fmt::format("linear attention ({}) on {} of {} layers: {} key heads x {}, {} "
                       "value heads x {}, conv {}\n",
                       s.kda ? "Kimi Delta Attention" : "Gated DeltaNet", s.count_linear_attention(), s.num_layers, s.linear_num_key_heads,
                       s.linear_key_head_dim, s.linear_num_value_heads, s.linear_value_head_dim,
                       s.linear_conv_kernel);
  }
  // per-layer attention geometry (step3p7, gemma4): each distinct layer shape and its layers.
  if (s.has_layer_geometry() || !s.layer_kv_shared.empty()) {
    std::vector<std::pair<std::string, int>> shapes;
    for (int i = 0; i < s.num_layers; ++i) {
      if (s.mixer_of(i) != MixerKind::attention) continue;
      std::string shape = fmt::format("{} heads, {} kv heads, head dim {}", s.heads_of(i), s.kv_heads_of(i),
                                      s.head_dim_of(i));
      if (s.value_head_dim_of(i) != s.head_dim_of(i)) shape += fmt::format(", value dim {}", s.value_head_dim_of(i));
      if (s.k_eq_v_of(i)) shape += ", keys are values";
      if (s.kv_shared_of(i)) shape += ", keys and values of an earlier layer";
      const auto at = std::find_if(shapes.begin(), shapes.end(), [&](const auto& e) { return e.first == shape; });
      if (at == shapes.end()) {
        shapes.emplace_back(shape, 1);
      } else {
        ++at->second;
      }
    }
    for (const auto& [shape, layers] : shapes) out << fmt::format("attention layers: {} on {}\n", shape, layers);
  }
  if (s.head_wise_attention_gate) out << "attention output gate: head-wise (g_proj, one sigmoid per query head)\n";
  for (const ModelSpec::AssumedValue& v : s.assumed) {
    out << fmt::format("published: {} = {} (not in the config; {})\n", v.key, v.value, v.source);
  }
  const auto chunked = std::count_if(s.attention_chunk.begin(), s.attention_chunk.end(),
                                     [](int64_t c) { return c > 0; });
  if (chunked > 0) {
    const int64_t chunk = *std::max_element(s.attention_chunk.begin(), s.attention_chunk.end());
    out << fmt::format("chunked attention: {} tokens on {} of {} layers\n", chunk, chunked, s.num_layers);
  }
  const auto sliding = std::count_if(s.sliding_window.begin(), s.sliding_window.end(),
                                     [](int64_t w) { return w > 0; });
  if (sliding > 0) {
    const int64_t window = *std::max_element(s.sliding_window.begin(), s.sliding_window.end());
    out << fmt::format("sliding window: {} tokens on {} of {} layers\n", window, sliding, s.num_layers);
  }
  if (s.index_topk > 0) {
    out << fmt::format("sparse attention: top-{} keys; indexer ({} heads x {}) on {} of {} layers\n",
                       s.index_topk, s.index_n_heads, s.index_head_dim, s.count_indexers(),
                       s.num_layers);
  }
  if (s.num_experts > 0) {
    out << fmt::format("experts: {} routed, {} per token, width {}", s.num_experts,
                       s.experts_per_token, s.moe_intermediate_size);
    if (s.shared_expert_intermediate_size > 0) {
      out << fmt::format(", shared width {}", s.shared_expert_intermediate_size);
    }
    out << "\n";
  }
  if (s.count_mlp(MlpKind::dense) > 0) {
    out << fmt::format("dense MLP width: {}{}\n", s.intermediate_size,
                       s.gated_mlp ? ""
                       : s.mlp_bias ? " (two matrices, fc1 -> activation -> fc2, with biases)"
                                    : " (two matrices, fc1 -> activation -> fc2)");
  }

  out << "\nparameters\n";
  util::Table params;
  params.header = {"convention", "parameters", "meaning"};
  for (model::ParamConvention c : model::param_conventions()) {
    params.rows.push_back({to_string(c), grouped(r.counts.get(c)), describe(c)});
  }
  out << params.render();
  out << fmt::format("N (active, for MFU): {}\n", grouped(r.counts.n));
  if (r.counts.vision > 0) {
    out << fmt::format("vision encoder and projector (vision_config, not planned): {}\n",
                       grouped(r.counts.vision));
  }

  const model::FlopsPerToken& f = r.flops;
  out << fmt::format("\nFLOPs per token at {} tokens per sequence\n", f.seq_len);
  out << fmt::format("6N: {}\n", grouped(f.six_n));
  out << fmt::format("training (3 x forward, causal attention): {} ({:.3f} x 6N)\n", grouped(f.training),
                     f.training / f.six_n);
  if (f.mtp_forward > 0) out << fmt::format("training with MTP: {}\n", grouped(f.training_with_mtp));
  util::Table kinds;
  kinds.header = {"layer kind", "layers", "matmul GFLOP", "attention GFLOP", "indexer GFLOP",
                  "forward GFLOP (all layers)"};
  for (const model::LayerKindFlops& k : f.by_kind) {
    kinds.rows.push_back({k.kind, std::to_string(k.layers), gflop(k.matmul_forward),
                          gflop(k.attention_forward), gflop(k.indexer_forward),
                          gflop(k.forward_total())});
  }
  out << kinds.render();
  out << "(per-layer forward FLOPs per token; training is 3 x forward)\n";

  if (!r.tensors.empty()) {
    out << "\ntensors\n";
    util::Table tensors;
    tensors.header = {"name", "shape", "copies", "active", "section", "role", "split"};
    for (const model::TensorInfo& t : r.tensors) {
      std::string split = to_string(t.split);
      if (t.is_expert()) split += std::string("/") + to_string(t.expert_split);
      tensors.rows.push_back({t.name, shape_text(t.shape), std::to_string(t.copies),
                              std::to_string(t.active_copies), to_string(t.section),
                              to_string(t.role), split});
    }
    out << tensors.render();
  }
}

void run_model(const ModelOptions& options, Io& io) {
  ModelReport report;
  report.spec = model::load_model(options.model);
  report.counts = model::count_params(report.spec);
  if (!options.params.empty()) {
    const model::ParamConvention c = model::parse_param_convention(options.params);
    if (options.json) {
      nlohmann::ordered_json out;
      out["name"] = report.spec.name;
      out["convention"] = to_string(c);
      out["params"] = report.counts.get(c);
      io.out << out.dump(2) << "\n";
    } else {
      io.out << report.counts.get(c) << "\n";
    }
    io.exit_code = kExitOk;
    return;
  }
  report.flops = model::flops_per_token(report.spec, options.seq_len);
  if (options.tensors) report.tensors = model::tensor_inventory(report.spec);
  if (options.json) {
    io.out << report_json(report).dump(2) << "\n";
  } else {
    // Names and types come from the model's config.json: escaped, as every text report.
    std::ostringstream text;
    render_text(report, text);
    io.out << util::terminal_safe(text.str());
  }
  io.exit_code = kExitOk;
}

}  // namespace

void add_model_command(CLI::App& command, Io& io) {
  auto options = std::make_shared<ModelOptions>();
  command.add_option("model", options->model, "embedded model name (see data/models) or a config.json")
      ->required();
  command.add_option("--seq", options->seq_len, "tokens per sequence for the FLOPs (default 8192)")
      ->check(positive_integer());
  // Reason: scripts need one figure under a named convention without parsing the whole report.
  command.add_option("--params", options->params,
                     "print only the parameter count under this convention (n, active, total, ...)");
  // Reason: shows every weight the planner places, with its shape and parallel split.
  command.add_flag("--tensors", options->tensors, "also list every weight tensor");
  add_json_flag(command, options->json);
  command.callback([options, &io] { run_model(*options, io); });
}

}  // namespace ladle::cli
