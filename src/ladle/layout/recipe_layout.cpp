#include "ladle/layout/recipe_layout.hpp"

#include <fmt/format.h>

#include <charconv>

#include "ladle/layout/layout_spec.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/text.hpp"

namespace ladle::layout {

namespace {

std::string format_fraction(double value) {
  std::string text = fmt::format("{:.3f}", value);
  while (text.size() > 3 && text.back() == '0' && text[text.size() - 2] != '.') text.pop_back();
  return text;
}

int64_t arg_int(const recipe::RunScript& script, std::string_view flag, int64_t fallback) {
  const recipe::RunArg* arg = script.find(flag);
  if (arg == nullptr || !arg->value) return fallback;
  int64_t value = 0;
  const std::string& text = *arg->value;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    throw_input(SourceLocation{"run", arg->line, 0, std::string(flag)}, "expected an integer, got '{}'", text);
  }
  return value;
}

std::string rows_phrase(int64_t rows, int64_t row_tokens) {
  static const char* const kWords[] = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight"};
  const std::string count = rows < 9 ? kWords[rows] : std::to_string(rows);
  return fmt::format("{} {}-token row{} per microbatch", count, util::format_grouped(static_cast<long long>(row_tokens)),
                     rows == 1 ? "" : "s");
}

}  // namespace

const char* to_string(Engine engine) {
  switch (engine) {
    case Engine::slime: return "slime";
    case Engine::miles: return "miles";
    case Engine::megatron: return "megatron";
    case Engine::bridge: return "bridge";
  }
  return "slime";
}

Engine parse_engine(std::string_view name) {
  for (Engine engine : {Engine::slime, Engine::miles, Engine::megatron, Engine::bridge}) {
    if (name == to_string(engine)) return engine;
  }
  const std::vector<std::string> names = {"slime", "miles", "megatron", "bridge"};
  throw_usage("unknown engine '{}'{}; expected one of: slime, miles, megatron, bridge", name,
              util::did_you_mean(name, names));
}

Layout from_recipe_layout(const RecipeLayout& block) {
  Layout l;
  l.tp = block.tp;
  l.pp = block.pp;
  l.vpp = block.vpp;
  l.cp = block.cp;
  l.ep = block.ep;
  l.etp = block.etp;
  l.dp = block.dp;
  l.sp = block.sequence_parallel;
  if (block.layer_split) {
    l.first = block.layer_split->first;
    l.last = block.layer_split->last;
  }
  l.max_tokens = block.max_tokens_per_gpu;
  l.rows_per_mb = block.rows_per_microbatch;
  if (block.recompute) {
    l.recompute = parse_recompute_granularity(block.recompute->granularity);
    if (block.recompute->method) l.recompute_method = parse_recompute_method(*block.recompute->method);
    if (block.recompute->num_layers) l.recompute_layers = *block.recompute->num_layers;
  }
  if (block.offload) {
    l.offload = block.offload->optimizer_fraction;
    l.overlap = block.offload->overlap_d2h_h2d;
    l.precision_aware = l.offload > 0;
  }
  if (!block.dispatcher.empty()) l.dispatcher = parse_moe_dispatcher(block.dispatcher);
  return l;
}

RecipeLayout to_recipe_layout(const Layout& l, int64_t row_tokens) {
  RecipeLayout block;
  block.label = layout_label(l);
  block.tp = l.tp;
  block.pp = l.pp;
  block.vpp = l.vpp;
  block.cp = l.cp;
  block.ep = l.ep;
  block.etp = l.etp;
  block.dp = l.dp;
  block.sequence_parallel = l.sp;
  if (l.first > 0 || l.last > 0) block.layer_split = LayerSplit{l.first, l.last};
  block.max_tokens_per_gpu = l.max_tokens;
  block.rows_per_microbatch = l.rows_per_mb;
  Recompute recompute;
  recompute.granularity = to_string(l.recompute);
  if (l.recompute == RecomputeGranularity::full) {
    recompute.method = std::string(to_string(l.recompute_method));
    recompute.num_layers = l.recompute_layers;
  }
  // The schema writes no recompute as null, not as a granularity.
  if (l.recompute != RecomputeGranularity::none) block.recompute = recompute;
  if (l.offload > 0) block.offload = Offload{l.offload, l.overlap};
  block.dispatcher = to_string(l.dispatcher);

  std::string pp = fmt::format("PP {}", l.pp);
  if (l.first > 0 || l.last > 0) {
    pp += fmt::format(" (first stage {} layers, last {})", l.first, l.last);
  }
  if (l.vpp > 1) pp += fmt::format(", VPP {}", l.vpp);
  std::string summary = fmt::format("TP {}, {}, CP {}, EP {}, ETP {}, DP {}", l.tp, pp, l.cp, l.ep, l.etp, l.dp);
  if (l.sp) summary += ", sequence parallel";
  summary += "; " + rows_phrase(l.rows_per_mb, row_tokens);
  std::string recompute_text = "no recompute";
  if (l.recompute == RecomputeGranularity::selective) recompute_text = "selective recompute";
  if (l.recompute == RecomputeGranularity::full) {
    recompute_text = fmt::format("full recompute ({}, {} layer{})", to_string(l.recompute_method),
                                 l.recompute_layers, l.recompute_layers == 1 ? "" : "s");
  }
  summary += "; " + recompute_text;
  if (l.offload > 0) {
    summary += fmt::format("; CPU optimizer offload{}{}{}", l.offload < 1 ? fmt::format(" of {}", format_fraction(l.offload)) : "",
                           l.overlap ? " with overlapped copies" : "",
                           l.precision_aware ? " and the precision-aware optimizer" : "");
  } else {
    summary += l.precision_aware ? "; distributed optimizer with the precision-aware optimizer"
                                 : "; distributed optimizer";
  }
  summary += fmt::format("; {} dispatcher", to_string(l.dispatcher));
  if (l.offload == 0) summary += "; no offload";
  block.summary = summary;
  block.highlights = fmt::format("max {} tokens/GPU, {}{}", util::format_grouped(static_cast<long long>(l.max_tokens)),
                                 recompute_text, l.offload > 0 ? ", CPU optimizer offload" : ", no offload");
  return block;
}

