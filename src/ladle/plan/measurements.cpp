#include "ladle/plan/measurements.hpp"

#include "ladle/hw/hw_facts.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "ladle/args/launch_args.hpp"
#include "ladle/args/run_script.hpp"
#include "ladle/hw/catalog.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibrate_memory.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/plan/stack.hpp"
#include "ladle/recipe/catalog.hpp"
#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/text.hpp"

namespace ladle::plan {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kSecondsPerHour = 3600;

// Reads one file's nodes with locations.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  SourceLocation at(const YAML::Node& node, const std::string& path) const {
    const YAML::Mark mark = node.Mark();
    return SourceLocation{file_, mark.line + 1, mark.column + 1, path};
  }

  // Every key of `map` must be one of `keys`.
  void keys(const YAML::Node& map, const std::string& path,
            const std::vector<std::string>& allowed) const {
    if (!map.IsMap()) throw_input(at(map, path), "expected a map");
    for (const auto& item : map) {
      const std::string key = item.first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        throw_input(at(item.first, join(path, key)), "unknown key{}",
                    util::did_you_mean(key, allowed));
      }
    }
  }

  YAML::Node required(const YAML::Node& map, const std::string& key, const std::string& path,
                      const std::string& expected) const {
    const YAML::Node node = map[key];
    if (!node) throw_input(at(map, join(path, key)), "missing; expected {}", expected);
    return node;
  }

  std::string text(const YAML::Node& map, const std::string& key, const std::string& path,
                   const std::string& expected) const {
    const YAML::Node node = required(map, key, path, expected);
    if (!node.IsScalar() || node.Scalar().empty())
      throw_input(at(node, join(path, key)), "expected {}", expected);
    return node.Scalar();
  }

  std::string text_or(const YAML::Node& map, const std::string& key,
                      const std::string& path) const {
    const YAML::Node node = map[key];
    if (!node) return {};
    if (!node.IsScalar()) throw_input(at(node, join(path, key)), "expected text");
    return node.Scalar();
  }

  double number(const YAML::Node& node, const std::string& path, double min, double max) const {
    double value = 0;
    try {
      value = node.as<double>();
    } catch (const YAML::Exception&) {
      throw_input(at(node, path), "expected a number, got '{}'",
                  node.IsScalar() ? node.Scalar() : "a map or list");
    }
    if (!std::isfinite(value) || value < min || value > max) {
      throw_input(at(node, path), "expected a number in {}..{}, got {}", min, max, node.Scalar());
    }
    return value;
  }

  int64_t integer(const YAML::Node& node, const std::string& path, int64_t min, int64_t max) const {
    int64_t value = 0;
    try {
      value = node.as<int64_t>();
    } catch (const YAML::Exception&) {
      throw_input(at(node, path), "expected an integer, got '{}'",
                  node.IsScalar() ? node.Scalar() : "a map or list");
    }
    if (value < min || value > max)
      throw_input(at(node, path), "expected an integer in {}..{}, got {}", min, max, value);
    return value;
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

constexpr int64_t kMaxGpus = 1 << 20;
constexpr int64_t kMaxRowTokens = 1 << 22;
constexpr int64_t kMaxBatch = 1 << 24;

MeasurementSource read_source(const Reader& r, const YAML::Node& root) {
  const YAML::Node node =
      r.required(root, "source", "", "a source map (id, url or repo + path + commit)");
  r.keys(node, "source", {"id", "title", "publisher", "url", "repo", "path", "commit", "engine", "transformer_engine"});
  MeasurementSource s;
  s.file = r.file();
  s.id = r.text(node, "id", "source", "a short id");
  s.title = r.text_or(node, "title", "source");
  s.publisher = r.text(node, "publisher", "source", "who measured the runs");
  s.url = r.text_or(node, "url", "source");
  s.repo = r.text_or(node, "repo", "source");
  s.path = r.text_or(node, "path", "source");
  s.commit = r.text_or(node, "commit", "source");
  s.engine = r.text_or(node, "engine", "source");
  s.transformer_engine = r.text_or(node, "transformer_engine", "source");
  if (!s.transformer_engine.empty() && !transformer_engine_host_ratio(s.transformer_engine)) {
    throw_input(r.at(node["transformer_engine"], "source.transformer_engine"),
                "expected a Transformer Engine release, e.g. '2.9', got '{}'", s.transformer_engine);
  }
  // The catalog's own recipes live in this repository: repo "ladle" with a path needs no commit.
  const bool own = s.repo == "ladle" && !s.path.empty();
  const bool repo_ok = !s.repo.empty() && !s.path.empty() && (own || s.commit.size() == 40);
  if (s.url.empty() && !repo_ok) {
    throw_input(r.at(node, "source"), "expected url, or repo + path + commit (40 hex digits)");
  }
  if (!s.url.empty() && s.url.rfind("https://", 0) != 0 && s.url.rfind("http://", 0) != 0) {
    throw_input(r.at(node["url"], "source.url"), "expected an http(s) URL, got '{}'", s.url);
  }
  return s;
}

// The cluster a file's runs ran on: a catalog instance, or the system as the source states it.
struct System {
  std::string instance;
  GpuSpec gpu;
  InstanceSpec node;
};

System read_system(const Reader& r, const YAML::Node& root) {
  const YAML::Node node = r.required(
      root, "system", "", "a system map (instance, or gpu + gpus_per_node + network_gbps)");
  r.keys(node, "system",
         {"name", "instance", "gpu", "gpus_per_node", "network_gbps", "fabric", "host_memory_gib",
          "gpu_overrides"});
  System s;
  if (node["instance"]) {
    s.instance = r.text(node, "instance", "system", "a catalog instance");
    if (!hw::find_instance(s.instance))
      throw_input(r.at(node["instance"], "system.instance"), "unknown instance '{}'", s.instance);
    return s;
  }
  const std::string gpu = r.text(node, "gpu", "system", "a GPU of the catalog (ladle gpu)");
  const std::optional<GpuSpec> spec = hw::find_gpu(gpu);
  if (!spec) {
    throw_input(r.at(node["gpu"], "system.gpu"), "unknown GPU '{}'{}", gpu,
                util::did_you_mean(gpu, hw::gpu_names()));
  }
  s.gpu = *spec;
  if (const YAML::Node o = node["gpu_overrides"]) {
    r.keys(
        o, "system.gpu_overrides",
        {"hbm_gb", "hbm_tb_per_s", "intra_node_gb_per_s", "bf16_dense_tflops", "fp8_dense_tflops"});
    if (o["bf16_dense_tflops"]) {
      s.gpu.bf16_dense_tflops =
          r.number(o["bf16_dense_tflops"], "system.gpu_overrides.bf16_dense_tflops", 1, 1e5);
    }
    if (o["fp8_dense_tflops"]) {
      s.gpu.fp8_dense_tflops =
          r.number(o["fp8_dense_tflops"], "system.gpu_overrides.fp8_dense_tflops", 1, 1e5);
    }
    if (o["hbm_gb"]) s.gpu.hbm_gb = r.number(o["hbm_gb"], "system.gpu_overrides.hbm_gb", 1, 4096);
    if (o["hbm_tb_per_s"])
      s.gpu.hbm_tb_per_s =
          r.number(o["hbm_tb_per_s"], "system.gpu_overrides.hbm_tb_per_s", 0.1, 100);
    if (o["intra_node_gb_per_s"]) {
      s.gpu.intra_node_gb_per_s =
          r.number(o["intra_node_gb_per_s"], "system.gpu_overrides.intra_node_gb_per_s", 1, 10000);
    }
  }
  s.node.name = node["name"] ? r.text(node, "name", "system", "a name") : s.gpu.name + " nodes";
  s.node.gpu = s.gpu.name;
  s.node.gpu_count =
      static_cast<int>(r.integer(r.required(node, "gpus_per_node", "system", "GPUs per node"),
                                 "system.gpus_per_node", 1, 576));
  // The fabric's kind as the instance catalog names it ("InfiniBand NDR", "RoCE", "EFAv2"): it
  // picks the published collective sweeps (data/hw/collectives.yaml); unnamed takes EFA's.
  if (node["fabric"]) s.node.fabric = r.text(node, "fabric", "system", "the fabric's kind");
  s.node.network_gbps =
      r.number(r.required(node, "network_gbps", "system", "the node's network, Gbit/s"),
               "system.network_gbps", 1, 1e6);
  s.node.host_memory_gib = node["host_memory_gib"]
                               ? r.number(node["host_memory_gib"], "system.host_memory_gib", 1, 1e6)
                               : 1024;
  return s;
}

double read_peak_memory(const Reader& r, const YAML::Node& node, const std::string& path,
                        std::string& kind) {
  r.keys(node, path, {"value", "unit", "kind"});
  const double value =
      r.number(r.required(node, "value", path, "a number"), path + ".value", 1e-3, 1e7);
  const std::string unit = r.text(node, "unit", path, "GiB, GB, MiB or MB");
  kind = r.text(node, "kind", path, peak_memory_kind_names());
  if (!parse_peak_memory_kind(kind)) {
    throw_input(r.at(node["kind"], path + ".kind"), "expected {}, got '{}'", peak_memory_kind_names(), kind);
  }
  if (unit == "GiB") return value;
  if (unit == "GB") return value * 1e9 / kGiB;
  if (unit == "MiB") return value / 1024.0;
  if (unit == "MB") return value * 1e6 / kGiB;
  throw_input(r.at(node["unit"], path + ".unit"), "expected GiB, GB, MiB or MB, got '{}'", unit);
}

// The published figure as tokens/s per GPU.
double read_measured(const Reader& r, const YAML::Node& node, const std::string& path,
                     const Measurement& m) {
  r.keys(node, path, {"value", "unit", "flop_convention"});
  const double value =
      r.number(r.required(node, "value", path, "a number"), path + ".value", 1e-9, 1e12);
  const std::vector<std::string> units = measurement_units();
  if (!node["unit"]) {
    throw_input(r.at(node, path + ".unit"), "missing; expected one of {}", fmt::join(units, ", "));
  }
  const std::string unit = node["unit"].Scalar();
  const double gpus = static_cast<double>(m.cluster.gpus);
  const double tokens = static_cast<double>(m.workload.global_batch * m.workload.row_tokens);
  if (unit == "tokens/s/gpu") return value;
  if (unit == "step_time_s") return tokens / value / gpus;
  if (unit == "gpu_hours_per_trillion_tokens") return 1e12 / (value * kSecondsPerHour);
  if (unit == "tflops/s/gpu") {
    const std::vector<std::string> conventions = flop_conventions();
    if (!node["flop_convention"]) {
      throw_input(r.at(node, path + ".flop_convention"),
                  "missing; TFLOP/s needs its FLOP convention: one of {}",
                  fmt::join(conventions, ", "));
    }
    const std::string convention = node["flop_convention"].Scalar();
    if (std::find(conventions.begin(), conventions.end(), convention) == conventions.end()) {
      throw_input(r.at(node["flop_convention"], path + ".flop_convention"),
                  "unknown convention '{}'{}", convention,
                  util::did_you_mean(convention, conventions));
    }
    if (convention == "megatron_lm" && (m.model.count_linear_attention() > 0 ||
                                        m.model.index_topk > 0 || m.model.attention_output_gate)) {
      throw_input(r.at(node["flop_convention"], path + ".flop_convention"),
                  "megatron_lm is counted here for softmax attention without a DSA indexer or "
                  "output gate; {} has one",
                  m.model.name);
    }
    return value * 1e12 / flops_per_token(m.costs, convention);
  }
  throw_input(r.at(node["unit"], path + ".unit"), "unknown unit '{}'{}", unit,
              util::did_you_mean(unit, units));
}

// Beside `args`, a run's `layout` names what its launcher set that Megatron-LM has no argument for
// (Megatron-Bridge's mixed_precision.fp8_dot_product_attention: fp8_dpa=on); every other knob is
// the arguments' to say, and naming it there is refused.
bool has_megatron_argument(const layout::Knob& knob) {
  return knob.args.empty() || std::any_of(knob.args.begin(), knob.args.end(), [](const layout::KnobArg& a) {
           return (a.engines & layout::kMegatron) != 0;
         });
}

void overlay_argless_knobs(const Reader& r, const YAML::Node& node, const std::string& path, Layout& layout) {
  const YAML::Node where = node["layout"];
  const std::string text = r.text(node, "layout", path, "the knobs Megatron-LM has no argument for (fp8_dpa=on)");
  layout::PartialLayout extra;
  try {
    extra = layout::parse_partial_layout_spec(text);
  } catch (const Error& e) {
    throw_input(r.at(where, path + ".layout"), "{}", e.message());
  }
  for (const std::string& key : extra.given) {
    const layout::Knob* knob = layout::find_knob(key);
    if (knob == nullptr || has_megatron_argument(*knob)) {
      std::vector<std::string> argless;
      for (const layout::Knob& k : layout::kKnobs) {
        if (!has_megatron_argument(k)) argless.emplace_back(k.key);
      }
      throw_input(r.at(where, path + ".layout"),
                  "{}: the args say it; beside args, layout names only knobs Megatron-LM has no argument for ({})",
                  key, util::join(argless, ", "));
    }
    layout::set_knob_text(*knob, layout, layout::knob_text(*knob, extra.layout), key);
  }
}

Measurement read_run(const Reader& r, const YAML::Node& node, const std::string& path,
                     const MeasurementSource& source, const System& system) {
  r.keys(node, path,
         {"id", "recipe", "model", "gpus", "layout", "args", "row_tokens", "global_batch",
          "precision", "knobs", "measured", "peak_memory", "note"});
  const std::string id = r.text(node, "id", path, "a run id");
  if (node["recipe"]) {
    const std::string name = r.text(node, "recipe", path, "a catalog recipe");
    Measurement m;
    try {
      m = measurement_from_recipe(recipe::find_recipe(name));
    } catch (const Error& e) {
      if (!e.where().file.empty()) throw;
      throw_input(r.at(node["recipe"], path + ".recipe"), "{}", e.message());
    }
    m.name = id;
    m.source = source.publisher;
    return m;
  }
  Measurement m;
  m.name = id;
  m.source = source.publisher;
  const std::string model = r.text(node, "model", path, "a model (ladle model)");
  const std::optional<ModelSpec> spec = model::find_model(model);
  if (!spec)
    throw_input(r.at(node["model"], path + ".model"), "unknown model '{}'{}", model,
                util::did_you_mean(model, model::model_names()));
  m.model = *spec;
  const int64_t gpus =
      r.integer(r.required(node, "gpus", path, "the GPU count"), path + ".gpus", 1, kMaxGpus);
  if (!system.instance.empty()) {
    const InstanceSpec instance = hw::require_instance(system.instance);
    m.cluster = make_cluster(instance.gpu, gpus, system.instance);
  } else {
    m.cluster = Cluster{system.gpu, system.node, gpus};
  }
  m.workload.row_tokens = r.integer(r.required(node, "row_tokens", path, "tokens per row"),
                                    path + ".row_tokens", 1, kMaxRowTokens);
  m.workload.global_batch = r.integer(r.required(node, "global_batch", path, "rows per step"),
                                      path + ".global_batch", 1, kMaxBatch);
  const std::string precision = r.text(node, "precision", path, "bf16 or fp8");
  try {
    m.workload.precision = parse_precision(precision);
  } catch (const Error& e) {
    throw_input(r.at(node["precision"], path + ".precision"), "{}", e.message());
  }
  Layout layout;
  if (node["layout"] && !node["args"]) {
    const std::string text = r.text(node, "layout", path, "a layout spec (tp=..,pp=..)");
    try {
      layout = layout::parse_layout_spec(text);
    } catch (const Error& e) {
      throw_input(r.at(node["layout"], path + ".layout"), "{}", e.message());
    }
  } else if (node["args"]) {
    const std::string text = r.text(node, "args", path, "the launch arguments");
    try {
      // parse_launch_args keeps every value of a list flag (--recompute-modules mlp moe_act),
      // as predict --args reads it; a run script's reading keeps one value per flag.
      const std::vector<args::LaunchArg> args =
          layout::training_args(args::parse_launch_args(text, r.file()));
      layout = layout::read_layout_args(args, layout::Engine::megatron, r.file()).layout;
    } catch (const Error& e) {
      throw_input(r.at(node["args"], path + ".args"), "{}", e.message());
    }
    if (node["layout"]) overlay_argless_knobs(r, node, path, layout);
  } else {
    throw_input(r.at(node, path + ".layout"),
                "missing; expected a layout spec or the launch arguments (args)");
  }
  const layout::LayoutContext context = m.context();
  const YAML::Node where = node["args"] ? node["args"] : node["layout"];
  const std::string where_path = path + (node["args"] ? ".args" : ".layout");
  try {
    m.layout = layout::resolve_layout(layout, context);
  } catch (const Error& e) {
    throw_input(r.at(where, where_path), "{}", e.message());
  }
  if (auto violation = layout::find_layout_violation(m.layout, m.model, context)) {
    throw_input(r.at(where, where_path), "{}", *violation);
  }
  m.costs = model_costs(m.model, m.workload.row_tokens);
  // The stack that ran: torchtitan prices its attention kernel, checkpointing and (without
  // torch.compile) its unfused elementwise work differently (time_model.cpp).
  if (source.engine.rfind("torchtitan", 0) == 0) m.workload.stack = Stack::torchtitan;
  if (!source.transformer_engine.empty()) {
    m.workload.te_module_host_ratio = *transformer_engine_host_ratio(source.transformer_engine);
  }
  if (const YAML::Node knobs = node["knobs"]) {
    if (!knobs.IsSequence())
      throw_input(r.at(knobs, path + ".knobs"), "expected a list of published settings");
    for (const auto& k : knobs) {
      if (k.Scalar() == "torch.compile" && m.workload.stack == Stack::torchtitan) {
        m.workload.compiled = true;  // modelled: no longer an unmodelled setting
        continue;
      }
      m.unmodelled.push_back(k.Scalar());
    }
  }
  m.measured_tokens_per_s_per_gpu =
      read_measured(r, r.required(node, "measured", path, "the figure as published (value, unit)"),
                    path + ".measured", m);
  if (const YAML::Node peak = node["peak_memory"]) {
    m.peak_memory_gib = read_peak_memory(r, peak, path + ".peak_memory", m.peak_memory_kind);
  }
  return m;
}

}  // namespace

