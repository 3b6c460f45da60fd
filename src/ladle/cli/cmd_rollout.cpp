// cmd_rollout.cpp: `ladle rollout`, the rollout model of SGLang engines (docs/rollout.md): one
// engine's serving throughput at a concurrency, one RL rollout's time on a number of engines, or
// (--calibrate) the fit of the model's constants on data/inference/serving.yaml.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "ladle/cli/commands.hpp"
#include "ladle/cli/exit_code.hpp"
#include "ladle/hw/catalog.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/rl/rollout.hpp"
#include "ladle/rl/rollout_json.hpp"
#include "ladle/rl/serving_data.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/table.hpp"

namespace ladle::cli {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

struct RolloutOptions {
  std::string model;
  std::string gpu;
  rl::EngineLayout engine;
  int64_t concurrency = 0;
  int64_t input_len = -1;
  int64_t output_len = 0;
  int engines = 1;
  rl::RolloutWorkload work;
  bool calibrate = false;
  std::string out;
  bool json = false;
};

std::string layout_text(const rl::EngineLayout& e) {
  return fmt::format("tp {}, dp attention {}, ep {}, mem fraction {:g}, weights {}-bit, KV {}-bit", e.tp,
                     e.dp_attention, e.ep, e.mem_fraction, e.weight_bits, e.kv_bits);
}

void write_memory(std::ostream& out, const rl::RolloutMemory& m) {
  out << fmt::format("memory per GPU: weights {:.1f} GiB, KV pool {:.1f} GiB ({:.0f} tokens per engine), "
                     "outside the memory fraction {:.1f} GiB\n",
                     m.weights_bytes / kGiB, m.kv_bytes / kGiB, m.kv_tokens, m.other_bytes / kGiB);
}

void write_constants(std::ostream& out, const rl::ServingConstants& c) {
  out << fmt::format("constants: hbm_fraction {:.4g}, step_overhead {:.3g} ms, layer_overhead {:.3g} us, interval "
                     "log ratio {:+.3f} to {:+.3f} ({})\n",
                     c.hbm_fraction, c.step_overhead_s * 1e3, c.layer_overhead_s * 1e6, c.log_lo, c.log_hi, c.source);
}

void run_calibrate(const RolloutOptions& o, Io& io) {
  const rl::ServingFit fit = rl::fit_serving(rl::serving_measurements());
  if (!o.out.empty()) {
    std::ofstream f(o.out);
    if (!f) throw Error(ErrorKind::io, fmt::format("--out: cannot write '{}'", o.out));
    f << rl::fit_yaml(fit);
  }
  if (o.json) {
    io.out << rl::to_json(fit).dump(2) << "\n";
  } else {
    util::Table t;
    t.header = {"row", "measured", "fitted", "held out", "error", "80% interval"};
    for (const rl::ServingFitRow& r : fit.rows)
      t.rows.push_back({r.row->id, fmt::format("{:.1f}", r.row->measured), fmt::format("{:.1f}", r.fitted),
                 fmt::format("{:.1f}", r.held_out), fmt::format("{:+.1f}%", 100.0 * (r.held_out / r.row->measured - 1.0)),
                 fmt::format("{:.1f}-{:.1f}", r.lo, r.hi)});
    io.out << "output tokens/s per engine; held out: fitted without the row's source\n";
    io.out << t.render();
    io.out << fmt::format("hbm_fraction {:.4g} (leave-one-source-out {:.4g} to {:.4g}), step_overhead {:.3g} ms "
                          "({:.3g} to {:.3g}), layer_overhead {:.3g} us ({:.3g} to {:.3g})\n",
                          fit.constants.hbm_fraction, fit.hbm_fraction_lo, fit.hbm_fraction_hi,
                          fit.constants.step_overhead_s * 1e3, fit.step_overhead_lo * 1e3, fit.step_overhead_hi * 1e3,
                          fit.constants.layer_overhead_s * 1e6, fit.layer_overhead_lo * 1e6,
                          fit.layer_overhead_hi * 1e6);
    io.out << fmt::format("80% interval: measured / predicted from {:.3f} to {:.3f} (held-out residuals)\n",
                          std::exp(fit.constants.log_lo), std::exp(fit.constants.log_hi));
    io.out << fmt::format("median |error|: {:.1f}% fitted, {:.1f}% leave-one-source-out ({} rows, {} sources)\n",
                          100.0 * fit.median_abs_error_fitted, 100.0 * fit.median_abs_error_held_out, fit.rows.size(),
                          fit.sources.size());
  }
  io.exit_code = kExitOk;
}

void run_rollout(RolloutOptions o, Io& io) {
  if (o.calibrate) {
    run_calibrate(o, io);
    return;
  }
  if (o.model.empty()) throw_usage("MODEL: expected a catalog model name or a config.json path");
  if (o.gpu.empty()) throw_usage("--gpu: expected a GPU name (h200, h100, b200, ...)");
  const ModelSpec model = model::load_model(o.model);
  const GpuSpec gpu = hw::require_gpu(o.gpu);
  o.engine.gpus = o.engine.tp;
  const rl::ServingConstants& k = rl::serving_constants();
  nlohmann::ordered_json j;
  j["model"] = model.name;
  j["gpu"] = gpu.name;
  j["engine"] = rl::to_json(o.engine);
  if (o.work.prompts > 0) {
    if (o.work.response_max == 0) o.work.response_max = o.work.response_mean;
    const rl::RolloutEstimate r = rl::estimate_rollout(model, gpu, o.engine, o.engines, o.work, k);
    if (o.json) {
      j["engines"] = o.engines;
      j["workload"] = rl::to_json(o.work);
      j.update(rl::to_json(r));
      j["constants_source"] = k.source;
      io.out << j.dump(2) << "\n";
    } else {
      io.out << fmt::format("rollout: {} on {} engine(s) of {} x {} ({})\n", model.name, o.engines, o.engine.gpus,
                            gpu.name, layout_text(o.engine));
      io.out << fmt::format("workload: {} prompts x {} samples, prompt {} tokens, response mean {} / max {}\n",
                            o.work.prompts, o.work.samples_per_prompt, o.work.prompt_tokens, o.work.response_mean,
                            o.work.response_max);
      write_memory(io.out, r.memory);
      io.out << fmt::format("rollout time: {:.1f} s (80% interval {:.1f} to {:.1f}): prefill {:.1f} s, decode {:.1f} s\n",
                            r.seconds, r.seconds_lo, r.seconds_hi, r.prefill_seconds, r.decode_seconds);
      io.out << fmt::format("generated tokens/s, all engines: {:.0f}; sequences decoded at once per engine: {}; "
                            "bound: {}\n",
                            r.output_tokens_per_s, r.concurrency, r.bound);
      write_constants(io.out, k);
    }
  } else {
    if (o.concurrency < 1 || o.input_len < 0 || o.output_len < 1)
      throw_usage("--concurrency, --input-len and --output-len: expected a serving point (or --prompts for a rollout)");
    const rl::ServingPoint p{o.concurrency, o.input_len, o.output_len};
    const rl::ServingEstimate s = rl::estimate_serving(model, gpu, o.engine, p, k);
    const rl::RolloutMemory mem = rl::engine_memory(model, gpu, o.engine);
    if (o.json) {
      j.update(rl::to_json(p));
      j.update(rl::to_json(s));
      j["output_tokens_per_s_per_gpu"] = s.output_tokens_per_s / o.engine.gpus;
      j["memory_per_gpu"] = rl::to_json(mem);
      j["constants_source"] = k.source;
      io.out << j.dump(2) << "\n";
    } else {
      io.out << fmt::format("serving: {} on {} x {} ({})\n", model.name, o.engine.gpus, gpu.name, layout_text(o.engine));
      io.out << fmt::format("point: concurrency {}, input {} tokens, output {} tokens\n", p.concurrency,
                            p.input_tokens, p.output_tokens);
      write_memory(io.out, mem);
      io.out << fmt::format("output tokens/s per engine: {:.1f} (80% interval {:.1f} to {:.1f}); per GPU {:.1f}\n",
                            s.output_tokens_per_s, s.lo, s.hi, s.output_tokens_per_s / o.engine.gpus);
      write_constants(io.out, k);
    }
  }
  io.exit_code = kExitOk;
}

}  // namespace

