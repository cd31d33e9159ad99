#!/usr/bin/env bash
# The main job (README): installs the host tools, builds Sextant and runs the demo.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/setup.sh
mvn -B -ntp -q install -DskipTests
exec bash scripts/demo-attestation.sh