std::vector<std::string> measurement_units() {
  return {"tokens/s/gpu", "tflops/s/gpu", "step_time_s", "gpu_hours_per_trillion_tokens"};
}

namespace {

// The FLOP conventions a published TFLOP/s figure may be stated in, each with where its formula
// is defined (flops_per_token below computes them).
struct FlopConventionRow {
  const char* name;
  const char* source;
};

constexpr FlopConventionRow kFlopConventions[] = {
    {"6n", "Kaplan et al. 2020 (arXiv 2001.08361) sec. 2.1: C = 6N per token"},
    {"6n_plus_attention",
     "pytorch/torchtitan get_num_flop_per_token: 6N + 12 L H Q T (PaLM's appendix B)"},
    {"megatron_lm",
     "NVIDIA/Megatron-LM megatron/training/training.py num_floating_point_operations"},
    // F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) per iteration of B sequences of s tokens: the
    // GEMMs of a GPT model with a 4h MLP, the forward run twice (full activation recomputation),
    // and the logits; per token, divided by B s.
    {"narayanan_2021", "Narayanan et al. 2021 (arXiv 2104.04473) sec. 5.1, equation (3)"},
};

}  // namespace

std::vector<std::string> flop_conventions() {
  std::vector<std::string> out;
  for (const FlopConventionRow& row : kFlopConventions) out.emplace_back(row.name);
  return out;
}

