#!/usr/bin/env bash
# Runs the Jazzer fuzz targets of the attestation and measured-boot modules, one after the other,
# and prints per target its executions, executions per second and findings, then a summary table.
# docs/fuzzing.md describes the targets, their seeds and a measured run.
#
# Usage: scripts/fuzz.sh [--seconds N] [--runs N] [Class#method ...]
#   --seconds N   stop each target after N seconds (default 60; with --runs alone: no time limit)
#   --runs N      stop each target after N executions (libFuzzer -runs=N)
#   a bare number is --seconds (the old form: scripts/fuzz.sh 60)
#   Class[#method] only these targets (simple or qualified class name), e.g. PeFuzzTest#authenticode
#   scripts/fuzz.sh --list    prints the targets
#   scripts/fuzz.sh --seeds   regenerates the committed seed corpora from real artefacts: a swtpm
#                             (tpm2-tools and TpmAttester), the captured boot, ukify, mkfs.vfat, sgdisk,
#                             systemd-repart (run as root: repart formats the ESP on a loop device)
# Without JAZZER_FUZZ the same targets run as plain regression tests in `mvn test`, over every
# committed seed. Findings are written by jazzer-junit into the target's
# src/test/resources/<package>/<Class>Inputs/<method>/ (crash-*, timeout-*), so that they become
# regression inputs once committed. The corpus a run grows stays under <module>/target/fuzz-corpus/.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(
  attestation:dev.sextant.attestation.verify.DocumentVerifierFuzzTest#verify
  attestation:dev.sextant.attestation.tpmstructures.TpmStructuresFuzzTest#tpmsAttest
  attestation:dev.sextant.attestation.tpmstructures.TpmStructuresFuzzTest#tpmtPublic
  attestation:dev.sextant.attestation.tpmstructures.TpmStructuresFuzzTest#tpmtSignature
  attestation:dev.sextant.attestation.tpmstructures.TpmStructuresFuzzTest#pcrSelection
  attestation:dev.sextant.attestation.eventlog.EventLogParserFuzzTest#parse
  attestation:dev.sextant.attestation.policy.MeasurementsJsonFuzzTest#parse
  measured-boot:dev.sextant.measuredboot.pe.PeFuzzTest#authenticode
  measured-boot:dev.sextant.measuredboot.predict.UkiFuzzTest#predict
  measured-boot:dev.sextant.measuredboot.gpt.GptFuzzTest#read
  measured-boot:dev.sextant.measuredboot.fat.FatFuzzTest#read
  measured-boot:dev.sextant.measuredboot.predict.EspFuzzTest#bootLoader
)

# The test class path of a module, for the seed generators (run with java, not as tests).
classpath() {
  (cd "$1" && mvn -q -o dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/fuzz-cp.txt >/dev/null)
  echo "$(pwd)/$1/target/test-classes:$(pwd)/$1/target/classes:$(cat "$1/target/fuzz-cp.txt")"
}

if [ "${1:-}" = "--seeds" ]; then
  attestation_res=attestation/src/test/resources
  real_boot_log=measured-boot/src/test/resources/boot/mkosi-stub252-eventlog.bin
  mvn -q -o -pl attestation,tpm-manufacturer,measured-boot test-compile
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  # Order matters: FuzzSeeds derives PCR selection seeds from the TPMS_ATTEST seeds the first two write.
  "$attestation_res/fixtures/fuzz/capture-swtpm.sh" \
    "$attestation_res/dev/sextant/attestation/tpmstructures/TpmStructuresFuzzTestInputs"
  java -cp "$(classpath tpm-manufacturer)" dev.sextant.tpm.attest.SwtpmFuzzSeeds "$attestation_res" "$real_boot_log"
  java -cp "$(classpath attestation)" dev.sextant.attestation.testkit.FuzzSeeds "$attestation_res" "$real_boot_log"
  # From the module's directory: the Debian packages it downloads are cached in its target/peer-cache, as the tests' are.
  cp_mb=$(classpath measured-boot)
  (cd measured-boot && java -cp "$cp_mb" dev.sextant.measuredboot.testing.FuzzSeeds \
    src/test/resources "../$attestation_res" "$scratch")
  find attestation/src/test/resources measured-boot/src/test/resources -path '*FuzzTestInputs/*' -type f -exec chmod 644 {} +
  for d in attestation/src/test/resources/dev measured-boot/src/test/resources/dev; do
    find "$d" -path '*FuzzTestInputs/*' -mindepth 1 -type d | sort | while read -r m; do
      printf '%4d seeds %8d bytes  %s\n' "$(find "$m" -type f | wc -l)" "$(cat "$m"/* | wc -c)" "$m"
    done
  done
  exit 0
