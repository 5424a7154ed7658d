#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job on a fresh machine: install dependencies, build, list the plugins and validate the
# default pipeline. Later stages (plan, port, run) join this script as they land.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
scripts/build.sh default
bin=build/default/bin/repo2rocm
echo
echo "\$ repo2rocm plugins list"
"$bin" plugins list
echo
echo "\$ repo2rocm validate configs/pipelines/default.json"
"$bin" validate configs/pipelines/default.json
