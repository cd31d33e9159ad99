#!/usr/bin/env bash
# Re-attestation at process level (issue 40's figures): N members, each a real swtpm behind a VerifyService
# on a real port, bound in a real one-member etcd (data in /dev/shm; /usr/bin/etcd, package etcd-server),
# re-attested every period by a real join service (its Micronaut context, in the same JVM); a subset runs
# real discovery on loopback (cp-0 and the changing members as control planes, workers). Members change a
# checked PCR (PCR 9) one after the other at known instants; printed for each: PCR change -> revoked/<ak>
# in etcd, and -> its records gone from every other discovery member's hosts file, beside the goal
# (2 periods + 5 s) and the period. From quiet rounds of the same run (the baseline): each round's span,
# CPU per re-attestation (JVM, of it the node's VerifyService handlers, swtpm and etcd processes, the idle
# rate measured before the join service started taken off) and bytes per node per period, counted at the
# socket by a relay in front of each node. The etcd -> discovery hop is the bootstrapper's hand-off's
# behaviour (2 s poll) copied into the bench (node-boot is not on join-api's class path).
# Usage: scripts/bench-reattest.sh [members=64] [discovery-members=16] [period-s=5] [quiet-periods=3] [changes=2]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -o -pl join-api test-compile
cp_file=$(mktemp)
trap 'rm -f "$cp_file"' EXIT
mvn -q -o -pl join-api dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file"
java -Xmx2g ${JAVA_OPTS:-} -cp "join-api/target/test-classes:join-api/target/classes:$(cat "$cp_file")" \
  dev.sextant.joinapi.reattest.ReAttestationBench "$@"
