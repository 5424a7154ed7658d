#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs one libFuzzer target of tests/fuzz (docs/fuzzing.md) for SECONDS, from its seed corpus.
# Usage: scripts/fuzz.sh --list
#        scripts/fuzz.sh [--bin-dir D --seed-dir D --work-dir D] TARGET SECONDS [libFuzzer options...]
# Without --bin-dir it first configures and builds the fuzz preset's fuzz_TARGET (incremental).
# New inputs that reach new code go to WORK/TARGET/corpus (kept between runs); a crash, leak,
# timeout or out-of-memory input goes to WORK/TARGET/crashes/ and the script exits non-zero.
# Reproduce one with: build/asan/bin/fuzz/fuzz_TARGET WORK/TARGET/crashes/<file>
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin_dir="" seed_dir="$root/build/asan/tests/fuzz/seeds" work_dir="$root/build/asan/tests/fuzz/work"

usage() {
  sed -n '3,9p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

targets() { sed -n 's/^r2r_fuzz_target(\([a-z0-9_]*\).*/\1/p' "$root/tests/fuzz/CMakeLists.txt"; }

while (($#)); do
  case "$1" in
    --list) targets; exit 0 ;;
    --bin-dir) bin_dir="$2"; shift 2 ;;
    --seed-dir) seed_dir="$2"; shift 2 ;;
    --work-dir) work_dir="$2"; shift 2 ;;
    -h|--help) usage ;;
    *) break ;;
  esac
done
(($# >= 2)) || usage
target="$1" seconds="$2"
shift 2
if ! targets | grep -qx "$target"; then
  echo "fuzz: unknown target '$target'; the targets are (scripts/fuzz.sh --list):" >&2
  targets | sed 's/^/  /' >&2
  exit 2
fi
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || ((seconds < 1)); then
  echo "fuzz: SECONDS must be a positive whole number of seconds, found '$seconds'" >&2
  exit 2
fi

if [[ -z "$bin_dir" ]]; then
  bin_dir="$root/build/asan/bin/fuzz"
  (cd "$root" && cmake --preset fuzz >/dev/null && cmake --build --preset fuzz --target "fuzz_$target")
fi
exe="$bin_dir/fuzz_$target"
if [[ ! -x "$exe" ]]; then
  echo "fuzz: $exe is not built; build it with: cmake --preset fuzz && cmake --build --preset fuzz --target fuzz_$target" >&2
  exit 2
fi

corpus="$work_dir/$target/corpus" crashes="$work_dir/$target/crashes"
mkdir -p "$corpus" "$crashes"
# Leaks count as failures; a UBSan report stops the run like an ASan one.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:intercept_tls_get_addr=0}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/tests/sanitizers/lsan.supp}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# -timeout: one input slower than this is a hang; -rss_limit_mb: a parser that blows up memory.
status=0
"$exe" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2560 -print_final_stats=1 \
  -artifact_prefix="$crashes/" "$@" "$corpus" "$seed_dir/$target" || status=$?
if ((status != 0)); then
  echo "fuzz: $target failed (exit $status); the input is in $crashes/:" >&2
  ls -t "$crashes" | head -3 | sed "s|^|  $crashes/|" >&2
  echo "fuzz: reproduce with: $exe $crashes/<file>" >&2
fi
exit "$status"
