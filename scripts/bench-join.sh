#!/usr/bin/env bash
# Join-service load benchmark: N = 16, 64, 256 concurrent attested joiners over
# client-attested aTLS, each ticket a distinct machine joining for the first time (then the same
# machines again: retried joins), bare aTLS handshakes/s, and plain mutual TLS handshakes/s (resumption
# off, as in bench-atls's baselines and in aTLS: every call a full handshake) measured in the same run (the ratios, the JVM's CPU per call with the JIT compilers' part and the cores kept busy
# are printed), all in one JVM on this machine; before each kind of level, calls of that kind run
# until the JIT compilers take under 10% of the CPU (their number is fixed so none ends uncounted).
# Last, "alternating": tickets vs bare handshakes, both at 256 joiners from new machines, in four
# alternating rounds, so both kinds see the same load and the same minutes of a drifting machine.
# The ticket levels, retried joins and alternating line run twice: with the bindings in the in-memory
# double (the baseline), then in a real three-member etcd on loopback the bench starts (data in
# /dev/shm; /usr/bin/etcd, package etcd-server), each printing the store's round trips per first join
# (goal: 1) and the alternating ratio tickets / bare aTLS (goals: >= 0.8 with the double, >= 0.7 with
# etcd). The handshake baselines run once, with the first store's service.
# Only successful tickets count; the output names the KMS and Kubernetes API doubles it ran against
# (the Kubernetes API double holds the bootstrap tokens only).
# Setup makes 256 + tickets-per-level software-TPM machines first (cheap: an ECC AK each, one shared EK key).
# Usage: scripts/bench-join.sh [tickets-per-level (4096; more than the 1024 machines a verifier remembers)] [fabric8]
# "fabric8": use the fabric8 CRUD mock as the Kubernetes API double (O(objects) per request)
# instead of the hash-map double, to see its cost.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -o -pl join-api test-compile
cp_file=$(mktemp)
trap 'rm -f "$cp_file"' EXIT
mvn -q -o -pl join-api dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file"
java -Xmx2g -XX:-UseDynamicNumberOfCompilerThreads ${JAVA_OPTS:-} -cp "join-api/target/test-classes:join-api/target/classes:$(cat "$cp_file")" \
  dev.sextant.joinapi.JoinLoadBench "$@"
