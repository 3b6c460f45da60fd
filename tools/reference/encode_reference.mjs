// Reference token ids for ladle's tokenizer tests, from the Hugging Face `tokenizers` Rust library
// (the @anush008/tokenizers Node binding). Usage:
//   node encode_reference.mjs TOKENIZER_JSON CORPUS_JSON > golden.json
// CORPUS_JSON is a JSON array of strings; the output holds one id list per string, encoded with
// add_special_tokens=false (special tokens in the text are still matched, as in Hugging Face).
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { Tokenizer } = require("@anush008/tokenizers");

const [tokenizerPath, corpusPath] = process.argv.slice(2);
if (!tokenizerPath || !corpusPath) {
  console.error("usage: node encode_reference.mjs TOKENIZER_JSON CORPUS_JSON");
  process.exit(2);
}
const tokenizer = Tokenizer.fromFile(tokenizerPath);
const corpus = JSON.parse(readFileSync(corpusPath, "utf8"));
const ids = [];
for (const text of corpus) {
  const encoding = await tokenizer.encode(text, null, { addSpecialTokens: false });
  ids.push(encoding.getIds());
}
const sha = createHash("sha256").update(readFileSync(tokenizerPath)).digest("hex");
const lines = ids.map((row) => "  " + JSON.stringify(row));
process.stdout.write(
  `{\n "generator": "tools/reference/encode_reference.mjs (@anush008/tokenizers 0.6.0)",\n` +
    ` "tokenizer_sha256": "${sha}",\n "ids": [\n${lines.join(",\n")}\n ]\n}\n`,
);
