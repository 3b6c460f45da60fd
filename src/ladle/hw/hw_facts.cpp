#include "ladle/hw/hw_facts.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "ladle/hw/catalog.hpp"
#include "ladle/util/embedded.hpp"
#include "ladle/util/error.hpp"

namespace ladle::hw {

namespace {

constexpr const char* kCollectivesFile = "data/hw/collectives.yaml";
constexpr const char* kKernelsFile = "data/hw/kernels.yaml";

YAML::Node load(const char* file) {
  const std::optional<std::string_view> text = util::find_embedded(file);
  LADLE_ASSERT(text.has_value(), "an embedded hardware table is missing");
  try {
    return YAML::Load(std::string(*text));
  } catch (const YAML::Exception& e) {
    throw_input(SourceLocation{file, e.mark.line + 1, e.mark.column + 1, ""}, "{}", e.msg);
  }
}

[[noreturn]] void bad(const char* file, const YAML::Node& node, const std::string& path, const std::string& what) {
  throw_input(SourceLocation{file, node.Mark().line + 1, node.Mark().column + 1, path}, "{}", what);
}

double number(const char* file, const YAML::Node& node, const std::string& path) {
  double v = 0;
  if (!node || !node.IsScalar() || !YAML::convert<double>::decode(node, v) || !(v > 0) || !std::isfinite(v))
    bad(file, node, path, "expected a positive number");
  return v;
}

Collective parse_collective(const char* file, const YAML::Node& node, const std::string& path) {
  const std::string name = node ? node.Scalar() : "";
  for (Collective c : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter,
                       Collective::all_to_all, Collective::send_recv}) {
    if (name == to_string(c)) return c;
  }
  bad(file, node, path, "expected all_reduce, all_gather, reduce_scatter, all_to_all or send_recv");
}

// Bytes each node puts on the wire per byte of nccl-tests' busbw-normalised traffic: busbw is
// defined so that busbw x time is the traffic of one rank's link in a ring (nccl-tests
// doc/PERFORMANCE.md); on a network with g GPUs per node sharing the NICs, the node moves g
// ranks' worth, but the hierarchical algorithms keep the intra-node part on NVLink, leaving the
// node's NICs (n-1)/n of the buffer per phase. The fraction is taken as node wire bytes per
// second over the node's NIC bandwidth.
double network_fraction(Collective c, double busbw, double nodes, double gpus_per_node, double link) {
  const double ranks = nodes * gpus_per_node;
  switch (c) {
    case Collective::all_reduce: {
      const double algbw = busbw * ranks / (2 * (ranks - 1));
      return algbw * 2 * (nodes - 1) / nodes / link;
    }
    case Collective::all_gather:
    case Collective::reduce_scatter: {
      const double algbw = busbw * ranks / (ranks - 1);
      return algbw * (nodes - 1) / nodes / link;
    }
    case Collective::all_to_all: {
      const double algbw = busbw * ranks / (ranks - 1);  // per rank: what it sends over the time
      return algbw * gpus_per_node * (nodes - 1) / nodes / link;
    }
    case Collective::send_recv:
      return busbw * gpus_per_node / link;
  }
  return 0;
}

void add_sweep(FabricFacts& f, Collective c, double nodes, const YAML::Node& points, const std::string& path,
               double gpn, double link, bool wire_per_gpu, const std::string& source) {
  if (!points.IsSequence() || points.size() == 0) bad(kCollectivesFile, points, path, "expected [[bytes, busbw], ...]");
  CollectiveSweep s;
  s.collective = c;
  s.nodes = nodes;
  s.source = source;
  for (size_t i = 0; i < points.size(); ++i) {
    const YAML::Node p = points[i];
    const std::string at = path + "[" + std::to_string(i) + "]";
    if (!p.IsSequence() || p.size() != 2) bad(kCollectivesFile, p, at, "expected [bytes, busbw GB/s]");
    const double bytes = number(kCollectivesFile, p[0], at);
    const double busbw = number(kCollectivesFile, p[1], at) * 1e9;
    const double lb = std::log(bytes);
    if (!s.log_bytes.empty() && !(lb > s.log_bytes.back())) bad(kCollectivesFile, p, at, "expected ascending sizes");
    s.log_bytes.push_back(lb);
    double fraction = 0;
    if (f.name == "nvlink") {
      fraction = busbw / link;
    } else if (wire_per_gpu) {
      fraction = busbw * gpn / link;
    } else {
      fraction = network_fraction(c, busbw, nodes, gpn, link);
    }
    s.fraction.push_back(fraction);
  }
  f.sweeps.push_back(std::move(s));
}

std::vector<FabricFacts> read_fabrics() {
  const YAML::Node root = load(kCollectivesFile);
  std::vector<FabricFacts> out;
  const YAML::Node fabrics = root["fabrics"];
  if (!fabrics.IsSequence()) bad(kCollectivesFile, root, "fabrics", "expected a list of fabrics");
  for (size_t i = 0; i < fabrics.size(); ++i) {
    const YAML::Node n = fabrics[i];
    const std::string path = "fabrics[" + std::to_string(i) + "]";
    FabricFacts f;
    f.name = n["name"].Scalar();
    if (n["match"]) {
      for (const auto& m : n["match"]) f.match.push_back(m.Scalar());
    }
    f.latency_s = number(kCollectivesFile, n["latency_us"], path + ".latency_us") * 1e-6;
    if (n["like"]) f.like = n["like"].Scalar();
    if (!n["tables"].IsSequence()) bad(kCollectivesFile, n, path + ".tables", "expected a list of tables");
    for (size_t t = 0; t < n["tables"].size(); ++t) {
      const YAML::Node table = n["tables"][t];
      const std::string tp = path + ".tables[" + std::to_string(t) + "]";
      const Collective c = parse_collective(kCollectivesFile, table["collective"], tp + ".collective");
      const double gpn = number(kCollectivesFile, table["gpus_per_node"], tp + ".gpus_per_node");
      const double link = number(kCollectivesFile, table["link_gb_per_s"], tp + ".link_gb_per_s") * 1e9;
      if (!table["source"]) bad(kCollectivesFile, table, tp + ".source", "missing; expected where the sweep was published");
      const std::string source = table["source"].Scalar();
      const bool wire = table["figure"] && table["figure"].Scalar() == "wire_per_gpu";
      if (table["points"]) {
        add_sweep(f, c, table["nodes"] ? number(kCollectivesFile, table["nodes"], tp + ".nodes") : 1,
                  table["points"], tp + ".points", gpn, link, wire, source);
      } else if (table["by_nodes"] && table["by_nodes"].IsMap()) {
        for (const auto& item : table["by_nodes"]) {
          const double nodes = number(kCollectivesFile, item.first, tp + ".by_nodes");
          add_sweep(f, c, nodes, item.second, tp + ".by_nodes." + item.first.Scalar(), gpn, link, wire, source);
        }
      } else {
        bad(kCollectivesFile, table, tp, "expected points or by_nodes");
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

// An attention row's head_dim_tflops ({head size: TFLOP/s}) in ascending head size, 128 among
// them, with the head_dim_source it was read from.
KernelFacts::HeadDimCurve head_dim_curve(const YAML::Node& row, const std::string& path) {
  const YAML::Node table = row["head_dim_tflops"];
  if (!table.IsMap() || table.size() == 0)
    bad(kKernelsFile, table, path + ".head_dim_tflops", "expected {head size: TFLOP/s, ...}");
  if (!row["head_dim_source"])
    bad(kKernelsFile, row, path + ".head_dim_source", "missing; expected where the figures were published");
  std::vector<std::pair<double, double>> points;
  for (const auto& kv : table) {
    points.emplace_back(number(kKernelsFile, kv.first, path + ".head_dim_tflops"),
                        number(kKernelsFile, kv.second, path + ".head_dim_tflops"));
  }
  std::sort(points.begin(), points.end());
  KernelFacts::HeadDimCurve curve;
  for (const auto& [d, t] : points) {
    if (!curve.head_dim.empty() && curve.head_dim.back() == d)
      bad(kKernelsFile, table, path + ".head_dim_tflops", "expected each head size once");
    curve.head_dim.push_back(d);
    curve.tflops.push_back(t);
  }
  if (std::find(curve.head_dim.begin(), curve.head_dim.end(), kAttentionReferenceHeadDim) == curve.head_dim.end())
    bad(kKernelsFile, table, path + ".head_dim_tflops", "expected head size 128 (the fractions' reference) among them");
  curve.source = row["head_dim_source"].Scalar();
  return curve;
}

// The GPU a kernel row's curve was measured on (measured_on), a catalog GPU.
std::string measured_on(const YAML::Node& row, const std::string& path) {
  const YAML::Node gpu = row["measured_on"];
  if (!gpu || !gpu.IsScalar() || !find_gpu(gpu.Scalar()))
    bad(kKernelsFile, gpu ? gpu : row, path + ".measured_on", "expected the catalog GPU the rates were measured on");
  return gpu.Scalar();
}

// A measured row's `source`: where its figures were published.
std::string measured_source(const YAML::Node& row, const std::string& path) {
  if (!row["source"]) bad(kKernelsFile, row, path + ".source", "missing; expected where the figures were published");
  return row["source"].Scalar();
}

// A measured row's `gpus`: the catalog GPUs it was measured on, then the siblings that take it.
std::vector<std::string> measured_gpus(const YAML::Node& row, const std::string& path) {
  const YAML::Node gpus = row["gpus"];
  if (!gpus || !gpus.IsSequence() || gpus.size() == 0)
    bad(kKernelsFile, row, path + ".gpus", "expected the catalog GPUs it was measured on, then their siblings");
  std::vector<std::string> out;
  for (const auto& g : gpus) {
    if (!find_gpu(g.Scalar())) bad(kKernelsFile, g, path + ".gpus", "expected a catalog GPU");
    out.push_back(g.Scalar());
  }
  return out;
}

KernelFacts read_kernels() {
  const YAML::Node root = load(kKernelsFile);
  KernelFacts k;
  for (size_t i = 0; i < root["gemm"].size(); ++i) {
    const YAML::Node g = root["gemm"][i];
    const std::string path = "gemm[" + std::to_string(i) + "]";
    if (!g["source"]) bad(kKernelsFile, g, path + ".source", "missing; expected where the figure was published");
    KernelFacts::Gemm row;
    row.gpu = g["gpu"].Scalar();
    row.bf16 = number(kKernelsFile, g["bf16"], path + ".bf16");
    if (g["fp8"]) row.fp8 = number(kKernelsFile, g["fp8"], path + ".fp8");
    if (g["fp8_block"]) row.fp8_block = number(kKernelsFile, g["fp8_block"], path + ".fp8_block");
    if (g["nvfp4"]) row.nvfp4 = number(kKernelsFile, g["nvfp4"], path + ".nvfp4");
    if (g["mxfp4"]) row.mxfp4 = number(kKernelsFile, g["mxfp4"], path + ".mxfp4");
    row.source = g["source"].Scalar();
    k.gemm.push_back(row);
  }
  k.fp8_default = number(kKernelsFile, root["fp8_default"], "fp8_default");
  for (size_t i = 0; i < root["attention"].size(); ++i) {
    const YAML::Node a = root["attention"][i];
    const std::string path = "attention[" + std::to_string(i) + "]";
    const std::string kernel = a["kernel"].Scalar();
    const double v = number(kKernelsFile, a["fraction"], path + ".fraction");
    KernelFacts::HeadDimCurve curve;
    if (a["head_dim_tflops"]) {
      curve = head_dim_curve(a, path);
      curve.measured_on = measured_on(a, path);
    }
    if (kernel == "fa3") k.attention_fa3 = v, k.head_dim_fa3 = curve;
    if (kernel == "fa2") k.attention_fa2 = v, k.head_dim_fa2 = curve;
    if (kernel == "fa3_fp8") {
      k.attention_fa3_fp8 = v;
      if (!a["head_dim_from"] || a["head_dim_from"].Scalar() != "fa3")
        bad(kKernelsFile, a, path + ".head_dim_from", "expected fa3 (FP8 attention takes its BF16 kernel's ratios)");
    }
  }
  LADLE_ASSERT(k.attention_fa3 > 0 && k.attention_fa2 > 0 && k.attention_fa3_fp8 > 0,
               "kernels.yaml needs fa2, fa3 and fa3_fp8 attention rows");
  LADLE_ASSERT(!k.head_dim_fa3.head_dim.empty() && !k.head_dim_fa2.head_dim.empty(),
               "kernels.yaml: the fa2 and fa3 attention rows need head_dim_tflops");
  for (size_t i = 0; i < root["window_attention"].size(); ++i) {
    const YAML::Node a = root["window_attention"][i];
    const std::string path = "window_attention[" + std::to_string(i) + "]";
    KernelFacts::WindowAttention row;
    row.gpus = measured_gpus(a, path);
    row.window = static_cast<int64_t>(number(kKernelsFile, a["window"], path + ".window"));
    row.head_dim = static_cast<int64_t>(number(kKernelsFile, a["head_dim"], path + ".head_dim"));
    row.forward = number(kKernelsFile, a["forward_tflops"], path + ".forward_tflops") /
                  number(kKernelsFile, a["causal_forward_tflops"], path + ".causal_forward_tflops");
    row.backward = number(kKernelsFile, a["backward_tflops"], path + ".backward_tflops") /
                   number(kKernelsFile, a["causal_backward_tflops"], path + ".causal_backward_tflops");
    row.source = measured_source(a, path);
    k.window_attention.push_back(std::move(row));
  }
  for (size_t i = 0; i < root["attention_length"].size(); ++i) {
    const YAML::Node a = root["attention_length"][i];
    const std::string path = "attention_length[" + std::to_string(i) + "]";
    KernelFacts::AttentionLength row;
    row.gpus = measured_gpus(a, path);
    auto list = [&](const char* key, std::vector<double>& out) {
      const YAML::Node v = a[key];
      if (!v || !v.IsSequence() || v.size() < 2)
        bad(kKernelsFile, v ? v : a, path + "." + key, "expected a list of two or more numbers");
      for (const auto& x : v) {
        const double d = number(kKernelsFile, x, path + "." + key);
        if (d <= 0) bad(kKernelsFile, x, path + "." + key, "expected a positive number");
        out.push_back(d);
      }
    };
    list("tokens", row.tokens);
    list("forward_tflops", row.forward);
    list("backward_tflops", row.backward);
    if (row.forward.size() != row.tokens.size() || row.backward.size() != row.tokens.size())
      bad(kKernelsFile, a, path, "expected one forward and one backward figure per length in tokens");
    if (!std::is_sorted(row.tokens.begin(), row.tokens.end()) ||
        std::adjacent_find(row.tokens.begin(), row.tokens.end()) != row.tokens.end())
      bad(kKernelsFile, a["tokens"], path + ".tokens", "expected lengths in ascending order, each once");
    if (std::find(row.tokens.begin(), row.tokens.end(), kAttentionReferenceTokens) == row.tokens.end())
      bad(kKernelsFile, a["tokens"], path + ".tokens", "expected 8192 (the fractions' reference length) among them");
    row.source = measured_source(a, path);
    k.attention_length.push_back(std::move(row));
  }
  for (size_t i = 0; i < root["attention_gpus"].size(); ++i) {
    const YAML::Node a = root["attention_gpus"][i];
    const std::string path = "attention_gpus[" + std::to_string(i) + "]";
    KernelFacts::GpuAttention row;
    row.gpu = a["gpu"] ? a["gpu"].Scalar() : "";
    if (!find_gpu(row.gpu)) bad(kKernelsFile, a, path + ".gpu", "expected a catalog GPU");
    if (!a["kernel"]) bad(kKernelsFile, a, path + ".kernel", "missing; expected the kernel measured");
    row.kernel = a["kernel"].Scalar();
    row.curve = head_dim_curve(a, path);
    row.curve.measured_on = row.gpu;
    const double reference_share = k.head_dim_fa3.at_reference() / find_gpu(k.head_dim_fa3.measured_on)->bf16_dense_tflops;
    row.over_reference = row.curve.at_reference() / find_gpu(row.gpu)->bf16_dense_tflops / reference_share;
    k.attention_gpus.push_back(std::move(row));
  }
  const YAML::Node softmax = root["softmax_exp"];
  if (!softmax["source"])
    bad(kKernelsFile, softmax, "softmax_exp.source", "missing; expected where the figures were published");
  k.softmax_fp8_forward_speedup = number(kKernelsFile, softmax["fp8_forward_speedup"], "softmax_exp.fp8_forward_speedup");
  k.softmax_sfu_ratio = number(kKernelsFile, softmax["sfu_ratio"], "softmax_exp.sfu_ratio");
  // The exposed exponential time derived from the two must be positive: speedup < ratio.
  LADLE_ASSERT(k.softmax_fp8_forward_speedup >= 1 && k.softmax_sfu_ratio > k.softmax_fp8_forward_speedup,
               "kernels.yaml softmax_exp: expected 1 <= fp8_forward_speedup < sfu_ratio");
  // speedup = (1 + wait) / (1 + wait / ratio), solved for the wait.
  k.softmax_exp_wait = (k.softmax_fp8_forward_speedup - 1) / (1 - k.softmax_fp8_forward_speedup / k.softmax_sfu_ratio);
  for (const auto& g : softmax["gpus"]) k.softmax_fast_gpus.push_back(g.Scalar());
  const YAML::Node host = root["host_launches"];
  if (!host["source"])
    bad(kKernelsFile, host, "host_launches.source",
        "missing; expected where the counts were published");
  k.router_launches = number(kKernelsFile, host["router"], "host_launches.router");
  k.router_launches_flex = number(kKernelsFile, host["router_flex"], "host_launches.router_flex");
  k.router_launches_fused = number(kKernelsFile, host["router_fused"], "host_launches.router_fused");
  const YAML::Node deepep = root["deepep_mnnvl"];
  if (!deepep["source"])
    bad(kKernelsFile, deepep, "deepep_mnnvl.source",
        "missing; expected where the figures were published");
  k.deepep_mnnvl_dispatch =
      number(kKernelsFile, deepep["dispatch_gb_per_s"], "deepep_mnnvl.dispatch_gb_per_s") * 1e9;
  k.deepep_mnnvl_combine =
      number(kKernelsFile, deepep["combine_gb_per_s"], "deepep_mnnvl.combine_gb_per_s") * 1e9;
  return k;
}

// Linear interpolation in x, held at the ends.
double interpolate(const std::vector<double>& x, const std::vector<double>& y, double at) {
  if (at <= x.front()) return y.front();
  if (at >= x.back()) return y.back();
  const size_t i = static_cast<size_t>(std::upper_bound(x.begin(), x.end(), at) - x.begin());
  const double t = (at - x[i - 1]) / (x[i] - x[i - 1]);
  return y[i - 1] + t * (y[i] - y[i - 1]);
}

std::map<std::string, HostLink> read_host_links() {
  const YAML::Node root = load(kCollectivesFile);
  std::map<std::string, HostLink> out;
  const YAML::Node links = root["host_links"];
  for (size_t i = 0; links && i < links.size(); ++i) {
    const YAML::Node n = links[i];
    const std::string path = "host_links[" + std::to_string(i) + "]";
    if (!n["source"]) bad(kCollectivesFile, n, path + ".source", "missing; expected where the figure was published");
    const HostLink link{number(kCollectivesFile, n["gb_per_s"], path + ".gb_per_s") * 1e9,
                        n["source"].Scalar()};
    if (!n["gpus"].IsSequence()) bad(kCollectivesFile, n, path + ".gpus", "expected a list of GPU names");
    for (const auto& g : n["gpus"]) out[g.Scalar()] = link;
  }
  return out;
}

const FabricFacts* find_fabric(std::string_view name) {
  for (const FabricFacts& f : fabric_facts()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace

const char* to_string(Collective c) {
  switch (c) {
    case Collective::all_reduce: return "all_reduce";
    case Collective::all_gather: return "all_gather";
    case Collective::reduce_scatter: return "reduce_scatter";
    case Collective::all_to_all: return "all_to_all";
    case Collective::send_recv: return "send_recv";
  }
  return "?";
}

const std::vector<FabricFacts>& fabric_facts() {
  static const std::vector<FabricFacts> facts = read_fabrics();
  return facts;
}

const KernelFacts& kernel_facts() {
  static const KernelFacts facts = read_kernels();
  return facts;
}

const FabricFacts& nvlink_facts() {
  const FabricFacts* f = find_fabric("nvlink");
  LADLE_ASSERT(f != nullptr, "collectives.yaml has no nvlink fabric");
  return *f;
}

const FabricFacts& fabric_for(std::string_view fabric) {
  for (const FabricFacts& f : fabric_facts()) {
    for (const std::string& m : f.match) {
      if (!m.empty() && fabric.find(m) != std::string_view::npos) return f;
    }
  }
  const FabricFacts* efa = find_fabric("efa");
  LADLE_ASSERT(efa != nullptr, "collectives.yaml has no efa fabric");
  return *efa;
}

double link_fraction(const FabricFacts& f, Collective collective, double bytes, double nodes) {
  // The sweeps of this collective, else (send/recv) all-to-all's -- NCCL's all-to-all is a group
  // of sends and receives -- or (reduce-scatter) all-gather's -- the same ring traffic, the
  // reverse way -- else all_reduce's: on this fabric first, then on the one it is `like` (a
  // fabric's own measurement of a kindred collective beats another fabric's).
  // Called for every collective of every layout the planner prices: the three lists are kept
  // per thread and reused, so a call allocates nothing once they have grown.
  thread_local std::vector<const CollectiveSweep*> sweeps;
  thread_local std::vector<double> log_nodes;
  thread_local std::vector<double> fractions;
  sweeps.clear();
  log_nodes.clear();
  fractions.clear();
  const Collective kin = collective == Collective::send_recv        ? Collective::all_to_all
                         : collective == Collective::reduce_scatter ? Collective::all_gather
                                                                    : collective;
  for (const FabricFacts* from : {&f, f.like.empty() ? nullptr : find_fabric(f.like)}) {
    for (Collective c : {collective, kin, Collective::all_reduce}) {
      if (from == nullptr || !sweeps.empty()) continue;
      for (const CollectiveSweep& s : from->sweeps) {
        if (s.collective == c) sweeps.push_back(&s);
      }
    }
    if (!sweeps.empty()) break;
  }
  LADLE_ASSERT(!sweeps.empty(), "a fabric has no collective sweep");
  std::sort(sweeps.begin(), sweeps.end(), [](const CollectiveSweep* a, const CollectiveSweep* b) { return a->nodes < b->nodes; });
  const double lb = std::log(std::max(bytes, 1.0));
  for (const CollectiveSweep* s : sweeps) {
    log_nodes.push_back(std::log(s->nodes));
    fractions.push_back(interpolate(s->log_bytes, s->fraction, lb));
  }
  if (sweeps.size() == 1) return fractions.front();
  return interpolate(log_nodes, fractions, std::log(std::max(nodes, 1.0)));
}

const KernelFacts::Gemm* gemm_row(std::string_view gpu) {
  for (const KernelFacts::Gemm& g : kernel_facts().gemm) {
    if (g.gpu == gpu) return &g;
  }
  return nullptr;
}

std::string gemm_mamf_fallback(std::string_view gpu) {
  if (gemm_row(gpu) != nullptr) return {};
  return fmt::format("the lowest published fraction (no MAMF row for {}; data/hw/kernels.yaml)", gpu);
}

double KernelFacts::HeadDimCurve::at_reference() const {
  const auto ref = std::find(head_dim.begin(), head_dim.end(), kAttentionReferenceHeadDim);
  return ref == head_dim.end() ? 0.0 : tflops[static_cast<size_t>(ref - head_dim.begin())];
}

const KernelFacts::WindowAttention* window_attention(std::string_view gpu, int64_t window, int64_t head_dim) {
  for (const KernelFacts::WindowAttention& w : kernel_facts().window_attention) {
    if (w.window == window && w.head_dim == head_dim && std::find(w.gpus.begin(), w.gpus.end(), gpu) != w.gpus.end())
      return &w;
  }
  return nullptr;
}

namespace {

// One pass's rate at `at` tokens over its rate at the reference length: linear in log length
// between measured lengths, held at the longest above them; below the shortest, the time per query
// tile taken as a fixed cost plus one per key tile (the rate proportional to L / (L + c)), c fitted
// to the two shortest lengths (none where the second is not faster per token).
double length_ratio(const std::vector<double>& tokens, const std::vector<double>& tflops, double at) {
  const auto ref = std::find(tokens.begin(), tokens.end(), kAttentionReferenceTokens);
  const double reference = tflops[static_cast<size_t>(ref - tokens.begin())];
  if (at >= tokens.back()) return tflops.back() / reference;
  if (at >= tokens.front()) {
    const size_t i = static_cast<size_t>(std::upper_bound(tokens.begin(), tokens.end(), at) - tokens.begin());
    const double t = std::log(at / tokens[i - 1]) / std::log(tokens[i] / tokens[i - 1]);
    return (tflops[i - 1] + t * (tflops[i] - tflops[i - 1])) / reference;
  }
  const double s0 = tokens[0], s1 = tokens[1];
  const double q = tflops[1] / tflops[0] * s0 / s1;  // (s0 + c) / (s1 + c)
  const double c = q < 1 ? (q * s1 - s0) / (1 - q) : 0.0;
  return tflops[0] / reference * (at / (at + c)) * ((s0 + c) / s0);
}

}  // namespace

const KernelFacts::AttentionLength* attention_length_row(std::string_view gpu) {
  const std::vector<KernelFacts::AttentionLength>& rows = kernel_facts().attention_length;
  if (rows.empty()) return nullptr;
  for (const KernelFacts::AttentionLength& r : rows) {
    if (std::find(r.gpus.begin(), r.gpus.end(), gpu) != r.gpus.end()) return &r;
  }
  return &rows.front();
}

AttentionLengthRatio attention_length_ratio(std::string_view gpu, double tokens) {
  const KernelFacts::AttentionLength* row = attention_length_row(gpu);
  if (row == nullptr || tokens <= 0) return {};
  return {length_ratio(row->tokens, row->forward, tokens), length_ratio(row->tokens, row->backward, tokens),
          row->gpus.front()};
}

const KernelFacts::GpuAttention* gpu_attention(std::string_view gpu) {
  for (const KernelFacts::GpuAttention& a : kernel_facts().attention_gpus) {
    if (a.gpu == gpu) return &a;
  }
  return nullptr;
}

double attention_gpu_ratio(const GpuSpec& g) {
  const KernelFacts::GpuAttention* own = gpu_attention(g.name);
  return own == nullptr ? 1.0 : own->over_reference;
}

double attention_head_dim_efficiency(const KernelFacts::HeadDimCurve& curve, double head_dim) {
  if (!(head_dim > 0) || head_dim >= kAttentionReferenceHeadDim || curve.head_dim.empty()) return 1.0;
  const double at_ref = curve.at_reference();
  // Held at the narrowest measured size below it; linear between measured sizes above it.
  if (head_dim <= curve.head_dim.front()) return curve.tflops.front() / at_ref;
  size_t i = 1;
  while (curve.head_dim[i] < head_dim) ++i;
  const double t = (head_dim - curve.head_dim[i - 1]) / (curve.head_dim[i] - curve.head_dim[i - 1]);
  return (curve.tflops[i - 1] + t * (curve.tflops[i] - curve.tflops[i - 1])) / at_ref;
}

double gemm_mamf_fraction(std::string_view gpu, bool fp8) {
  const KernelFacts& k = kernel_facts();
  const KernelFacts::Gemm* row = gemm_row(gpu);
  if (row == nullptr) {
    // A GPU with no published MAMF: the lowest published fraction (the cautious figure).
    double low = 1;
    for (const KernelFacts::Gemm& g : k.gemm) low = std::min(low, fp8 ? (g.fp8 > 0 ? g.fp8 : k.fp8_default) : g.bf16);
    return low;
  }
  if (!fp8) return row->bf16;
  return row->fp8 > 0 ? row->fp8 : k.fp8_default;
}

double gemm_fp8_block_fraction(std::string_view gpu) {
  const KernelFacts::Gemm* row = gemm_row(gpu);
  return row != nullptr && row->fp8_block > 0 ? row->fp8_block : gemm_mamf_fraction(gpu, true);
}

double gemm_nvfp4_fraction(std::string_view gpu) {
  const KernelFacts::Gemm* row = gemm_row(gpu);
  return row != nullptr && row->nvfp4 > 0 ? row->nvfp4 : gemm_mamf_fraction(gpu, true);
}

double gemm_mxfp4_fraction(std::string_view gpu) {
  const KernelFacts::Gemm* row = gemm_row(gpu);
  return row != nullptr && row->mxfp4 > 0 ? row->mxfp4 : gemm_nvfp4_fraction(gpu);
}

PricedGemmRates priced_gemm_rates(const GpuSpec& g) {
  PricedGemmRates r;
  r.bf16 = g.bf16_dense_tflops * gemm_mamf_fraction(g.name, false);
  if (g.fp8_dense_tflops > 0) {
    r.fp8 = g.fp8_dense_tflops * gemm_mamf_fraction(g.name, true);
    r.fp8_block = g.fp8_dense_tflops * gemm_fp8_block_fraction(g.name);
  }
  if (g.runs_block_scaled("nvfp4")) r.nvfp4 = g.fp4_dense_tflops * gemm_nvfp4_fraction(g.name);
  if (g.runs_block_scaled("mxfp4")) r.mxfp4 = g.fp4_dense_tflops * gemm_mxfp4_fraction(g.name);
  if (const KernelFacts::Gemm* row = gemm_row(g.name)) {
    r.source = row->source;
  } else {
    r.fallback = gemm_mamf_fallback(g.name);
  }
  return r;
}

const HostLink* host_link(std::string_view gpu) {
  static const std::map<std::string, HostLink> links = read_host_links();
  const auto it = links.find(std::string(gpu));
  return it == links.end() ? nullptr : &it->second;
}

double host_link_bytes_per_s(std::string_view gpu) {
  const HostLink* link = host_link(gpu);
  return link ? link->bytes_per_s : 0.0;
}

}  // namespace ladle::hw
