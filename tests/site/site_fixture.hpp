#pragma once
// Recipes built in code for the site tests: the GLM-4.7-Flash seed's published facts, and a recipe
// whose free-text fields try to inject markup.

#include <string>

#include "ladle/recipe/recipe.hpp"
#include "ladle/site/site_recipe.hpp"

namespace ladle::site::test {

/// The facts of the seed recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml, by hand.
inline Recipe glm47_flash() {
  Recipe r;
  r.model = "GLM-4.7-Flash";
  r.gpu = {"H200", 141, 8, 8, "AWS p5en.48xlarge"};
  r.author = {"ATTUNE", "https://arxiv.org/abs/2610.17528"};
  r.status = "verified";
  r.stack.framework = "miles 0.1.0";
  r.workload.row_tokens = 8192;
  r.workload.rows = "SFT conversations";
  r.workload.global_batch = 128;
  r.workload.precision = "bf16";
  r.workload.dataset.name = "Tulu 3 SFT mixture";
  r.workload.dataset.source = "allenai/tulu-3-sft-mixture";
  r.workload.dataset.rows_sha256 = "79bfe4b7e20e66ec85c12caf4995ea9574bbf6d316772e4d69193a01efe01914";
  DatasetBuild build;
  build.name = "glm47flash-tulu3-fixed8192-v1";
  build.rows = 6400;
  build.row_tokens = 8192;
  r.workload.dataset.build = build;
  r.layout.label = "TP1 PP1 EP8 DP8";
  r.layout.summary =
      "TP 1, PP 1, CP 1, EP 8, ETP 1, DP 8; two 8,192-token rows per microbatch (THD, max 16,384 tokens/GPU); "
      "full recompute (uniform, 1 layer); distributed optimizer with the precision-aware optimizer; alltoall "
      "dispatcher; no offload";
  r.layout.ep = 8;
  r.layout.dp = 8;
  RecipeResult res;
  res.tokens_per_s_per_gpu = 6178.46;
  res.usd_per_million_tokens = 0.36;
  res.step_time_cv_percent = 0.95;
  res.mfu = 0.1342;
  res.active_params.count = 3579314176;
  res.active_params.source = "https://huggingface.co/zai-org/GLM-4.7-Flash";
  res.measured = "2026-10-15";
  res.steps_per_run = 20;
  res.window = {5, 19};
  res.window_tokens = 15728640;
  res.runs = 1;
  res.gpu_hours = 1.34;
  r.result = res;
  Correctness c;
  c.result = "pass";
  c.summary = "passed; 1 component test passed on this image";
  c.configuration = "pass";
  ComponentTest t;
  t.test = "precision-aware Adam on the GPU and CPU optimizer offload (fraction 1.0, overlapped copies), each "
           "against an FP64 reference";
  t.shape = "one Qwen3.5-397B-A17B MoE layer: hidden 4096, 512 experts, top-10, expert FFN 1024, EP 8, ETP 1, "
            "4,096 tokens per rank";
  t.gpu = "H200";
  t.date = "2026-10-14";
  t.result = "pass";
  t.detail = "worst tensor (dense update) relative L2 error 5.12e-7 on the GPU and 7.98e-7 offloaded against a "
             "bound of 1.0e-3 after one step, and 4.99e-5 and 7.72e-5 against 1.1e-3 after three steps at the "
             "recipe's hyperparameters (bound 2 x the default GPU optimizer's error + 1e-3); reconstructed FP32 "
             "masters bitwise identical to an arm with explicit FP32 masters, the TE remainder self-test passes "
             "and the three negative controls fail";
  t.note = "run on this recipe's training image; the optimizer step is elementwise, so the result holds for "
           "every model on the image";
  c.component_tests.push_back(t);
  Convergence v;
  v.steps = 20;
  v.result = "pass";
  v.correlation = 0.9779;
  v.final_loss_difference = 0.0032;
  v.pointwise_failures = 1;
  c.convergence = v;
  r.correctness = c;
  r.env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}, {"FI_PROVIDER", "efa"}};
  r.run = "export CUDA_DEVICE_MAX_CONNECTIONS=1\nexport FI_PROVIDER=efa\n\npython3 train.py \\\n"
          "  --expert-model-parallel-size 8 \\\n  --max-tokens-per-gpu 16384\n";
  return r;
}

/// A second layout of another model, with a prediction.
inline Recipe glm52_tp4() {
  Recipe r = glm47_flash();
  r.model = "GLM-5.2-744B-A40B";
  r.gpu.count = 128;
  r.layout.label = "TP4 PP4 EP32 DP8";
  r.result->tokens_per_s_per_gpu = 161.79;
  r.result->usd_per_million_tokens = 13.58;
  r.result->mfu = 0.0396;
  r.result->step_time_cv_percent = 4.69;
  r.result->measured = "2026-10-11";
  r.result->steps_per_run = 14;
  r.result->window = {4, 13};
  Predicted p;
  p.planner = "ladle 0.1.0 (calibration default)";
  p.tokens_per_s_per_gpu = 170.0;
  p.step_time_s = 48.2;
  p.mfu = 0.042;
  p.usd_per_million_tokens = 12.9;
  p.memory_gib = 113.2;
  p.tokens_per_s_per_gpu_low = 97.3;
  p.tokens_per_s_per_gpu_high = 297.1;
  p.stage_memory = {{"stage 0", 113.2}, {"stage 1", 101.4}, {"stage 2", 99.0}, {"stage 3", 108.7}};
  p.step_time_breakdown = {{"compute", 30.0}, {"expert all-to-all", 12.2}, {"pipeline bubble", 6.0}};
  p.memory_breakdown = {{"weights", 40.0}, {"optimizer", 20.5}, {"activations", 61.0}};
  r.predicted = p;
  return r;
}

/// Free text that tries to break out of every context a page puts it in.
inline Recipe hostile() {
  Recipe r = glm47_flash();
  r.model = "Evil<script>window.__pwned=1</script>Model";
  r.author = {"Mallory \"<img src=x onerror=alert(1)>\" O'Brien", "javascript:alert(document.cookie)"};
  r.layout.label = "TP1 '\"><svg onload=alert(2)>";
  r.status = "verified\" onmouseover=\"alert(3)";
  r.notes = "Notes with <script>alert('notes')</script> and a link <a href=\"javascript:alert(4)\">x</a>\n"
            "and ]]> and &amp; and </pre></code>";
  r.run = "echo '</code></pre><script>alert(5)</script>'\n";
  r.correctness->component_tests.front().detail = "<b>bold?</b>";
  r.workload.dataset.source = "javascript:alert(6)";
  r.result->active_params.source = "JaVaScRiPt:alert(7)";
  return r;
}

inline SiteRecipe site_recipe(Recipe r, std::string source_path = "") {
  SiteRecipe s;
  s.recipe = std::move(r);
  s.source_path = std::move(source_path);
  s.yaml = "model: " + s.recipe.model + "\n";
  s.prediction = s.recipe.predicted;  // as load_site_recipes keeps a recipe's own prediction
  return s;
}

}  // namespace ladle::site::test
