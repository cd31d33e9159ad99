#!/usr/bin/env bash
# The test command (README, .ci/run): installs the host tools, proves the set-up on a bare bookworm
# root, builds every module and runs all tests — unit, real-peer (swtpm, tpm2_checkquote,
# osslsigncode, systemd-measure), container images and the QEMU boot tests against a freshly built
# node image — then prints one summary of every module's test reports.
#
# Every stage runs under `timeout` and a failure or time-out names the stage. Each test stage then checks
# that every test class the sources give it ran (scripts/TestReport.java --stage) and fails naming each one
# that did not. With CI=true (.ci/run sets it) a test or a whole class that skipped for a reason not in
# .ci/allowed-skips fails the run (a missing prerequisite is a failure).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
strict=()
[ "${CI:-}" = "true" ] && strict=(--strict)

# CI stops a run at 90 minutes; the stages share 85 of them, so a hang is reported, with its stage,
# before CI kills the run (the summary takes seconds). Each stage also has its own limit.
BUDGET=${SEXTANT_TEST_BUDGET:-5100}
started=$(date +%s)
durations=()
failed_stage=""

run_stage() {
  local name=$1 limit=$2 rc=0 t0 remaining
  shift 2
  t0=$(date +%s)
  remaining=$((BUDGET - (t0 - started)))
  [ "$limit" -le "$remaining" ] || limit=$remaining
  if [ "$limit" -le 0 ]; then
    echo "== TIMEOUT: no time left in the ${BUDGET} s budget for stage \"$name\""
    failed_stage=$name
    exit 1
  fi
  printf '\n== %s (%s, +%d s, limit %d s)\n' "$name" "$(date -u +%H:%M:%S)" $((t0 - started)) "$limit"
  # timeout signals its whole process group: forked test JVMs, QEMU and swtpm go with the stage. It runs
  # as a background job so that an interrupt of this script can be passed on to that group (on_signal).
  timeout --kill-after=30 "$limit" "$@" &
  stage_pid=$!
  stage_name=$name
  wait "$stage_pid" || rc=$?
  stage_pid=""
  # Also after a failed stage: a module that failed or was skipped leaves classes without a report, named here.
  if [ -n "$stage_expects" ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]; then
    # shellcheck disable=SC2086 # the expectation is a list of options
    java scripts/TestReport.java --stage "$name" --since "$t0" $stage_expects --allow .ci/allowed-skips \
      "${strict[@]}" "$root" || { [ "$rc" -ne 0 ] || rc=1; }
  fi
  stage_expects=""
  end_stage "$name" "$limit" "$rc" $(($(date +%s) - t0))
}

# A stage that runs tests: EXPECT says which test classes it must run (TestReport's --modules, --tags,
# --exclude-tags), derived from the sources, so a class added later is expected without a list to keep.
stage_expects=""
run_test_stage() {
  local name=$1 limit=$2
  stage_expects=$3
  shift 3
  run_stage "$name" "$limit" "$@"
}

free_mb() { df -BM --output=avail "$root" | tail -1 | tr -dc 0-9; }

# Records a finished stage's duration; a failed or timed-out stage ends the run, naming it.
end_stage() {
  local name=$1 limit=$2 rc=$3 took=$4 note=${5:-} free
  # With the free disk space after it: a stage that fills the disk fails in whatever tool ran out
  # (erofs, dpkg, docker), and this column shows where the space went.
  free=$(free_mb)
  durations+=("$(printf '%-44s %5d s   %6d MB free%s' "$name" "$took" "$free" "$note")")
  printf '== %s took %d s (%d MB free)%s\n' "$name" "$took" "$free" "$note"
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "== TIMEOUT: stage \"$name\" did not finish within $limit s"
    failed_stage=$name
    exit 1
  elif [ "$rc" -ne 0 ]; then
    echo "== FAILED: stage \"$name\" (exit $rc)"
    failed_stage=$name
    exit "$rc"
  fi
}

# The README's set-up on a bare `debootstrap --variant=minbase bookworm` root (scripts/fresh-machine-check.sh:
# setup, build, bin/sextant --help), ~10 min of mostly apt and dpkg. It runs beside the module tests at
# the lowest CPU priority (nice 19: it gets only the CPU they leave idle) and is waited for before the
# QEMU boot tests, which need both cores. Its Maven repository is an overlay on ~/.m2 (read-only below).
FRESH_NAME="fresh machine (bare bookworm root)"
FRESH_LIMIT=1800
fresh_pid=""
fresh_log=$root/out/fresh-machine.log
start_fresh_machine_check() {
  mkdir -p "$root/out"
  fresh_started=$(date +%s)
  timeout --kill-after=30 "$FRESH_LIMIT" nice -n 19 bash scripts/fresh-machine-check.sh >"$fresh_log" 2>&1 &
  fresh_pid=$!
  printf '\n== %s: started in the background, log %s\n' "$FRESH_NAME" "${fresh_log#"$root"/}"
}
wait_fresh_machine_check() {
  local rc=0 t0
  t0=$(date +%s)
  printf '\n== %s: waiting for the background check (%s, +%d s)\n' "$FRESH_NAME" "$(date -u +%H:%M:%S)" $((t0 - started))
  stage_name=$FRESH_NAME
  wait "$fresh_pid" || rc=$?
  fresh_pid=""
  cat "$fresh_log"
  end_stage "$FRESH_NAME" "$FRESH_LIMIT" "$rc" $(($(date +%s) - fresh_started)) \
    " (in the background; waited $(($(date +%s) - t0)) s)"
}

