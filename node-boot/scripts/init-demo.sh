#!/usr/bin/env bash
# Init end to end, each part its own process on 127.0.0.1: a software TPM, the node bootstrapper
# (real LUKS2 image file, stand-in k3s that records its argv), and `sextant init`. Prints the
# bootstrapper's start-up figures. Usage: node-boot/scripts/init-demo.sh [WORKDIR] [extra JVM options]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$root/out/init-demo}
shift || true
sextant() { SEXTANT_NO_BUILD=1 "$root/bin/sextant" "$@"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

rm -rf "$work" && mkdir -p "$work/k3s"
tpm_port=$(free_port); ctrl_port=$(free_port); node_port=$(free_port)
sextant tpm ca --dir "$work/ca" >/dev/null
sextant tpm manufacture --ca "$work/ca" --dir "$work/tpm" >/dev/null
swtpm socket --tpm2 --tpmstate dir="$work/tpm/state" \
  --server type=tcp,port="$tpm_port",bindaddr=127.0.0.1 --ctrl type=tcp,port="$ctrl_port",bindaddr=127.0.0.1 \
  --flags not-need-init,startup-clear &
pids+=($!)
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/"$tpm_port") 2>/dev/null && break; sleep 0.1; done
sextant tpm provision --tpm "swtpm:127.0.0.1:$tpm_port" --ca "$work/ca" >/dev/null

# The init secret and its salted hash, as the image / `mini up` would hand them to the node.
openssl rand -hex 32 > "$work/init-secret"
salt=$(openssl rand -hex 16)
digest=$( (printf '%s' "$salt" | xxd -r -p; tr -d '\n' < "$work/init-secret") | sha256sum | cut -d' ' -f1)
echo "sha256:$salt:$digest" > "$work/init-secret.hash"

# A blank state disk on a file: the bootstrapper formats it (random boot key) and re-keys it to the cluster key.
truncate -s 32M "$work/state.img"

cat > "$work/k3s/k3s" <<SH
#!/bin/sh
printf '%s\n' "\$*" >> "$work/k3s/argv.log"
printf 'apiVersion: v1\nkind: Config\nclusters:\n- cluster: {server: "https://127.0.0.1:6443"}\n' > "$work/k3s/k3s.yaml"
SH
chmod 700 "$work/k3s/k3s"

SEXTANT_TPM="swtpm:127.0.0.1:$tpm_port" SEXTANT_GRPC_PORT="$node_port" SEXTANT_LOG_FILE="$work/node-boot.log" \
SEXTANT_INIT_SECRET_HASH="$work/init-secret.hash" SEXTANT_STATE_DISK="$work/state.img" SEXTANT_K3S="$work/k3s/k3s" \
SEXTANT_REBOOT_DELAY=disabled \
  java "$@" -cp "$root/node-boot/target/sextant-node-boot-0.1.0-SNAPSHOT.jar:$root/node-boot/target/lib/*" \
  -Dsextant.state-disk.key-file="$work/keys/state.key" -Dsextant.state-disk.work-dir="$work/luks" \
  -Dsextant.state-disk.pbkdf-memory-kib=8192 -Dsextant.state-disk.pbkdf-iterations=4 \
  -Dsextant.k3s.config-file="$work/k3s/config.yaml" -Dsextant.k3s.kubeconfig="$work/k3s/k3s.yaml" \
  -Dsextant.init.use-journalctl=false -Dsextant.init.node-name=node-a \
  dev.sextant.nodeboot.Application >"$work/node.out" 2>&1 &
node=$!
pids+=($node)
for _ in $(seq 600); do grep -q "Serving gRPC" "$work/node.out" && break; sleep 0.1; done
grep "Serving gRPC" "$work/node.out" | sed 's/^.* - /node-boot: /'
echo "node-boot RSS after start: $(grep VmRSS /proc/$node/status | tr -s ' ')"

zero=$(printf '0%.0s' {1..64})
echo "{\"variant\": \"qemu-vtpm\", \"measurements\": {\"15\": {\"expected\": \"$zero\", \"warnOnly\": false}}}" > "$work/measurements.json"
(cd "$work" && sextant init --endpoint "127.0.0.1:$node_port" --measurements measurements.json \
   --ek-ca ca/ca-cert.pem --init-secret init-secret --api-server-san api.demo.test)
echo "node-boot RSS after init: $(grep VmRSS /proc/$node/status | tr -s ' ')"
echo "k3s was run as: $(cat "$work/k3s/argv.log")"
cryptsetup luksDump --dump-json-metadata "$work/state.img" | python3 -c 'import json,sys; print("state disk token:", json.load(sys.stdin)["tokens"]["0"])'