namespace {

// Megatron-LM's num_floating_point_operations (megatron/training/training.py, transformer_flops,
// NVIDIA/Megatron-LM commit 9050d4c5fb13e8933afec149cbcd34a5c29c85e6) for one token of a BSHD
// row: every GEMM 3 times (forward, wgrad, dgrad) at 2 FLOPs per multiply-add; SwiGLU MLPs (3
// matrices; 2 without --swiglu, its gated_linear_multiplier); top-k routed and shared experts
// on MoE layers; QKV and output projections (MLA: its
// low-rank projections, their norms and the rope key); causal core attention (half of the
// row-length square, QK^T and PV); MTP layers counted as one more decoder layer of the last
// layer's MLP kind, plus their norms, eh projection and logits. The vocabulary is the config's
// (Megatron-LM pads it to --make-vocab-size-divisible-by x TP; not counted).
double megatron_lm_flops_per_token(const ModelCosts& c) {
  const double h = static_cast<double>(c.hidden);
  const double s = static_cast<double>(c.row_tokens);
  const double heads = static_cast<double>(c.heads);
  const double mtp = static_cast<double>(c.num_mtp_layers);
  double moe_layers = 0;
  for (const int kind : c.layer_kind) moe_layers += c.kinds[static_cast<size_t>(kind)].moe ? 1 : 0;
  double dense_layers = static_cast<double>(c.num_layers) - moe_layers;
  const bool last_moe =
      !c.layer_kind.empty() && c.kinds[static_cast<size_t>(c.layer_kind.back())].moe;
  (last_moe ? moe_layers : dense_layers) += mtp;
  const double layers = static_cast<double>(c.num_layers) + mtp;
  constexpr double k = 3.0 * 2.0;  // forward + wgrad + dgrad, 2 FLOPs per multiply-add
  const double mlp =
      k * h *
      ((c.gated_mlp ? 3.0 : 2.0) * static_cast<double>(c.ffn) * dense_layers +
       3.0 * static_cast<double>(c.moe_ffn) * static_cast<double>(c.top_k) * moe_layers +
       3.0 * static_cast<double>(c.shared_ffn) * moe_layers);
  double attention = 0;
  double core = 0;
  if (c.mla) {
    const double nope = static_cast<double>(c.qk_head_dim - c.rope_dim);
    const double rope = static_cast<double>(c.rope_dim);
    const double v = static_cast<double>(c.v_head_dim);
    const double q_lora = static_cast<double>(c.q_lora_rank);
    const double q_term =
        c.q_lora_rank > 0 ? q_lora * (h + heads * (nope + rope) + 1) : h * heads * (nope + rope);
    attention = k * (q_term + static_cast<double>(c.kv_lora_rank) * (h + heads * (nope + v) + 1) +
                     h * rope + heads * v * h);
    core = k * (heads * (nope + rope) / 2 + heads * v / 2);
  } else {
    const double q = heads * static_cast<double>(c.head_dim);
    const double kv = static_cast<double>(c.kv_heads * c.head_dim);
    attention = k * (h * (q + 2 * kv) + q * h);
    core = k * q;  // causal half of s^2, times QK^T and PV
  }
  const double mtp_extra = k * mtp * (3 * h + 2 * h * h);
  const double logits = k * h * static_cast<double>(c.vocab) * (mtp + 1);
  return mlp + attention * layers + mtp_extra + logits + s * core * layers;
}

}  // namespace

