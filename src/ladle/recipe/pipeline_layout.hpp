#pragma once
// pipeline_layout.hpp: Megatron-LM's --pipeline-model-parallel-layout strings ("Et*3|(tt|)*29m|L"),
// read as megatron/core/transformer/pipeline_parallel_layer_layout.py reads them: commas are
// cosmetic, "(...)*n" then "x*n" repeat, '|' separates the pp * vpp virtual stages in order
// (virtual stage v of pipeline rank r is entry v * pp + r), E is the embedding, t a decoder layer,
// m an MTP layer and L the loss.

#include <cstdint>
#include <string_view>
#include <vector>

namespace ladle::recipe {

/// What one virtual pipeline stage holds.
struct VirtualStage {
  int64_t decoder = 0;    ///< decoder layers (t)
  int64_t mtp = 0;        ///< MTP layers (m)
  int64_t embedding = 0;  ///< E (embedding; once in a valid layout)
  int64_t loss = 0;       ///< L (loss; once in a valid layout)
  bool operator==(const VirtualStage&) const = default;
};

/// The virtual stages of a layout string, in string order. Throws Error(usage) at
/// "layout.pipeline_layout" for a character other than E t m L | ( ) * digits and commas, an
/// unclosed parenthesis, or a repeat with no count.
std::vector<VirtualStage> parse_pipeline_layout(std::string_view text);

}  // namespace ladle::recipe
