#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job on a fresh machine: install dependencies, build, list the plugins, validate the
# default pipeline, then `repo2rocm run` on the example repository (examples/fused-rmsnorm) with the
# default pipeline, and say what its exit code means here.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
scripts/build.sh default r2r_product  # the CLI, plugins and tools; no tests
bin=build/default/bin/repo2rocm
echo
echo "\$ repo2rocm plugins list"
"$bin" plugins list
echo
echo "\$ repo2rocm validate configs/pipelines/default.json"
"$bin" validate configs/pipelines/default.json

# The example is a directory of this checkout; `run` takes a git repository, so make one.
example=$(mktemp -d "${TMPDIR:-/tmp}/r2r-example.XXXXXX")
trap 'rm -rf "$example"' EXIT
cp -R examples/fused-rmsnorm "$example/"
git -C "$example/fused-rmsnorm" init -q
git -C "$example/fused-rmsnorm" add -A
git -C "$example/fused-rmsnorm" -c user.name=repo2rocm -c user.email=quickstart@repo2rocm.invalid \
  commit -q -m "examples/fused-rmsnorm"
echo
echo "\$ repo2rocm run $example/fused-rmsnorm"
status=0
"$bin" run "$example/fused-rmsnorm" || status=$?
echo
case $status in
  0) echo "quickstart: verified: the example ran on this host's AMD GPU with runtime evidence (exit 0)." ;;
  4) echo "quickstart: exit 4, no ROCm device: the expected, honest end on a host without an AMD GPU." \
          "The example was planned, ported and executed; nothing was claimed as verified." ;;
  3) echo "quickstart: exit 3, not verified: the failed checks are listed above." ;;
  *) echo "quickstart: exit $status: a stage failed (see the stage lines above)." ;;
esac
if [[ $status -ne 0 && $status -ne 4 ]]; then exit "$status"; fi
