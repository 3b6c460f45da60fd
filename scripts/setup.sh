#!/usr/bin/env bash
# Installs every Debian package ladle's build, tests and benchmarks need. Idempotent; run as root on
# Debian 12. Pass --browser to add Chromium and Node.js for the site's browser test.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev libssl-dev libpcre2-dev libicu-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsqlite3-dev
  libcpp-httplib-dev
  slurm-wlm
  munge
  shellcheck
  libnlopt-dev libeigen3-dev
  clang
  libclang-rt-14-dev
  bubblewrap
  pybind11-dev python3-dev python3-pytest python3-matplotlib python3-yaml
)
if [[ "${1:-}" == "--browser" ]]; then
  packages+=(chromium)
  # A Node.js from another source (NodeSource's nodejs bundles npm and conflicts with Debian's npm)
  # serves as well; add Debian's only when node or npm is missing.
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then packages+=(nodejs npm); fi
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: missing Debian packages: ${missing[*]} (run this script as root)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: all ${#packages[@]} packages present"
