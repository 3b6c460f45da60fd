#include "ladle/layout/job_args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <iterator>
#include <span>

#include "ladle/layout/knobs.hpp"
#include "ladle/layout/lora_targets.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::layout {

namespace {

using C = ArgClass;

int64_t layers(const ModelSpec& m) { return m.num_layers; }
int64_t mtp_layers(const ModelSpec& m) { return m.num_mtp_layers; }
int64_t hidden(const ModelSpec& m) { return m.hidden_size; }
int64_t heads(const ModelSpec& m) { return m.num_heads; }
int64_t kv_heads(const ModelSpec& m) { return m.num_kv_heads; }
int64_t ffn(const ModelSpec& m) { return m.intermediate_size; }
int64_t experts(const ModelSpec& m) { return m.num_experts; }
int64_t expert_ffn(const ModelSpec& m) { return m.moe_intermediate_size; }
int64_t top_k(const ModelSpec& m) { return m.experts_per_token; }
int64_t shared_ffn(const ModelSpec& m) { return m.shared_expert_intermediate_size; }
int64_t kv_lora(const ModelSpec& m) { return m.kv_lora_rank; }
int64_t q_lora(const ModelSpec& m) { return m.q_lora_rank; }
int64_t qk_nope(const ModelSpec& m) { return m.qk_nope_head_dim; }
int64_t qk_rope(const ModelSpec& m) { return m.qk_rope_head_dim; }
int64_t v_head(const ModelSpec& m) { return m.v_head_dim; }

// Megatron-LM's architecture arguments (megatron/training/arguments.py, _add_network_size_args
// and the MoE/MLA groups), the workload arguments, and switches whose fast path the models assume.
constexpr KnownArg kKnownArgs[] = {
    {"--num-layers", C::model, layers, "decoder layers"},
    {"--mtp-num-layers", C::model, mtp_layers, "MTP layers"},
    {"--hidden-size", C::model, hidden, "hidden size"},
    {"--num-attention-heads", C::model, heads, "attention heads"},
    {"--num-query-groups", C::model, kv_heads, "key/value heads"},
    {"--ffn-hidden-size", C::model, ffn, "dense MLP width"},
    {"--num-experts", C::model, experts, "routed experts"},
    {"--moe-ffn-hidden-size", C::model, expert_ffn, "expert width"},
    {"--moe-router-topk", C::model, top_k, "experts per token"},
    {"--moe-shared-expert-intermediate-size", C::model, shared_ffn, "shared expert width"},
    {"--kv-lora-rank", C::model, kv_lora, "kv LoRA rank"},
    {"--q-lora-rank", C::model, q_lora, "q LoRA rank"},
    {"--qk-head-dim", C::model, qk_nope, "qk head dim"},
    {"--qk-pos-emb-head-dim", C::model, qk_rope, "qk RoPE head dim"},
    {"--v-head-dim", C::model, v_head, "v head dim"},
    {"--kv-channels", C::model},
    {"--max-position-embeddings", C::model},
    {"--position-embedding-type", C::model},
    {"--rotary-base", C::model},
    {"--rotary-percent", C::model},
    {"--rotary-scaling-factor", C::model},
    {"--rotary-seq-len-interpolation-factor", C::model},
    {"--rope-type", C::model},
    {"--mscale", C::model},
    {"--mscale-all-dim", C::model},
    {"--beta-fast", C::model},
    {"--beta-slow", C::model},
    {"--original-max-position-embeddings", C::model},
    {"--normalization", C::model},
    {"--norm-epsilon", C::model},
    {"--swiglu", C::model},
    {"--untie-embeddings-and-output-weights", C::model},
    {"--disable-bias-linear", C::model},
    {"--add-qkv-bias", C::model},
    {"--qk-layernorm", C::model},
    {"--group-query-attention", C::model},
    {"--multi-latent-attention", C::model},
    {"--vocab-size", C::model},
    {"--make-vocab-size-divisible-by", C::model},
    {"--moe-layer-freq", C::model},
    {"--moe-router-score-function", C::model},
    {"--moe-router-topk-scaling-factor", C::model},
    {"--moe-router-enable-expert-bias", C::model},
    {"--moe-router-pre-softmax", C::model},
    {"--moe-router-num-groups", C::model},
    {"--moe-router-group-topk", C::model},
    {"--moe-router-load-balancing-type", C::model},
    {"--moe-aux-loss-coeff", C::model},
    {"--moe-router-bias-update-rate", C::model},
    {"--moe-shared-expert-gate", C::model},
    {"--mtp-loss-scaling-factor", C::model},
    {"--window-size", C::model},
    {"--window-attn-skip-freq", C::model},
    {"--softmax-type", C::model},
    {"--quick-geglu", C::model},
    {"--glu-linear-offset", C::model},
    {"--activation-func-clamp-value", C::model},
    {"--add-bias-linear", C::model},
    {"--seq-length", C::workload},
    {"--global-batch-size", C::workload},
    {"--bf16", C::workload},
    {"--use-mcore-models", C::priced},
    {"--transformer-impl", C::priced},
    {"--attention-backend", C::priced},
    {"--use-flash-attn", C::priced},
    {"--moe-grouped-gemm", C::priced},
    {"--apply-rope-fusion", C::priced},
    {"--manual-gc", C::priced},
    {"--manual-gc-interval", C::priced},
    {"--attention-softmax-in-fp32", C::priced},
    // Routing pads each expert's tokens to the FP8 / MXFP8 GEMM alignment, which the FP8 rates
    // assume.
    {"--moe-router-padding-for-fp8", C::priced},
    {"--moe-router-padding-for-quantization", C::priced},
};

const KnownArg* find_known(std::string_view flag) {
  for (const KnownArg& k : kKnownArgs) {
    if (k.flag == flag) return &k;
  }
  return nullptr;
}

// Arguments only slime and miles take: their presence means the job runs under one of them.
constexpr std::string_view kSlimeOnly[] = {"--use-dynamic-batch-size", "--max-tokens-per-gpu",
                                           "--actor-num-nodes",        "--actor-num-gpus-per-node",
                                           "--rollout-batch-size",     "--hf-checkpoint"};

// The first of `args` that only slime and miles take, or nullptr.
const args::LaunchArg* first_slime_only(std::span<const args::LaunchArg> args) {
  for (const args::LaunchArg& arg : args) {
    if (std::find(std::begin(kSlimeOnly), std::end(kSlimeOnly), arg.flag) != std::end(kSlimeOnly)) return &arg;
  }
  return nullptr;
}

// The argument as the script wrote it: a Megatron-Bridge override's key, else the flag.
const std::string& written(const args::LaunchArg& arg) { return arg.spelled.empty() ? arg.flag : arg.spelled; }

int64_t positive(const args::LaunchArg& arg, const std::string& file) {
  int64_t value = 0;
  const std::string text = arg.values.empty() ? std::string() : arg.values.front();
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value < 1) {
    throw_input(SourceLocation{file, arg.line, arg.col, written(arg)}, "expected a positive integer, got '{}'", text);
  }
  return value;
}

