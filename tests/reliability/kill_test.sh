#!/usr/bin/env bash
# kill_test.sh LADLE SOURCE_DIR [ROUNDS]: kill -9 at random moments of every command that writes,
# ROUNDS times each (default 50). After every kill the output's name must hold the old output or
# the new one, whole; after the next complete run no temporary file of the killed runs survives.
# Inputs are small so each command runs in milliseconds; the kill moment is drawn uniformly over
# one run's measured duration.
set -u
ladle=$1
src=$2
rounds=${3:-50}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
RANDOM=12  # the same kill moments on every run of the test

fail() {
  echo "kill_test: $*" >&2
  failures=$((failures + 1))
}

now_us() { echo $(($(date +%s%N) / 1000)); }

# tree_hash PATH: one hash of a file, or of every file under a folder with its relative name.
tree_hash() {
  if [[ -d $1 ]]; then
    (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
  elif [[ -f $1 ]]; then
    sha256sum "$1" | cut -d' ' -f1
  else
    echo missing
  fi
}

# temps DIR: what a killed ladle may leave in DIR (its temporary names).
temps() { find "$1" -maxdepth 1 \( -name '.*.ladle-tmp-*' -o -name '.*.tmp-*' \) -printf '%f\n' | sort; }

# exercise NAME OUTPUT OLD_CMD NEW_CMD [reset]: OLD_CMD and NEW_CMD (shell words) write OUTPUT with
# two different results. Each round kills NEW_CMD or OLD_CMD (alternately) at a random moment and
# checks OUTPUT; with `reset`, OLD_CMD only restores the old output (a cp) and every round runs it
# to completion first, then kills NEW_CMD.
exercise() {
  local name=$1 output=$2 old_cmd=$3 new_cmd=$4 mode=${5:-alternate}
  eval "$old_cmd" >/dev/null 2>&1 || { fail "$name: the old run failed: $old_cmd"; return; }
  local a b
  a=$(tree_hash "$output")
  local start end
  start=$(now_us)
  eval "$new_cmd" >/dev/null 2>&1 || { fail "$name: the new run failed: $new_cmd"; return; }
  end=$(now_us)
  b=$(tree_hash "$output")
  [[ $a != "$b" ]] || { fail "$name: the two runs give the same output; the test could not tell them apart"; return; }
  local span=$(((end - start) * 3 / 2 + 1))
  local killed=0
  for ((i = 0; i < rounds; i++)); do
    local cmd=$old_cmd
    ((i % 2)) && cmd=$new_cmd
    if [[ $mode == reset ]]; then
      eval "$old_cmd" >/dev/null 2>&1
      cmd=$new_cmd
    fi
    local delay_us=$(((RANDOM * 32768 + RANDOM) % span))
    # A session of its own, killed whole: a command ending in `; true` runs ladle as a child of
    # bash, and killing bash alone would leave ladle writing on behind the next round's back.
    setsid bash -c "$cmd" >/dev/null 2>&1 &
    local pid=$!
    sleep "$(printf '0.%06d' "$delay_us")"
    kill -9 -- "-$pid" 2>/dev/null && killed=$((killed + 1))
    wait "$pid" 2>/dev/null
    while pgrep -s "$pid" >/dev/null; do sleep 0.01; done  # every process of the session is gone
    local h
    h=$(tree_hash "$output")
    if [[ $h != "$a" && $h != "$b" ]]; then
      fail "$name: after a kill at ${delay_us} us, $output holds neither the old nor the new output"
      return
    fi
  done
  eval "$new_cmd" >/dev/null 2>&1 || fail "$name: the run after the kills failed"
  [[ $(tree_hash "$output") == "$b" ]] || fail "$name: the run after the kills did not write the new output"
  local left
  left=$(temps "$(dirname "$output")")
  [[ -z $left ]] || fail "$name: temporary files survived the next run: $left"
  echo "kill_test: $name: $rounds rounds, $killed killed before they finished, output always whole"
}

# --- inputs ---------------------------------------------------------------------------------------
tok="$src/tests/data/pack/tokenizers/qwen3_trimmed.json"
grep -v '^[^{]' "$src/tests/cli/pack/small_json/conversations.jsonl" >conv.jsonl
recipe="$src/recipes/glm-4.7-flash/h200/attune-tp1-pp1-ep8.yaml"
mkdir -p cat1 cat2
cp -r "$src/recipes/glm-4.7-flash" cat1/
cp -r "$src/recipes/glm-4.7-flash" "$src/recipes/glm-5.2-744b-a40b" cat2/
cp "$src/tests/cli/score/flash-write/run.log" score.log
cp "$src/tests/cli/converge/flash-json-write/ref.log" ref.log
cp "$src/tests/cli/converge/flash-json-write/cand.log" cand.log
cp "$src/tests/cli/fmt/check-not-canonical/recipe.yaml" fmt-orig.yaml

exercise pack rows \
  "'$ladle' pack --tokenizer '$tok' --template qwen3 --input conv.jsonl --rows 4 --row-tokens 64 --seed 1 --out rows" \
  "'$ladle' pack --tokenizer '$tok' --template qwen3 --input conv.jsonl --rows 4 --row-tokens 64 --seed 2 --out rows"
exercise site site \
  "'$ladle' site --recipes cat1 --out site" \
  "'$ladle' site --recipes cat2 --out site"
exercise fmt fmt.yaml \
  "cp fmt-orig.yaml fmt.yaml" \
  "'$ladle' fmt fmt.yaml" reset
exercise "plan --emit" planned.yaml \
  "'$ladle' plan glm-4.7-flash --gpu h200 --gpus 8 --top 1 --emit planned.yaml --engine miles" \
  "'$ladle' plan glm-4.7-flash --gpu h200 --gpus 16 --top 1 --emit planned.yaml --engine miles"
# The recipes with their result figures changed, so the write changes them back.
sed 's/tokens_per_s_per_gpu: 6178.46/tokens_per_s_per_gpu: 1.5/' "$src/tests/cli/score/flash-write/recipe.yaml" >score-orig.yaml
exercise "score --write" score.yaml \
  "cp score-orig.yaml score.yaml" \
  "'$ladle' score score.log --recipe score.yaml --write" reset
sed 's/correlation: 0.9779/correlation: 0.5/' "$src/tests/cli/converge/flash-json-write/recipe.yaml" >conv-orig.yaml
exercise "converge --write" converge.yaml \
  "cp conv-orig.yaml converge.yaml" \
  "'$ladle' converge --reference ref.log --candidate cand.log --write converge.yaml; true" reset
exercise "calibrate --out" calibration.yaml \
  "'$ladle' calibrate --measurements '$src/data/measurements/torchtitan-2024-12.yaml' --out calibration.yaml" \
  "'$ladle' calibrate --out calibration.yaml"

if ((failures)); then
  echo "kill_test: $failures failure(s)" >&2
  exit 1
fi
