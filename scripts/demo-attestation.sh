#!/usr/bin/env bash
# The attestation demo (what scripts/run.sh runs until `sextant mini up` exists): a software TPM with
# an EK certificate from a local CA, a quote checked by Sextant and by tpm2_checkquote, and a node
# process whose TPM quote is verified inside the TLS handshake. Everything stays on 127.0.0.1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$root/out/demo}
sextant() { SEXTANT_NO_BUILD=1 "$root/bin/sextant" "$@"; }
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

rm -rf "$work" && mkdir -p "$work"
tpm_port=$(free_port); ctrl_port=$(free_port); node_port=$(free_port)
zero=$(printf '0%.0s' {1..64})

say "1. A local EK CA, and a software TPM whose EK certificate it signs"
sextant tpm ca --dir "$work/ca"
sextant tpm manufacture --ca "$work/ca" --dir "$work/tpm"
swtpm socket --tpm2 --tpmstate dir="$work/tpm/state" \
  --server type=tcp,port="$tpm_port",bindaddr=127.0.0.1 --ctrl type=tcp,port="$ctrl_port",bindaddr=127.0.0.1 \
  --flags not-need-init,startup-clear --pid file="$work/swtpm.pid" &
pids+=($!)
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/"$tpm_port") 2>/dev/null && break; sleep 0.1; done
tpm="swtpm:127.0.0.1:$tpm_port"

say "2. Provision the attestation key: the CA certifies it next to the EK (NV 0x01381001)"
sextant tpm provision --tpm "$tpm" --ca "$work/ca"

say "3. Quote all SHA-256 PCRs for a fresh nonce"
nonce=$(openssl rand -hex 32)
sextant attest quote --tpm "$tpm" --nonce "$nonce" --out "$work/doc.pb"
echo "document: $(stat -c %s "$work/doc.pb") bytes"
cat > "$work/measurements.json" <<JSON
{"variant": "qemu-vtpm", "measurements": {
  "12": {"expected": "$zero", "warnOnly": false},
  "13": {"expected": "$zero", "warnOnly": false},
  "15": {"expected": "$zero", "warnOnly": false}}}
JSON
sextant measurements keygen --dir "$work/keys" >/dev/null
sextant measurements sign --file "$work/measurements.json" --key "$work/keys/measurements-key.pem" >/dev/null
verify=(--measurements "$work/measurements.json" --measurements-key "$work/keys/measurements-pub.pem" --ek-ca "$work/ca/ca-cert.pem")

say "4. Sextant verifies it: EK and AK certificates chain to the CA, AK bound to the EK, signature, nonce, PCR digest, measurements"
sextant attest verify --doc "$work/doc.pb" --nonce "$nonce" "${verify[@]}"

say "5. The reference tool agrees: tpm2_checkquote on the exported quote"
qual=$(sextant attest export --doc "$work/doc.pb" --dir "$work/export")
tpm2_checkquote -u "$work/export/ak.pub" -m "$work/export/quote.msg" -s "$work/export/quote.sig" \
  -f "$work/export/pcrs.bin" -g sha256 -q "$qual" >/dev/null && echo "tpm2_checkquote: OK"

say "6. A replayed document for another nonce is refused"
sextant attest verify --doc "$work/doc.pb" --nonce "$(openssl rand -hex 32)" "${verify[@]}" || true

say "7. A node process serves gRPC over attested TLS; 'sextant verify' checks its quote inside the handshake"
SEXTANT_TPM="$tpm" SEXTANT_GRPC_PORT="$node_port" java -cp "$root/node-boot/target/sextant-node-boot-0.1.0-SNAPSHOT.jar:$root/node-boot/target/lib/*" \
  dev.sextant.nodeboot.Application >"$work/node.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q "Startup completed" "$work/node.log" && break; sleep 0.2; done
sextant verify --endpoint "127.0.0.1:$node_port" "${verify[@]}"

say "8. The same node against measurements it does not meet (PCR 15 as if another cluster had locked it)"
sed "s/\"15\": {\"expected\": \"$zero\"/\"15\": {\"expected\": \"$(printf 'ab%.0s' {1..32})\"/" \
  "$work/measurements.json" > "$work/other.json"
sextant verify --endpoint "127.0.0.1:$node_port" --measurements "$work/other.json" --ek-ca "$work/ca/ca-cert.pem" || true

say "Done. Files are in $work"