void add_rollout_command(CLI::App& command, Io& io) {
  auto o = std::make_shared<RolloutOptions>();
  command.add_option("model", o->model, "a catalog model name or a config.json path");
  command.add_option("--gpu", o->gpu, "GPU of the engines (h200, h100, b200, ...)");
  command.add_option("--tp", o->engine.tp, "SGLang --tp-size: GPUs per engine")->check(integer_in(1, 1024));
  command.add_option("--dp-attention", o->engine.dp_attention, "data-parallel attention groups (1: off)")
      ->check(integer_in(1, 1024));
  command.add_option("--ep", o->engine.ep, "expert parallel size")->check(integer_in(1, 1024));
  command.add_option("--mem-fraction", o->engine.mem_fraction, "SGLang --mem-fraction-static (default 0.8)");
  command.add_option("--weight-bits", o->engine.weight_bits, "16 (BF16) or 8 (FP8 weights)");
  command.add_option("--kv-bits", o->engine.kv_bits, "16 (BF16) or 8 (FP8 KV cache)");
  command.add_option("--concurrency", o->concurrency, "serving: requests in flight per engine")
      ->check(integer_in(1, 10'000'000));
  command.add_option("--input-len", o->input_len, "serving: prompt tokens per request")->check(integer_in(0, 10'000'000));
  command.add_option("--output-len", o->output_len, "serving: output tokens per request")
      ->check(integer_in(1, 10'000'000));
  command.add_option("--engines", o->engines, "rollout: engines generating it (default 1)")->check(integer_in(1, 100'000));
  command.add_option("--prompts", o->work.prompts, "rollout: prompts per rollout (--rollout-batch-size)")
      ->check(integer_in(1, 100'000'000));
  command.add_option("--samples", o->work.samples_per_prompt, "rollout: samples per prompt (default 1)")
      ->check(integer_in(1, 100'000));
  command.add_option("--prompt-len", o->work.prompt_tokens, "rollout: mean prompt tokens")
      ->check(integer_in(0, 10'000'000));
  command.add_option("--response-mean", o->work.response_mean, "rollout: mean response tokens")
      ->check(integer_in(1, 10'000'000));
  command.add_option("--response-max", o->work.response_max,
                     "rollout: longest response (--rollout-max-response-len; default the mean)")
      ->check(integer_in(1, 10'000'000));
  command.add_flag("--calibrate", o->calibrate,
                   "fit the constants on data/inference/serving.yaml and print each row's error");
  command.add_option("--out", o->out, "with --calibrate: write the fit (data/inference/fit.yaml format) here");
  add_json_flag(command, o->json);
  command.callback([o, &io] { run_rollout(*o, io); });
}

}  // namespace ladle::cli
