#include "ladle/numerics/adam_check_io.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "ladle/util/table.hpp"
#include "ladle/util/text.hpp"

namespace ladle::numerics {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string sci(double x) { return fmt::format("{:.2e}", x); }
std::string percent(double fraction) { return fmt::format("{:.4f}%", 100.0 * fraction); }
std::string grouped(uint64_t n) { return util::format_grouped(static_cast<long long>(n)); }

const PathReport* find_path(const AdamCheckReport& report, AdamPath path) {
  for (const PathReport& p : report.paths) {
    if (p.path == path) return &p;
  }
  return nullptr;
}

std::string verdict(const PathReport& p) {
  if (is_control(p.path)) return p.passed ? "FAIL (control passed)" : "ok (control fails)";
  return p.passed ? "pass" : "FAIL";
}

std::string hyper_text(const AdamHyper& h) {
  return fmt::format("lr {}, betas {}/{}, eps {}, weight decay {}", h.lr, h.beta1, h.beta2, h.eps,
                     h.weight_decay);
}

std::string states_text(const AdamCheckOptions& o) {
  return fmt::format("main grads {}, exp_avg {}, exp_avg_sq {}", to_string(o.main_grads_dtype),
                     to_string(o.exp_avg_dtype), to_string(o.exp_avg_sq_dtype));
}

std::string self_test_text(const RemainderSelfTest& t) {
  return fmt::format(
      "{} FP32 patterns split and joined, {} round-trip and {} rounding failures ({} ties, {} "
      "rounded away from zero unlike ties-to-even); {} BF16 and {} FP16 conversion probes, {} "
      "failures",
      grouped(t.patterns), grouped(t.round_trip_failures), grouped(t.rounding_failures),
      grouped(t.ties), grouped(t.ties_unlike_rne), grouped(t.bf16_patterns), grouped(t.fp16_patterns),
      grouped(t.bf16_failures + t.fp16_failures));
}

}  // namespace

std::string render_adam_check_text(const AdamCheckReport& report) {
  const AdamCheckOptions& o = report.options;
  std::string out;
  out += "numerics adam: optimizer paths against an FP64 AdamW reference\n";
  out += fmt::format("shape: {}\n", report.shape_text);
  out += fmt::format("       {} tensors, {} elements; seed {}\n", report.tensors,
                     grouped(static_cast<uint64_t>(report.elements)), o.seed);
  out += fmt::format("hyper-parameters: {}\n", hyper_text(o.hyper));
  out += fmt::format("precision-aware states: {}; device {}\n\n", states_text(o), report.device_detail);

  util::Table table;
  table.header = {"path", "step", "rel L2 error", "bound", "worst tensor", "bf16 off", "result"};
  for (const PathReport& p : report.paths) {
    for (size_t i = 0; i < p.steps.size(); ++i) {
      const StepError& e = p.steps[i];
      const bool first = i == 0;
      table.rows.push_back({first ? to_string(p.path) : "", std::to_string(e.step), sci(e.rel_l2),
                            sci(e.bound), e.worst_tensor, first ? percent(p.bf16_mismatch) : "",
                            first ? verdict(p) : ""});
    }
  }
  out += table.render();
  out += fmt::format(
      "\nrel L2 error: worst tensor's ||update - reference update|| / ||reference update||, the "
      "update being the FP32 master (rebuilt for remainder paths) minus the initial weight; bound "
      "{:.1e} after one step, {} x the default path's error + {:.1e} after more; bf16 off: worst "
      "tensor's share of BF16 weights that differ from the BF16 rounding of the reference (bound "
      "{:.1e})\n\n",
      kBoundStepOne, kBoundFactor, kBoundStepOne, kBf16MismatchBound);

  out += fmt::format("rebuilt masters vs explicit FP32 masters: {} of {} differ bitwise -> {}\n",
                     grouped(report.bitwise_mismatches), grouped(report.bitwise_compared),
                     report.bitwise_mismatches == 0 ? "pass" : "FAIL");
  out += fmt::format("precision-aware BF16 weights off round-to-nearest-even of their master (TE's "
                     "ties go away from zero): {}\n",
                     grouped(report.remainder_ties));
  if (report.self_test_ran) {
    out += fmt::format("remainder self-test: {} -> {}\n", self_test_text(report.self_test),
                       report.self_test.passed() ? "pass" : "FAIL");
  } else {
    out += "remainder self-test: skipped\n";
  }

  out += "\nstate memory per rank for this shape, before distributed-optimizer sharding:\n";
  util::Table memory;
  memory.header = {"path", "GPU B/param", "host B/param", "GPU GiB", "host GiB"};
  for (const StateMemory& m : report.memory) {
    const double n = static_cast<double>(report.elements);
    memory.rows.push_back({m.path, fmt::format("{:.0f}", m.gpu_bytes_per_param),
                           fmt::format("{:.0f}", m.host_bytes_per_param),
                           fmt::format("{:.2f}", m.gpu_bytes_per_param * n / kGiB),
                           fmt::format("{:.2f}", m.host_bytes_per_param * n / kGiB)});
  }
  out += memory.render();

  int controls = 0;
  for (const PathReport& p : report.paths) controls += is_control(p.path) ? 1 : 0;
  out += fmt::format("\nresult: {} ({}; {})\n", report.passed ? "pass" : "FAIL",
                     report.checks_passed ? "every check passes" : "a check fails",
                     report.controls_failed ? fmt::format("all {} negative controls fail", controls)
                                            : "a negative control passes");
  return out;
}