std::vector<EngineArg> layout_engine_args(const Layout& l, Engine engine, int64_t row_tokens) {
  std::vector<EngineArg> args;
  auto add = [&args](std::string flag, std::optional<std::string> value = std::nullopt) {
    args.push_back(EngineArg{std::move(flag), std::move(value)});
  };
  add("--tensor-model-parallel-size", std::to_string(l.tp));
  if (l.sp) add("--sequence-parallel");
  add("--pipeline-model-parallel-size", std::to_string(l.pp));
  if (l.vpp > 1) add("--num-virtual-stages-per-pipeline-rank", std::to_string(l.vpp));
  if (l.first > 0) add("--decoder-first-pipeline-num-layers", std::to_string(l.first));
  if (l.last > 0) add("--decoder-last-pipeline-num-layers", std::to_string(l.last));
  add("--context-parallel-size", std::to_string(l.cp));
  add("--expert-model-parallel-size", std::to_string(l.ep));
  add("--expert-tensor-parallel-size", std::to_string(l.etp));
  if (l.recompute != RecomputeGranularity::none) add("--recompute-granularity", to_string(l.recompute));
  if (l.recompute == RecomputeGranularity::full) {
    add("--recompute-method", to_string(l.recompute_method));
    add("--recompute-num-layers", std::to_string(l.recompute_layers));
  }
  if (engine == Engine::megatron || engine == Engine::bridge) {
    add("--micro-batch-size", std::to_string(l.rows_per_mb));
    add("--seq-length", std::to_string(row_tokens));
  } else {
    add("--use-dynamic-batch-size");
    add("--max-tokens-per-gpu", std::to_string(l.max_tokens));
  }
  if (l.offload > 0) {
    add("--optimizer-cpu-offload");
    if (l.offload < 1) add("--optimizer-offload-fraction", format_fraction(l.offload));
    if (l.overlap) add("--overlap-cpu-optimizer-d2h-h2d");
  }
  if (l.precision_aware) add("--use-precision-aware-optimizer");
  if (l.moments == StateDtype::bf16) {
    add("--exp-avg-dtype", "bf16");
    add("--exp-avg-sq-dtype", "bf16");
  }
  add("--moe-token-dispatcher-type", to_string(l.dispatcher));
  if (l.dispatcher == MoeDispatcher::flex) add("--moe-enable-deepep");
  return args;
}

Layout layout_from_run_args(const recipe::RunScript& s) {
  Layout l;
  l.dp = 0;
  l.tp = arg_int(s, "--tensor-model-parallel-size", 1);
  l.sp = s.has("--sequence-parallel");
  l.pp = arg_int(s, "--pipeline-model-parallel-size", 1);
  l.vpp = arg_int(s, "--num-virtual-stages-per-pipeline-rank", 1);
  l.first = arg_int(s, "--decoder-first-pipeline-num-layers", 0);
  l.last = arg_int(s, "--decoder-last-pipeline-num-layers", 0);
  l.cp = arg_int(s, "--context-parallel-size", 1);
  l.ep = arg_int(s, "--expert-model-parallel-size", 1);
  l.etp = arg_int(s, "--expert-tensor-parallel-size", l.tp);  // Megatron-LM's default is tp
  if (const recipe::RunArg* a = s.find("--recompute-granularity"); a && a->value) {
    l.recompute = parse_recompute_granularity(*a->value);
  }
  if (const recipe::RunArg* a = s.find("--recompute-method"); a && a->value) {
    l.recompute_method = parse_recompute_method(*a->value);
  }
  l.recompute_layers = arg_int(s, "--recompute-num-layers", 1);
  l.max_tokens = arg_int(s, "--max-tokens-per-gpu", 0);
  if (s.has("--micro-batch-size")) l.rows_per_mb = arg_int(s, "--micro-batch-size", 1);
  if (s.has("--optimizer-cpu-offload")) {
    l.offload = 1.0;
    if (const recipe::RunArg* a = s.find("--optimizer-offload-fraction"); a && a->value) {
      l.offload = std::strtod(a->value->c_str(), nullptr);
    }
  }
  l.overlap = s.has("--overlap-cpu-optimizer-d2h-h2d");
  l.precision_aware = s.has("--use-precision-aware-optimizer");
  if (const recipe::RunArg* a = s.find("--exp-avg-dtype"); a && a->value && *a->value == "bf16") {
    l.moments = StateDtype::bf16;
  }
  if (const recipe::RunArg* a = s.find("--moe-token-dispatcher-type"); a && a->value) {
    l.dispatcher = parse_moe_dispatcher(*a->value);
  } else if (!s.has_opaque_args) {
    l.dispatcher = MoeDispatcher::allgather;  // Megatron-LM's default
  }
  return l;
}

Layout layout_from_recipe(const Recipe& recipe) {
  Layout l = from_recipe_layout(recipe.layout);
  const recipe::RunScript script = recipe::parse_run_script(recipe.run);
  l.precision_aware = script.has("--use-precision-aware-optimizer");
  if (const recipe::RunArg* a = script.find("--exp-avg-dtype"); a && a->value && *a->value == "bf16") {
    l.moments = StateDtype::bf16;
  }
  return l;
}

}  // namespace ladle::layout