stage_pid=""
stage_name=""
on_signal() {
  set +e
  echo "== interrupted during stage \"$stage_name\""
  if [ -n "$stage_pid" ]; then
    kill -TERM "$stage_pid" 2>/dev/null
    wait "$stage_pid" 2>/dev/null
  fi
  failed_stage=$stage_name
  exit 130
}
trap on_signal INT TERM

# Runs at the end whatever happened: the stage durations, then one summary of all test reports.
finish() {
  local rc=$? summary=0
  set +e
  if [ -n "$fresh_pid" ]; then
    # An earlier stage failed: stop the check (it unmounts its root on the way out) and show its log.
    kill -TERM "$fresh_pid" 2>/dev/null
    wait "$fresh_pid" 2>/dev/null
    echo "== $FRESH_NAME: stopped early; its log:"
    cat "$fresh_log"
  fi
  echo
  echo "== stage durations"
  printf '%s\n' "${durations[@]}"
  printf '%-44s %5d s\n' "total" $(($(date +%s) - started))
  if command -v java >/dev/null; then
    java scripts/TestReport.java --allow .ci/allowed-skips "${strict[@]}" "$root"
    summary=$?
  else
    echo "test summary: no java, no summary (the host tools stage failed)"
  fi
  [ -z "$failed_stage" ] || echo "test.sh: FAILED in stage \"$failed_stage\""
  [ "$rc" -ne 0 ] || rc=$summary
  exit "$rc"
}
trap finish EXIT

# Reports of an earlier run must not count in this one.
find . -maxdepth 3 -type d \( -path './*/target/surefire-reports' -o -path './*/target/failsafe-reports' \
  -o -path './*/target/junit-platform' \) -prune -exec rm -rf {} +

# A full disk fails a run deep inside some tool, minutes in: say up front when that is likely.
NEEDS_MB=12000
if [ "$(free_mb)" -lt "$NEEDS_MB" ]; then
  echo "== WARNING: $(free_mb) MB free on the disk holding $root; a run from a fresh clone needs about $NEEDS_MB MB"
fi

run_stage "host tools" 1200 bash scripts/setup.sh

start_fresh_machine_check

# Unit, real-peer, API-double and loopback-cluster tests (ClusterLoopbackTest runs here, once).
# --fail-at-end: a failing module does not hide the results of the modules that do not depend on it.
# Two test JVMs per module, its classes shared out between them: the module tests mostly wait (etcd elections,
# JGroups timeouts, swtpm, process starts), so one JVM leaves most of the two cores idle (docs/benchmarks.md).
run_test_stage "build and module tests" 2100 "--exclude-tags boot,containers" mvn -B -ntp --fail-at-end -DforkCount=2 install

# The JRE base (Debian minbase + openjdk-17-jre-headless as a docker-archive tar, cached under out/),
# then Jib → local docker-registry → docker pull/run of the KMS and join service images (~1 min).
run_test_stage "container images" 900 "--modules images --tags containers" bash -c "bash scripts/build-jre-base.sh '$root/out/jre-base' \
  && mvn -B -ntp -pl images verify -Dsextant.containers=true -Dgroups=containers"

# The CLI drives mkosi, ships node-boot, the KMS, the join service and the EK CA of out/ek-ca (made on first
# use, kept: the image is reused while it stays), and writes out/image/measurements.json; it prints its own
# stage timings and whether the build was cold, cached (mkosi cache) or reused. The boot tests' mini cluster
# takes that CA as its own (its workers verify their join service against the image's EK CA).
run_stage "node image" 1500 bash -c "umask 077 && bin/sextant tpm ca --dir '$root/out/ek-ca' >/dev/null \
  && bin/sextant image build --out '$root/out/image' --ek-ca '$root/out/ek-ca/ca-cert.pem'"

wait_fresh_machine_check

# Only the boot group: e2e's other tests (ClusterLoopbackTest, the k3s test) already ran in `mvn install`.
# Three boots of out/image, each by a hostile host (accepted over aTLS; UKI command line changed: rejected;
# host-extended command line: never unseen), then the QEMU cluster, whose story ends with an image upgrade (two more
# image builds, five power cycles and a rollback: about a quarter of an hour more). Its limit is the rest of the
# run's 85 minutes: a green stage takes 2950-3300 s here (mini up alone 527-700 s on different days), too close to 3600.
run_test_stage "boot tests (QEMU + OVMF + swtpm, TCG)" 4200 "--modules e2e --tags boot" \
  mvn -B -ntp -pl e2e verify -Dsextant.boot=true -Dgroups=boot -Dsextant.image.dir="$root/out/image" \
  -Dsextant.image.ek-ca-dir="$root/out/ek-ca"
