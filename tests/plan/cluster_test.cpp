#include "ladle/plan/cluster.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "ladle/hw/catalog.hpp"
#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/predictor.hpp"
#include "support/test_support.hpp"

namespace ladle::plan {
namespace {

double part(const TimeEstimate& t, TimePart p) { return t.parts[static_cast<size_t>(p)]; }

TimeEstimate time_on(const Cluster& cluster, const std::string& model_name,
                     const std::string& spec) {
  const ModelSpec model = model::load_model(model_name);
  const ModelCosts costs = model_costs(model, 4096);
  const layout::LayoutContext context{cluster.gpus, cluster.gpus_per_node(), 4096, 256};
  const Layout l = layout::resolve_layout(layout::parse_layout_spec(spec), context);
  return estimate_time(costs, l, layout::stage_layers(l, model.num_layers),
                       layout::microbatches_per_step(l, context), cluster,
                       Workload{4096, 256, Precision::bf16}, Calibration{});
}

// The same cluster with a tenth of its scale-out network.
Cluster slow_fabric(Cluster cluster) {
  cluster.instance.network_gbps /= 10;
  return cluster;
}

TEST(Cluster, NvlinkDomainOfEachSystem) {
  EXPECT_EQ(make_cluster("h100", 64).nvlink_domain(), 8);
  EXPECT_EQ(make_cluster("h100", 64, "superpod-h100").nvlink_domain(), 8);
  const Cluster nvl72 = make_cluster("gb200", 64);
  EXPECT_EQ(nvl72.instance.name, "gb200-nvl72");
  EXPECT_EQ(nvl72.gpus_per_node(), 4);
  EXPECT_EQ(nvl72.nvlink_domain(), 72);
  EXPECT_EQ(make_cluster("gb300", 72).nvlink_domain(), 72);
  // A domain is never smaller than a node, even for a GPU row that says less.
  Cluster odd = make_cluster("h200", 16);
  odd.instance.nvlink_domain = 0;
  odd.gpu.nvlink_domain_gpus = 1;
  EXPECT_EQ(odd.nvlink_domain(), 8);
}

TEST(Cluster, ExpertParallel64OnNvl72NeverCrossesTheFabric) {
  // DeepSeek-V3, EP 64 over 64 GPUs: inside one NVL72 domain the all-to-all is all NVLink, so a
  // fabric ten times slower leaves it unchanged; on an H100 InfiniBand cluster (8-GPU domains)
  // it crosses the fabric and slows down.
  const std::string spec = "tp=1,pp=1,ep=64,recompute=full";
  const Cluster nvl72 = make_cluster("gb200", 64);
  const double on_nvl72 = part(time_on(nvl72, "deepseek-v3", spec), TimePart::ep_comm);
  EXPECT_GT(on_nvl72, 0);
  EXPECT_DOUBLE_EQ(part(time_on(slow_fabric(nvl72), "deepseek-v3", spec), TimePart::ep_comm),
                   on_nvl72);

  const Cluster ib = make_cluster("h100", 64, "superpod-h100");
  const double on_ib = part(time_on(ib, "deepseek-v3", spec), TimePart::ep_comm);
  EXPECT_GT(part(time_on(slow_fabric(ib), "deepseek-v3", spec), TimePart::ep_comm), 2 * on_ib);

  // The same GB200 GPUs in 4-GPU NVLink domains would send most tokens over the fabric.
  Cluster trays = nvl72;
  trays.instance.nvlink_domain = 4;
  trays.gpu.nvlink_domain_gpus = 4;
  EXPECT_GT(part(time_on(trays, "deepseek-v3", spec), TimePart::ep_comm), 2 * on_nvl72);
}

TEST(Cluster, EightGpuNodesKeepTheirPredictions) {
  // The domain of an 8-GPU node is the node: two nodes of the same fabric and the same 3200
  // Gbit/s, made of 32 x 100 or 8 x 400 Gbit/s NICs, are priced alike in every part.
  const std::string spec = "tp=2,pp=2,ep=16,recompute=full";
  const Cluster aws = make_cluster("h100", 64);
  Cluster wide_nics = aws;
  wide_nics.instance.nics = 8;
  wide_nics.instance.nic_gbps = 400;
  const TimeEstimate a = time_on(aws, "qwen3-30b-a3b", spec);
  const TimeEstimate b = time_on(wide_nics, "qwen3-30b-a3b", spec);
  for (size_t i = 0; i < kTimeParts; ++i) EXPECT_DOUBLE_EQ(a.parts[i], b.parts[i]) << i;
  // Another fabric of the same bandwidth is priced from its own published sweeps: the
  // cross-node all-to-all differs, what stays inside a node does not.
  const TimeEstimate pod = time_on(make_cluster("h100", 64, "superpod-h100"), "qwen3-30b-a3b", spec);
  EXPECT_NE(a.parts[static_cast<size_t>(TimePart::ep_comm)], pod.parts[static_cast<size_t>(TimePart::ep_comm)]);
  EXPECT_DOUBLE_EQ(a.parts[static_cast<size_t>(TimePart::dense_gemm)], pod.parts[static_cast<size_t>(TimePart::dense_gemm)]);
}

TEST(Cluster, PriceOverrideSetsThePerGpuHour) {
  Cluster c = make_cluster("gb200", 72);
  override_price(c, 3.5);
  EXPECT_DOUBLE_EQ(c.instance.usd_per_gpu_hour(), 3.5);
  EXPECT_DOUBLE_EQ(c.instance.usd_per_hour, 14.0);
  EXPECT_LADLE_ERROR(override_price(c, 0), usage, "--price");
  EXPECT_LADLE_ERROR(override_price(c, -1), usage, "--price");
}

TEST(Cluster, PriceScalesTheCostPerMillionTokens) {
  const ModelSpec model = model::load_model("deepseek-v3");
  const ModelCosts costs = model_costs(model, 4096);
  Cluster cluster = make_cluster("gb200", 64);
  const layout::LayoutContext context{64, cluster.gpus_per_node(), 4096, 256};
  const Layout l =
      layout::resolve_layout(layout::parse_layout_spec("tp=1,pp=1,ep=64,recompute=full"), context);
  const Workload w{4096, 256, Precision::bf16};
  const Prediction listed = predict(costs, model, l, cluster, w, Calibration{});
  override_price(cluster, 3 * cluster.instance.usd_per_gpu_hour());
  const Prediction tripled = predict(costs, model, l, cluster, w, Calibration{});
  EXPECT_GT(listed.usd_per_million_tokens, 0);
  EXPECT_NEAR(tripled.usd_per_million_tokens, 3 * listed.usd_per_million_tokens,
              1e-9 * tripled.usd_per_million_tokens);
  EXPECT_DOUBLE_EQ(tripled.tokens_per_s_per_gpu, listed.tokens_per_s_per_gpu);
}

TEST(Cluster, ClusterFileDescribesAnOnPremCluster) {
  const std::string path = testing::TempDir() + "onprem.yaml";
  {
    std::ofstream out(path);
    out << "gpu: h200\ngpus_per_node: 8\nnvlink_domain: 8\nfabric: RoCE\nnics: 8\nnic_gbps: 400\n"
           "host_memory_gib: 2048\nusd_per_gpu_hour: 2.5\n";
  }
  const Cluster c = make_cluster(ClusterOptions{"", "", path, std::nullopt}, 32);
  EXPECT_EQ(c.gpu.name, "h200");
  EXPECT_EQ(c.instance.name, "onprem");
  EXPECT_EQ(c.instance.fabric, "RoCE");
  EXPECT_DOUBLE_EQ(c.instance.network_gbps, 3200);
  EXPECT_DOUBLE_EQ(c.instance.usd_per_gpu_hour(), 2.5);
  EXPECT_EQ(c.nvlink_domain(), 8);
  const Cluster priced = make_cluster(ClusterOptions{"", "", path, 4.0}, 32);
  EXPECT_DOUBLE_EQ(priced.instance.usd_per_gpu_hour(), 4.0);
  EXPECT_LADLE_ERROR(make_cluster(ClusterOptions{"b200", "", path, std::nullopt}, 32), usage,
                     "contradicts");
  EXPECT_LADLE_ERROR(make_cluster(ClusterOptions{"", "p5.48xlarge", path, std::nullopt}, 32), usage,
                     "not both");
}

}  // namespace
}  // namespace ladle::plan

