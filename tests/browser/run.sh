#!/usr/bin/env bash
# CTest entry of the site's browser test (label `browser`): exits 77, which CTest counts as skipped,
# when Node.js or tests/browser/node_modules is missing (site_test.mjs does the same without
# Chromium); LADLE_BROWSER_REQUIRED=1 turns a skip into a failure.
# Usage: run.sh <ladle binary> <scratch folder> <stand-in engine (ladle_fake_engine)>
set -u
ladle=$1
work=$2
engine=$3
here=$(cd "$(dirname "$0")" && pwd)
skip() {
  echo "site browser test: skipped: $1"
  if [[ "${LADLE_BROWSER_REQUIRED:-0}" == 1 ]]; then exit 1; fi
  exit 77
}
command -v node >/dev/null || skip "no node (bash scripts/setup.sh --browser)"
[[ -d "$here/node_modules/playwright-core" ]] || skip "no node_modules (npm ci in tests/browser)"
rm -rf "$work"
mkdir -p "$work"
exec node "$here/site_test.mjs" --ladle "$ladle" --work "$work" --fixtures "$here/../data/site/recipes" \
  --engine "$engine"
