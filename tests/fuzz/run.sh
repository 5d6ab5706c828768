#!/usr/bin/env bash
# Runs every libFuzzer harness of BUILD (a DDLSIM_FUZZ=ON build) for SECONDS each, from its seed
# corpus (tests/fuzz/corpus/NAME). A crash, leak, sanitizer report, uncaught exception or a
# 10-second input fails the run; the input is written to tests/fuzz/regressions/NAME/ so that it
# becomes a regression test (ctest FuzzRegression.NAME) once committed.
#   tests/fuzz/run.sh BUILD [SECONDS]
set -euo pipefail
build=${1:?usage: tests/fuzz/run.sh BUILD [SECONDS]}
seconds=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
status=0
for fuzzer in "$build"/fuzz_*; do
  [ -x "$fuzzer" ] || continue
  name=$(basename "$fuzzer"); name=${name#fuzz_}
  work=$(mktemp -d)
  mkdir -p "$here/regressions/$name"
  echo "fuzz: $name for ${seconds}s"
  if ! "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$here/regressions/$name/" "$work" "$here/corpus/$name" > "$work.log" 2>&1; then
    tail -n 40 "$work.log"
    echo "fuzz: $name FAILED; the input is in tests/fuzz/regressions/$name/"
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$work.log" | tr '\n' ' '; echo
  fi
  rm -rf "$work" "$work.log"
done
exit $status
