#include "ladle/rl/serving_data.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "ladle/hw/catalog.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/bobyqa.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/yaml_document.hpp"

namespace ladle::rl {
namespace {

constexpr const char* kServingFile = "data/inference/serving.yaml";
constexpr const char* kFitFile = "data/inference/fit.yaml";

// Bounds of the fitted constants: a decode step cannot read HBM faster than its peak, and
// streaming kernels reach well above a third of it; the host overhead of one step is between
// nothing and 30 ms (a slow Python scheduler step).
constexpr double kHbmLo = 0.3, kHbmHi = 1.0;
constexpr double kOverheadLo = 0.0, kOverheadHi = 0.03;
constexpr double kLayerLo = 0.0, kLayerHi = 0.0005;

[[noreturn]] void bad(const std::string& file, const YAML::Node& node, const std::string& path,
                      const std::string& what) {
  throw_input(SourceLocation{file, node.Mark().line + 1, node.Mark().column + 1, path}, "{}", what);
}

std::string text(const std::string& file, const YAML::Node& parent, const char* key, const std::string& path) {
  const YAML::Node n = parent[key];
  if (!n || !n.IsScalar() || n.Scalar().empty()) bad(file, n ? n : parent, path + "." + key, "expected a non-empty string");
  return n.Scalar();
}

double number(const std::string& file, const YAML::Node& parent, const char* key, const std::string& path,
              double lo, double hi) {
  const YAML::Node n = parent[key];
  double v = 0;
  if (!n || !n.IsScalar() || !YAML::convert<double>::decode(n, v) || !std::isfinite(v) || v < lo || v > hi)
    bad(file, n ? n : parent, path + "." + key, fmt::format("expected a number in [{}, {}]", lo, hi));
  return v;
}

int64_t integer(const std::string& file, const YAML::Node& parent, const char* key, const std::string& path,
                int64_t lo, int64_t hi, std::optional<int64_t> fallback = std::nullopt) {
  const YAML::Node n = parent[key];
  if (!n && fallback) return *fallback;
  int64_t v = 0;
  if (!n || !n.IsScalar() || !YAML::convert<int64_t>::decode(n, v) || v < lo || v > hi)
    bad(file, n ? n : parent, path + "." + key, fmt::format("expected an integer in [{}, {}]", lo, hi));
  return v;
}

std::string source_text(const YAML::Node& s) {
  std::string title = s["title"] && s["title"].IsScalar() ? s["title"].Scalar() : "";
  std::string where;
  if (s["url"]) where = s["url"].Scalar();
  else if (s["repo"] && s["path"])
    where = fmt::format("{} {}{}", s["repo"].Scalar(), s["path"].Scalar(),
                        s["commit"] ? " @ " + s["commit"].Scalar() : std::string());
  return title.empty() ? where : title + ": " + where;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Linear-interpolated quantile of a sorted copy.
double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t i = static_cast<size_t>(std::floor(pos));
  const size_t j = std::min(i + 1, v.size() - 1);
  return v[i] + (pos - static_cast<double>(i)) * (v[j] - v[i]);
}

struct Problem {
  std::vector<const ServingMeasurement*> rows;
  std::vector<double> weights;
};

double objective(unsigned n, const double* x, double* /*gradient*/, void* data) {
  const Problem& p = *static_cast<const Problem*>(data);
  ServingConstants c;
  c.hbm_fraction = x[0];
  c.step_overhead_s = x[1];
  c.layer_overhead_s = n > 2 ? x[2] : 0.0;
  double sum = 0;
  for (size_t i = 0; i < p.rows.size(); ++i) {
    const double e = std::log(predict(*p.rows[i], c).output_tokens_per_s / p.rows[i]->measured);
    sum += p.weights[i] * e * e;
  }
  return sum;
}

}  // namespace

std::vector<ServingMeasurement> parse_serving_measurements(std::string_view yaml, const std::string& file) {
  const YAML::Node doc = util::load_yaml_document(yaml, file);
  if (!doc.IsMap()) bad(file, doc, "", "expected a mapping with `sources` and `rows`");
  const YAML::Node sources = doc["sources"];
  if (!sources || !sources.IsSequence() || sources.size() == 0) bad(file, doc, "sources", "expected a list of sources");
  std::map<std::string, std::string> by_id;
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::string path = fmt::format("sources[{}]", i);
    const std::string id = text(file, sources[i], "id", path);
    if (!sources[i]["url"] && !(sources[i]["repo"] && sources[i]["path"] && sources[i]["commit"]))
      bad(file, sources[i], path, "expected `url` or `repo`, `path` and `commit`");
    if (!by_id.emplace(id, source_text(sources[i])).second) bad(file, sources[i]["id"], path + ".id", "duplicate source id");
  }
  const YAML::Node rows = doc["rows"];
  if (!rows || !rows.IsSequence() || rows.size() == 0) bad(file, doc, "rows", "expected a list of measurements");
  std::vector<ServingMeasurement> out;
  std::set<std::string> ids;
  for (size_t i = 0; i < rows.size(); ++i) {
    const YAML::Node r = rows[i];
    const std::string path = fmt::format("rows[{}]", i);
    if (!r.IsMap()) bad(file, r, path, "expected a mapping");
    ServingMeasurement m;
    m.line = r.Mark().line + 1;
    m.id = text(file, r, "id", path);
    if (!ids.insert(m.id).second) bad(file, r["id"], path + ".id", "duplicate row id");
    m.from = text(file, r, "from", path);
    const auto src = by_id.find(m.from);
    if (src == by_id.end()) bad(file, r["from"], path + ".from", "expected the id of an entry of `sources`");
    m.source = src->second;
    m.model = text(file, r, "model", path);
    if (!model::find_model(m.model)) bad(file, r["model"], path + ".model", "expected a catalog model name");
    m.gpu = text(file, r, "gpu", path);
    const std::optional<GpuSpec> gpu = hw::find_gpu(m.gpu);
    if (!gpu) bad(file, r["gpu"], path + ".gpu", "expected a catalog GPU name");
    m.gpu = gpu->name;
    m.engine = text(file, r, "engine", path);
    m.layout.tp = static_cast<int>(integer(file, r, "tp", path, 1, 1024));
    m.layout.gpus = m.layout.tp;
    m.layout.dp_attention = static_cast<int>(integer(file, r, "dp_attention", path, 1, 1024, 1));
    m.layout.ep = static_cast<int>(integer(file, r, "ep", path, 1, 1024, 1));
    m.layout.weight_bits = static_cast<int>(integer(file, r, "weight_bits", path, 8, 16));
    m.layout.kv_bits = static_cast<int>(integer(file, r, "kv_bits", path, 8, 16, 16));
    const YAML::Node admission = r["admission"];
    if (admission) {
      if (!admission.IsScalar() || (admission.Scalar() != "estimate" && admission.Scalar() != "reserve_full_output"))
        bad(file, admission, path + ".admission", "expected estimate (SGLang) or reserve_full_output (TensorRT-LLM)");
      m.layout.reserve_full_output = admission.Scalar() == "reserve_full_output";
    }
    const bool has_static = static_cast<bool>(r["mem_fraction"]);
    const bool has_free = static_cast<bool>(r["kv_free_fraction"]);
    if (has_static == has_free)
      bad(file, r, path, "expected exactly one of mem_fraction (SGLang: weights + KV) and kv_free_fraction "
                         "(vLLM-style share of the memory left after the weights)");
    if (has_static) {
      m.layout.mem_fraction = number(file, r, "mem_fraction", path, 0.05, 0.99);
    } else {
      // KV pool = f x (HBM - weights) is SGLang's mem_fraction m with m x HBM = weights + pool.
      const double f = number(file, r, "kv_free_fraction", path, 0.05, 0.99);
      EngineLayout probe = m.layout;
      probe.mem_fraction = 0.99;
      const double w = engine_memory(*model::find_model(m.model), *gpu, probe).weights_bytes;
      const double hbm = plan::hbm_capacity_gib(*gpu) * 1024.0 * 1024.0 * 1024.0;
      m.layout.mem_fraction = (w + f * (hbm - w)) / hbm;
    }
    m.point.concurrency = integer(file, r, "concurrency", path, 1, 10'000'000);
    m.point.input_tokens = integer(file, r, "input", path, 1, 10'000'000);
    m.point.output_tokens = integer(file, r, "output", path, 1, 10'000'000);
    const bool per_gpu = static_cast<bool>(r["output_tokens_per_s_per_gpu"]);
    const bool per_engine = static_cast<bool>(r["output_tokens_per_s_per_engine"]);
    if (per_gpu == per_engine)
      bad(file, r, path, "expected exactly one of output_tokens_per_s_per_gpu and output_tokens_per_s_per_engine");
    m.measured = per_gpu ? number(file, r, "output_tokens_per_s_per_gpu", path, 1e-3, 1e9) * m.layout.gpus
                         : number(file, r, "output_tokens_per_s_per_engine", path, 1e-3, 1e9);
    out.push_back(std::move(m));
  }
  return out;
}

