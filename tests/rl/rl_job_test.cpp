// The slime and miles RL jobs `ladle plan --rl --emit` writes (rl_job.hpp) run under stand-ins for
// ray, python3, srun, scontrol and ssh that record their argv: the entry point (train.py, or
// train_async.py one step off-policy) receives exactly the planned arguments (the split, the
// engine's layout, the trainer's layout, the workload), the model's arguments in place of
// "${MODEL_ARGS[@]}"; a missing input stops the job with exit 2 before anything starts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ladle/layout/layout_rules.hpp"
#include "ladle/layout/layout_spec.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/plan/calibrate.hpp"
#include "ladle/plan/predictor.hpp"
#include "ladle/rl/rl_job.hpp"
#include "ladle/rl/rl_step.hpp"
#include "ladle/util/error.hpp"

namespace ladle::rl {
namespace {

namespace fs = std::filesystem;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

RolloutModel fixed_rollout() {
  return [](const ModelSpec&, const GpuSpec&, const EngineLayout&, int, const RolloutWorkload&) {
    RolloutEstimate e;
    e.seconds = e.seconds_lo = e.seconds_hi = 60;
    e.memory.weights_bytes = 10 * kGiB;
    return e;
  };
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "ladle-rl-job-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

void write(const fs::path& p, const std::string& text, bool exec = false) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
  if (exec) fs::permissions(p, fs::perms::owner_all);
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Each stand-in appends its name and argv, NUL-separated, to $CALLS.
constexpr const char* kRecord = "#!/bin/bash\nprintf '%s\\0' CALL \"$(basename \"$0\")\" \"$@\" >> \"$CALLS\"\n";

struct JobRun {
  int status = 0;
  std::string err;
  std::vector<std::vector<std::string>> calls;
};

JobRun run_job(const TempDir& dir, const std::string& script, bool with_prompts = true) {
  const fs::path bin = dir.path / "bin";
  for (const char* tool : {"ray", "srun", "scontrol", "ssh"}) write(bin / tool, kRecord, true);
  // python3: the miles model-argument helper prints the model's arguments; anything else records.
  write(bin / "python3",
        "#!/bin/bash\nif [[ \"${1:-}\" == *model_args_utils.py ]]; then echo '--num-layers 2 --hidden-size 64'; "
        "exit 0; fi\nprintf '%s\\0' CALL python3 \"$@\" >> \"$CALLS\"\n",
        true);
  for (const char* d : {"slime", "miles", "hf", "dist"}) fs::create_directories(dir.path / d);
  write(dir.path / "slime/scripts/models/glm4.7-30B-A3B.sh", "MODEL_ARGS=(--num-layers 2 --hidden-size 64)\n");
  write(dir.path / "prompts.jsonl", "{}\n");
  write(dir.path / "hosts", "node-a\nnode-b\n");
  write(dir.path / "job.sh", script);
  const fs::path calls = dir.path / "calls";
  const fs::path err = dir.path / "err";
  std::string env = "env -i PATH=" + bin.string() + ":/usr/bin:/bin CALLS=" + calls.string() +
                    " SLIME_DIR=" + (dir.path / "slime").string() + " MILES_DIR=" + (dir.path / "miles").string() +
                    " HF_CKPT=" + (dir.path / "hf").string() + " TORCH_DIST=" + (dir.path / "dist").string() +
                    " OUTPUT_DIR=" + (dir.path / "out").string() + " HOSTFILE=" + (dir.path / "hosts").string();
  if (with_prompts) env += " PROMPT_DATA=" + (dir.path / "prompts.jsonl").string();
  JobRun run;
  const int rc = std::system((env + " bash " + (dir.path / "job.sh").string() + " 2> " + err.string()).c_str());
  run.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  run.err = read(err);
  const std::string text = read(calls);
  std::vector<std::string> words;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\0') continue;
    words.push_back(text.substr(start, i - start));
    start = i + 1;
  }
  for (const std::string& w : words) {
    if (w == "CALL") {
      run.calls.emplace_back();
    } else if (!run.calls.empty()) {
      run.calls.back().push_back(w);
    }
  }
  return run;
}

RlJobRequest request(Mode mode, layout::Engine engine, const ModelSpec& model) {
  RlWork w;
  w.rollout = {.prompts = 32, .samples_per_prompt = 8, .prompt_tokens = 1024, .response_mean = 4096,
               .response_max = 8192};
  w.ref_logprobs = mode == Mode::sync;
  const int64_t gpus = mode == Mode::colocated ? 8 : 16;
  const int64_t trainer = mode == Mode::colocated ? 8 : 8;
  const plan::Cluster cluster = plan::make_cluster("h200", gpus);
  RlSetup setup{.mode = mode, .rollout_gpus = mode == Mode::colocated ? 8 : gpus - trainer, .trainer_gpus = trainer,
                .engine = {.gpus = 4, .tp = 4, .dp_attention = 4, .ep = 4, .mem_fraction = 0.7}};
  const layout::LayoutContext context =
      plan::checking_context(model, plan::make_cluster("h200", trainer), training_workload(w, trainer));
  setup.trainer = layout::resolve_layout(layout::parse_layout_spec("tp=1,pp=1,ep=8,recompute=full"), context);
  RlJobRequest r;
  r.model = &model;
  r.step = predict_rl_step(model, setup, cluster, w, plan::default_calibration(), fixed_rollout());
  r.work = w;
  r.engine = engine;
  r.gpus_per_node = 8;
  r.title = "a title with $(touch pwned) and `backticks`";
  return r;
}

// The words the entry point gets, after `ray job submit ... --`.
std::vector<std::string> entry_words(const JobRun& run) {
  for (const auto& call : run.calls) {
    if (call.size() > 2 && call[0] == "ray" && call[1] == "job") {
      const auto dash = std::find(call.begin(), call.end(), "--");
      if (dash != call.end()) return {dash + 1, call.end()};
    }
  }
  return {};
}

class RlJobRuns : public ::testing::TestWithParam<std::tuple<Mode, layout::Engine>> {};

TEST_P(RlJobRuns, EntryPointGetsThePlannedArguments) {
  const auto [mode, engine] = GetParam();
  const ModelSpec model = model::load_model("glm-4.7-flash");
  const RlJobRequest r = request(mode, engine, model);
  TempDir dir;
  const JobRun run = run_job(dir, rl_job_script(r));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_FALSE(fs::exists(dir.path / "pwned"));
  std::vector<std::string> expected = {"python3", rl_entry_point(mode), "--num-layers", "2", "--hidden-size", "64"};
  const std::vector<std::string> planned = rl_entry_args(r);
  expected.insert(expected.end(), planned.begin() + 1, planned.end());  // "${MODEL_ARGS[@]}" expanded above
  // $VARIABLE inputs arrive expanded.
  for (std::string& w : expected) {
    if (w == "$HF_CKPT") w = (dir.path / "hf").string();
    if (w == "$TORCH_DIST") w = (dir.path / "dist").string();
    if (w == "$PROMPT_DATA") w = (dir.path / "prompts.jsonl").string();
    if (w == "$OUTPUT_DIR/checkpoints") w = (dir.path / "out/checkpoints").string();
  }
  EXPECT_EQ(entry_words(run), expected);
  const auto has = [&](const std::string& flag) {
    return std::find(expected.begin(), expected.end(), flag) != expected.end();
  };
  EXPECT_EQ(has("--colocate"), mode == Mode::colocated);
  EXPECT_EQ(has("--use-kl-loss"), mode == Mode::sync);
  EXPECT_TRUE(has("--rollout-num-gpus-per-engine"));
  EXPECT_TRUE(has("--sglang-enable-dp-attention"));
  EXPECT_TRUE(has("--expert-model-parallel-size"));
  const auto value = [&](const std::string& flag) {
    const auto it = std::find(expected.begin(), expected.end(), flag);
    return it == expected.end() || it + 1 == expected.end() ? std::string() : *(it + 1);
  };
  EXPECT_EQ(value("--rollout-num-gpus"), "8");
  EXPECT_EQ(value("--actor-num-gpus-per-node"), "8");
  EXPECT_EQ(value("--rollout-max-response-len"), "8192");
  EXPECT_EQ(value("--sglang-mem-fraction-static"), "0.7");
  // Two nodes for a 16-GPU split: a Ray worker on the second node (here through ssh).
  const bool two_nodes = mode != Mode::colocated;
  const bool worker = std::any_of(run.calls.begin(), run.calls.end(),
                                  [](const auto& c) { return !c.empty() && c[0] == "ssh"; });
  EXPECT_EQ(worker, two_nodes);
}

INSTANTIATE_TEST_SUITE_P(
    Jobs, RlJobRuns,
    ::testing::Values(std::make_tuple(Mode::colocated, layout::Engine::slime),
                      std::make_tuple(Mode::colocated, layout::Engine::miles),
                      std::make_tuple(Mode::sync, layout::Engine::slime),
                      std::make_tuple(Mode::async, layout::Engine::slime),
                      std::make_tuple(Mode::async, layout::Engine::miles)));

TEST(RlJob, MissingInputStopsTheJobBeforeAnythingStarts) {
  const ModelSpec model = model::load_model("glm-4.7-flash");
  TempDir dir;
  const JobRun run = run_job(dir, rl_job_script(request(Mode::colocated, layout::Engine::slime, model)), false);
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("PROMPT_DATA is not set"), std::string::npos) << run.err;
  EXPECT_TRUE(run.calls.empty());
}

TEST(RlJob, OnlySlimeAndMilesRunRl) {
  const ModelSpec model = model::load_model("glm-4.7-flash");
  EXPECT_THROW(rl_job_script(request(Mode::colocated, layout::Engine::megatron, model)), Error);
}

}  // namespace
}  // namespace ladle::rl
