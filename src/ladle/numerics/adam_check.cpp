#include "ladle/numerics/adam_check.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <charconv>
#include <cmath>
#include <thread>

#include "ladle/numerics/cuda_adam.hpp"
#include "ladle/numerics/low_precision.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/parallel.hpp"
#include "ladle/util/text.hpp"

namespace ladle::numerics {

namespace {

constexpr int kMaxSteps = 1000;
constexpr int kMaxThreads = 256;
// Synthetic data: weights like Megatron's default init (normal, std 0.02) rounded to BF16;
// gradients around 1e-4 spread over eight octaves so that sqrt(v) spans a wide range near eps.
constexpr double kInitStd = 0.02;
constexpr double kGradStd = 1e-4;
constexpr uint64_t kGradOctaveMask = 7;
constexpr double kSqrt3 = 1.7320508075688772;
constexpr double kOctaveScale[kGradOctaveMask + 1] = {1.0,    0.5,     0.25,     0.125,
                                                      0.0625, 0.03125, 0.015625, 0.0078125};

constexpr AdamPath kAllPaths[kAdamPathCount] = {
    AdamPath::default_mixed,          AdamPath::precision_aware,
    AdamPath::explicit_master,        AdamPath::cpu_offload,
    AdamPath::control_remainders_dropped, AdamPath::control_truncating_split,
    AdamPath::control_no_bias_correction};

// splitmix64's finaliser: a counter-based generator, so any element can be drawn on its own.
uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t stream_key(uint64_t seed, size_t tensor, uint32_t stream) {
  return mix64(seed ^ mix64((static_cast<uint64_t>(tensor) << 20) | stream));
}

// Sum of four uniform 16-bit draws, centred and scaled to unit variance: close to normal, bounded,
// and exact integer arithmetic up to the last multiply (the same bits on every machine).
double approx_normal(uint64_t h) {
  const double sum = static_cast<double>(h & 0xffffu) + static_cast<double>((h >> 16) & 0xffffu) +
                     static_cast<double>((h >> 32) & 0xffffu) + static_cast<double>(h >> 48);
  return (sum / 65536.0 - 2.0) * kSqrt3;
}

struct Slice {
  size_t tensor = 0;
  int64_t begin = 0;
  int64_t n = 0;
};

void make_weights(uint64_t seed, const Slice& slice, uint16_t* out) {
  const uint64_t key = stream_key(seed, slice.tensor, 0);
  for (int64_t i = 0; i < slice.n; ++i) {
    const uint64_t h = mix64(key + static_cast<uint64_t>(slice.begin + i));
    out[i] = bf16_from_float_rne(static_cast<float>(kInitStd * approx_normal(h)));
  }
}

void make_grads(uint64_t seed, const Slice& slice, int step, float* out) {
  const uint64_t key = stream_key(seed, slice.tensor, static_cast<uint32_t>(step));
  for (int64_t i = 0; i < slice.n; ++i) {
    const uint64_t h = mix64(key + static_cast<uint64_t>(slice.begin + i));
    // Scaling by an exact power of two, 2^-octave (no libm call in the inner loop).
    const uint64_t octave = mix64(h) & kGradOctaveMask;
    out[i] = static_cast<float>(kGradStd * (approx_normal(h) * kOctaveScale[octave]));
  }
}

void store_state(StateDtype dtype, std::span<float> values, float fp16_scale) {
  switch (dtype) {
    case StateDtype::fp32: return;
    case StateDtype::bf16: store_as_bf16(values); return;
    case StateDtype::fp16: store_as_fp16_scaled(values, fp16_scale); return;
  }
}

using util::parallel_for;

// The state of one path over one slice.
struct MasterState {
  std::vector<float> master, m, v;
  void reset(const std::vector<uint16_t>& w0, size_t n) {
    master.resize(n);
    m.assign(n, 0.0f);
    v.assign(n, 0.0f);
    for (size_t i = 0; i < n; ++i) master[i] = float_from_bf16(w0[i]);
  }
};

struct RemainderState {
  std::vector<uint16_t> bf16;
  std::vector<int16_t> remainder;
  std::vector<float> m, v;
  void reset(const std::vector<uint16_t>& w0, size_t n) {
    bf16.assign(w0.begin(), w0.begin() + static_cast<std::ptrdiff_t>(n));
    remainder.assign(n, 0);  // FusedAdam starts the remainders at zero
    m.assign(n, 0.0f);
    v.assign(n, 0.0f);
  }
};

struct Workspace {
  std::vector<uint16_t> w0;
  std::vector<float> grads, pa_grads;  // [steps][n]
  std::vector<double> ref_p, ref_m, ref_v, ref_update;
  std::vector<uint16_t> target_bf16;
  MasterState default_path, explicit_path, offload_path;
  RemainderState aware, dropped, truncated, no_bias;
  // GPU outputs, [steps][n]
  std::vector<float> gpu_default, gpu_explicit;
  std::vector<uint16_t> gpu_bf16;
  std::vector<int16_t> gpu_remainder;
};

// Per-slice sums, added up per tensor in slice order afterwards.
struct SliceStats {
  std::vector<double> ref_sq;             // [report]
  std::vector<double> err_sq;             // [path][report]
  std::vector<uint64_t> bf16_mismatch;    // [path][report]
  uint64_t bitwise_compared = 0;
  uint64_t bitwise_mismatches = 0;
  uint64_t ties = 0;
};

struct Plan {
  const AdamCheckOptions& options;
  std::vector<TensorSpec> tensors;
  std::vector<Slice> slices;
  int max_step = 0;
  std::vector<int> report_index;  // [step] -> index in options.steps, or -1
  std::vector<float> scale_m, scale_v;  // [tensor][step-1] FP16 state scales
  std::vector<TeAdamScalars> te, te_no_bias;  // [step-1]
  std::vector<TorchAdamWScalars> torch;       // [step-1]
};

float scale_at(const std::vector<float>& scales, const Plan& plan, size_t tensor, int step) {
  if (scales.empty()) return 0.0f;
  return scales[tensor * static_cast<size_t>(plan.max_step) + static_cast<size_t>(step - 1)];
}

void fill_inputs(const Plan& plan, const Slice& slice, Workspace& ws) {
  const size_t n = static_cast<size_t>(slice.n);
  const AdamCheckOptions& o = plan.options;
  ws.w0.resize(n);
  make_weights(o.seed, slice, ws.w0.data());
  ws.grads.resize(n * static_cast<size_t>(plan.max_step));
  ws.pa_grads.resize(ws.grads.size());
  for (int s = 1; s <= plan.max_step; ++s) {
    float* g = ws.grads.data() + n * static_cast<size_t>(s - 1);
    make_grads(o.seed, slice, s, g);
    float* pg = ws.pa_grads.data() + n * static_cast<size_t>(s - 1);
    for (size_t i = 0; i < n; ++i) {
      pg[i] = o.main_grads_dtype == StateDtype::bf16 ? float_from_bf16(bf16_from_float_rne(g[i]))
                                                     : g[i];
    }
  }
}

// Largest |m| and |v| after step `upto` of the precision-aware moments, for the FP16 scales.
std::pair<float, float> moment_absmax(const Plan& plan, const Slice& slice, int upto,
                                      Workspace& ws) {
  const AdamCheckOptions& o = plan.options;
  fill_inputs(plan, slice, ws);
  const size_t n = static_cast<size_t>(slice.n);
  std::vector<float>& m = ws.aware.m;
  std::vector<float>& v = ws.aware.v;
  m.assign(n, 0.0f);
  v.assign(n, 0.0f);
  for (int s = 1; s <= upto; ++s) {
    const std::span<const float> g(ws.pa_grads.data() + n * static_cast<size_t>(s - 1), n);
    te_adam_moments(plan.te[static_cast<size_t>(s - 1)], g, m, v);
    if (s < upto) {
      store_state(o.exp_avg_dtype, m, scale_at(plan.scale_m, plan, slice.tensor, s));
      store_state(o.exp_avg_sq_dtype, v, scale_at(plan.scale_v, plan, slice.tensor, s));
    }
  }
  float max_m = 0.0f;
  float max_v = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    max_m = std::max(max_m, std::fabs(m[i]));
    max_v = std::max(max_v, std::fabs(v[i]));
  }
  return {max_m, max_v};
}

void run_gpu_paths(const Plan& plan, const Slice& slice, Workspace& ws) {
  const size_t n = static_cast<size_t>(slice.n);
  const size_t total = n * static_cast<size_t>(plan.max_step);
  ws.gpu_default.resize(total);
  ws.gpu_explicit.resize(total);
  ws.gpu_bf16.resize(total);
  ws.gpu_remainder.resize(total);
  CudaChunkRequest request;
  request.steps = plan.max_step;
  request.n = n;
  request.w0_bf16 = ws.w0.data();
  request.grads = ws.grads.data();
  request.pa_grads = ws.pa_grads.data();
  request.scalars = plan.te.data();
  request.moment_dtype = plan.options.exp_avg_dtype;
  request.default_master = ws.gpu_default.data();
  request.pa_bf16 = ws.gpu_bf16.data();
  request.pa_remainder = ws.gpu_remainder.data();
  request.explicit_master = ws.gpu_explicit.data();
  cuda_run_chunk(request);
}

void step_remainder_path(const TeAdamScalars& te, std::span<const float> g, RemainderState& st,
                         const AdamCheckOptions& o, float sm, float sv, bool truncating) {
  te_adam_step_remainder(te, g, st.bf16, st.remainder, st.m, st.v, truncating);
  store_state(o.exp_avg_dtype, st.m, sm);
  store_state(o.exp_avg_sq_dtype, st.v, sv);
}

// Adds one path's update error and BF16 mismatches for this step.
template <typename MasterAt, typename Bf16At>
void score_path(const Workspace& ws, size_t n, MasterAt master_at, Bf16At bf16_at, double& err_sq,
                uint64_t& mismatches) {
  double sum = 0.0;
  uint64_t off = 0;
  for (size_t i = 0; i < n; ++i) {
    const double update = static_cast<double>(master_at(i)) - static_cast<double>(float_from_bf16(ws.w0[i]));
    const double diff = update - ws.ref_update[i];
    sum += diff * diff;
    off += bf16_at(i) != ws.target_bf16[i] ? 1u : 0u;
  }
  err_sq += sum;
  mismatches += off;
}

SliceStats run_slice(const Plan& plan, const Slice& slice, Workspace& ws) {
  const AdamCheckOptions& o = plan.options;
  const size_t reports = o.steps.size();
  SliceStats stats;
  stats.ref_sq.assign(reports, 0.0);
  stats.err_sq.assign(reports * kAdamPathCount, 0.0);
  stats.bf16_mismatch.assign(reports * kAdamPathCount, 0);
  fill_inputs(plan, slice, ws);
  const size_t n = static_cast<size_t>(slice.n);
  const bool gpu = o.device == Device::cuda;
  if (gpu) run_gpu_paths(plan, slice, ws);

  ws.ref_p.resize(n);
  ws.ref_m.assign(n, 0.0);
  ws.ref_v.assign(n, 0.0);
  for (size_t i = 0; i < n; ++i) ws.ref_p[i] = float_from_bf16(ws.w0[i]);
  ws.ref_update.resize(n);
  ws.target_bf16.resize(n);
  ws.default_path.reset(ws.w0, n);
  ws.explicit_path.reset(ws.w0, n);
  ws.offload_path.reset(ws.w0, n);
  ws.aware.reset(ws.w0, n);
  ws.dropped.reset(ws.w0, n);
  ws.truncated.reset(ws.w0, n);
  ws.no_bias.reset(ws.w0, n);

  for (int s = 1; s <= plan.max_step; ++s) {
    const size_t at = n * static_cast<size_t>(s - 1);
    const std::span<const float> g(ws.grads.data() + at, n);
    const std::span<const float> pg(ws.pa_grads.data() + at, n);
    const TeAdamScalars& te = plan.te[static_cast<size_t>(s - 1)];
    const float sm = scale_at(plan.scale_m, plan, slice.tensor, s);
    const float sv = scale_at(plan.scale_v, plan, slice.tensor, s);

    fp64_adamw_step(o.hyper, s, g, ws.ref_p, ws.ref_m, ws.ref_v);
    if (gpu) {
      std::copy_n(ws.gpu_default.begin() + static_cast<std::ptrdiff_t>(at), n, ws.default_path.master.begin());
      std::copy_n(ws.gpu_explicit.begin() + static_cast<std::ptrdiff_t>(at), n, ws.explicit_path.master.begin());
      std::copy_n(ws.gpu_bf16.begin() + static_cast<std::ptrdiff_t>(at), n, ws.aware.bf16.begin());
      std::copy_n(ws.gpu_remainder.begin() + static_cast<std::ptrdiff_t>(at), n, ws.aware.remainder.begin());
    } else {
      te_adam_step(te, g, ws.default_path.master, ws.default_path.m, ws.default_path.v);
      step_remainder_path(te, pg, ws.aware, o, sm, sv, false);
      te_adam_step(te, pg, ws.explicit_path.master, ws.explicit_path.m, ws.explicit_path.v);
      store_state(o.exp_avg_dtype, ws.explicit_path.m, sm);
      store_state(o.exp_avg_sq_dtype, ws.explicit_path.v, sv);
    }
    torch_adamw_step(plan.torch[static_cast<size_t>(s - 1)], g, ws.offload_path.master,
                     ws.offload_path.m, ws.offload_path.v);
    step_remainder_path(te, pg, ws.dropped, o, sm, sv, false);
    std::fill(ws.dropped.remainder.begin(), ws.dropped.remainder.end(), int16_t{0});
    step_remainder_path(te, pg, ws.truncated, o, sm, sv, true);
    step_remainder_path(plan.te_no_bias[static_cast<size_t>(s - 1)], pg, ws.no_bias, o, sm, sv, false);

    // The rebuilt masters against the arm with explicit FP32 masters, bit for bit, every step.
    for (size_t i = 0; i < n; ++i) {
      const float rebuilt = join_master({ws.aware.bf16[i], ws.aware.remainder[i]});
      stats.bitwise_mismatches +=
          std::bit_cast<uint32_t>(rebuilt) != std::bit_cast<uint32_t>(ws.explicit_path.master[i]) ? 1u : 0u;
    }
    stats.bitwise_compared += n;

    const int r = plan.report_index[static_cast<size_t>(s)];
    if (r < 0) continue;
    double ref_sq = 0.0;
    for (size_t i = 0; i < n; ++i) {
      ws.ref_update[i] = ws.ref_p[i] - static_cast<double>(float_from_bf16(ws.w0[i]));
      ref_sq += ws.ref_update[i] * ws.ref_update[i];
      ws.target_bf16[i] = bf16_from_double_rne(ws.ref_p[i]);
    }
    stats.ref_sq[static_cast<size_t>(r)] += ref_sq;
    for (size_t i = 0; i < n; ++i) {
      const float master = join_master({ws.aware.bf16[i], ws.aware.remainder[i]});
      stats.ties += ws.aware.bf16[i] != bf16_from_float_rne(master) ? 1u : 0u;
    }
    for (int p = 0; p < kAdamPathCount; ++p) {
      const size_t k = static_cast<size_t>(p) * reports + static_cast<size_t>(r);
      double& err = stats.err_sq[k];
      uint64_t& off = stats.bf16_mismatch[k];
      auto master_state = [&](const MasterState& st) {
        score_path(ws, n, [&](size_t i) { return st.master[i]; },
                   [&](size_t i) { return bf16_from_float_rne(st.master[i]); }, err, off);
      };
      auto remainder_state = [&](const RemainderState& st) {
        score_path(ws, n, [&](size_t i) { return join_master({st.bf16[i], st.remainder[i]}); },
                   [&](size_t i) { return st.bf16[i]; }, err, off);
      };
      switch (kAllPaths[p]) {
        case AdamPath::default_mixed: master_state(ws.default_path); break;
        case AdamPath::precision_aware: remainder_state(ws.aware); break;
        case AdamPath::explicit_master: master_state(ws.explicit_path); break;
        case AdamPath::cpu_offload: master_state(ws.offload_path); break;
        case AdamPath::control_remainders_dropped: remainder_state(ws.dropped); break;
        case AdamPath::control_truncating_split: remainder_state(ws.truncated); break;
        case AdamPath::control_no_bias_correction: remainder_state(ws.no_bias); break;
      }
    }
  }
  return stats;
}

void validate(const AdamCheckOptions& o) {
  if (!(o.scale > 0.0 && o.scale <= 1.0)) {
    throw_usage("--scale: expected a fraction in (0, 1], got {}", o.scale);
  }
  if (o.steps.empty()) throw_usage("--steps: expected at least one step count");
  if (o.threads < 1 || o.threads > kMaxThreads) {
    throw_usage("--threads: expected 1 to {}, got {}", kMaxThreads, o.threads);
  }
  const AdamHyper& h = o.hyper;
  if (!(h.lr > 0.0 && std::isfinite(h.lr))) throw_usage("--lr: expected a positive number, got {}", h.lr);
  if (!(h.beta1 >= 0.0 && h.beta1 < 1.0) || !(h.beta2 >= 0.0 && h.beta2 < 1.0)) {
    throw_usage("--betas: expected two numbers in [0, 1), got {},{}", h.beta1, h.beta2);
  }
  if (!(h.eps > 0.0 && std::isfinite(h.eps))) throw_usage("--eps: expected a positive number, got {}", h.eps);
  if (!(h.weight_decay >= 0.0 && std::isfinite(h.weight_decay))) {
    throw_usage("--wd: expected a non-negative number, got {}", h.weight_decay);
  }
  if (o.main_grads_dtype == StateDtype::fp16) {
    throw_usage("--main-grads-dtype: Megatron keeps main grads in fp32 or bf16, got fp16");
  }
  if (o.device == Device::cuda &&
      (o.exp_avg_dtype != o.exp_avg_sq_dtype || o.exp_avg_dtype == StateDtype::fp16)) {
    throw_usage("--device cuda: the kernels keep both moments in fp32 or both in bf16");
  }
}

std::vector<StateMemory> state_memory(const AdamCheckOptions& o) {
  auto bytes = [](StateDtype d) { return d == StateDtype::fp32 ? 4.0 : 2.0; };
  constexpr double kBf16 = 2.0;
  constexpr double kFp32 = 4.0;
  std::vector<StateMemory> out;
  out.push_back({to_string(AdamPath::default_mixed), kBf16 + 4 * kFp32, 0.0});
  out.push_back({to_string(AdamPath::precision_aware),
                 kBf16 + bytes(o.main_grads_dtype) + kBf16 + bytes(o.exp_avg_dtype) +
                     bytes(o.exp_avg_sq_dtype),
                 0.0});
  // Offload: BF16 weights and FP32 grads stay on the GPU; the host holds FP32 masters, both
  // moments and the pinned copy of the grads.
  out.push_back({to_string(AdamPath::cpu_offload), kBf16 + kFp32, 4 * kFp32});
  return out;
}

}  // namespace