fi

if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${TARGETS[@]#*:}"
  exit 0
fi

seconds=
runs=
selected=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    [0-9]*) seconds=$1; shift ;;
    -*) echo "unknown option $1 (see the usage at the top of $0)" >&2; exit 2 ;;
    *) selected+=("$1"); shift ;;
  esac
done
if [ -z "$seconds" ]; then
  # libFuzzer: -max_total_time=0 is no limit, so --runs alone runs until that many executions.
  if [ -n "$runs" ]; then seconds=0; else seconds=60; fi
fi

targets=()
if [ ${#selected[@]} -eq 0 ]; then
  targets=("${TARGETS[@]}")
else
  for s in "${selected[@]}"; do
    match=$(printf '%s\n' "${TARGETS[@]}" | grep -E "(:|\.)${s//./\\.}(#.*)?$" || true)
    [ -n "$match" ] || { echo "no fuzz target $s (scripts/fuzz.sh --list)" >&2; exit 2; }
    targets+=($match)
  done
fi

modules=$(printf '%s\n' "${targets[@]%%:*}" | sort -u | paste -sd, -)
mvn -q -o -pl "$modules" test-compile

limit="${seconds}s"
[ "$seconds" = 0 ] && limit="no time limit"
[ -n "$runs" ] && limit="$limit, $runs executions"
echo "== fuzzing ${#targets[@]} targets one at a time ($limit each) on $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
summary=()
status=0
for entry in "${targets[@]}"; do
  module=${entry%%:*}
  target=${entry#*:}
  class=${target%#*}
  name=${target##*.}
  corpus="$module/target/fuzz-corpus/${target//#/.}"
  log="$module/target/fuzz-${target//#/.}.log"
  mkdir -p "$corpus"
  args=(-Djazzer.internal.arg.0=fuzz -Djazzer.internal.arg.1="$(pwd)/$corpus"
        -Djazzer.internal.arg.2=-max_total_time="$seconds" -Djazzer.internal.arg.3=-print_final_stats=1)
  [ -n "$runs" ] && args+=(-Djazzer.internal.arg.4=-runs="$runs")
  echo "== $name ($limit)"
  # jazzer-junit appends jazzer.internal.arg.* to libFuzzer's command line after its own flags, so
  # this corpus directory, -max_total_time and -runs override the @FuzzTest defaults. surefire:test
  # alone: the classes were compiled above, once per module.
  if JAZZER_FUZZ=1 mvn -o -pl "$module" surefire:test -Dtest="$target" -Dsurefire.failIfNoSpecifiedTests=false \
      "${args[@]}" >"$log" 2>&1; then
    result=ok
  else
    result=FAILED
    status=1
  fi
  # Targets of one class share surefire's output file: keep a copy per target.
  out="$module/target/fuzz-${target//#/.}.output.txt"
  cp "$module/target/surefire-reports/$class-output.txt" "$out" 2>/dev/null || : >"$out"
  done_line=$(cat "$out" "$log" | grep -ao 'Done [0-9]* runs in [0-9]* second' | tail -1 || true)
  execs=$(cat "$out" "$log" | grep -aoE 'stat::number_of_executed_units: *[0-9]+' | tail -1 | grep -oE '[0-9]+$' || true)
  [ -n "$execs" ] || execs=$(echo "$done_line" | awk '{print $2}')
  secs=$(echo "$done_line" | awk '{print $5}')
  rate=$(cat "$out" "$log" | grep -aoE 'stat::average_exec_per_sec: *[0-9]+' | tail -1 | grep -oE '[0-9]+$' || true)
  [ -n "$rate" ] || { [ -n "$execs" ] && [ -n "$secs" ] && [ "$secs" -gt 0 ] && rate=$(( execs / secs )); } || true
  findings=$( (cat "$out" "$log" | grep -aoE '(Test unit|artifact) written to [^ ]*' || true) | sort -u | wc -l)
  [ "$findings" -gt 0 ] && result=FINDING
  line=$(printf '%-40s %-8s %12s %10s %9s %9s' "$name" "$result" "${execs:--}" "${rate:--}" "${secs:--}" "$findings")
  echo "   $line   (log: $log)"
  summary+=("$line")
done
echo "== summary ($limit per target)"
printf '%-40s %-8s %12s %10s %9s %9s\n' target result executions "exec/s" "fuzz s" findings
printf '%s\n' "${summary[@]}"
exit $status
