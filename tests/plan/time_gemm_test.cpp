// The FP8 quantisation bytes of a layer's dense GEMMs (plan/time_gemm.cpp, dense_gemms): each
// GEMM input cast once however many GEMMs read it, under sequence parallelism on the rank's
// sequence shard before the all-gather, and torchtitan without TP casting per linear. Counted by
// hand for Llama-3.1-8B's layer (q, k, v, o; gate, up, down as the checkpoint's tensors).
#include "ladle/plan/time_gemm.hpp"

#include <gtest/gtest.h>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibration.hpp"
#include "ladle/plan/time_rates.hpp"

namespace ladle::plan {
namespace {

constexpr double kTokens = 8192;
constexpr double kCast = 3;  // read 2, write 1
constexpr double kCopy = 2;  // the column-wise copy: read 1, write 1

struct LayerCase {
  ModelSpec model;
  ModelCosts costs;
  Cluster cluster;
  Layout layout;
  Workload workload;
};

LayerCase setup(const std::string& spec, int64_t gpus, Stack stack) {
  LayerCase s;
  s.model = model::load_model("llama-3.1-8b");
  s.costs = model_costs(s.model, 8192);
  s.cluster = make_cluster("h100-sxm", gpus);
  const layout::LayoutContext context{gpus, 8, 8192, 64};
  s.layout = layout::resolve_layout(layout::parse_layout_spec(spec), context);
  s.workload.precision = Precision::fp8;
  s.workload.stack = stack;
  return s;
}

double layer_cast_bytes(const LayerCase& s) {
  const timing::Rates r = timing::time_rates(s.layout, s.cluster, s.workload, Calibration{});
  const double tp = static_cast<double>(s.layout.tp);
  const timing::KindInputs in{.c = s.costs,
                              .kind = s.costs.kinds.at(0),
                              .l = s.layout,
                              .r = r,
                              .w = s.workload,
                              .tokens = kTokens,
                              .tp = tp,
                              .sp_div = s.layout.sp ? tp : 1.0,
                              .fp8 = true,
                              .per_gemm = 2.0};
  timing::LayerForward f;
  timing::dense_gemms(in, f);
  return f.cast_bytes;
}

// The output gradients: one per GEMM, at each GEMM's width on this rank; the row-parallel ones
// (o, down: 4,096 wide) are cast on `grad_rows` rows and copied on all.
double output_grads(double tp, double grad_rows) {
  const double m = kTokens;
  const double column = 4096 / tp + 2 * 1024 / tp + 2 * 14336 / tp;  // q, k, v, gate, up
  return (kCast + kCopy) * m * column + 2 * (kCast * grad_rows * 4096 + kCopy * m * 4096);
}

TEST(TimeGemm, SequenceParallelCastsEachSharedInputOnceOnTheShard) {
  const LayerCase s = setup("tp=8,sp=on,pp=1,dp=1,rows_per_mb=1", 8, Stack::megatron);
  ASSERT_EQ(s.costs.kinds.at(0).gemms.size(), 7u);
  const double m = kTokens;
  const double shard = m / 8;
  // The attention's and the MLP's inputs (4,096 wide): cast on the shard, copied once gathered.
  const double shared_inputs = 2 * (kCast * shard * 4096 + kCopy * m * 4096);
  // o's and down's inputs: the rank's slices of the attention output and the activation.
  const double row_inputs = (kCast + kCopy) * m * (4096 / 8 + 14336 / 8);
  EXPECT_DOUBLE_EQ(layer_cast_bytes(s), shared_inputs + row_inputs + output_grads(8, shard));
}

TEST(TimeGemm, WithoutSequenceParallelTheCastsRunOnEveryRow) {
  const LayerCase s = setup("tp=8,sp=off,pp=1,dp=1,rows_per_mb=1", 8, Stack::megatron);
  const double m = kTokens;
  const double shared_inputs = 2 * (kCast + kCopy) * m * 4096;
  const double row_inputs = (kCast + kCopy) * m * (4096 / 8 + 14336 / 8);
  EXPECT_DOUBLE_EQ(layer_cast_bytes(s), shared_inputs + row_inputs + output_grads(8, m));
}

// torchtitan without TP: each Float8Linear casts its own input, so q, k and v cast the
// attention's input three times and gate and up the MLP's twice; with TP, PrepareFloat8ModuleInput
// casts each once, as Transformer Engine's fused linears do.
TEST(TimeGemm, TorchtitanWithoutTpCastsPerLinear) {
  const double m = kTokens;
  const double row_inputs = (kCast + kCopy) * m * (4096 + 14336);
  const double per_linear = (3 + 2) * (kCast + kCopy) * m * 4096 + row_inputs + output_grads(1, m);
  const double shared = 2 * (kCast + kCopy) * m * 4096 + row_inputs + output_grads(1, m);
  EXPECT_DOUBLE_EQ(layer_cast_bytes(setup("tp=1,pp=1,dp=8,rows_per_mb=1", 8, Stack::torchtitan)), per_linear);
  EXPECT_DOUBLE_EQ(layer_cast_bytes(setup("tp=1,pp=1,dp=8,rows_per_mb=1", 8, Stack::megatron)), shared);
  const LayerCase tp8 = setup("tp=8,sp=on,pp=1,dp=1,rows_per_mb=1", 8, Stack::torchtitan);
  EXPECT_DOUBLE_EQ(layer_cast_bytes(tp8), layer_cast_bytes(setup("tp=8,sp=on,pp=1,dp=1,rows_per_mb=1", 8, Stack::megatron)));
}

}  // namespace
}  // namespace ladle::plan
