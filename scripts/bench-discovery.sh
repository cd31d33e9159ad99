#!/usr/bin/env bash
# Endpoint discovery figures (node-boot's endpointdiscovery package): for 3 and 10 nodes, each a JVM in its
# own network namespace on one bridge, the time until every node holds every record, the time one
# new record takes to reach all, and the bytes each node sends per second at rest.
# Needs root and `ip netns`. Usage: scripts/bench-discovery.sh [COUNTS] [FAILURE_TIMEOUT_MS] [REST_SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -o -pl node-boot test-compile
deps=$(mktemp)
trap 'rm -f "$deps"' EXIT
mvn -B -q -o -pl node-boot dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$deps" >/dev/null
cp="$PWD/node-boot/target/test-classes:$PWD/node-boot/target/classes:$(cat "$deps")"
java -cp "$cp" dev.sextant.nodeboot.endpointdiscovery.DiscoveryFigures "${1:-3,10}" "${2:-12000}" "${3:-20}"