std::string render_adam_check_json(const AdamCheckReport& report) {
  using Json = nlohmann::ordered_json;
  const AdamCheckOptions& o = report.options;
  Json j;
  j["result"] = report.passed ? "pass" : "fail";
  j["checks_passed"] = report.checks_passed;
  j["controls_failed"] = report.controls_failed;
  j["shape"] = report.shape_text;
  j["tensors"] = report.tensors;
  j["elements"] = report.elements;
  j["seed"] = o.seed;
  j["steps"] = o.steps;
  j["hyper"] = {{"lr", o.hyper.lr},
                {"beta1", o.hyper.beta1},
                {"beta2", o.hyper.beta2},
                {"eps", o.hyper.eps},
                {"weight_decay", o.hyper.weight_decay}};
  j["states"] = {{"main_grads", to_string(o.main_grads_dtype)},
                 {"exp_avg", to_string(o.exp_avg_dtype)},
                 {"exp_avg_sq", to_string(o.exp_avg_sq_dtype)}};
  j["device"] = report.device_detail;
  Json paths = Json::array();
  for (const PathReport& p : report.paths) {
    Json steps = Json::array();
    for (const StepError& e : p.steps) {
      steps.push_back({{"step", e.step},
                       {"rel_l2", e.rel_l2},
                       {"bound", e.bound},
                       {"worst_tensor", e.worst_tensor},
                       {"within_bound", e.within_bound}});
    }
    paths.push_back({{"path", to_string(p.path)},
                     {"control", is_control(p.path)},
                     {"steps", steps},
                     {"bf16_mismatch", p.bf16_mismatch},
                     {"bf16_worst_tensor", p.bf16_worst_tensor},
                     {"bf16_within_bound", p.bf16_within_bound},
                     {"passed", p.passed}});
  }
  j["paths"] = paths;
  j["bitwise"] = {{"compared", report.bitwise_compared},
                  {"mismatches", report.bitwise_mismatches}};
  j["remainder_ties"] = report.remainder_ties;
  if (report.self_test_ran) {
    const RemainderSelfTest& t = report.self_test;
    j["self_test"] = {{"passed", t.passed()},
                      {"patterns", t.patterns},
                      {"round_trip_failures", t.round_trip_failures},
                      {"rounding_failures", t.rounding_failures},
                      {"ties", t.ties},
                      {"ties_unlike_rne", t.ties_unlike_rne},
                      {"bf16_patterns", t.bf16_patterns},
                      {"bf16_failures", t.bf16_failures},
                      {"fp16_patterns", t.fp16_patterns},
                      {"fp16_failures", t.fp16_failures}};
  } else {
    j["self_test"] = nullptr;
  }
  Json memory = Json::array();
  for (const StateMemory& m : report.memory) {
    memory.push_back({{"path", m.path},
                      {"gpu_bytes_per_param", m.gpu_bytes_per_param},
                      {"host_bytes_per_param", m.host_bytes_per_param}});
  }
  j["state_memory"] = memory;
  return j.dump(2) + "\n";
}

