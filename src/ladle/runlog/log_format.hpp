#pragma once
// log_format.hpp: the training-log formats ladle reads.

#include <string>
#include <string_view>

namespace ladle::runlog {

/// A log format; the enumerators are spelled as on the command line (`--format`).
enum class LogFormat {
  megatron,         ///< Megatron-LM `training_log`: "iteration N/ M | ... |" lines
  megatron_bridge,  ///< Megatron-Bridge: the same iteration lines plus "Step Time : X.XXs" lines
  slime,            ///< slime: "step N: {...}" and "perf N: {...}" Python-literal dicts
  miles,            ///< miles (a slime fork): the same lines, each step printed twice
  nemo,             ///< NeMo 2.0: "Training epoch E, iteration I/T | ... |" lines
  jsonl,            ///< ladle's own JSONL, one object per step (runlog/README.md)
  megatron_golden,  ///< Megatron-LM / Megatron-Bridge CI golden values: JSON of per-metric step series
};

/// The name of a format as written on the command line.
std::string to_string(LogFormat format);

/// Parses a format name; throws Error(usage) listing the valid names (with "did you mean").
LogFormat parse_log_format(std::string_view name);

}  // namespace ladle::runlog
