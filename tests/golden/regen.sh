#!/usr/bin/env bash
# Rewrites the golden outputs from build/ddlsim. Only for a deliberate change of the model's numbers;
# then tests/golden/retranscribe.py refreshes the docs' transcripts.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
grep -v '^#' tests/golden/commands.txt | while IFS='|' read -r name args; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  ./build/ddlsim $args > "tests/golden/$name"
done
# The illustrative runs docs/compare.md walks through are ddlsim's own prediction too.
scenarios/compare_example/make_illustrative.sh build/ddlsim > scenarios/compare_example/poti_illustrative.csv
