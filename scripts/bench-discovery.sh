#!/usr/bin/env bash
# Endpoint discovery figures (housekeeping's discovery package), each printed for a baseline stack
# (BaselineStack: JGroups' usual choices) and the current one:
#  1. for NETNS_COUNTS nodes, each a JVM in its own network namespace on one bridge: the time until every
#     node holds every record, the time one new record takes to reach all, bytes each node sends per
#     second at rest (its veth counter, TCP/IP included). Needs root and `ip netns`; skipped otherwise.
#  2. for SIZES members in one JVM (a JChannel each, own port on 127.0.0.1), RUNS runs per size: how many
#     converged within CAP_SECONDS, last start -> converged, one new record -> everywhere, and bytes per
#     second per member at rest (JGroups' transport statistics, payload only).
# Usage: scripts/bench-discovery.sh [NETNS_COUNTS=3,10] [FAILURE_TIMEOUT_MS=12000] [REST_SECONDS=20]
#                                   [SIZES=3,10,32,64] [RUNS=3] [CAP_SECONDS=60]   (a count of "-" skips that part)
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -o -pl housekeeping test-compile
deps=$(mktemp)
trap 'rm -f "$deps"' EXIT
mvn -B -q -o -pl housekeeping dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$deps" >/dev/null
cp="$PWD/housekeeping/target/test-classes:$PWD/housekeeping/target/classes:$(cat "$deps")"
quiet=$(mktemp --suffix=.xml)
trap 'rm -f "$deps" "$quiet"' EXIT
printf '<configuration><appender name="O" class="ch.qos.logback.core.ConsoleAppender"><encoder><pattern>%%msg%%n</pattern></encoder></appender><root level="ERROR"><appender-ref ref="O"/></root></configuration>\n' > "$quiet"
if [ "${1:-3,10}" != "-" ]; then
  for stack in baseline current; do
    echo "== netns, stack: $stack"
    java -Dsextant.discovery.stack=$stack -cp "$cp" dev.sextant.housekeeping.discovery.DiscoveryFigures \
      "${1:-3,10}" "${2:-12000}" "${3:-20}"
  done
fi
if [ "${4:-3,10,32,64}" != "-" ]; then
  echo "== many members per JVM"
  java -Xmx4g -Djava.net.preferIPv4Stack=true -Dlogback.configurationFile="$quiet" -cp "$cp" \
    dev.sextant.housekeeping.discovery.DiscoveryScaleFigures "${4:-3,10,32,64}" "${2:-12000}" "${3:-20}" "${5:-3}" "${6:-60}"
fi
