#include "ladle/plan/calibration.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <yaml-cpp/yaml.h>

#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/text.hpp"

namespace ladle::plan {

namespace {

std::string single_quoted(std::string_view text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("''") : std::string(1, ch);
  return out + "'";
}

struct ConstantDef {
  const char* name;
  double Calibration::*field;
  bool fitted;
  double min;
  double max;
  const char* unit;
  const char* meaning;
  bool fitted_to_peaks = false;  // fitted by calibrate_memory.cpp to measured peak memory
};

const ConstantDef kConstants[] = {
    {"gemm_efficiency", &Calibration::gemm_efficiency, true, 0.4, 1.0, "fraction",
     "achieved fraction of the GPU's published MAMF (data/hw/kernels.yaml) in the stack's GEMMs"},
    {"attention_efficiency", &Calibration::attention_efficiency, true, 0.4, 1.0, "fraction",
     "achieved fraction of the published efficiency of the stack's flash-attention kernel (FA3 75%, FA2 35% of BF16 peak)"},
    {"cpu_adam_params_per_s", &Calibration::cpu_adam_params_per_s, true, 1e8, 1e11, "params/s",
     "host Adam updates per second per node, all ranks together (prior: 1.13e9, a published Megatron-LM "
     "distributed-optimizer CPU-offload step, ISEEKYAN/Megatron-LM issue #188)"},
    {"moe_layer_sync_s", &Calibration::moe_layer_sync_s, true, 1e-5, 5e-3, "s",
     "GPU time lost per MoE layer pass to the all-to-all dispatcher's host sync on token counts and relaunch"},
    {"moe_layer_sync_flex_s", &Calibration::moe_layer_sync_flex_s, true, 1e-5, 5e-3, "s",
     "the same host overhead per MoE layer pass with the flex dispatcher (DeepEP / HybridEP)"},
    {"cuda_graph_sync_fraction", &Calibration::cuda_graph_sync_fraction, true, 0.02, 1, "fraction",
     "share of the per-layer token-count sync cost left with partial CUDA graphs (full-iteration graphs: none)"},
    {"dp_overlap_hidden_fraction", &Calibration::dp_overlap_hidden_fraction, true, 0.05, 1, "fraction",
     "share of the compute window an overlapped data-parallel reduce-scatter / all-gather hides"},
    {"tp_overlap_hidden_fraction", &Calibration::tp_overlap_hidden_fraction, true, 0.05, 1, "fraction",
     "share of the TP collectives Megatron-LM's --tp-comm-overlap (Transformer Engine userbuffers) hides"},
    {"async_tp_hidden_fraction", &Calibration::async_tp_hidden_fraction, true, 0.05, 1, "fraction",
     "share of the TP collectives torchtitan's async TP (SymmetricMemory micro-pipelining) hides"},
    {"step_host_s", &Calibration::step_host_s, true, 1e-4, 0.2, "s",
     "seconds a step waits on the host outside the forward and backward (the optimizer's host-side passes and "
     "the training loop between steps, behind the gradient-norm and loss syncs)"},
    {"host_launch_s", &Calibration::host_launch_s, false, 1e-6, 6e-5, "s",
     "host time per operation a layer issues on an x86 host (Python, PyTorch dispatch, launch), a layer running at "
     "the slower of the host's and the GPU's pace: one torch.nn.Linear forward, 13.48 us on a DGX H100's Xeon "
     "Platinum 8480C (NVIDIA/TransformerEngine issue #2053)"},
    {"a2a_overlap_hidden_fraction", &Calibration::a2a_overlap_hidden_fraction, true, 0.05, 1, "fraction",
     "share --overlap-moe-expert-parallel-comm hides of the EP all-to-all and token-count syncs or of the paired "
     "microbatch's compute, whichever is shorter"},
    {"hbm_efficiency", &Calibration::hbm_efficiency, false, 0.3, 0.95, "fraction",
     "achieved fraction of HBM bandwidth in memory-bound kernels (STREAM-like copies reach ~0.8-0.9)"},
    {"kernel_overhead_s", &Calibration::kernel_overhead_s, false, 0, 1e-3, "s",
     "fixed cost of one kernel: launch and tail (a few microseconds on Hopper)"},
    {"host_link_gb_per_s", &Calibration::host_link_gb_per_s, false, 1, 1000, "GB/s",
     "device-host copy bandwidth per GPU (PCIe Gen5 x16: 64 GB/s raw, ~50 achieved)"},
    {"allocator_slack", &Calibration::allocator_slack, false, 0, 0.5, "fraction",
     "PyTorch allocator slack (expandable segments) over the memory each step allocates and frees, fitted to "
     "the measured max-reserved peaks and to the runs that ran (each peak under its GPU's memory)",
     true},
    {"moe_memory_imbalance", &Calibration::moe_memory_imbalance, false, 1, 8, "ratio",
     "routed tokens on the busiest expert rank over the mean (aux-loss-free routing, early training)"},
    {"host_memory_usable", &Calibration::host_memory_usable, false, 0.1, 1, "fraction",
     "fraction of a node's host memory the offloaded optimizer may take"},
    {"interval_log_halfwidth", &Calibration::interval_log_halfwidth, false, 0, 2, "log ratio",
     "half-width of the printed 80% throughput interval, from the leave-one-source-out residuals"},
    {"memory_log_spread", &Calibration::memory_log_spread, false, 0.01, 2, "log ratio",
     "spread of log(predicted / measured) peak memory, fitted with the allocator slack; the printed memory "
     "interval is its 80% range",
     true},
};

}  // namespace

std::vector<CalibrationConstant> calibration_constants(const Calibration& c) {
  std::vector<CalibrationConstant> out;
  for (const ConstantDef& d : kConstants) {
    out.push_back(CalibrationConstant{d.name, c.*d.field, d.fitted, d.min, d.max, d.unit, d.meaning, d.fitted_to_peaks});
  }
  return out;
}

void set_calibration_constant(Calibration& c, std::string_view name, double value) {
  for (const ConstantDef& d : kConstants) {
    if (name == d.name) {
      c.*d.field = value;
      return;
    }
  }
  LADLE_ASSERT(false, "unknown calibration constant");
}

Calibration read_calibration(std::string_view yaml, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    throw_input(SourceLocation{file, e.mark.line + 1, e.mark.column + 1, ""}, "{}", e.msg);
  }
  auto at = [&file](const YAML::Node& node, const std::string& path) {
    return SourceLocation{file, node.Mark().line + 1, node.Mark().column + 1, path};
  };
  if (!root.IsMap() || !root["constants"] || !root["constants"].IsMap()) {
    throw_input(SourceLocation{file, 1, 1, "constants"}, "expected a 'constants:' map of name: value");
  }
  Calibration c;
  c.source = file;
  std::vector<std::string> names;
  for (const ConstantDef& d : kConstants) names.emplace_back(d.name);
  for (const auto& item : root["constants"]) {
    const std::string name = item.first.as<std::string>();
    const std::string path = "constants." + name;
    const ConstantDef* def = nullptr;
    for (const ConstantDef& d : kConstants) {
      if (name == d.name) def = &d;
    }
    if (def == nullptr) {
      throw_input(at(item.first, path), "unknown constant{}", util::did_you_mean(name, names));
    }
    double value = 0;
    try {
      value = item.second.as<double>();
    } catch (const YAML::Exception&) {
      throw_input(at(item.second, path), "expected a number, got '{}'", item.second.Scalar());
    }
    if (!(value >= def->min && value <= def->max)) {
      throw_input(at(item.second, path), "{} is outside {}..{} {}", value, def->min, def->max, def->unit);
    }
    c.*def->field = value;
  }
  if (root["fitted_on"]) {
    for (const auto& line : root["fitted_on"]) c.fitted_on.push_back(line.as<std::string>());
  }
  if (root["note"]) c.fitted_note = root["note"].as<std::string>();
  if (const YAML::Node cov = root["covariance"]) {
    // covariance: {names: [..], rows: [[..], ..]}, the log constants' covariance from the fit.
    const YAML::Node names = cov["names"];
    const YAML::Node rows = cov["rows"];
    if (!names.IsSequence() || !rows.IsSequence() || rows.size() != names.size()) {
      throw_input(at(cov, "covariance"), "expected names: [constant, ...] and rows: a square matrix of that size");
    }
    for (const auto& n : names) {
      const std::string name = n.as<std::string>();
      bool known = false;
      for (const ConstantDef& d : kConstants) known = known || (name == d.name && d.fitted);
      if (!known) throw_input(at(n, "covariance.names"), "'{}' is not a fitted constant", name);
      c.covariance_names.push_back(name);
    }
    for (size_t i = 0; i < rows.size(); ++i) {
      const YAML::Node row = rows[i];
      if (!row.IsSequence() || row.size() != names.size()) {
        throw_input(at(row, "covariance.rows"), "expected {} numbers", names.size());
      }
      std::vector<double> values;
      for (const auto& v : row) {
        double x = 0;
        if (!YAML::convert<double>::decode(v, x) || !std::isfinite(x)) {
          throw_input(at(v, "covariance.rows"), "expected a number, got '{}'", v.Scalar());
        }
        values.push_back(x);
      }
      c.covariance.push_back(std::move(values));
    }
  }
  return c;
}

