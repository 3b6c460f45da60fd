#include "ladle/layout/rl_workload.hpp"

#include <fmt/format.h>

#include "ladle/util/error.hpp"
#include <charconv>

#include "ladle/util/limits.hpp"

namespace ladle::layout {

bool read_rl_arg(RlArgs& rl, const args::LaunchArg& arg, const std::string& file) {
  int64_t* slot = arg.flag == "--rollout-batch-size"          ? &rl.rollout_batch
                  : arg.flag == "--n-samples-per-prompt"      ? &rl.samples_per_prompt
                  : arg.flag == "--num-steps-per-rollout"     ? &rl.steps_per_rollout
                  : arg.flag == "--rollout-max-prompt-len"    ? &rl.max_prompt_len
                  : arg.flag == "--rollout-max-response-len"  ? &rl.max_response_len
                                                              : nullptr;
  if (slot == nullptr) return false;
  const std::string text = arg.values.empty() ? std::string() : arg.values.front();
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  // At most 2^32 each, so that their products below stay in 64 bits.
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value < 1 ||
      value > (int64_t{1} << 32)) {
    throw_input(SourceLocation{file, arg.line, arg.col, arg.flag},
                "expected a positive integer up to 2^32, got '{}'", text);
  }
  *slot = value;
  return true;
}

std::optional<RlWorkload> rl_workload(const RlArgs& l, std::optional<int64_t> global_batch, const std::string& where) {
  if (l.rollout_batch <= 0) return std::nullopt;
  RlWorkload rl;
  // Both are at most 2^32 (read_rl_arg), so the product fits in 64 bits.
  rl.samples_per_rollout = l.rollout_batch * l.samples_per_prompt;
  const std::string samples =
      fmt::format("{} prompts x {} sample{}", l.rollout_batch, l.samples_per_prompt, l.samples_per_prompt == 1 ? "" : "s");
  if (l.steps_per_rollout > 0) {
    const int64_t rows = rl.samples_per_rollout / l.steps_per_rollout;
    if (rows < 1) {
      throw_input(SourceLocation{where, 0, 0, "--num-steps-per-rollout"},
                  "{} steps per rollout leave no row a step: {} gives {} samples a rollout", l.steps_per_rollout,
                  samples, rl.samples_per_rollout);
    }
    if (global_batch && *global_batch != rows) {
      throw_input(SourceLocation{where, 0, 0, "--global-batch-size"},
                  "--global-batch-size {} contradicts {} / --num-steps-per-rollout {} = {} (slime asserts they agree)",
                  *global_batch, samples, l.steps_per_rollout, rows);
    }
    rl.rows_per_step = rows;
    rl.rows_from = fmt::format("{} / {} step{} per rollout (--num-steps-per-rollout)", samples, l.steps_per_rollout,
                               l.steps_per_rollout == 1 ? "" : "s");
  } else if (global_batch) {
    rl.rows_per_step = *global_batch;
    rl.rows_from = fmt::format("--global-batch-size; a rollout gives {} = {} samples", samples, rl.samples_per_rollout);
  } else {
    rl.rows_from = "neither --global-batch-size nor --num-steps-per-rollout given";
  }
  if (rl.rows_per_step > limits::kMaxGlobalBatchRows) {
    throw_input(SourceLocation{where, 0, 0, "--rollout-batch-size"}, "{} rows a step is over ladle's limit of {}",
                rl.rows_per_step, limits::kMaxGlobalBatchRows);
  }
  if (rl.rows_per_step > rl.samples_per_rollout) {
    // slime's train_iters (num_rollout x samples // rows) would be 0: no optimizer step runs.
    throw_input(SourceLocation{where, 0, 0, "--global-batch-size"},
                "{} rows a step is more than a rollout's {} = {} samples: no optimizer step would run",
                rl.rows_per_step, samples, rl.samples_per_rollout);
  }
  if (rl.rows_per_step > 0) rl.steps_per_rollout = rl.samples_per_rollout / rl.rows_per_step;
  if (l.max_prompt_len > 0 && l.max_response_len > 0) {
    rl.row_tokens = l.max_prompt_len + l.max_response_len;
    if (rl.row_tokens > limits::kMaxSequenceTokens) {
      throw_input(SourceLocation{where, 0, 0, "--rollout-max-response-len"},
                  "a row of {} tokens is over ladle's limit of {}", rl.row_tokens, limits::kMaxSequenceTokens);
    }
    rl.tokens_from = fmt::format("prompt {} + response {}", l.max_prompt_len, l.max_response_len);
  } else {
    rl.tokens_from = "--rollout-max-prompt-len and --rollout-max-response-len not both given";
  }
  return rl;
}

std::string format_rl_workload(const RlWorkload& rl) {
  std::string out = "RL: ";
  if (rl.rows_per_step > 0) {
    out += fmt::format("{} rows per optimizer step ({}), {} optimizer step{} per rollout", rl.rows_per_step,
                       rl.rows_from, rl.steps_per_rollout, rl.steps_per_rollout == 1 ? "" : "s");
  } else {
    out += fmt::format("{} samples per rollout, rows per step unknown ({})", rl.samples_per_rollout, rl.rows_from);
  }
  if (rl.row_tokens > 0) {
    out += fmt::format(", rows of up to {} tokens ({})", rl.row_tokens, rl.tokens_from);
  } else {
    out += fmt::format(", row length not from the rollout ({})", rl.tokens_from);
  }
  return out;
}

}  // namespace ladle::layout
