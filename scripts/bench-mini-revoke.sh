#!/usr/bin/env bash
# Issue 40's mini figures, in a running mini cluster (QEMU, TCG), each watched on the host by polling the
# nodes' consoles every 0.2 s (the guests' clocks do not enter):
#  1. `sextant mini revoke NODE` -> a control plane's join service published the revocation list naming it
#     to etcd ("published revocation list version" on its console);
#  2. NODE rebooted (`mini reboot`, given up once the refusal shows) -> its rejoin refused: the console's
#     first "was revoked" line; then its "SEXTANT-STATUS revoked reason=..." line (the node stops asking and
#     stays locked: counted again a minute later); `mini status` then shows it revoked.
# A mini cluster's nodes run no endpoint discovery (QEMU's user networking gives each guest the host
# only), so "gone from every member's discovery" is the process-level bench's figure
# (scripts/bench-reattest.sh), not this one's.
# Usage: scripts/bench-mini-revoke.sh DIR NODE
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: $0 DIR NODE}
node=${2:?usage: $0 DIR NODE}
export SEXTANT_NO_BUILD=1

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
# Waits until FILE holds more than COUNT lines matching PATTERN, at most LIMIT seconds; prints the wait.
await_line() {
  local file=$1 pattern=$2 count=$3 limit=$4 start=$5
  while (( $(grep -c -- "$pattern" "$file" 2>/dev/null || true) <= count )); do
    if (( $(echo "$(since "$start") > $limit" | bc) )); then
      echo "none within $limit s"; return 1
    fi
    sleep 0.2
  done
  printf '%.1f s\n' "$(since "$start")"
}

published="published revocation list version"
declare -A before=()
for console in "$dir"/*/console.log; do
  before[$console]=$(grep -c "$published" "$console" || true)
done
start=$(now)
bin/sextant mini revoke "$node" --dir "$dir"
for console in "${!before[@]}"; do
  name=$(basename "$(dirname "$console")")
  [[ $name == "$node" ]] && continue
  if grep -q 'sextant-join' "$console"; then
    echo "mini revoke $node -> revocation list in etcd ($name's join service): $(await_line "$console" "$published" "${before[$console]}" 60 "$start")"
  fi
done

start=$(now)
bin/sextant mini reboot "$node" --dir "$dir" > "$dir/bench-revoke-reboot.log" 2>&1 &
reboot=$!
sleep 5 # the reboot moves the old console aside first
echo "$node rebooted -> rejoin refused as revoked: $(await_line "$dir/$node/console.log" 'was revoked' 0 900 "$start")"
echo "$node rebooted -> says it was revoked (SEXTANT-STATUS revoked): $(await_line "$dir/$node/console.log" 'SEXTANT-STATUS revoked' 0 900 "$start")"
kill "$reboot" 2>/dev/null || true
wait "$reboot" 2>/dev/null || true
grep -m1 'was revoked' "$dir/$node/console.log" | cut -c1-300
grep -m1 'SEXTANT-STATUS revoked' "$dir/$node/console.log" | cut -c1-300
asked=$(grep -c 'was revoked' "$dir/$node/console.log" || true)
sleep 60
echo "refusals on $node's console: $asked, and $(grep -c 'was revoked' "$dir/$node/console.log" || true) a minute later (it asks no more)"
bin/sextant mini status --dir "$dir" | grep -A20 '^re-attestation' || true
