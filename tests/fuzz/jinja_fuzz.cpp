// jinja_fuzz.cpp: a chat template (a model's own, downloaded with its tokenizer), parsed and rendered
// with a small conversation. The engine's errors are the expected refusals; a crash, a sanitizer
// report or a timeout is a finding.
#include "fuzz_common.hpp"
#include "ladle/pack/jinja.hpp"

namespace {

const nlohmann::ordered_json& context() {
  static const nlohmann::ordered_json c = nlohmann::ordered_json::parse(R"({
    "messages": [
      {"role": "system", "content": "Be brief."},
      {"role": "user", "content": "What is 2 + 2?"},
      {"role": "assistant", "content": "<think>\nAdd.\n</think>\n\n4", "reasoning_content": "Add.",
       "tool_calls": [{"type": "function", "function": {"name": "add", "arguments": {"a": 2, "b": 2}}}]},
      {"role": "tool", "content": "4"}
    ],
    "tools": [{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}],
    "add_generation_prompt": true,
    "bos_token": "<s>",
    "eos_token": "</s>"
  })");
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The default budgets let a render run for seconds before it stops; smaller ones reach the same
  // checks in milliseconds, so the fuzzer spends its time on new templates. The nesting and macro
  // limits, which guard the stack, are the engine's own and the same as in ladle.
  ladle::pack::JinjaLimits limits;
  limits.max_steps = int64_t{1} << 16;
  limits.max_value_bytes = int64_t{16} << 20;
  limits.max_output_bytes = int64_t{1} << 20;
  return ladle::fuzz::run(data, size, [&limits](std::string_view text) {
    const ladle::pack::JinjaTemplate t(text, "chat_template.jinja");
    (void)t.render(context(), limits);
  });
}
