#!/usr/bin/env bash
# aTLS handshake benchmark (atls/src/test/java/dev/sextant/atls/AtlsBench.java) in one JVM:
# plain TLS 1.3 vs aTLS with stand-in, software-TPM and swtpm evidence, on loopback.
# Usage: scripts/bench-atls.sh [warm-up s per variant (15)] [measure s (10)] [client threads (4)]
# Builds only the atls module (its dependencies come from ~/.m2).
set -euo pipefail
cd "$(dirname "$0")/.."

mvn -q -o -pl atls test-compile
cp_file=$(mktemp)
trap 'rm -f "$cp_file"' EXIT
mvn -q -o -pl atls dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file"

exec java -cp "atls/target/test-classes:atls/target/classes:$(cat "$cp_file")" \
  dev.sextant.atls.AtlsBench "${1:-15}" "${2:-10}" "${3:-4}"