Calibration read_calibration_file(const std::string& path) {
  return read_calibration(util::read_file(path), path);
}

const Calibration& default_calibration() {
  static const Calibration calibration = [] {
    const std::optional<std::string_view> text = util::find_embedded("data/calibration.yaml");
    if (!text) return Calibration{};
    Calibration c = read_calibration(*text, "data/calibration.yaml");
    c.source = "embedded:data/calibration.yaml";
    return c;
  }();
  return calibration;
}

std::string write_calibration(const Calibration& c, const std::vector<std::string>& header_lines) {
  std::string out;
  for (const std::string& line : header_lines) out += line.empty() ? "#\n" : "# " + line + "\n";
  out += "constants:\n";
  for (const CalibrationConstant& k : calibration_constants(c)) {
    out += fmt::format("  {}: {:.6g}  # {}: {} ({})\n", k.name, k.value, k.fitted ? "fitted" : k.fitted_to_peaks ? "fitted to peaks" : "fixed",
                       k.meaning, k.unit);
  }
  if (!c.fitted_on.empty()) {
    out += "fitted_on:\n";
    for (const std::string& line : c.fitted_on) out += fmt::format("  - {}\n", single_quoted(line));
  }
  if (!c.fitted_note.empty()) out += fmt::format("note: {}\n", single_quoted(c.fitted_note));
  if (!c.covariance_names.empty()) {
    out += "# covariance of the log fitted constants (the printed intervals use it)\n";
    out += "covariance:\n  names: [" + fmt::format("{}", fmt::join(c.covariance_names, ", ")) + "]\n  rows:\n";
    for (const std::vector<double>& row : c.covariance) {
      std::vector<std::string> cells;
      for (double v : row) cells.push_back(fmt::format("{:.6g}", v));
      out += "    - [" + fmt::format("{}", fmt::join(cells, ", ")) + "]\n";
    }
  }
  return out;
}

}  // namespace ladle::plan
