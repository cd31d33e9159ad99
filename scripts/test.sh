#!/usr/bin/env bash
# The test command (README, .ci/run): installs the host tools, builds every module and runs all
# tests — unit, real-peer (swtpm, tpm2_checkquote, osslsigncode, systemd-measure) and the QEMU
# boot tests against a freshly built node image.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

stage() { printf '\n== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }

stage "host tools"
bash scripts/setup.sh

stage "build and module tests"
mvn -B -ntp install

stage "node image"
bash scripts/build-image.sh "$root/out/image"

stage "boot tests (QEMU + OVMF + swtpm, TCG)"
mvn -B -ntp -pl e2e verify -Dsextant.boot=true -Dsextant.image.dir="$root/out/image"

stage "done"