std::vector<std::pair<std::string, std::string>> component_test_fields(const AdamCheckReport& report,
                                                                       const EntryContext& context) {
  const AdamCheckOptions& o = report.options;
  const PathReport* aware = find_path(report, AdamPath::precision_aware);
  const PathReport* offload = find_path(report, AdamPath::cpu_offload);
  std::string figures;
  for (size_t r = 0; r < o.steps.size() && aware && offload; ++r) {
    const StepError& a = aware->steps[r];
    const StepError& c = offload->steps[r];
    if (!figures.empty()) figures += ", and ";
    figures += fmt::format("{} ({}) precision-aware and {} ({}) offloaded against a bound of {} after "
                           "{} step{}",
                           sci(a.rel_l2), a.worst_tensor, sci(c.rel_l2), c.worst_tensor, sci(a.bound),
                           a.step, a.step == 1 ? "" : "s");
  }
  int controls = 0;
  int controls_failed = 0;
  for (const PathReport& p : report.paths) {
    controls += is_control(p.path) ? 1 : 0;
    controls_failed += is_control(p.path) && !p.passed ? 1 : 0;
  }
  const std::string controls_text =
      controls_failed == controls ? fmt::format("all {} negative controls fail", controls)
                                  : fmt::format("only {} of the {} negative controls fail",
                                                controls_failed, controls);
  const std::string detail = fmt::format(
      "worst tensor relative L2 error of the update {} at {} (bounds: {:.1e} after one step, {} x the "
      "default path's error + {:.1e} after more); reconstructed FP32 masters {} an arm with explicit "
      "FP32 masters ({} of {} differ), the remainder self-test {} and {}",
      figures, hyper_text(o.hyper), kBoundStepOne, kBoundFactor, kBoundStepOne,
      report.bitwise_mismatches == 0 ? "bitwise identical to" : "differ from",
      grouped(report.bitwise_mismatches), grouped(report.bitwise_compared),
      !report.self_test_ran ? "was skipped" : (report.self_test.passed() ? "passes" : "fails"),
      controls_text);
  const std::string note = fmt::format(
      "computed by ladle numerics adam on {} (seed {}, precision-aware states: {}); the CPU paths "
      "emulate FusedAdam's FP32 kernel and PyTorch's CPU AdamW operation by operation, without the "
      "fused multiply-adds a GPU compiler forms; the optimizer step is elementwise, so the result "
      "holds for any layer with these hyperparameters",
      report.device_detail == "cpu" ? "the CPU" : report.device_detail, o.seed, states_text(o));

  return {{"test",
           "precision-aware Adam (BF16 weights with int16 remainders) and CPU optimizer offload "
           "(fraction 1.0), each against an FP64 reference"},
          {"shape", report.shape_text},
          {"gpu", context.gpu},
          {"date", context.date},
          {"result", report.passed ? "pass" : "fail"},
          {"detail", detail},
          {"note", note}};
}

std::string render_component_test_entry(const AdamCheckReport& report, const EntryContext& context) {
  YAML::Emitter out;
  out << YAML::BeginSeq << YAML::BeginMap;
  for (const auto& [key, value] : component_test_fields(report, context)) {
    out << YAML::Key << key << YAML::Value << value;
  }
  out << YAML::EndMap << YAML::EndSeq;
  return std::string(out.c_str()) + "\n";
}

}  // namespace ladle::numerics
