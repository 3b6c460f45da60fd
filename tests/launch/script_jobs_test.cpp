// `--script` runs a job's script with bash in the sandbox (src/ladle/args/): the launches its
// stand-ins record are read into the same LaunchArgs as a script's text, so the layout and the
// workload of real launch scripts (wrappers, sourced model files, functions, if-blocks, loops,
// positional arguments, $((...))) are what the script means. Each job under tests/data/jobs/ was
// read by hand; the figures asserted here are that reading. Skipped where bwrap cannot start.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ladle/args/launch_args.hpp"
#include "ladle/args/sandbox.hpp"
#include "ladle/args/script_reader.hpp"
#include "ladle/layout/job_args.hpp"
#include "ladle/layout/knobs.hpp"
#include "ladle/layout/recipe_layout.hpp"
#include "ladle/model/catalog.hpp"
#include "ladle/util/error.hpp"

namespace ladle::args {
namespace {
namespace fs = std::filesystem;

const std::string kJobs = std::string(LADLE_SOURCE_DIR) + "/tests/data/jobs/";

// Whether the sandbox starts on this machine (bwrap installed, namespaces allowed).
bool sandbox_starts() {
  static const bool starts = [] {
    // One probe folder per process: CTest runs these tests as parallel processes.
    const fs::path dir = fs::temp_directory_path() / ("ladle-sandbox-probe-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string script = (dir / "probe.sh").string();
    std::ofstream(script) << "python3 train.py --tensor-model-parallel-size 2\n";
    SandboxOptions o;
    o.script = script;
    o.wall_seconds = 20;
    const bool started = run_sandboxed(o).started;
    fs::remove_all(dir);
    return started;
  }();
  return starts;
}

#define REQUIRE_SANDBOX() \
  if (!sandbox_starts()) GTEST_SKIP() << "bwrap cannot start here; the static reader is used instead"

struct Job {
  ScriptReading reading;
  args::LaunchArgs launch;
  layout::JobArgs job;
  Layout layout;
};

Job read_job(const std::string& script, ScriptOptions options = {}, std::optional<size_t> n = std::nullopt) {
  Job j;
  j.reading = read_script(script, options);
  EXPECT_TRUE(j.reading.ran_bash) << j.reading.note;
  j.launch = select_launch(j.reading.launch, n, script);
  j.job = layout::read_job_args(j.launch, std::nullopt, script);
  return j;
}

// The job's layout for `model`, as predict reads it.
void resolve(Job& j, const std::string& model) {
  const ModelSpec spec = model::load_model(model);
  layout::check_model_args(j.job, spec);  // the architecture the sourced files give is the model's
  j.layout = layout::job_layout(j.job, j.job.seq_length.value_or(0), spec);
}

const args::LaunchArg* arg(const args::LaunchArgs& l, std::string_view flag) {
  const args::LaunchArg* found = nullptr;
  for (const args::LaunchArg& a : l.args) {
    if (a.flag == flag) found = &a;
  }
  return found;
}

bool set_knob(const layout::JobArgs& job, std::string_view key) {
  for (const layout::Knob* k : job.layout.set) {
    if (k->key == key) return true;
  }
  return false;
}

// slime: pkill/sleep/ray stop first, an NVLink probe in an if-block, the model file sourced
// through SCRIPT_DIR, arrays, a Ray head and ray job submit with a multi-line runtime env.
TEST(ScriptJobs, SlimeRunScriptSourcesItsModelFile) {
  REQUIRE_SANDBOX();
  const std::string script = kJobs + "slime-qwen3-30b-a3b/run-qwen3-30B-A3B.sh";
  Job j = read_job(script);
  resolve(j, "qwen3-30b-a3b");
  ASSERT_EQ(j.launch.launches.size(), 1u);
  const args::Launch& l = j.launch.launches.front();
  EXPECT_EQ(l.entry, "python train.py");
  EXPECT_EQ(l.launchers, std::vector<std::string>{"ray job submit"});
  EXPECT_EQ(j.layout.tp, 4);
  EXPECT_TRUE(j.layout.sp);
  EXPECT_EQ(j.layout.pp, 1);
  EXPECT_EQ(j.layout.cp, 1);
  EXPECT_EQ(j.layout.ep, 8);
  EXPECT_EQ(j.layout.etp, 1);
  EXPECT_EQ(j.layout.recompute, RecomputeGranularity::full);
  EXPECT_EQ(j.layout.max_tokens, 20480);
  EXPECT_EQ(j.job.global_batch, 32);
  EXPECT_FALSE(j.job.fp8);
  // The architecture comes from the sourced file, at its own line.
  const args::LaunchArg* layers = arg(j.launch, "--num-layers");
  ASSERT_NE(layers, nullptr);
  EXPECT_EQ(layers->values, std::vector<std::string>{"48"});
  EXPECT_NE(layers->file.find("models/qwen3-30B-A3B.sh"), std::string::npos);
  EXPECT_EQ(layers->line, 10);
  // The parallel size at its own line of the run script.
  const args::LaunchArg* tp = arg(j.launch, "--tensor-model-parallel-size");
  ASSERT_NE(tp, nullptr);
  EXPECT_TRUE(tp->file.empty());
  EXPECT_EQ(tp->line, 50);
  // The runtime env's variables, the probe's answer (no NVLink seen) expanded.
  bool nvls = false;
  for (const args::LaunchExport& e : l.env) nvls = nvls || (e.name == "NCCL_NVLS_ENABLE" && e.value == "0");
  EXPECT_TRUE(nvls);
  // The Ray head is a setup command, not a launch; `$(seq 16 8 64)` ran.
  ASSERT_EQ(j.launch.setup.size(), 2u);  // ray stop, ray start
  const args::LaunchArg* bs = arg(j.launch, "--sglang-cuda-graph-bs");
  ASSERT_NE(bs, nullptr);
  EXPECT_EQ(bs->values.size(), 4u + 7u);
  EXPECT_EQ(bs->values.back(), "64");
}

// Megatron-LM's FSDP example: positional defaults, $((...)), FSDP and FP8 if-blocks, quoted
// "--flag value" strings split at the launch, `uv run python -m torch.distributed.run`.
TEST(ScriptJobs, MegatronFsdpExampleReadsItsIfBlocks) {
  REQUIRE_SANDBOX();
  const std::string dir = kJobs + "megatron-lm-fsdp-llama3-8b";
  ScriptOptions o;
  o.env = {{"MEGATRON_PATH", dir}};
  Job j = read_job(dir + "/train_llama3_8b_fsdp_h100_fp8.sh", o);
  resolve(j, "llama-3.1-8b");
  const args::Launch& l = j.launch.launches.front();
  EXPECT_EQ(l.entry, "python pretrain_gpt.py");
  EXPECT_EQ(l.launchers, (std::vector<std::string>{"uv run", "python -m torch.distributed.run"}));
  EXPECT_EQ(j.layout.tp, 1);
  EXPECT_EQ(j.layout.cp, 1);
  EXPECT_EQ(j.layout.pp, 1);
  EXPECT_TRUE(j.job.fp8);  // --fp8-format hybrid, from the if-block
  EXPECT_EQ(j.job.seq_length, 8192);
  EXPECT_EQ(j.job.global_batch, 128);
  EXPECT_TRUE(set_knob(j.job, "fsdp"));  // --use-megatron-fsdp, from the other if-block
  EXPECT_TRUE(j.layout.fp8_param_gather);
  EXPECT_TRUE(j.layout.overlap_grad);
  // Its FP8 block's --fp8-amax-history-len 1024 and its --no-gradient-accumulation-fusion are
  // knobs, priced (plan/cost_fp8_amax_history, plan/cost_grad_accum_fusion), not listed as not priced.
  EXPECT_EQ(j.layout.fp8_amax_history, 1024);
  EXPECT_FALSE(j.layout.grad_accum_fusion);
  for (const char* flag : {"--fp8-amax-history-len", "--no-gradient-accumulation-fusion"}) {
    EXPECT_EQ(std::find(j.job.not_priced.begin(), j.job.not_priced.end(), flag), j.job.not_priced.end()) << flag;
  }
  EXPECT_TRUE(j.job.not_priced.empty() ||
              std::find(j.job.not_priced.begin(), j.job.not_priced.end(), "--use-megatron-fsdp") == j.job.not_priced.end());
  const args::LaunchArg* fp8 = arg(j.launch, "--fp8-format");
  ASSERT_NE(fp8, nullptr);
  EXPECT_EQ(fp8->line, 98);  // inside the if-block
  // The default of $1 reached the launch.
  const args::LaunchArg* save = arg(j.launch, "--save");
  ASSERT_NE(save, nullptr);
  EXPECT_EQ(save->values, std::vector<std::string>{"checkpoints/llama3_8b_fsdp_fp8"});
  // A positional argument replaces it.
  o.args = {"ckpt/run2"};
  const Job k = read_job(dir + "/train_llama3_8b_fsdp_h100_fp8.sh", o);
  EXPECT_EQ(arg(k.launch, "--save")->values, std::vector<std::string>{"ckpt/run2"});
}

// Without the checkout, the example stops at its `exit 1`: one error at that line, no launch.
TEST(ScriptJobs, ExitBeforeAnyLaunchNamesTheLine) {
  REQUIRE_SANDBOX();
  ScriptOptions o;
  o.env = {{"MEGATRON_PATH", "/nonexistent"}};
  try {
    read_script(kJobs + "megatron-lm-fsdp-llama3-8b/train_llama3_8b_fsdp_h100_fp8.sh", o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_EQ(e.where().line, 148);
    EXPECT_NE(e.message().find("exited with status 1 before any launch"), std::string::npos) << e.message();
  }
}

// Megatron-MoE-ModelZoo: sizes as environment prefixes of a wrapper, positional arguments
// appended, configuration files sourced, `sbatch <<EOF` whose srun runs `bash -c '${TRAINING_CMD}'`.
TEST(ScriptJobs, ModelZooWrapperWithEnvironmentPrefixes) {
  REQUIRE_SANDBOX();
  Job j = read_job(kJobs + "modelzoo-mixtral-8x22b/launch_mixtral_8x22b.sh");
  resolve(j, "mixtral-8x22b");
  const args::Launch& l = j.launch.launches.front();
  EXPECT_EQ(l.entry, "python pretrain_gpt.py");
  EXPECT_EQ(j.layout.tp, 2);
  EXPECT_EQ(j.layout.pp, 4);
  EXPECT_EQ(j.layout.vpp, 2);
  EXPECT_EQ(j.layout.ep, 8);
  EXPECT_TRUE(j.layout.sp);
  EXPECT_EQ(j.layout.recompute, RecomputeGranularity::selective);  // the wrapper's positional arguments
  EXPECT_EQ(j.job.seq_length, 4096);
  EXPECT_EQ(j.job.global_batch, 256);
  const args::LaunchArg* recompute = arg(j.launch, "--recompute-granularity");
  ASSERT_NE(recompute, nullptr);
  EXPECT_TRUE(recompute->file.empty());  // the wrapper itself: the script read
  EXPECT_EQ(recompute->line, 7);
  const args::LaunchArg* tp = arg(j.launch, "--tensor-model-parallel-size");
  ASSERT_NE(tp, nullptr);
  EXPECT_NE(tp->file.find("runtime_configs/common.conf"), std::string::npos);
  // The other launcher: EP 4 on 4 nodes, a batch of 128.
  const Job k = read_job(kJobs + "modelzoo-mixtral-8x22b/launch_mixtral_8x22b_ep4.sh");
  EXPECT_EQ(arg(k.launch, "--expert-model-parallel-size")->values, std::vector<std::string>{"4"});
  EXPECT_EQ(k.job.global_batch, 128);
}

// Megatron-Bridge: Hydra overrides built in for-loops, the batch from $((...)) on Slurm's node
// count (--env), srun + torchrun in front of run_recipe.py.
TEST(ScriptJobs, BridgeOverridesBuiltInLoops) {
  REQUIRE_SANDBOX();
  ScriptOptions o;
  o.env = {{"SLURM_NNODES", "4"}};
  Job j = read_job(kJobs + "bridge-qwen3-30b-a3b/slurm_pretrain.sh", o);
  resolve(j, "qwen3-30b-a3b");
  const args::Launch& l = j.launch.launches.front();
  EXPECT_EQ(l.entry, "python run_recipe.py");
  EXPECT_EQ(l.launchers, (std::vector<std::string>{"srun", "torchrun"}));
  EXPECT_EQ(j.job.engine, layout::Engine::bridge);
  EXPECT_EQ(j.layout.tp, 1);
  EXPECT_EQ(j.layout.pp, 1);
  EXPECT_EQ(j.layout.ep, 8);
  EXPECT_EQ(j.job.seq_length, 4096);
  EXPECT_EQ(j.job.global_batch, 16 * 4 * 8);
  const args::LaunchArg* nnodes = nullptr;
  for (const args::LaunchArg& a : l.launcher_args) {
    if (a.flag == "--nnodes") nnodes = &a;
  }
  ASSERT_NE(nnodes, nullptr);
  EXPECT_EQ(nnodes->values, std::vector<std::string>{"4"});
}

// Pai-Megatron-Patch: every setting positional, a `case` on the model size, option strings from
// if-blocks, $((...)), `eval` of the command.
TEST(ScriptJobs, PaiPositionalArgumentsAndCase) {
  REQUIRE_SANDBOX();
  ScriptOptions o;
  o.args = {"dsw", "A3B", "1", "512", "1e-5", "4096", "fp8", "2", "2", "1", "8", "true"};
  Job j = read_job(kJobs + "pai-qwen3-30b-a3b/run_mcore_qwen3.sh", o);
  resolve(j, "qwen3-30b-a3b");
  const args::Launch& l = j.launch.launches.front();
  EXPECT_EQ(l.entry, "python pretrain_qwen.py");
  EXPECT_EQ(l.launchers, std::vector<std::string>{"torchrun"});
  EXPECT_EQ(j.layout.tp, 2);
  EXPECT_EQ(j.layout.pp, 2);
  EXPECT_EQ(j.layout.cp, 1);
  EXPECT_EQ(j.layout.ep, 8);
  EXPECT_TRUE(j.layout.sp);  // SP=true and TP > 1
  EXPECT_TRUE(j.job.fp8);
  EXPECT_EQ(j.job.seq_length, 4096);
  EXPECT_EQ(j.job.global_batch, 512);
  EXPECT_EQ(arg(j.launch, "--train-iters")->values, std::vector<std::string>{std::to_string(10000000000 / 512 / 4096)});
  // The other model size of the `case` is another architecture: the check refuses it.
  o.args[1] = "A22B";
  const Job k = read_job(kJobs + "pai-qwen3-30b-a3b/run_mcore_qwen3.sh", o);
  EXPECT_THROW(layout::check_model_args(k.job, model::load_model("qwen3-30b-a3b")), Error);
}

// A positional argument the script needs and was not given: one error at its line.
TEST(ScriptJobs, MissingPositionalArgumentIsAnErrorAtItsLine) {
  REQUIRE_SANDBOX();
  try {
    read_script(kJobs + "pai-qwen3-30b-a3b/run_mcore_qwen3.sh", ScriptOptions{{"dsw", "A3B"}, {}, 8, 20});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().line, 11);
    EXPECT_NE(e.message().find("3: unbound variable"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("--script-arg"), std::string::npos);
  }
  try {
    read_script(kJobs + "bad/needs-argument.sh", {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(e.message().find("the tensor-parallel size"), std::string::npos) << e.message();
  }
  const ScriptReading given = read_script(kJobs + "bad/needs-argument.sh", ScriptOptions{{"4"}, {}, 8, 20});
  EXPECT_EQ(given.launch.launches.at(0).args.at(0).values, std::vector<std::string>{"4"});
}

// miles: the parallel arguments built by a function, $((...)), an if-block on $1, a heredoc read
// back with $(...).
TEST(ScriptJobs, MilesFunctionBuiltArrays) {
  REQUIRE_SANDBOX();
  Job j = read_job(kJobs + "miles-qwen3-30b-a3b/run-qwen3-30B-A3B.sh");
  resolve(j, "qwen3-30b-a3b");
  EXPECT_EQ(j.layout.tp, 2);
  EXPECT_TRUE(j.layout.sp);
  EXPECT_EQ(j.layout.ep, 8);  // NUM_NODES * 4
  EXPECT_EQ(j.layout.max_tokens, 16384);
  EXPECT_EQ(j.job.global_batch, 256);
  EXPECT_NE(arg(j.launch, "--colocate"), nullptr);
  bool ring = false;
  for (const args::LaunchExport& e : j.launch.launches.front().env) ring = ring || (e.name == "NCCL_ALGO" && e.value == "Ring");
  EXPECT_TRUE(ring);
  // The if-block's other branch: no colocation, 3 nodes (EP 12).
  ScriptOptions o{{"split"}, {{"NUM_NODES", "3"}}, 8, 20};
  const Job k = read_job(kJobs + "miles-qwen3-30b-a3b/run-qwen3-30B-A3B.sh", o);
  EXPECT_EQ(arg(k.launch, "--colocate"), nullptr);
  EXPECT_EQ(arg(k.launch, "--expert-model-parallel-size")->values, std::vector<std::string>{"12"});
}

TEST(ScriptJobs, MissingBackslashIsReportedAtItsLine) {
  REQUIRE_SANDBOX();
  try {
    read_script(kJobs + "bad/kimi-k2-missing-backslash.sh", {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().line, 7);
    EXPECT_NE(e.message().find("--tensor-model-parallel-size"), std::string::npos) << e.message();
  }
}

TEST(ScriptJobs, BadInputIsOneError) {
  REQUIRE_SANDBOX();
  const auto message = [](const std::string& script, ScriptOptions o = {}) -> std::string {
    try {
      read_script(script, o);
    } catch (const Error& e) {
      return e.describe();
    }
    return "(no error)";
  };
  EXPECT_NE(message(kJobs + "bad/does-not-exist.sh").find("no such file"), std::string::npos);
  EXPECT_NE(message(kJobs + "bad/not-shell.py").find("not a shell script"), std::string::npos);
  EXPECT_NE(message(kJobs + "bad/no-launch.sh").find("no training launch"), std::string::npos);
  EXPECT_NE(message(kJobs + "bad/no-launch.sh").find("python3 -c"), std::string::npos);  // what bash ran
  const std::string early = message(kJobs + "bad/exits-early.sh");
  EXPECT_NE(early.find("exits-early.sh:5:"), std::string::npos) << early;
  EXPECT_NE(early.find("status 3"), std::string::npos) << early;
  ScriptOptions quick;
  quick.wall_seconds = 1;
  EXPECT_NE(message(kJobs + "bad/never-ends.sh", quick).find("did not end within 1 s"), std::string::npos);
  const std::string unbound = message(kJobs + "bad/unbound.sh", ScriptOptions{{"1"}, {}, 8, 20});
  EXPECT_NE(unbound.find("unbound.sh:4:"), std::string::npos) << unbound;
}

TEST(ScriptJobs, SeveralLaunchesAreListedAndPicked) {
  REQUIRE_SANDBOX();
  const std::string script = kJobs + "bad/two-layouts.sh";
  const ScriptReading r = read_script(script, {});
  ASSERT_EQ(r.launch.launches.size(), 2u);
  EXPECT_THROW(select_launch(r.launch, std::nullopt, script), Error);
  EXPECT_EQ(select_launch(r.launch, 2, script).launches.at(0).args.at(0).values, std::vector<std::string>{"4"});
  EXPECT_THROW(select_launch(r.launch, 3, script), Error);
}

// What the script does stays in the sandbox: a file it removes is still there, a file it writes
// is not, a write outside its folder fails, and the network is unreachable.
TEST(ScriptJobs, SideEffectsLeaveTheMachineAsItWas) {
  REQUIRE_SANDBOX();
  const fs::path dir = fs::temp_directory_path() / "ladle-side-effects-test";
  fs::remove_all(dir);
  fs::create_directories(dir / "keep");
  fs::create_directories(dir / "home");
  std::ofstream(dir / "home" / "marker") << "must survive\n";
  std::ofstream(dir / "marker") << "must survive\n";
  std::ofstream(dir / "keep" / "marker") << "must survive\n";
  const std::string script = (dir / "job.sh").string();
  std::ofstream(script) << "#!/bin/bash\n"
                           "cd \"$(dirname \"$0\")\"\n"
                           "rm -rf ~ ./keep 2>/dev/null\n"
                           "touch ~/written\n"
                           "rm -f marker\n"
                           "echo written > written.txt\n"
                           "echo x > /usr/ladle-written 2>/dev/null\n"
                           "/usr/bin/curl -s http://example.com > /dev/null\n"
                           "exec 3<>/dev/tcp/1.1.1.1/80 && echo reached > net.txt\n"
                           "python3 train.py --tensor-model-parallel-size 2 --seq-length 4096\n";
  // ~ is a folder of the test: were the sandbox to leak, nothing else could be removed.
  const ScriptReading r = read_script(script, ScriptOptions{{}, {{"HOME", (dir / "home").string()}}, 8, 20});
  EXPECT_EQ(r.launch.launches.size(), 1u);
  EXPECT_TRUE(fs::exists(dir / "home" / "marker"));
  EXPECT_FALSE(fs::exists(dir / "home" / "written"));
  EXPECT_TRUE(fs::exists(dir / "marker"));
  EXPECT_TRUE(fs::exists(dir / "keep" / "marker"));
  EXPECT_FALSE(fs::exists(dir / "written.txt"));
  EXPECT_FALSE(fs::exists(dir / "net.txt"));
  EXPECT_FALSE(fs::exists("/usr/ladle-written"));
  // curl ran as a stand-in: recorded, nothing fetched.
  EXPECT_TRUE(std::any_of(r.ran.begin(), r.ran.end(), [](const std::string& s) { return s.starts_with("curl"); }));
  fs::remove_all(dir);
}

// A variable the script reads that nothing sets at plan time keeps its expansion as written, as
// the static reader keeps it (the emitted job carries "$DATA_PATH", not ''); one read with a
// default takes its default, and one the script tests for being set stays unset, so the branch
// taken is the one an unset variable takes.
TEST(ScriptJobs, UnsetVariablesKeepTheirExpansion) {
  REQUIRE_SANDBOX();
  const fs::path dir = fs::temp_directory_path() / "ladle-unset-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string script = (dir / "job.sh").string();
  const std::string text =
      "#!/bin/bash\n"
      "if [ -z \"$SLURM_JOB_ID\" ]; then NODES=1; else NODES=$SLURM_NNODES; fi\n"
      "torchrun --nnodes \"$NODES\" pretrain_gpt.py --tensor-model-parallel-size 2 \\\n"
      "  --data-path $DATA_PATH --load \"$CKPT\" --save ${OUT:-/tmp/out} \\\n"
      "  --tokenizer-model ${HF_HOME}/tok --seq-length 4096\n";
  std::ofstream(script) << text;
  const args::LaunchArgs statically = args::parse_launch_args(text, script);
  const Job j = read_job(script);
  for (const char* flag : {"--data-path", "--load", "--tokenizer-model"}) {
    ASSERT_NE(arg(j.launch, flag), nullptr) << flag;
    ASSERT_NE(arg(statically, flag), nullptr) << flag;
    EXPECT_TRUE(arg(j.launch, flag)->unresolved) << flag;
    EXPECT_EQ(arg(j.launch, flag)->values, arg(statically, flag)->values) << flag;
    EXPECT_EQ(arg(j.launch, flag)->shell, arg(statically, flag)->shell) << flag;
  }
  EXPECT_EQ(arg(j.launch, "--data-path")->shell, (std::vector<std::string>{"--data-path", "\"$DATA_PATH\""}));
  EXPECT_EQ(arg(j.launch, "--load")->shell, (std::vector<std::string>{"--load", "\"$CKPT\""}));
  EXPECT_EQ(arg(j.launch, "--save")->values, std::vector<std::string>{"/tmp/out"});
  EXPECT_FALSE(arg(j.launch, "--save")->unresolved);
  EXPECT_EQ(arg(j.launch, "--nnodes")->values, std::vector<std::string>{"1"});  // the -z branch
  EXPECT_EQ(arg(j.launch, "--seq-length")->values, std::vector<std::string>{"4096"});
  // Given with --env, the value is the run's.
  const Job given = read_job(script, ScriptOptions{{}, {{"DATA_PATH", "/data/corpus"}}, 8, 20});
  EXPECT_EQ(arg(given.launch, "--data-path")->values, std::vector<std::string>{"/data/corpus"});
  EXPECT_FALSE(arg(given.launch, "--data-path")->unresolved);
  fs::remove_all(dir);
}

// A variable only a sourced file reads (a model file's `--load $MODEL_DIR/...`, as slime's and
// miles' scripts/models/*.sh are sourced) keeps its expansion as the script's own words do; one the
// sourced file reads with a default, or that the script sets, does not.
TEST(ScriptJobs, UnsetVariablesOfSourcedFilesKeepTheirExpansion) {
  REQUIRE_SANDBOX();
  const fs::path dir = fs::temp_directory_path() / "ladle-unset-sourced-test";
  fs::remove_all(dir);
  fs::create_directories(dir / "models");
  std::ofstream(dir / "models" / "model.sh") << "# a model file: its arguments and where its weights are\n"
                                                "MODEL_ARGS=(--num-layers 4 --hidden-size 256\n"
                                                "  --load ${MODEL_DIR}/ckpt --tokenizer-model $TOKENIZER\n"
                                                "  --vocab-file ${VOCAB:-/opt/vocab.json} --save $OUT_DIR)\n";
  const std::string script = (dir / "job.sh").string();
  std::ofstream(script) << "#!/bin/bash\n"
                           "OUT_DIR=/tmp/out\n"
                           "source \"$(dirname \"$0\")/models/model.sh\"\n"
                           "torchrun pretrain_gpt.py --tensor-model-parallel-size 2 \"${MODEL_ARGS[@]}\"\n";
  const Job j = read_job(script);
  ASSERT_NE(arg(j.launch, "--load"), nullptr);
  EXPECT_TRUE(arg(j.launch, "--load")->unresolved);
  EXPECT_EQ(arg(j.launch, "--load")->values, std::vector<std::string>{"${MODEL_DIR}/ckpt"});
  ASSERT_NE(arg(j.launch, "--tokenizer-model"), nullptr);
  EXPECT_EQ(arg(j.launch, "--tokenizer-model")->values, std::vector<std::string>{"$TOKENIZER"});
  EXPECT_EQ(arg(j.launch, "--vocab-file")->values, std::vector<std::string>{"/opt/vocab.json"});
  EXPECT_FALSE(arg(j.launch, "--vocab-file")->unresolved);
  EXPECT_EQ(arg(j.launch, "--save")->values, std::vector<std::string>{"/tmp/out"});
  EXPECT_FALSE(arg(j.launch, "--save")->unresolved);
  // The argument is placed in the sourced file, at its line.
  EXPECT_EQ(arg(j.launch, "--load")->line, 3);
  EXPECT_NE(arg(j.launch, "--load")->file.find("model.sh"), std::string::npos) << arg(j.launch, "--load")->file;
  // Given with --env, the value is the run's.
  const Job given = read_job(script, ScriptOptions{{}, {{"MODEL_DIR", "/models/x"}}, 8, 20});
  EXPECT_EQ(arg(given.launch, "--load")->values, std::vector<std::string>{"/models/x/ckpt"});
  EXPECT_FALSE(arg(given.launch, "--load")->unresolved);
  fs::remove_all(dir);
}

// A variable that is not set, in arithmetic: one line naming it and how to give it (exit 2).
TEST(ScriptJobs, UnsetVariableInArithmeticAsksForItsValue) {
  REQUIRE_SANDBOX();
  const fs::path dir = fs::temp_directory_path() / "ladle-unset-arith-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string script = (dir / "job.sh").string();
  std::ofstream(script) << "#!/bin/bash\n"
                           "NODES=$SLURM_NNODES\n"
                           "WORLD=$((NODES * 8))\n"
                           "torchrun --nnodes $NODES pretrain_gpt.py --tensor-model-parallel-size 2\n";
  try {
    read_script(script, {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::input);
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(e.message().find("$SLURM_NNODES"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("--env SLURM_NNODES=VALUE"), std::string::npos) << e.message();
    EXPECT_EQ(e.message().find(kUnsetFolder), std::string::npos) << e.message();
  }
  const Job given = read_job(script, ScriptOptions{{}, {{"SLURM_NNODES", "2"}}, 8, 20});
  EXPECT_EQ(arg(given.launch, "--nnodes")->values, std::vector<std::string>{"2"});
  fs::remove_all(dir);
}

// A job that checks its declared inputs before it launches (`need NAME KIND`, as ladle's jobs do)
// runs to its launch: each input's sentinel is what its kind asks for.
TEST(ScriptJobs, DeclaredInputsPassTheJobsChecks) {
  REQUIRE_SANDBOX();
  const fs::path dir = fs::temp_directory_path() / "ladle-declared-inputs-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string script = (dir / "job.sh").string();
  std::ofstream(script) << "#!/bin/bash\n"
                           "set -euo pipefail\n"
                           "missing=()\n"
                           "need() {  # need NAME KIND WHAT\n"
                           "  local value=${!1:-}\n"
                           "  if [[ -z \"$value\" ]]; then missing+=(\"$1 is not set: $3\"); return; fi\n"
                           "  case $2 in\n"
                           "    dir) [[ -d \"$value\" ]] || missing+=(\"$1\") ;;\n"
                           "    file) [[ -f \"$value\" ]] || missing+=(\"$1\") ;;\n"
                           "    prefix) [[ -f \"$value.bin\" && -f \"$value.idx\" ]] || missing+=(\"$1\") ;;\n"
                           "  esac\n"
                           "}\n"
                           "need MEGATRON_DIR dir 'the checkout'\n"
                           "need DATA_PATH prefix 'the data'\n"
                           "need TOKENIZER file 'the tokenizer'\n"
                           "need OUTPUT_DIR out 'where it writes'\n"
                           "if (( ${#missing[@]} > 0 )); then printf '%s\\n' \"${missing[@]}\" >&2; exit 2; fi\n"
                           "mkdir -p \"$OUTPUT_DIR\"\n"
                           "cd \"$MEGATRON_DIR\"\n"
                           "torchrun pretrain_gpt.py --tensor-model-parallel-size 2 --data-path \"$DATA_PATH\" \\\n"
                           "  --tokenizer-model \"$TOKENIZER\" --save \"$OUTPUT_DIR/ckpt\"\n";
  const Job j = read_job(script);
  EXPECT_EQ(arg(j.launch, "--data-path")->shell, (std::vector<std::string>{"--data-path", "\"$DATA_PATH\""}));
  EXPECT_EQ(arg(j.launch, "--tokenizer-model")->shell,
            (std::vector<std::string>{"--tokenizer-model", "\"$TOKENIZER\""}));
  EXPECT_EQ(arg(j.launch, "--save")->values, std::vector<std::string>{"$OUTPUT_DIR/ckpt"});
  EXPECT_TRUE(arg(j.launch, "--save")->unresolved);
  fs::remove_all(dir);
}

// Where the sandbox cannot start, the script's text is read without running it, with one note.
TEST(ScriptJobs, NoSandboxFallsBackToTheStaticReader) {
  ::setenv("LADLE_BWRAP", "/nonexistent/bwrap", 1);
  const ScriptReading r = read_script(kJobs + "bad/no-sizes.sh", {});
  ::unsetenv("LADLE_BWRAP");
  EXPECT_FALSE(r.ran_bash);
  EXPECT_NE(r.note.find("the sandbox could not start"), std::string::npos) << r.note;
  EXPECT_EQ(r.note.find('\n'), std::string::npos);  // one line
  ASSERT_EQ(r.launch.launches.size(), 1u);
  EXPECT_EQ(r.launch.launches.front().entry, "python pretrain_gpt.py");
}

}  // namespace
}  // namespace ladle::args