double flops_per_token(const ModelCosts& c, std::string_view convention) {
  const double six_n = 6.0 * c.n_params;
  if (convention == "6n") return six_n;
  if (convention == "megatron_lm") return megatron_lm_flops_per_token(c);
  if (convention == "narayanan_2021") {
    const double l = static_cast<double>(c.num_layers);
    const double h = static_cast<double>(c.hidden);
    const double s = static_cast<double>(c.row_tokens);
    const double v = static_cast<double>(c.vocab);
    return 96.0 * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h));
  }
  const double head = c.mla ? 0.5 * static_cast<double>(c.qk_head_dim + c.v_head_dim)
                            : static_cast<double>(c.head_dim);
  return six_n + 12.0 * static_cast<double>(c.num_layers) * static_cast<double>(c.heads) * head *
                     static_cast<double>(c.row_tokens);
}

MeasurementSet read_measurements(std::string_view yaml, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    throw_input(SourceLocation{file, e.mark.line + 1, e.mark.column + 1, ""}, "{}", e.msg);
  }
  const Reader r(file);
  if (!root.IsMap())
    throw_input(SourceLocation{file, 1, 1, ""}, "expected a map with source, system and runs");
  r.keys(root, "", {"source", "system", "runs"});
  MeasurementSet set;
  set.sources.push_back(read_source(r, root));
  const System system = read_system(r, root);
  const YAML::Node runs = r.required(root, "runs", "", "a list of measured runs");
  if (!runs.IsSequence() || runs.size() == 0)
    throw_input(r.at(runs, "runs"), "expected a non-empty list of runs");
  std::set<std::string> ids;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string path = fmt::format("runs[{}]", i);
    Measurement m = read_run(r, runs[i], path, set.sources.front(), system);
    if (!ids.insert(m.name).second)
      throw_input(r.at(runs[i]["id"], path + ".id"), "run id '{}' repeats", m.name);
    set.runs.push_back(std::move(m));
  }
  return set;
}

