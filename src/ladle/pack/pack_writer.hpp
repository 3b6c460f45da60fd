#pragma once
// Writing a packed row set: rows.jsonl, the Megatron indexed datasets of the ids and of the loss
// mask, and manifest.yaml in the shape of a recipe's `workload.dataset.build` block; all into a
// temporary folder beside the output that is renamed into place only when complete.
//
// rows_sha256 is the SHA-256 of the rows' canonical bytes: for each row in order, its row_tokens
// token ids as unsigned 32-bit little-endian integers, then its row_tokens mask values as single
// bytes (0x00 or 0x01). It depends on the rows alone, not on any output file's format.

#include <cstdint>
#include <string>
#include <vector>

#include "ladle/pack/packer.hpp"
#include "ladle/recipe/recipe.hpp"

namespace ladle::pack {

/// One output file of a row set.
struct OutputFile {
  std::string name;  ///< file name inside the output folder
  std::string sha256;
  int64_t bytes = 0;
  bool operator==(const OutputFile&) const = default;
};

/// What a packing run built: the recipe's `workload.dataset.build` block (its Parquet fields left
/// empty: ladle writes JSONL and Megatron's format), the rows' hash, the files, and the run's figures.
struct PackManifest {
  DatasetBuild build;            ///< supervised_token_ratio exact here; written rounded to 3 digits
  std::string tokenizer_sha256;  ///< also inside build.tokenizer
  std::string rows_sha256;
  std::vector<OutputFile> files;
  PackStats stats;
  bool operator==(const PackManifest&) const = default;
};

/// Names and labels of an output.
struct PackOutput {
  std::string dir;              ///< the output folder; replaced whole when it exists
  std::string name;             ///< the row set's name (build.name)
  std::string tokenizer_label;  ///< what to call the tokenizer in build.tokenizer
};

/// The `packing` sentence for `row_tokens` (the seeds' wording).
std::string packing_description(int64_t row_tokens);

/// Packs and writes everything into `output.dir`. Throws what pack_rows throws, and Error(io) when
/// a file cannot be written; on any error the output folder is left as it was.
PackManifest write_pack(const Tokenizer& tokenizer, const PackOptions& options,
                        const PackOutput& output, const ProgressSink& progress = {});

/// The manifest as YAML: `rows_sha256`, the `build` block (recipe key order), `files` and `stats`.
std::string render_manifest_yaml(const PackManifest& manifest);
/// The manifest as one JSON object with the same fields.
std::string render_manifest_json(const PackManifest& manifest);

}  // namespace ladle::pack
