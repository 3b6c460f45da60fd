#include "ladle/pack/pack_writer.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "ladle/pack/megatron_writer.hpp"
#include "ladle/util/error.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/output_dir.hpp"
#include "ladle/util/sha256.hpp"
#include "ladle/util/text.hpp"

namespace ladle::pack {

namespace {

namespace fs = std::filesystem;

constexpr const char* kJsonlName = "rows.jsonl";
constexpr const char* kIdsPrefix = "rows";
constexpr const char* kMaskPrefix = "loss_mask";
constexpr const char* kManifestName = "manifest.yaml";
constexpr const char* kBuilder = "ladle pack 0.1.0";
constexpr const char* kManifestHeader = "# Written by ladle pack";

// A buffered output file that hashes what it writes.
class HashedFile {
 public:
  explicit HashedFile(const fs::path& path) : path_(path.string()) {
    f_ = std::fopen(path_.c_str(), "wb");
    if (!f_) throw Error(ErrorKind::io, fmt::format("cannot create: {}", std::strerror(errno)), {path_});
  }
  ~HashedFile() {
    if (f_) std::fclose(f_);
  }
  HashedFile(const HashedFile&) = delete;
  HashedFile& operator=(const HashedFile&) = delete;
  void write(std::string_view bytes) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size()) {
      throw Error(ErrorKind::io, fmt::format("cannot write: {}", std::strerror(errno)), {path_});
    }
    hash_.update(bytes);
    bytes_ += static_cast<int64_t>(bytes.size());
  }
  OutputFile finish(const std::string& name) {
    const bool ok = std::fflush(f_) == 0 && ::fsync(::fileno(f_)) == 0;
    const bool closed = std::fclose(f_) == 0;
    f_ = nullptr;
    if (!ok || !closed) {
      throw Error(ErrorKind::io, fmt::format("cannot write: {}", std::strerror(errno)), {path_});
    }
    return OutputFile{name, hash_.hex_digest(), bytes_};
  }

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
  util::Sha256 hash_;
  int64_t bytes_ = 0;
};

std::string ratio_text(double ratio) { return fmt::format("{:.3f}", ratio); }

}  // namespace

std::string packing_description(int64_t row_tokens) {
  return fmt::format(
      "source conversations in a seeded global permutation, concatenated with an EOS token between "
      "them and cut into consecutive {}-token rows; rows without supervised targets are skipped",
      util::format_grouped(static_cast<long long>(row_tokens)));
}

PackManifest write_pack(const Tokenizer& tokenizer, const PackOptions& options,
                        const PackOutput& output, const ProgressSink& progress) {
  // A folder ladle pack wrote holds its manifest; any other non-empty folder is refused.
  util::StagedDir temp(output.dir, util::OutputMarker{kManifestName, kManifestHeader}, "--out");
  HashedFile jsonl(temp.path() / kJsonlName);
  MegatronWriter ids_writer((temp.path() / kIdsPrefix).string(),
                            token_dtype_for_vocab(tokenizer.vocab_size()));
  MegatronWriter mask_writer((temp.path() / kMaskPrefix).string(), MegatronDtype::uint8);
  util::Sha256 rows_hash;
  std::string line;
  std::string canonical;
  const PackStats stats = pack_rows(
      tokenizer, options,
      [&](std::span<const int32_t> ids, std::span<const uint8_t> mask) {
        line.assign("{\"ids\":[");
        for (size_t i = 0; i < ids.size(); ++i) {
          if (i) line += ',';
          line += std::to_string(ids[i]);
        }
        line += "],\"mask\":[";
        for (size_t i = 0; i < mask.size(); ++i) {
          if (i) line += ',';
          line += mask[i] ? '1' : '0';
        }
        line += "]}\n";
        jsonl.write(line);
        ids_writer.add(ids.data(), ids.size());
        mask_writer.add(mask.data(), mask.size());
        canonical.resize(ids.size() * 4 + mask.size());
        for (size_t i = 0; i < ids.size(); ++i) {
          const auto v = static_cast<uint32_t>(ids[i]);
          for (size_t b = 0; b < 4; ++b) canonical[i * 4 + b] = static_cast<char>((v >> (8 * b)) & 0xFF);
        }
        std::memcpy(canonical.data() + ids.size() * 4, mask.data(), mask.size());
        rows_hash.update(canonical);
      },
      progress);

  PackManifest m;
  m.build.name = output.name;
  m.tokenizer_sha256 = tokenizer.sha256();
  m.build.tokenizer = fmt::format("{} (tokenizer.json sha256 {})", output.tokenizer_label, tokenizer.sha256());
  m.build.loss_mask = std::string(to_string(options.family));
  m.build.rows = stats.rows;
  m.build.row_tokens = options.row_tokens;
  m.build.padding_tokens = stats.padding_tokens;
  m.build.seed = static_cast<int64_t>(options.seed);  // the CLI keeps seeds below 2^63, as recipes hold int64
  m.build.packing = packing_description(options.row_tokens);
  m.build.supervised_token_ratio = stats.supervised_token_ratio(options.row_tokens);
  m.rows_sha256 = rows_hash.hex_digest();
  m.build.builder = kBuilder;
  m.stats = stats;
  m.files.push_back(jsonl.finish(kJsonlName));
  ids_writer.finish();
  mask_writer.finish();
  m.files.push_back({std::string(kIdsPrefix) + ".bin", ids_writer.bin_sha256(),
                     static_cast<int64_t>(ids_writer.bin_bytes())});
  m.files.push_back({std::string(kIdsPrefix) + ".idx", ids_writer.idx_sha256(),
                     static_cast<int64_t>(ids_writer.idx_bytes())});
  m.files.push_back({std::string(kMaskPrefix) + ".bin", mask_writer.bin_sha256(),
                     static_cast<int64_t>(mask_writer.bin_bytes())});
  m.files.push_back({std::string(kMaskPrefix) + ".idx", mask_writer.idx_sha256(),
                     static_cast<int64_t>(mask_writer.idx_bytes())});
  util::write_file_atomic((temp.path() / kManifestName).string(), render_manifest_yaml(m));
  temp.commit();
  return m;
}

