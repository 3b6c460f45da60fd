#pragma once
// log_settings.hpp: the model and layout arguments a training log prints about its run.

#include <optional>
#include <string_view>

#include "ladle/runlog/log_lines.hpp"
#include "ladle/runlog/run_log.hpp"

namespace ladle::runlog {

/// The setting a cleaned line prints, when it is one line of Megatron-LM's argument dump
/// ("  hidden_size ..................................... 4096", also printed by Megatron-Bridge,
/// slime and miles, which parse Megatron-LM's arguments) and its key is one ladle compares with a
/// recipe (the model's shape, the batch and the parallel sizes); nullopt otherwise.
std::optional<LogSetting> read_setting(const LogLine& line);

/// The first setting of `log` named `key`, or nullptr.
const LogSetting* find_setting(const RunLog& log, std::string_view key);

}  // namespace ladle::runlog