const std::vector<ServingMeasurement>& serving_measurements() {
  static const std::vector<ServingMeasurement> rows = [] {
    const std::optional<std::string_view> t = util::find_embedded(kServingFile);
    LADLE_ASSERT(t.has_value(), "data/inference/serving.yaml is not embedded");
    return parse_serving_measurements(*t, kServingFile);
  }();
  return rows;
}

ServingEstimate predict(const ServingMeasurement& row, const ServingConstants& constants) {
  return estimate_serving(*model::find_model(row.model), *hw::find_gpu(row.gpu), row.layout, row.point, constants);
}

ServingConstants fit_constants(const std::vector<ServingMeasurement>& rows, std::string_view exclude_from) {
  Problem p;
  std::map<std::string, int> per_source;
  for (const ServingMeasurement& r : rows)
    if (r.from != exclude_from) {
      p.rows.push_back(&r);
      ++per_source[r.from];
    }
  LADLE_ASSERT(!p.rows.empty(), "a serving fit needs rows");
  for (const ServingMeasurement* r : p.rows) p.weights.push_back(1.0 / per_source[r->from]);
  const std::vector<double> lo{kHbmLo, kOverheadLo, kLayerLo};
  const std::vector<double> hi{kHbmHi, kOverheadHi, kLayerHi};
  std::vector<double> x{0.7, 0.003, 0.00005};
  plan::BobyqaSettings s{&lo, &hi, {0.1, 0.002, 0.00003}, 1e-9, 6000};
  const nlopt_result result = plan::minimise_bobyqa(objective, &p, s, x);
  LADLE_ASSERT(result > 0 || result == NLOPT_ROUNDOFF_LIMITED, "the serving fit did not converge");
  ServingConstants c;
  c.hbm_fraction = x[0];
  c.step_overhead_s = x[1];
  c.layer_overhead_s = x[2];
  c.source = exclude_from.empty() ? "fit on every row" : fmt::format("fit without {}", exclude_from);
  return c;
}