std::string render_manifest_yaml(const PackManifest& m) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "rows_sha256" << YAML::Value << m.rows_sha256;
  out << YAML::Key << "build" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << m.build.name;
  out << YAML::Key << "tokenizer" << YAML::Value << m.build.tokenizer;
  out << YAML::Key << "loss_mask" << YAML::Value << m.build.loss_mask;
  out << YAML::Key << "rows" << YAML::Value << m.build.rows;
  out << YAML::Key << "row_tokens" << YAML::Value << m.build.row_tokens;
  out << YAML::Key << "padding_tokens" << YAML::Value << m.build.padding_tokens;
  out << YAML::Key << "seed" << YAML::Value << m.build.seed;
  out << YAML::Key << "packing" << YAML::Value << m.build.packing;
  out << YAML::Key << "supervised_token_ratio" << YAML::Value << ratio_text(m.build.supervised_token_ratio);
  out << YAML::Key << "builder" << YAML::Value << m.build.builder;
  out << YAML::EndMap;
  out << YAML::Key << "files" << YAML::Value << YAML::BeginMap;
  for (const OutputFile& f : m.files) {
    out << YAML::Key << f.name << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "sha256" << YAML::Value << f.sha256;
    out << YAML::Key << "bytes" << YAML::Value << f.bytes;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::Key << "stats" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "source_conversations" << YAML::Value << m.stats.source_conversations;
  out << YAML::Key << "conversations_used" << YAML::Value << m.stats.conversations_used;
  out << YAML::Key << "rows_skipped_without_supervised_tokens" << YAML::Value << m.stats.rows_skipped;
  out << YAML::Key << "supervised_tokens" << YAML::Value << m.stats.supervised_tokens;
  out << YAML::Key << "tokenizer_sha256" << YAML::Value << m.tokenizer_sha256;
  out << YAML::EndMap;
  out << YAML::EndMap;
  return std::string(kManifestHeader) + ": rows_sha256 and the build block of a recipe's workload.dataset.\n" +
         out.c_str() + "\n";
}

std::string render_manifest_json(const PackManifest& m) {
  nlohmann::ordered_json j;
  j["rows_sha256"] = m.rows_sha256;
  nlohmann::ordered_json b;
  b["name"] = m.build.name;
  b["tokenizer"] = m.build.tokenizer;
  b["loss_mask"] = m.build.loss_mask;
  b["rows"] = m.build.rows;
  b["row_tokens"] = m.build.row_tokens;
  b["padding_tokens"] = m.build.padding_tokens;
  b["seed"] = m.build.seed;
  b["packing"] = m.build.packing;
  b["supervised_token_ratio"] = std::stod(ratio_text(m.build.supervised_token_ratio));
  b["builder"] = m.build.builder;
  j["build"] = b;
  // A list, not a map keyed by file name: JSON keys are snake_case names, never data.
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (const OutputFile& f : m.files) files.push_back({{"name", f.name}, {"sha256", f.sha256}, {"bytes", f.bytes}});
  j["files"] = files;
  j["stats"] = {{"source_conversations", m.stats.source_conversations},
                {"conversations_used", m.stats.conversations_used},
                {"rows_skipped_without_supervised_tokens", m.stats.rows_skipped},
                {"supervised_tokens", m.stats.supervised_tokens},
                {"supervised_token_ratio_exact", m.build.supervised_token_ratio},
                {"tokenizer_sha256", m.tokenizer_sha256}};
  return j.dump(2) + "\n";
}

}  // namespace ladle::pack