std::vector<std::string> outside_measured(const ModelCosts& costs, const Layout& layout,
                                          const Cluster& cluster, const Workload& workload,
                                          const MeasurementSet& set) {
  std::vector<std::string> out;
  if (set.runs.empty()) return {"no measured runs"};
  bool gpu = false;
  bool network = false;
  bool dispatcher = false;
  bool fp8 = false;
  int64_t low = set.runs.front().cluster.gpus;
  int64_t high = low;
  for (const Measurement& m : set.runs) {
    gpu = gpu || m.cluster.gpu.name == cluster.gpu.name;
    network = network || (hw::fabric_for(m.cluster.instance.fabric).name == hw::fabric_for(cluster.instance.fabric).name &&
                          m.cluster.instance.network_gbps == cluster.instance.network_gbps);
    dispatcher = dispatcher || (m.costs.experts > 0 && m.layout.ep * m.layout.etp > 1 &&
                                m.layout.dispatcher == layout.dispatcher);
    fp8 = fp8 || m.workload.precision == Precision::fp8;
    low = std::min(low, m.cluster.gpus);
    high = std::max(high, m.cluster.gpus);
  }
  if (!gpu) out.push_back(fmt::format("GPU {}", cluster.gpu.name));
  // The fabric across nodes matters only when the layout leaves a node.
  if (!network && cluster.gpus > cluster.gpus_per_node()) {
    out.push_back(fmt::format("a {:g} Gbit/s {} node network", cluster.instance.network_gbps,
                              cluster.instance.fabric.empty() ? "unnamed" : cluster.instance.fabric));
  }
  if (costs.experts > 0 && layout.ep * layout.etp > 1 && !dispatcher) {
    out.push_back(fmt::format("the {} dispatcher", to_string(layout.dispatcher)));
  }
  if (workload.precision == Precision::fp8 && !fp8) out.push_back("FP8");
  if (cluster.gpus > high)
    out.push_back(fmt::format("{} GPUs, above the {} measured", cluster.gpus, high));
  if (cluster.gpus < low)
    out.push_back(fmt::format("{} GPUs, below the {} measured", cluster.gpus, low));
  return out;
}