ServingFit fit_serving(const std::vector<ServingMeasurement>& rows) {
  ServingFit fit;
  for (const ServingMeasurement& r : rows)
    if (std::find(fit.sources.begin(), fit.sources.end(), r.from) == fit.sources.end()) fit.sources.push_back(r.from);
  fit.constants = fit_constants(rows);
  fit.hbm_fraction_lo = fit.hbm_fraction_hi = fit.constants.hbm_fraction;
  fit.step_overhead_lo = fit.step_overhead_hi = fit.constants.step_overhead_s;
  fit.layer_overhead_lo = fit.layer_overhead_hi = fit.constants.layer_overhead_s;
  std::map<std::string, ServingConstants> without;
  for (const std::string& s : fit.sources) {
    const ServingConstants c = fit_constants(rows, s);
    without[s] = c;
    fit.hbm_fraction_lo = std::min(fit.hbm_fraction_lo, c.hbm_fraction);
    fit.hbm_fraction_hi = std::max(fit.hbm_fraction_hi, c.hbm_fraction);
    fit.step_overhead_lo = std::min(fit.step_overhead_lo, c.step_overhead_s);
    fit.step_overhead_hi = std::max(fit.step_overhead_hi, c.step_overhead_s);
    fit.layer_overhead_lo = std::min(fit.layer_overhead_lo, c.layer_overhead_s);
    fit.layer_overhead_hi = std::max(fit.layer_overhead_hi, c.layer_overhead_s);
  }
  std::vector<double> log_res, err_fit, err_held;
  for (const ServingMeasurement& r : rows) {
    ServingFitRow f;
    f.row = &r;
    f.fitted = predict(r, fit.constants).output_tokens_per_s;
    f.held_out = predict(r, without[r.from]).output_tokens_per_s;
    log_res.push_back(std::log(r.measured / f.held_out));
    err_fit.push_back(std::abs(f.fitted / r.measured - 1.0));
    err_held.push_back(std::abs(f.held_out / r.measured - 1.0));
    fit.rows.push_back(f);
  }
  fit.constants.log_lo = quantile(log_res, 0.1);
  fit.constants.log_hi = quantile(log_res, 0.9);
  for (ServingFitRow& f : fit.rows) {
    f.lo = f.held_out * std::exp(fit.constants.log_lo);
    f.hi = f.held_out * std::exp(fit.constants.log_hi);
  }
  fit.median_abs_error_fitted = median(err_fit);
  fit.median_abs_error_held_out = median(err_held);
  return fit;
}