// A workload figure given once, or several times alike (--seq-length and its Bridge overrides):
// two different values are one error naming both.
void set_once(std::optional<int64_t>& slot, args::LaunchArg& by, const args::LaunchArg& arg,
              const std::string& file) {
  const int64_t value = positive(arg, file);
  if (slot && *slot != value) {
    throw_input(SourceLocation{file, arg.line, arg.col, written(arg)}, "contradicts {} (line {}): {} against {}",
                written(by), by.line, value, *slot);
  }
  slot = value;
  by = arg;
}

}  // namespace

std::span<const KnownArg> known_args() { return kKnownArgs; }

JobArgs read_job_args(const args::LaunchArgs& script, std::optional<Engine> engine,
                      const std::string& file) {
  JobArgs job;
  job.file = file;
  const std::vector<args::LaunchArg> args = training_args(script);
  const args::LaunchArg* slime_only = first_slime_only(args);
  if (engine) {
    job.engine = *engine;
  } else {
    job.engine = guess_engine(script);
    if (job.engine == Engine::slime) {
      // A bare argument line or a script with no slime-only argument is Megatron-LM.
      bool slime = false;
      for (const std::string& command : script.commands)
        slime = slime || command.find(".py") != std::string::npos;
      if (!slime && slime_only == nullptr) job.engine = Engine::megatron;
    }
  }
  if (slime_only != nullptr && (job.engine == Engine::megatron || job.engine == Engine::bridge)) {
    // Megatron-LM's argparse parser and run_recipe.py's refuse slime's and miles' own arguments:
    // a job of theirs holding one would not start.
    throw_input(SourceLocation{file, slime_only->line, slime_only->col, written(*slime_only)},
                "a slime and miles argument, which a {} job does not take", to_string(job.engine));
  }
  // An override that sets nothing (model.x=null) is refused as one that sets a knob is.
  for (const args::LaunchArg& word : script.unset_overrides) require_bridge_engine(word, job.engine, file);
  job.layout = read_layout_args(args, job.engine, file);
  for (const Knob* knob : job.layout.set) {
    if (knob->key == "rows_per_mb") job.rows_per_mb_given = true;
    if (knob->key == "fp8") job.fp8 = job.layout.layout.fp8 != Fp8Format::none;
    if (knob->key == "fp16") job.fp16 = job.layout.layout.fp16;
  }
  std::vector<args::LaunchArg> rest;
  args::LaunchArg seq_by;  // the argument that set each, for the error naming both
  args::LaunchArg batch_by;
  for (const args::LaunchArg& arg_in : job.layout.rest) {
    args::LaunchArg arg = arg_in;
    // A Megatron-Bridge model override is the architecture argument of the same name: Megatron-LM
    // fills TransformerConfig from the arguments whose names are its fields
    // (megatron/training/arguments.py, core_transformer_config_from_args).
    if (arg.spelled.empty() && arg.flag.rfind("model.", 0) == 0) {
      std::string flag = "--" + arg.flag.substr(6);
      for (char& c : flag) c = c == '_' ? '-' : c;
      if (const KnownArg* k = find_known(flag); k != nullptr && k->kind == ArgClass::model) {
        arg.spelled = arg.flag;
        arg.flag = flag;
      }
    }
    const KnownArg* known = find_known(arg.flag);
    if (known != nullptr && known->kind == ArgClass::model) {
      job.model_args.push_back(arg);
      continue;
    }
    if (arg.flag == "--seq-length") {
      set_once(job.seq_length, seq_by, arg, file);
      continue;
    }
    if (arg.flag == "--global-batch-size") {
      set_once(job.global_batch, batch_by, arg, file);
      continue;
    }
    if (read_rl_arg(job.rl_args, arg, file)) continue;  // the RL workload (rl_workload.hpp)
    if (known != nullptr) continue;
    const std::string& name = written(arg);
    if (std::find(job.not_priced.begin(), job.not_priced.end(), name) == job.not_priced.end()) {
      job.not_priced.push_back(name);
    }
    rest.push_back(arg);
  }
  // A LoRA target no module answers to (lora_targets.hpp) is refused where it is written.
  if (const std::optional<std::string> unknown = unknown_lora_target(job.layout.layout.lora_targets)) {
    for (const args::LaunchArg& arg : args) {
      if (arg.flag != "--target-modules") continue;
      throw_input(SourceLocation{file, arg.line, arg.col, written(arg)}, "unknown LoRA target module '{}'; expected: {}",
                  *unknown, util::join(lora_target_names(), ", "));
    }
  }
  // An RL job's rows per step and row length come from its rollout arguments (rl_workload.hpp).
  job.rl = rl_workload(job.rl_args, job.global_batch, file);
  if (job.rl && !job.global_batch && job.rl->rows_per_step > 0) job.global_batch = job.rl->rows_per_step;
  if (job.rl && !job.seq_length && job.rl->row_tokens > 0) job.seq_length = job.rl->row_tokens;
  return job;
}

