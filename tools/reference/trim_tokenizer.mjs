// Trims a byte-level BPE tokenizer.json to its first MERGES merges (and the vocabulary they need),
// keeping every other section as it is, so a small fixture still exercises the real normalizer,
// pre-tokenizer, added tokens and merge ranks. Usage:
//   node trim_tokenizer.mjs IN.json MERGES DROP_ADDED_REGEX > OUT.json
// Added tokens whose content matches DROP_ADDED_REGEX (e.g. reserved placeholders) are left out.
import { readFileSync } from "node:fs";

const [inPath, mergesArg, dropArg] = process.argv.slice(2);
const t = JSON.parse(readFileSync(inPath, "utf8"));
const keepMerges = t.model.merges.slice(0, Number(mergesArg));
const drop = dropArg ? new RegExp(dropArg) : null;

// The 256 characters of the byte-level alphabet (GPT-2's bytes_to_unicode).
const alphabet = [];
let next = 256;
for (let b = 0; b < 256; ++b) {
  const printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
  alphabet.push(String.fromCodePoint(printable ? b : next++));
}
const keep = new Set(alphabet);
for (const m of keepMerges) {
  const [a, b] = Array.isArray(m) ? m : [m.slice(0, m.indexOf(" ")), m.slice(m.indexOf(" ") + 1)];
  keep.add(a);
  keep.add(b);
  keep.add(a + b);
}
const vocab = {};
for (const [token, id] of Object.entries(t.model.vocab)) {
  if (keep.has(token)) vocab[token] = id;
}
t.model.vocab = vocab;
t.model.merges = keepMerges;
t.added_tokens = t.added_tokens.filter((a) => !(drop && drop.test(a.content)));
// Hugging Face gives an added token missing from the model vocabulary a fresh id after the
// vocabulary, not the id written beside it; keeping them in the vocabulary keeps their real ids.
for (const a of t.added_tokens) vocab[a.content] = a.id;
process.stdout.write(JSON.stringify(t) + "\n");
