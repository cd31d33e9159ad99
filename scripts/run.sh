#!/usr/bin/env bash
# The main job (README): installs the host tools, builds Sextant and brings up a local confidential
# cluster of QEMU nodes (`sextant mini up`; extra arguments go to it, e.g. --workers 2).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/setup.sh
mvn -B -ntp -q install -DskipTests
SEXTANT_NO_BUILD=1 exec bin/sextant mini up "$@"