std::string to_string(AdamPath path) {
  switch (path) {
    case AdamPath::default_mixed: return "default";
    case AdamPath::precision_aware: return "precision-aware";
    case AdamPath::explicit_master: return "explicit-master";
    case AdamPath::cpu_offload: return "cpu-offload";
    case AdamPath::control_remainders_dropped: return "remainders-dropped";
    case AdamPath::control_truncating_split: return "truncating-split";
    case AdamPath::control_no_bias_correction: return "no-bias-correction";
  }
  return "default";
}

bool is_control(AdamPath path) {
  return path == AdamPath::control_remainders_dropped ||
         path == AdamPath::control_truncating_split ||
         path == AdamPath::control_no_bias_correction;
}

std::vector<int> parse_step_list(const std::string& text) {
  std::vector<int> steps;
  for (const std::string& raw : util::split(text, ',')) {
    const std::string item(util::trim(raw));
    int value = 0;
    const char* end = item.data() + item.size();
    const auto [ptr, ec] = std::from_chars(item.data(), end, value);
    if (item.empty() || ec != std::errc() || ptr != end || value < 1 || value > kMaxSteps) {
      throw_usage("--steps: expected step counts from 1 to {} separated by commas, got '{}'",
                  kMaxSteps, text);
    }
    steps.push_back(value);
  }
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  return steps;
}

