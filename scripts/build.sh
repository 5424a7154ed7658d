#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Configures and builds one CMake preset (default: "default"). Idempotent and incremental.
# Usage: scripts/build.sh [default|debug|asan] [TARGET...]
#   With no TARGET: everything (tests, fixtures, benches). `r2r_product` is what a user runs: the CLI,
#   the in-tree plugins and the tools they ship, without tests (what the quick start builds).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
shift || true
cmake --preset "$preset" >/dev/null
if [[ $# -gt 0 ]]; then
  cmake --build --preset "$preset" --target "$@"
else
  cmake --build --preset "$preset"
fi