std::string fit_yaml(const ServingFit& fit) {
  std::string s =
      "# Fit of the rollout model's constants (src/ladle/rl/rollout.cpp) on the published serving\n"
      "# measurements of data/inference/serving.yaml, written by `ladle rollout --calibrate --out\n"
      "# data/inference/fit.yaml` (NLopt BOBYQA, each source weighing the same). The ranges are the\n"
      "# constants over the leave-one-source-out fits; log_lo / log_hi are the 10th and 90th\n"
      "# percentiles of log(measured / predicted) with each source predicted by the fit without it.\n";
  s += fmt::format("hbm_fraction: {:.6g}  # fitted: achieved fraction of HBM bandwidth in a decode step (leave-one-source-out range {:.4g} to {:.4g}; bounds {} to {})\n",
                   fit.constants.hbm_fraction, fit.hbm_fraction_lo, fit.hbm_fraction_hi, kHbmLo, kHbmHi);
  s += fmt::format("step_overhead_s: {:.6g}  # fitted: host time per decode step no kernel hides, s (range {:.4g} to {:.4g}; bounds {} to {})\n",
                   fit.constants.step_overhead_s, fit.step_overhead_lo, fit.step_overhead_hi, kOverheadLo, kOverheadHi);
  s += fmt::format("layer_overhead_s: {:.6g}  # fitted: time per decoder layer of a decode step beyond its bytes and FLOPs, s (range {:.4g} to {:.4g}; bounds {} to {})\n",
                   fit.constants.layer_overhead_s, fit.layer_overhead_lo, fit.layer_overhead_hi, kLayerLo, kLayerHi);
  s += fmt::format("log_lo: {:.6g}  # 10th percentile of log(measured / predicted), held out\n", fit.constants.log_lo);
  s += fmt::format("log_hi: {:.6g}  # 90th percentile of log(measured / predicted), held out\n", fit.constants.log_hi);
  s += fmt::format("median_abs_error_fitted: {:.4f}\n", fit.median_abs_error_fitted);
  s += fmt::format("median_abs_error_held_out: {:.4f}\n", fit.median_abs_error_held_out);
  s += fmt::format("rows: {}\n", fit.rows.size());
  return s;
}

ServingConstants parse_fit(std::string_view yaml, const std::string& file) {
  const YAML::Node doc = util::load_yaml_document(yaml, file);
  if (!doc.IsMap()) bad(file, doc, "", "expected a mapping of fitted constants");
  ServingConstants c;
  c.hbm_fraction = number(file, doc, "hbm_fraction", "", kHbmLo, kHbmHi);
  c.step_overhead_s = number(file, doc, "step_overhead_s", "", kOverheadLo, kOverheadHi);
  c.layer_overhead_s = number(file, doc, "layer_overhead_s", "", kLayerLo, kLayerHi);
  c.log_lo = number(file, doc, "log_lo", "", -5, 0);
  c.log_hi = number(file, doc, "log_hi", "", 0, 5);
  c.source = "embedded:" + file;
  return c;
}

const ServingConstants& serving_constants() {
  static const ServingConstants c = [] {
    const std::optional<std::string_view> t = util::find_embedded(kFitFile);
    LADLE_ASSERT(t.has_value(), "data/inference/fit.yaml is not embedded");
    return parse_fit(*t, kFitFile);
  }();
  return c;
}

}  // namespace ladle::rl