void merge_measurements(MeasurementSet& set, MeasurementSet more) {
  for (const MeasurementSource& s : more.sources) {
    for (const MeasurementSource& have : set.sources) {
      if (have.id == s.id)
        throw_input(SourceLocation{s.file, 1, 1, "source.id"}, "source id '{}' is also in {}", s.id,
                    have.file);
    }
  }
  for (const Measurement& m : more.runs) {
    for (const Measurement& have : set.runs) {
      if (have.name == m.name) {
        throw_input(
            SourceLocation{more.sources.empty() ? "" : more.sources.front().file, 1, 1, "runs"},
            "run id '{}' is also in the set", m.name);
      }
    }
  }
  for (MeasurementSource& s : more.sources) set.sources.push_back(std::move(s));
  for (Measurement& m : more.runs) set.runs.push_back(std::move(m));
}

MeasurementSet read_measurements_path(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec))
    return read_measurements(util::read_file(path), path);
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  MeasurementSet set;
  for (const std::string& f : files)
    merge_measurements(set, read_measurements(util::read_file(f), f));
  return set;
}

const MeasurementSet& embedded_measurements() {
  static const MeasurementSet set = [] {
    MeasurementSet out;
    for (const util::EmbeddedFile& f : util::embedded_under("data/measurements/")) {
      const std::string path(f.path);
      if (path.size() < 5 || path.substr(path.size() - 5) != ".yaml") continue;
      merge_measurements(out, read_measurements(f.bytes, path));
    }
    return out;
  }();
  return set;
}

}  // namespace ladle::plan
