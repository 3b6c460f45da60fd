// gpu_json.cpp: the JSON form of GpuSpec and InstanceSpec.
#include "ladle/hw/gpu_json.hpp"

#include "ladle/hw/hw_facts.hpp"
#include "ladle/util/rounding.hpp"

namespace ladle::hw {

nlohmann::ordered_json to_json(const InstanceSpec& i) {
  nlohmann::ordered_json j;
  j["name"] = i.name;
  j["provider"] = i.provider;
  j["gpu"] = i.gpu;
  j["gpu_count"] = i.gpu_count;
  j["network_gbps"] = i.network_gbps;
  j["network"] = i.network;
  j["fabric"] = i.fabric;
  j["nics"] = i.nics;
  j["nic_gbps"] = i.nic_gbps;
  j["nvlink_domain"] = i.nvlink_domain;
  j["host_memory_gib"] = i.host_memory_gib;
  j["vcpus"] = i.vcpus;
  j["usd_per_hour"] = i.usd_per_hour;
  j["usd_per_gpu_hour"] = i.usd_per_gpu_hour();
  j["price_region"] = i.price_region;
  j["price_date"] = i.price_date;
  j["price_source"] = i.price_source;
  j["sources"] = i.sources;
  return j;
}

nlohmann::ordered_json to_json(const GpuSpec& g, const std::vector<InstanceSpec>& instances) {
  nlohmann::ordered_json j;
  j["name"] = g.name;
  j["display_name"] = g.display_name;
  j["vendor"] = g.vendor;
  j["aliases"] = g.aliases;
  j["bf16_dense_tflops"] = g.bf16_dense_tflops;
  j["fp8_dense_tflops"] = g.fp8_dense_tflops;
  j["fp4_dense_tflops"] = g.fp4_dense_tflops;
  // The GEMM rates the time model prices (kernels.yaml): measured, or the fallback it names.
  const PricedGemmRates rates = priced_gemm_rates(g);
  nlohmann::ordered_json gemm;
  gemm["bf16_tflops"] = rates.bf16;
  if (g.fp8_dense_tflops > 0) {
    gemm["fp8_tflops"] = rates.fp8;
    gemm["fp8_block_scaled_tflops"] = rates.fp8_block;
  }
  if (rates.nvfp4 > 0) gemm["nvfp4_tflops"] = rates.nvfp4;
  if (rates.mxfp4 > 0) gemm["mxfp4_tflops"] = rates.mxfp4;
  if (rates.fallback.empty()) {
    gemm["source"] = rates.source;
  } else {
    gemm["fallback"] = rates.fallback;
  }
  j["gemm_priced"] = gemm;
  if (const KernelFacts::GpuAttention* own = gpu_attention(g.name)) {
    j["attention_measured"] = {{"kernel", own->kernel},
                               {"forward_tflops_causal_8k_head_128", own->curve.at_reference()},
                               {"over_h100_cudnn_share", attention_gpu_ratio(g)},
                               {"source", own->curve.source}};
  }
  if (const KernelFacts::AttentionLength* row = attention_length_row(g.name)) {
    nlohmann::ordered_json lengths = nlohmann::ordered_json::array(), forward = nlohmann::ordered_json::array(),
                           backward = nlohmann::ordered_json::array();
    for (const double tokens : row->tokens) {
      const AttentionLengthRatio r = attention_length_ratio(g.name, tokens);
      lengths.push_back(static_cast<int64_t>(tokens));
      forward.push_back(util::round_to(r.forward, 3));
      backward.push_back(util::round_to(r.backward, 3));
    }
    j["attention_by_length"] = {{"measured_on", row->gpus.front()},
                                {"tokens", lengths},
                                {"forward_over_8192", forward},
                                {"backward_over_8192", backward},
                                {"source", row->source}};
  }
  j["hbm_gb"] = g.hbm_gb;
  j["hbm_gib"] = g.hbm_gib();
  j["hbm_tb_per_s"] = g.hbm_tb_per_s;
  j["intra_node_gb_per_s"] = g.intra_node_gb_per_s;
  j["intra_node_link"] = g.intra_node_link;
  j["gpus_per_node"] = g.gpus_per_node;
  j["nvlink_domain_gpus"] = g.nvlink_domain_gpus;
  j["tdp_w"] = g.tdp_w;
  // The device-reported maximum clock where one is published; null where none is.
  j["max_clock_mhz"] =
      g.max_clock_mhz > 0 ? nlohmann::ordered_json(g.max_clock_mhz) : nlohmann::ordered_json();
  j["sm_count"] = g.sm_count;
  nlohmann::ordered_json on_it = nlohmann::ordered_json::array();
  for (const InstanceSpec& i : instances) on_it.push_back(to_json(i));
  j["instances"] = on_it;
  j["sources"] = g.sources;
  j["checked"] = g.checked;
  return j;
}

}  // namespace ladle::hw
