#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Configures and builds one CMake preset (default: "default"). Idempotent and incremental.
# Usage: scripts/build.sh [default|debug|asan]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
