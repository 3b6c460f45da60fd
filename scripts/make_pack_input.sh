#!/usr/bin/env bash
# Writes the generated conversations the README's `ladle pack` figure reads: two-turn chats (a user
# question and an assistant answer of a few hundred words drawn from a fixed vocabulary by a seeded
# linear congruential generator), one JSON object per line, until the file holds MB megabytes.
# Deterministic: the same MB gives the same bytes.
# Usage: scripts/make_pack_input.sh OUT.jsonl [MB]   (default 357, the README's figure)
set -euo pipefail
if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 OUT.jsonl [MB]" >&2
  exit 2
fi
out=$1
mb=${2:-357}
if ! [[ $mb =~ ^[0-9]+$ ]] || ((mb < 1)); then
  echo "$0: MB must be a whole number of megabytes, at least 1, got '$mb'" >&2
  exit 2
fi
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
LC_ALL=C awk -v limit=$((mb * 1000000)) '
BEGIN {
  n = split("the a model layer token batch gradient optimizer step memory stage pipeline expert " \
            "router tensor parallel rank node network loss learning rate warmup schedule checkpoint " \
            "attention head sequence context window row packing mask supervised answer question " \
            "because therefore however which when while each every first last next before after " \
            "small large fast slow even odd number value table recipe launch measure predict", vocab, " ")
  state = 12345
  bytes = 0
  for (i = 1; bytes < limit; i++) {
    q = "Question " i ":"
    words = 8 + next_int(24)
    for (w = 0; w < words; w++) q = q " " vocab[1 + next_int(n)]
    a = "Answer " i "."
    words = 120 + next_int(360)
    for (w = 0; w < words; w++) a = a (w % 17 == 16 ? ". " : " ") vocab[1 + next_int(n)]
    line = "{\"messages\": [{\"role\": \"user\", \"content\": \"" q "?\"}, " \
           "{\"role\": \"assistant\", \"content\": \"" a ".\"}]}"
    print line
    bytes += length(line) + 1
  }
}
function next_int(k) {
  # Products stay below 2^53, so every awk computes the same sequence exactly.
  state = (state * 69069 + 1) % 4294967296
  return int(state / 65536) % k
}' >"$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "wrote $out ($(stat -c %s "$out") bytes)"
