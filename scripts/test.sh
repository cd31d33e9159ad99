#!/usr/bin/env bash
# The test command (README, .ci/run): installs the host tools, builds every module and runs all
# tests — unit, real-peer (swtpm, tpm2_checkquote, osslsigncode, systemd-measure) and the QEMU
# boot tests against a freshly built node image.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# Each stage prints its start time and the previous stage's duration; the CI budget is 90 min.
started=$(date +%s)
last=$started
last_name=""
stage() {
  local now
  now=$(date +%s)
  [ -z "$last_name" ] || printf '== %s took %d s\n' "$last_name" $((now - last))
  printf '\n== %s (%s, +%d s)\n' "$1" "$(date -u +%H:%M:%S)" $((now - started))
  last=$now
  last_name=$1
}

stage "host tools"
bash scripts/setup.sh

stage "build and module tests"
mvn -B -ntp install

stage "container images"
# The JRE base (Debian minbase + openjdk-17-jre-headless as a docker-archive tar, cached under out/),
# then Jib → local docker-registry → docker pull/run of the KMS and join service images (~1 min).
bash scripts/build-jre-base.sh "$root/out/jre-base"
mvn -B -ntp -pl images verify -Dsextant.containers=true

stage "node image"
# The CLI drives mkosi, ships node-boot, the KMS and the join service, and writes out/image/measurements.json; it prints its own
# stage timings and whether the build was cold, cached (mkosi cache) or reused (inputs unchanged).
bin/sextant image build --out "$root/out/image"

stage "boot tests (QEMU + OVMF + swtpm, TCG)"
# Two boots of out/image (accepted over aTLS; UKI command line changed: rejected), ~2-3 min each;
# then two `sextant mini up --workers 1` (control plane + worker, init, join, down), ~5 min each.
mvn -B -ntp -pl e2e verify -Dsextant.boot=true -Dsextant.image.dir="$root/out/image"

stage "done"