Layout job_layout(const JobArgs& job, int64_t row_tokens, const ModelSpec& model) {
  Layout l = job.layout.layout;
  const bool etp_given = std::any_of(job.layout.set.begin(), job.layout.set.end(),
                                     [](const Knob* k) { return k->key == "etp"; });
  if (model.num_experts == 0 && !etp_given) l.etp = 1;
  // Megatron-LM and Megatron-Bridge have no dynamic batching: a microbatch is rows_per_mb whole rows
  // (resolve_layout derives max_tokens from them).
  if (job.engine == Engine::megatron || job.engine == Engine::bridge) l.max_tokens = 0;
  if (!job.rows_per_mb_given && l.max_tokens > 0 && row_tokens > 0) {
    l.rows_per_mb = std::max<int64_t>(1, l.max_tokens * l.cp / row_tokens);
  }
  return l;
}

void check_model_args(const JobArgs& job, const ModelSpec& model) {
  for (const args::LaunchArg& arg : job.model_args) {
    const KnownArg* known = find_known(arg.flag);
    if (known == nullptr || known->model_value == nullptr || arg.values.empty()) continue;
    const int64_t expected = known->model_value(model);
    int64_t value = 0;
    const std::string& text = arg.values.front();
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
      throw_input(SourceLocation{job.file, arg.line, arg.col, written(arg)}, "expected an integer, got '{}'",
                  text);
    }
    if (value != expected) {
      throw_input(SourceLocation{job.file, arg.line, arg.col, written(arg)},
                  "{} {} contradicts --model {}, which has {} {}", written(arg), value, model.name,
                  expected, known->what);
    }
  }
}

}  // namespace ladle::layout
