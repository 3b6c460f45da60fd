#!/usr/bin/env bash
# Plans pass their own checks (issue 31): over a sweep of models (dense and MoE), GPUs and counts,
# the top plans that `ladle plan` proposes are written as recipes (the best by `plan --emit`, the
# next ones by `predict --layout SPEC --emit` of the spec `plan --json` gives) and every one must
# pass `ladle check` (R1-R20). A count past one node that is no whole number of nodes is refused
# by plan with exit 2, and nothing is written.
# Usage: plan_check_test.sh LADLE_BINARY [--full]
#   --full: the whole cross product of models x GPUs x counts (about 2 minutes on 2 cores); by
#   default 20 cells of it, in which every model meets every GPU and every count is swept.
set -uo pipefail
ladle=$(realpath "$1")
full=${2:-}
work=$(mktemp -d)
trap '[[ -n "${PLAN_CHECK_KEEP:-}" ]] || rm -rf "$work"' EXIT
failures=0
checked=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

models=(llama-3.1-8b qwen3-30b-a3b glm-4.7-flash deepseek-v3 mixtral-8x22b)
gpus=(h100 h200 b200 gb200)
# GPUs per node (data/hw/gpus.yaml): HGX boards hold 8, a GB200 NVL72 compute tray 4.
declare -A node=([h100]=8 [h200]=8 [b200]=8 [gb200]=4)
# Counts for --full: half a node, one node, two nodes, and 64 GPUs.
counts_of() { local n=${node[$1]}; echo "$((n / 2)) $n $((2 * n)) 64"; }

# check_recipe FILE WHAT: `ladle check` must pass the recipe.
check_recipe() {
  local file=$1 what=$2
  if [[ ! -s "$file" ]]; then
    fail "$what: no recipe written"
    return
  fi
  checked=$((checked + 1))
  if ! "$ladle" check "$file" > "$file.check" 2>&1; then
    fail "$what: ladle check rejects the planned recipe:"
    sed 's/^/    /' "$file.check" >&2
  fi
}

# sweep_one MODEL GPU COUNT
sweep_one() {
  local model=$1 gpu=$2 count=$3 what="$1 on $3 x $2"
  local dir="$work/$model-$gpu-$count"
  mkdir -p "$dir"
  "$ladle" plan "$model" --gpu "$gpu" --gpus "$count" --top 3 --quiet --json --emit "$dir/r1.yaml" \
    > "$dir/plan.json" 2> "$dir/plan.err"
  local rc=$?
  if [[ $rc -ne 0 ]]; then
    # No layout fits (a large model on few GPUs) is an answer, not a bad plan: plan says so.
    # (said on standard error, or as {"fits": false, "reason": ...} with --json).
    local reason
    reason=$(jq -r 'select(.fits == false) | .reason' "$dir/plan.json" 2> /dev/null)
    [[ -n "$reason" ]] || reason=$(grep -m1 "^ladle: no layout of $model fits" "$dir/plan.err")
    if [[ $rc -eq 1 && "$reason" == *"no layout of $model fits"* ]]; then
      [[ ! -e "$dir/r1.yaml" ]] || fail "$what: plan found no layout but wrote $dir/r1.yaml"
      echo "  $what: no layout fits ($reason)"
      return
    fi
    fail "$what: plan exited $rc: $(head -3 "$dir/plan.err")"
    return
  fi
  check_recipe "$dir/r1.yaml" "$what, plan 1"
  # The next plans: their specs from the JSON, each written by predict --layout --emit.
  local rank=1 spec
  while IFS= read -r spec; do
    rank=$((rank + 1))
    [[ $rank -le 3 ]] || break
    if ! "$ladle" predict --model "$model" --gpu "$gpu" --gpus "$count" --layout "$spec" \
      --emit "$dir/r$rank.yaml" > /dev/null 2> "$dir/predict$rank.err"; then
      fail "$what, plan $rank ($spec): predict --emit refused it: $(head -3 "$dir/predict$rank.err")"
      continue
    fi
    check_recipe "$dir/r$rank.yaml" "$what, plan $rank ($spec)"
  done < <(jq -r '.top[1:][] | .layout.spec' "$dir/plan.json")
  echo "  $what: $(jq '.top | length' "$dir/plan.json") plans checked"
}

# The default cells: MODEL GPU COUNT. Each model meets every GPU; a half node (4 H100s, 2 GB200s),
# one node, two and eight nodes all appear; DeepSeek-V3 fits nothing on 4 H200s or 8 B200s (a
# clean answer, exit 1 naming the smallest need).
cells=(
  "llama-3.1-8b h100 4" "llama-3.1-8b h200 8" "llama-3.1-8b b200 16" "llama-3.1-8b gb200 2"
  "qwen3-30b-a3b h100 8" "qwen3-30b-a3b h200 16" "qwen3-30b-a3b b200 4" "qwen3-30b-a3b gb200 64"
  "glm-4.7-flash h100 16" "glm-4.7-flash h200 4" "glm-4.7-flash b200 64" "glm-4.7-flash gb200 8"
  "deepseek-v3 h100 64" "deepseek-v3 h200 4" "deepseek-v3 b200 8" "deepseek-v3 gb200 64"
  "mixtral-8x22b h100 16" "mixtral-8x22b h200 64" "mixtral-8x22b b200 8" "mixtral-8x22b gb200 8"
)
if [[ "$full" == --full ]]; then
  cells=()
  for model in "${models[@]}"; do
    for gpu in "${gpus[@]}"; do
      for count in $(counts_of "$gpu"); do cells+=("$model $gpu $count"); done
    done
  done
fi

echo "--- the top plans of a sweep pass ladle check"
declare -A planned=()
for cell in "${cells[@]}"; do
  read -r model gpu count <<< "$cell"
  sweep_one "$model" "$gpu" "$count"
  [[ -s "$work/$model-$gpu-$count/r1.yaml" ]] && planned[$model]=1
done
# Each model has plans somewhere in the sweep (a sweep of refusals would check nothing).
for model in "${models[@]}"; do
  [[ -n "${planned[$model]:-}" ]] || fail "$model: no cell of the sweep planned it"
done
echo "--- a count past one node that is no whole number of nodes is refused (exit 2), nothing written"
for gpu in "${gpus[@]}"; do
  count=$((node[$gpu] + node[$gpu] / 2))  # one and a half nodes
  out="$work/refused-$gpu.yaml"
  "$ladle" plan qwen3-30b-a3b --gpu "$gpu" --gpus "$count" --top 3 --quiet --emit "$out" \
    > "$work/refused-$gpu.out" 2> "$work/refused-$gpu.err"
  rc=$?
  [[ $rc -eq 2 ]] || fail "plan --gpus $count on $gpu: exit $rc, expected 2"
  grep -q "whole nodes" "$work/refused-$gpu.err" || fail "plan --gpus $count on $gpu: no line naming whole nodes: $(cat "$work/refused-$gpu.err")"
  [[ $(wc -l < "$work/refused-$gpu.err") -eq 1 ]] || fail "plan --gpus $count on $gpu: more than one error line"
  [[ ! -e "$out" ]] || fail "plan --gpus $count on $gpu: wrote $out although it refused"
done

echo "recipes checked: $checked"
if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "all passed"