int64_t adam_check_working_bytes(const AdamCheckOptions& o) {
  const int64_t max_step = o.steps.empty() ? 0 : o.steps.back();
  // Per element: inputs (w0, two grad sets), the reference (4 doubles + target), three FP32
  // master states (12 bytes each), four remainder states (12 bytes each), GPU outputs.
  int64_t per_element = 2 + 8 * max_step + 4 * 8 + 2 + 3 * 12 + 4 * 12;
  if (o.device == Device::cuda) per_element += 12 * max_step;
  return per_element * kSliceElements * o.threads;
}

AdamCheckReport run_adam_check(const AdamCheckOptions& options) {
  validate(options);
  AdamCheckReport report;
  report.options = options;
  report.device_detail = "cpu";
  if (options.device == Device::cuda) {
    const CudaStatus status = cuda_status();
    if (!status.built) throw Error(ErrorKind::io, "--device cuda: " + status.detail);
    if (!status.device) throw Error(ErrorKind::io, "--device cuda: no CUDA device: " + status.detail);
    report.device_detail = "cuda: " + status.detail;
  }

  Plan plan{options, layer_tensors(options.shape, options.scale), {}, options.steps.back(), {}, {}, {}, {}, {}, {}};
  report.shape_text = describe_shape(options.shape, options.scale);
  report.tensors = static_cast<int64_t>(plan.tensors.size());
  for (size_t t = 0; t < plan.tensors.size(); ++t) {
    const int64_t count = plan.tensors[t].elements();
    report.elements += count;
    for (int64_t begin = 0; begin < count; begin += kSliceElements) {
      plan.slices.push_back({t, begin, std::min(kSliceElements, count - begin)});
    }
  }
  plan.report_index.assign(static_cast<size_t>(plan.max_step) + 1, -1);
  for (size_t r = 0; r < options.steps.size(); ++r) {
    plan.report_index[static_cast<size_t>(options.steps[r])] = static_cast<int>(r);
  }
  for (int s = 1; s <= plan.max_step; ++s) {
    plan.te.push_back(te_adam_scalars(options.hyper, s, true));
    plan.te_no_bias.push_back(te_adam_scalars(options.hyper, s, false));
    plan.torch.push_back(torch_adamw_scalars(options.hyper, s));
  }

  const int workers = std::min<int>(options.threads, static_cast<int>(std::max<size_t>(plan.slices.size(), 1)));
  std::vector<Workspace> spaces(static_cast<size_t>(options.threads));

  // FusedAdam scales FP16 states per tensor from the absmax after each step, so the scales of step
  // k are found before the main pass by running the moments alone up to k.
  const bool fp16_states =
      options.exp_avg_dtype == StateDtype::fp16 || options.exp_avg_sq_dtype == StateDtype::fp16;
  if (fp16_states) {
    const size_t cells = plan.tensors.size() * static_cast<size_t>(plan.max_step);
    plan.scale_m.assign(cells, 0.0f);
    plan.scale_v.assign(cells, 0.0f);
    std::vector<std::pair<float, float>> absmax(plan.slices.size());
    for (int k = 1; k <= plan.max_step; ++k) {
      parallel_for(plan.slices.size(), workers, [&](int id, size_t i) {
        absmax[i] = moment_absmax(plan, plan.slices[i], k, spaces[static_cast<size_t>(id)]);
      });
      std::vector<float> max_m(plan.tensors.size(), 0.0f);
      std::vector<float> max_v(plan.tensors.size(), 0.0f);
      for (size_t i = 0; i < plan.slices.size(); ++i) {
        const size_t t = plan.slices[i].tensor;
        max_m[t] = std::max(max_m[t], absmax[i].first);
        max_v[t] = std::max(max_v[t], absmax[i].second);
      }
      for (size_t t = 0; t < plan.tensors.size(); ++t) {
        const size_t cell = t * static_cast<size_t>(plan.max_step) + static_cast<size_t>(k - 1);
        plan.scale_m[cell] = fp16_state_scale(max_m[t]);
        plan.scale_v[cell] = fp16_state_scale(max_v[t]);
      }
    }
  }

  std::vector<SliceStats> slice_stats(plan.slices.size());
  std::atomic<int64_t> slices_done{0};
  parallel_for(plan.slices.size(), workers, [&](int id, size_t i) {
    slice_stats[i] = run_slice(plan, plan.slices[i], spaces[static_cast<size_t>(id)]);
    if (options.progress) options.progress(++slices_done, static_cast<int64_t>(plan.slices.size()));
  });

  // Sum per tensor in slice order, then take the worst tensor of each path and step.
  const size_t reports = options.steps.size();
  const size_t tensor_count = plan.tensors.size();
  std::vector<double> ref_sq(tensor_count * reports, 0.0);
  std::vector<double> err_sq(tensor_count * kAdamPathCount * reports, 0.0);
  std::vector<uint64_t> mismatch(tensor_count * kAdamPathCount * reports, 0);
  for (size_t i = 0; i < plan.slices.size(); ++i) {
    const size_t t = plan.slices[i].tensor;
    const SliceStats& st = slice_stats[i];
    for (size_t r = 0; r < reports; ++r) ref_sq[t * reports + r] += st.ref_sq[r];
    for (size_t k = 0; k < kAdamPathCount * reports; ++k) {
      err_sq[t * kAdamPathCount * reports + k] += st.err_sq[k];
      mismatch[t * kAdamPathCount * reports + k] += st.bf16_mismatch[k];
    }
    report.bitwise_compared += st.bitwise_compared;
    report.bitwise_mismatches += st.bitwise_mismatches;
    report.remainder_ties += st.ties;
  }

  std::vector<double> default_worst(reports, 0.0);
  for (int p = 0; p < kAdamPathCount; ++p) {
    PathReport path;
    path.path = kAllPaths[p];
    for (size_t r = 0; r < reports; ++r) {
      StepError step;
      step.step = options.steps[r];
      step.rel_l2 = -1.0;
      for (size_t t = 0; t < tensor_count; ++t) {
        const double ref = ref_sq[t * reports + r];
        const double err = err_sq[t * kAdamPathCount * reports + static_cast<size_t>(p) * reports + r];
        const double rel = ref > 0.0 ? std::sqrt(err / ref) : (err > 0.0 ? HUGE_VAL : 0.0);
        if (rel > step.rel_l2) {
          step.rel_l2 = rel;
          step.worst_tensor = plan.tensors[t].name;
        }
        const double frac =
            static_cast<double>(mismatch[t * kAdamPathCount * reports + static_cast<size_t>(p) * reports + r]) /
            static_cast<double>(plan.tensors[t].elements());
        if (frac > path.bf16_mismatch || path.bf16_worst_tensor.empty()) {
          path.bf16_mismatch = frac;
          path.bf16_worst_tensor = plan.tensors[t].name;
        }
      }
      if (path.path == AdamPath::default_mixed) default_worst[r] = step.rel_l2;
      step.bound = step.step == 1 ? kBoundStepOne : kBoundFactor * default_worst[r] + kBoundStepOne;
      step.within_bound = step.rel_l2 <= step.bound;
      path.steps.push_back(step);
    }
    path.bf16_within_bound = path.bf16_mismatch <= kBf16MismatchBound;
    path.passed = path.bf16_within_bound &&
                  std::all_of(path.steps.begin(), path.steps.end(),
                              [](const StepError& e) { return e.within_bound; });
    report.paths.push_back(std::move(path));
  }

  if (options.self_test) {
    report.self_test = run_remainder_self_test();
    report.self_test_ran = true;
  }
  report.memory = state_memory(options);

  report.checks_passed = report.bitwise_mismatches == 0 && (!report.self_test_ran || report.self_test.passed());
  report.controls_failed = true;
  for (const PathReport& path : report.paths) {
    if (is_control(path.path)) {
      report.controls_failed = report.controls_failed && !path.passed;
    } else {
      report.checks_passed = report.checks_passed && path.passed;
    }
  }
  report.passed = report.checks_passed && report.controls_failed;
  return report;
}

}  // namespace ladle::numerics
