// Packing: determinism across runs and thread counts, the manifest's figures against the rows,
// the Megatron files, skipped rows, and bad input that must leave no output behind.
#include "ladle/pack/packer.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ladle/pack/megatron_writer.hpp"
#include "ladle/pack/pack_writer.hpp"
#include "ladle/pack/permutation.hpp"
#include "ladle/util/file_io.hpp"
#include "ladle/util/sha256.hpp"
#include "ladle/util/text.hpp"
#include "support/test_support.hpp"

namespace ladle::pack {
namespace {

using nlohmann::json;

const Tokenizer& qwen3() {
  static const Tokenizer t = Tokenizer::from_file(
      test::source_path("tests/data/pack/tokenizers/qwen3_trimmed.json"));
  return t;
}

// `count` varied conversations, one JSON object per line.
std::string make_conversations(int count) {
  std::string out;
  const char* topics[] = {"rivers", "prime numbers", "bread", "the moon", "chess", "typhoons"};
  for (int i = 0; i < count; ++i) {
    json c;
    c["messages"] = json::array();
    if (i % 3 == 0) c["messages"].push_back({{"role", "system"}, {"content", "You are concise."}});
    c["messages"].push_back(
        {{"role", "user"}, {"content", fmt::format("Question {} about {}?", i, topics[i % 6])}});
    std::string answer;
    for (int k = 0; k <= i % 7; ++k) answer += fmt::format("Fact {} about {} number {}. ", k, topics[i % 6], i);
    c["messages"].push_back({{"role", "assistant"}, {"content", answer}});
    out += c.dump() + "\n";
    if (i % 10 == 4) out += "\n";  // blank lines are ignored
  }
  return out;
}

struct Fixture {
  test::TempDir dir;
  PackOptions options;
  Fixture(const std::string& conversations, int64_t rows, int64_t row_tokens) {
    util::write_file_atomic(dir.file("conversations.jsonl"), conversations);
    options.input_path = dir.file("conversations.jsonl");
    options.family = TemplateFamily::qwen3;
    options.rows = rows;
    options.row_tokens = row_tokens;
    options.seed = 7;
  }
  PackManifest run(const std::string& out, int threads) {
    PackOptions o = options;
    o.threads = threads;
    return write_pack(qwen3(), o, PackOutput{dir.file(out), "test-rows", "qwen3-trimmed"});
  }
};

TEST(Permutation, SplitMix64MatchesThePublishedSequence) {
  // First outputs for seed 1234567, as published with the reference C implementation.
  SplitMix64 rng(1234567);
  EXPECT_EQ(rng.next(), 6457827717110365317ULL);
  EXPECT_EQ(rng.next(), 3203168211198807973ULL);
  EXPECT_EQ(rng.next(), 9817491932198370423ULL);
  EXPECT_EQ(rng.next(), 4593380528125082431ULL);
  EXPECT_EQ(rng.next(), 16408922859458223821ULL);
}

TEST(Permutation, FisherYatesOrderIsFixedForASeed) {
  // Computed by an independent Python transcription of the algorithm documented in
  // permutation.hpp.
  EXPECT_EQ(seeded_permutation(10, 42), (std::vector<uint32_t>{0, 9, 5, 8, 6, 4, 7, 2, 1, 3}));
  EXPECT_EQ(seeded_permutation(16, 20260828),
            (std::vector<uint32_t>{8, 7, 15, 14, 2, 5, 13, 4, 12, 3, 1, 6, 0, 11, 10, 9}));
  EXPECT_TRUE(seeded_permutation(0, 1).empty());
  EXPECT_EQ(seeded_permutation(1, 1), (std::vector<uint32_t>{0}));
}

TEST(Pack, OutputIsByteIdenticalForOneAndFourThreadsAndAcrossRuns) {
  Fixture f(make_conversations(700), 40, 96);
  const PackManifest one = f.run("one", 1);
  const PackManifest four = f.run("four", 4);
  const PackManifest again = f.run("again", 4);
  EXPECT_EQ(one.rows_sha256, four.rows_sha256);
  EXPECT_EQ(one.files, four.files);
  EXPECT_EQ(four, again);
  for (const OutputFile& file : one.files) {
    EXPECT_EQ(util::read_file(f.dir.file("one/" + file.name)),
              util::read_file(f.dir.file("four/" + file.name)))
        << file.name;
  }
  EXPECT_EQ(util::read_file(f.dir.file("one/manifest.yaml")),
            util::read_file(f.dir.file("four/manifest.yaml")));
  f.options.seed = 8;
  EXPECT_NE(f.run("other_seed", 2).rows_sha256, one.rows_sha256);
}

TEST(Pack, ManifestFiguresCheckOutAgainstTheRows) {
  Fixture f(make_conversations(300), 25, 80);
  const PackManifest m = f.run("out", 2);
  EXPECT_EQ(m.build.rows, 25);
  EXPECT_EQ(m.build.padding_tokens, 0);
  EXPECT_EQ(m.build.loss_mask, "qwen3");
  EXPECT_EQ(m.build.tokenizer, "qwen3-trimmed (tokenizer.json sha256 " + qwen3().sha256() + ")");
  // Recompute rows_sha256, the supervised ratio and the file hashes from what was written.
  util::Sha256 canonical;
  int64_t supervised = 0;
  int64_t rows = 0;
  std::vector<int32_t> all_ids;
  std::vector<uint8_t> all_mask;
  for (const std::string& line : util::split(util::read_file(f.dir.file("out/rows.jsonl")), '\n')) {
    if (line.empty()) continue;
    const json row = json::parse(line);
    const auto ids = row["ids"].get<std::vector<int32_t>>();
    const auto mask = row["mask"].get<std::vector<uint8_t>>();
    ASSERT_EQ(ids.size(), 80u);
    ASSERT_EQ(mask.size(), 80u);
    int64_t row_supervised = 0;
    std::string bytes;
    for (int32_t id : ids) {
      for (int b = 0; b < 4; ++b) bytes += static_cast<char>((static_cast<uint32_t>(id) >> (8 * b)) & 0xFF);
    }
    for (uint8_t v : mask) {
      bytes += static_cast<char>(v);
      row_supervised += v;
    }
    EXPECT_GT(row_supervised, 0) << "a row without supervised tokens was written";
    canonical.update(bytes);
    supervised += row_supervised;
    all_ids.insert(all_ids.end(), ids.begin(), ids.end());
    all_mask.insert(all_mask.end(), mask.begin(), mask.end());
    ++rows;
  }
  EXPECT_EQ(rows, m.build.rows);
  EXPECT_EQ(canonical.hex_digest(), m.rows_sha256);
  EXPECT_EQ(supervised, m.stats.supervised_tokens);
  EXPECT_DOUBLE_EQ(m.build.supervised_token_ratio, static_cast<double>(supervised) / (25.0 * 80.0));
  for (const OutputFile& file : m.files) {
    const std::string bytes = util::read_file(f.dir.file("out/" + file.name));
    EXPECT_EQ(util::sha256_hex(bytes), file.sha256) << file.name;
    EXPECT_EQ(static_cast<int64_t>(bytes.size()), file.bytes) << file.name;
  }
  // The Megatron .bin holds the same ids (uint16 would not fit Qwen's ids: int32) and masks.
  const std::string bin = util::read_file(f.dir.file("out/rows.bin"));
  ASSERT_EQ(bin.size(), all_ids.size() * 4);
  for (size_t i = 0; i < all_ids.size(); ++i) {
    int32_t v = 0;
    std::memcpy(&v, bin.data() + i * 4, 4);
    ASSERT_EQ(v, all_ids[i]) << i;
  }
  const std::string mask_bin = util::read_file(f.dir.file("out/loss_mask.bin"));
  EXPECT_EQ(std::vector<uint8_t>(mask_bin.begin(), mask_bin.end()), all_mask);
  const std::string manifest = util::read_file(f.dir.file("out/manifest.yaml"));
  EXPECT_NE(manifest.find("rows_sha256: " + m.rows_sha256), std::string::npos);
  EXPECT_NE(manifest.find("  packing: source conversations in a seeded global permutation"),
            std::string::npos);
}

TEST(Pack, SkipsRowsWithoutSupervisedTokens) {
  // Long questions and one-word answers: most 32-token rows hold user text only.
  std::string conversations;
  for (int i = 0; i < 60; ++i) {
    json c;
    std::string question;
    for (int k = 0; k < 30; ++k) question += fmt::format("word{} ", k + i);
    c["messages"] = {{{"role", "user"}, {"content", question}}, {{"role", "assistant"}, {"content", "Yes."}}};
    conversations += c.dump() + "\n";
  }
  Fixture f(conversations, 10, 32);
  const PackManifest m = f.run("out", 3);
  EXPECT_EQ(m.build.rows, 10);
  EXPECT_GT(m.stats.rows_skipped, 0);
}

TEST(Pack, TooFewTokensIsAnErrorAndWritesNothing) {
  Fixture f(make_conversations(5), 1000, 64);
  EXPECT_LADLE_ERROR(f.run("out", 2), input, "fewer source tokens than the rows asked for");
  EXPECT_FALSE(std::filesystem::exists(f.dir.file("out")));
  // Nothing half-written is left beside it either.
  for (const auto& entry : std::filesystem::directory_iterator(f.dir.path())) {
    EXPECT_EQ(entry.path().filename(), "conversations.jsonl");
  }
}

TEST(Pack, BadLineIsReportedWithItsNumberAndTheOldOutputStays) {
  std::string conversations = make_conversations(6);
  std::vector<std::string> lines = util::split(conversations, '\n');
  lines[6] = R"({"messages": [{"role": "user", "content": "hi"}, )";  // line 7: truncated JSON
  // Enough rows that every conversation is needed, so the packer reaches line 7.
  Fixture good(make_conversations(50), 3, 32);
  good.run("out", 1);
  const std::string manifest = util::read_file(good.dir.file("out/manifest.yaml"));
  Fixture f(util::join(lines, "\n"), 50, 16);
  std::filesystem::rename(good.dir.file("out"), f.dir.file("out"));
  EXPECT_LADLE_ERROR(f.run("out", 2), input, "conversations.jsonl:7:");
  EXPECT_EQ(util::read_file(f.dir.file("out/manifest.yaml")), manifest);
}

TEST(Pack, ReplacesAnOutputItWroteWhenComplete) {
  Fixture f(make_conversations(50), 3, 32);
  f.run("out", 1);
  util::write_file_atomic(f.dir.file("out/stale.txt"), "old");
  f.run("out", 1);
  EXPECT_FALSE(std::filesystem::exists(f.dir.file("out/stale.txt")));
  EXPECT_TRUE(std::filesystem::exists(f.dir.file("out/rows.idx")));
}

TEST(Pack, RefusesAFolderItDidNotWriteAndLeavesItAlone) {
  Fixture f(make_conversations(50), 3, 32);
  std::filesystem::create_directories(f.dir.file("out"));
  util::write_file_atomic(f.dir.file("out/thesis.tex"), "mine");
  EXPECT_LADLE_ERROR(f.run("out", 1), usage, "is not empty and holds no output written by ladle");
  EXPECT_EQ(util::read_file(f.dir.file("out/thesis.tex")), "mine");
  util::write_file_atomic(f.dir.file("file"), "x");
  EXPECT_LADLE_ERROR(f.run("file", 1), usage, "is not a folder");
  EXPECT_EQ(util::read_file(f.dir.file("file")), "x");
  for (const auto& e : std::filesystem::directory_iterator(f.dir.path())) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
    EXPECT_EQ(e.path().filename().string().find(".old-"), std::string::npos) << e.path();
  }
}

TEST(Pack, ManyThreadsAreClampedNotAnAbort) {
  Fixture f(make_conversations(50), 3, 32);
  f.run("out", 100000);
  EXPECT_TRUE(std::filesystem::exists(f.dir.file("out/rows.idx")));
}

TEST(Pack, NumberOutOfDoubleRangeIsOneLocatedError) {
  std::string conversations = make_conversations(6);
  std::vector<std::string> lines = util::split(conversations, '\n');
  lines[2] = R"({"score": 1e400, "messages": [{"role": "user", "content": "hi"}]})";
  for (const int threads : {1, 2}) {
    Fixture f(util::join(lines, "\n"), 50, 16);
    EXPECT_LADLE_ERROR(f.run("out", threads), input, "conversations.jsonl:3:11: error: a number outside the range");
  }
}

TEST(MegatronWriter, WritesTheMmidIdxLayout) {
  test::TempDir dir;
  MegatronWriter w(dir.file("d"), MegatronDtype::uint16);
  const std::vector<int32_t> a = {1, 2, 65535};
  const std::vector<int32_t> b = {7};
  w.add(a.data(), a.size());
  w.add(b.data(), b.size());
  w.finish();
  EXPECT_EQ(util::read_file(dir.file("d.bin")), std::string("\x01\x00\x02\x00\xff\xff\x07\x00", 8));
  std::string expected("MMIDIDX\0\0", 9);
  auto le = [&](uint64_t v, int n) {
    for (int i = 0; i < n; ++i) expected += static_cast<char>((v >> (8 * i)) & 0xFF);
  };
  le(1, 8);        // version
  le(8, 1);        // dtype code: uint16
  le(2, 8);        // sequences
  le(3, 8);        // documents (indices 0, 1, 2)
  le(3, 4);        // lengths
  le(1, 4);
  le(0, 8);        // byte offsets
  le(6, 8);
  le(0, 8);        // document indices
  le(1, 8);
  le(2, 8);
  EXPECT_EQ(util::read_file(dir.file("d.idx")), expected);
  EXPECT_EQ(w.idx_sha256(), util::sha256_hex(expected));
  EXPECT_EQ(token_dtype_for_vocab(65499), MegatronDtype::uint16);
  EXPECT_EQ(token_dtype_for_vocab(151669), MegatronDtype::int32);
}

}  // namespace
}  // namespace ladle::pack
