#!/usr/bin/env bash
# Builds the Sextant node image with mkosi 24: OUTDIR/image.raw (+ image.efi, the UKI, and
# image.vmlinuz / image.initrd beside it).
#   scripts/build-image.sh [OUTDIR]            default OUTDIR: <repo>/.build/image
# Environment:
#   SEXTANT_NODE_LIB   directory of jars to ship as /opt/sextant/lib (default: cli/target's jar
#                      plus the jars listed in cli/target/classpath.txt, if the CLI was built)
#   SEXTANT_NODE_MAIN  main class of the node software (the bootstrapper). Only when it is set is
#                      /opt/sextant/bin/sextant-node written, and sextant-node.service runs it
#   SEXTANT_NODE_ARGS  arguments the launcher passes to it (default none)
#   MKOSI_ARGS         extra mkosi arguments (for example "-ff" to also drop the cache)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$repo/.build/image}" && cd "${1:-$repo/.build/image}" && pwd)
work="$repo/.build/mkosi-work"
cache="${SEXTANT_MKOSI_CACHE:-$repo/.build/mkosi-cache}"
mkdir -p "$work" "$cache"

# Apt sources for the image: only bookworm, bookworm-updates and bookworm-security, on the
# mirrors this host already uses (mkosi's own list adds a debug suite that is unreachable).
pkgmngr="$work/pkgmngr"
write_sources() {
  local src=/etc/apt/sources.list.d/debian.sources main sec
  main=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' "$src" 2>/dev/null || true)
  sec=$(awk '/^URIs:/ && $2 ~ /security/ {print $2; exit}' "$src" 2>/dev/null || true)
  [ -n "$main" ] || main=$(awk '/^deb / && /bookworm/ && !/security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$sec" ] || sec=$(awk '/^deb / && /bookworm-security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$main" ] || { echo "build-image: no Debian mirror configured in apt" >&2; exit 1; }
  [ -n "$sec" ] || sec="${main%/debian}/debian-security"
  rm -rf "$pkgmngr" && mkdir -p "$pkgmngr/etc/apt/sources.list.d"
  cat >"$pkgmngr/etc/apt/sources.list.d/mkosi.sources" <<SRC
Types: deb
URIs: $main
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $sec
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
}

# /opt/sextant: the node jars and a launcher, or nothing (sextant-node.service then stays idle).
node="$work/node"
stage_node() {
  rm -rf "$node" && mkdir -p "$node/opt/sextant/lib" "$node/opt/sextant/bin"
  local lib="${SEXTANT_NODE_LIB:-}"
  if [ -n "$lib" ]; then
    cp "$lib"/*.jar "$node/opt/sextant/lib/"
  elif ls "$repo"/cli/target/sextant-cli-*.jar >/dev/null 2>&1 && [ -f "$repo/cli/target/classpath.txt" ]; then
    cp "$repo"/cli/target/sextant-cli-*.jar "$node/opt/sextant/lib/"
    tr ':' '\n' <"$repo/cli/target/classpath.txt" | while read -r jar; do
      [ -z "$jar" ] || cp "$jar" "$node/opt/sextant/lib/"
    done
  else
    echo "build-image: no node software built (cli/target); shipping an empty /opt/sextant"
    return
  fi
  echo "build-image: staged $(ls "$node/opt/sextant/lib" | wc -l) jars into /opt/sextant/lib"
  # Without a bootstrapper main class there is nothing for sextant-node.service to run; a
  # launcher that exits at once would only restart in a loop on every boot.
  if [ -z "${SEXTANT_NODE_MAIN:-}" ]; then
    echo "build-image: SEXTANT_NODE_MAIN unset: no /opt/sextant/bin/sextant-node, the node service stays idle"
    return
  fi
  cat >"$node/opt/sextant/bin/sextant-node" <<LAUNCH
#!/bin/sh
exec java -cp '/opt/sextant/lib/*' $SEXTANT_NODE_MAIN ${SEXTANT_NODE_ARGS:-} "\$@"
LAUNCH
  chmod 755 "$node/opt/sextant/bin/sextant-node"
}

# The erofs root must fit its partition (repart sizes it with Minimize=best): a file system longer
# than its partition would read back I/O errors for its last files, in the guest only.
check_root_fits() {
  python3 - "$1" <<'PY'
import json, struct, subprocess, sys
image = sys.argv[1]
parts = json.loads(subprocess.check_output(["sfdisk", "-J", image]))["partitiontable"]["partitions"]
root = next(p for p in parts if p.get("name") == "root-x86-64")
with open(image, "rb") as f:
    f.seek(root["start"] * 512 + 1024)  # erofs_super_block: magic @0, blkszbits @12, blocks @36
    sb = f.read(40)
magic, = struct.unpack_from("<I", sb, 0)
if magic != 0xE0F5E1E2:
    sys.exit(f"build-image: the root partition of {image} holds no erofs file system")
fs_bytes = struct.unpack_from("<I", sb, 36)[0] << sb[12]
if fs_bytes > root["size"] * 512:
    sys.exit(f"build-image: the erofs root ({fs_bytes} bytes) is longer than its partition ({root['size'] * 512} bytes)")
PY
}

write_sources
stage_node
start=$(date +%s)
# shellcheck disable=SC2086
mkosi --directory "$repo/mkosi" \
      --package-manager-tree "$pkgmngr" \
      --extra-tree "$node" \
      --output-dir "$out" \
      --workspace-dir "$work" \
      --cache-dir "$cache" \
      --incremental yes \
      --force ${MKOSI_ARGS:-} build
check_root_fits "$out/image.raw"
echo "build-image: $out/image.raw built in $(( $(date +%s) - start )) s"
ls -l "$out"
