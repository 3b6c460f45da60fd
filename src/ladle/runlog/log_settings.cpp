#include "ladle/runlog/log_settings.hpp"

#include <algorithm>
#include <array>

#include "ladle/util/text.hpp"

namespace ladle::runlog {

namespace {

// The arguments kept: what says which model, batch and layout a run had. Megatron-LM prints
// every argument (hundreds); the rest are not kept.
constexpr std::array<std::string_view, 12> kKeys = {
    "hidden_size",        "num_layers",          "num_attention_heads",         "ffn_hidden_size",
    "num_experts",        "moe_ffn_hidden_size", "moe_router_topk",             "global_batch_size",
    "tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size",
    "expert_model_parallel_size",
};

bool is_key_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

}  // namespace

std::optional<LogSetting> read_setting(const LogLine& line) {
  // Megatron-LM's print_args writes "  {key} {'.' * (48 - len(key))} {value}".
  const std::string_view text = util::trim(line.text);
  size_t key_end = 0;
  while (key_end < text.size() && is_key_char(text[key_end])) ++key_end;
  if (key_end == 0 || key_end + 3 > text.size() || text[key_end] != ' ' || text[key_end + 1] != '.') return std::nullopt;
  const std::string_view key = text.substr(0, key_end);
  if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) return std::nullopt;
  size_t dots = key_end + 1;
  while (dots < text.size() && text[dots] == '.') ++dots;
  if (dots >= text.size() || text[dots] != ' ') return std::nullopt;
  const std::string_view value = util::trim(text.substr(dots));
  if (value.empty() || value.find(' ') != std::string_view::npos) return std::nullopt;
  return LogSetting{std::string(key), std::string(value), line.line};
}

const LogSetting* find_setting(const RunLog& log, std::string_view key) {
  for (const LogSetting& setting : log.settings) {
    if (setting.key == key) return &setting;
  }
  return nullptr;
}

}  // namespace ladle::runlog
