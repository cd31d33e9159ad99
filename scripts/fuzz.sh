#!/usr/bin/env bash
# Runs every Jazzer fuzz target of the attestation module for N seconds each (default 60) and
# prints executions and findings per target. Usage: scripts/fuzz.sh [seconds] [Class#method ...]
#   scripts/fuzz.sh --seeds   regenerates the committed seed corpora (testkit.FuzzSeeds).
# Without JAZZER_FUZZ the same targets run as plain regression tests in `mvn test`.
# Findings are written by jazzer-junit into src/test/resources/<package>/<Class>Inputs/<method>/,
# so that they become regression inputs once committed. The growing corpus stays under target/.
set -euo pipefail
cd "$(dirname "$0")/.."
module=attestation

if [ "${1:-}" = "--seeds" ]; then
  mvn -q -o -pl "$module" test-compile
  (cd "$module" && mvn -q -o dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/cp.txt >/dev/null \
    && java -cp "target/test-classes:target/classes:$(cat target/cp.txt)" dev.sextant.attestation.testkit.FuzzSeeds src/test/resources)
  exit 0
fi

seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(
    dev.sextant.attestation.verify.DocumentVerifierFuzzTest#verify
    dev.sextant.attestation.tpmstructures.TpmStructuresFuzzTest#tpmsAttest
    dev.sextant.attestation.tpmstructures.TpmStructuresFuzzTest#tpmtPublic
    dev.sextant.attestation.tpmstructures.TpmStructuresFuzzTest#tpmtSignature
    dev.sextant.attestation.tpmstructures.TpmStructuresFuzzTest#pcrSelection
    dev.sextant.attestation.eventlog.EventLogParserFuzzTest#parse
    dev.sextant.attestation.policy.MeasurementsJsonFuzzTest#parse
  )
fi

mvn -q -o -pl "$module" test-compile
summary=()
status=0
for target in "${targets[@]}"; do
  class=${target%#*}
  corpus="$module/target/fuzz-corpus/${target//#/.}"
  mkdir -p "$corpus"
  log="$module/target/fuzz-${target//#/.}.log"
  echo "== fuzzing $target for ${seconds}s"
  # jazzer-junit appends jazzer.internal.arg.* to libFuzzer's command line after its own flags,
  # so this corpus directory and -max_total_time override the @FuzzTest defaults.
  if JAZZER_FUZZ=1 mvn -o -pl "$module" test -Dtest="$target" -Dsurefire.failIfNoSpecifiedTests=false \
      -Djazzer.internal.arg.0=fuzz -Djazzer.internal.arg.1="$(pwd)/$corpus" \
      -Djazzer.internal.arg.2=-max_total_time="$seconds" >"$log" 2>&1; then
    result=ok
  else
    result=FINDING
    status=1
  fi
  # Targets of one class share surefire's output file: keep a copy per target.
  out="$module/target/fuzz-${target//#/.}.output.txt"
  cp "$module/target/surefire-reports/$class-output.txt" "$out" 2>/dev/null || : >"$out"
  runs=$(grep -aho 'Done [0-9]* runs in [0-9]* second' "$out" "$log" | tail -1 || true)
  findings=$( (cat "$out" "$log" | grep -ao 'Test unit written to [^ ]*' || true) | sort -u | wc -l)
  summary+=("$(printf '%-70s %-8s %s, findings: %s' "$target" "$result" "${runs:-no run count}" "${findings:-0}")")
done
printf '%s\n' "== summary" "${summary[@]}"
exit $status