namespace ladle::plan {
namespace {

// The one checking context (issue 28): built from the model, the cluster's GPU and the workload, so
// that predict (a layout, a recipe or a job's arguments), plan and check refuse the same layouts.
TEST(CheckingContext, CarriesThePrecisionsTheGpuRuns) {
  const ModelSpec model = model::load_model("qwen3-30b-a3b");
  const Workload workload{8192, 128, Precision::bf16};
  const layout::LayoutContext h100 = checking_context(model, make_cluster("h100", 16), workload);
  EXPECT_TRUE(h100.gpu_fp8);
  EXPECT_FALSE(h100.gpu_mxfp8);
  EXPECT_FALSE(h100.gpu_nvfp4);
  EXPECT_EQ(h100.gpu, "h100-sxm");
  EXPECT_EQ(h100.num_layers, model.num_layers);
  EXPECT_EQ(h100.gpus, 16);
  const layout::LayoutContext b200 = checking_context(model, make_cluster("b200", 16), workload);
  EXPECT_TRUE(b200.gpu_mxfp8);
  EXPECT_TRUE(b200.gpu_nvfp4);
  EXPECT_TRUE(b200.gpu_mxfp4);
  EXPECT_FALSE(h100.gpu_mxfp4);
  // CDNA 4 scales by E8M0 blocks only: MXFP8 and MXFP4, no NVFP4.
  Cluster mi355x = make_cluster("h100", 16);
  mi355x.gpu = hw::require_gpu("mi355x");
  const layout::LayoutContext amd = checking_context(model, mi355x, workload);
  EXPECT_TRUE(amd.gpu_mxfp8);
  EXPECT_TRUE(amd.gpu_mxfp4);
  EXPECT_FALSE(amd.gpu_nvfp4);
}

TEST(CheckingContext, PredictRefusesMxfp8OnHopperWhereverTheLayoutComesFrom) {
  // predict() is what --recipe and the calibration reach: it checks against the same context.
  const ModelSpec model = model::load_model("qwen3-30b-a3b");
  const Workload workload{8192, 128, Precision::bf16};
  const ModelCosts costs = model_costs(model, workload.row_tokens);
  for (const char* gpu : {"h100", "b200"}) {
    const Cluster cluster = make_cluster(gpu, 16);
    const Layout layout = layout::resolve_layout(layout::parse_layout_spec("tp=2,ep=8,sp=on,fp8=e4m3,fp8_recipe=mxfp8"),
                                                 checking_context(model, cluster, workload));
    const std::optional<layout::LayoutViolation> v =
        layout::precision_violation(layout, checking_context(model, cluster, workload));
    if (std::string(gpu) == "b200") {
      EXPECT_FALSE(v.has_value());
      EXPECT_NO_THROW(predict(costs, model, layout, cluster, workload, default_calibration()));
      continue;
    }
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->knob, "fp8_recipe");
    try {
      predict(costs, model, layout, cluster, workload, default_calibration());
      ADD_FAILURE() << "MXFP8 on H100 was priced";
    } catch (const Error& e) {
      EXPECT_NE(e.message().find("mxfp8"), std::string::npos) << e.message();
      EXPECT_NE(e.message().find("h100-sxm has none"), std::string::npos) << e.message();
    }
  }
}

}  // namespace
}  // namespace ladle::plan
