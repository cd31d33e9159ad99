#!/usr/bin/env bash
# Builds the JRE base image of Sextant's service containers from Debian packages, because no
# public registry is reachable from the build machines (java-stack.md §3):
#   debootstrap (minbase + openjdk-17-jre-headless) → trim → non-root user 10001
#   → umoci (OCI layout) → skopeo → OUTDIR/jre-base.tar (docker-archive, Jib's `tar://` base;
#     Jib rejects OCI archives as tar:// bases).
# Usage: scripts/build-jre-base.sh OUTDIR   (idempotent: an existing OUTDIR/jre-base.tar is reused)
set -euo pipefail

out=${1:?usage: build-jre-base.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
tar_file="$out/jre-base.tar"
image_ref="sextant/jre:17"
started=$(date +%s)

report() {
  printf 'jre-base: %s (%s MB), %s, %d s\n' "$tar_file" \
    "$(( $(stat -c %s "$tar_file") / 1024 / 1024 ))" "$1" $(( $(date +%s) - started ))
}

if [ -s "$tar_file" ]; then
  report "reused"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then exec sudo -E "$0" "$@"; fi
for tool in debootstrap umoci skopeo; do
  command -v "$tool" >/dev/null || { echo "jre-base: $tool missing (run scripts/setup.sh)" >&2; exit 1; }
done

# The mirror the host's apt already uses: no host name is written into this script.
mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '/^deb / && /bookworm/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || { echo "jre-base: no Debian mirror configured in apt" >&2; exit 1; }

work=$(mktemp -d "$out/.jre-base.XXXXXX")
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

echo "jre-base: debootstrap bookworm from $mirror"
debootstrap --variant=minbase --include=openjdk-17-jre-headless bookworm "$rootfs" "$mirror" \
  >"$work/debootstrap.log" 2>&1 || { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }

# Trim what a container never reads: package caches and lists, documentation, manual pages.
rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/* \
       "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
       "$rootfs"/var/cache/debconf/*-old "$rootfs"/tmp/*
# And what a JRE running a service never reads: message catalogues (the services log in English),
# javac's ct.sym, and the CDS archive for heaps above 32 GiB (the JVM then just starts without CDS).
java_home=/usr/lib/jvm/java-17-openjdk-amd64
rm -rf "$rootfs"/usr/share/locale/* "$rootfs$java_home/lib/ct.sym" "$rootfs$java_home/lib/server/classes_nocoops.jsa"

# No setuid or setgid file: the join service's container is privileged (the TPM device), and a
# setuid-root binary (su, mount, passwd...) would turn its non-root process into root on the host.
find "$rootfs" -xdev -type f -perm /6000 -exec chmod ug-s {} +

# The services run as uid/gid 10001 (the Jib <user>): an entry in passwd lets Java resolve user.home.
echo 'sextant:x:10001:' >>"$rootfs/etc/group"
echo 'sextant:x:10001:10001:sextant:/home/sextant:/usr/sbin/nologin' >>"$rootfs/etc/passwd"
echo 'sextant:!:19000::::::' >>"$rootfs/etc/shadow"
install -d -m 0750 -o 10001 -g 10001 "$rootfs/home/sextant"

echo "jre-base: packing OCI image"
oci="$work/oci"
umoci init --layout "$oci"
umoci new --image "$oci:jre"
umoci unpack --image "$oci:jre" "$work/bundle" >/dev/null
cp -a "$rootfs/." "$work/bundle/rootfs/"
umoci repack --image "$oci:jre" "$work/bundle"
umoci config --image "$oci:jre" --os linux --architecture amd64 \
  --config.user 10001:10001 --config.workingdir /home/sextant \
  --config.env "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --config.env "JAVA_HOME=$java_home" \
  --config.label "org.opencontainers.image.title=sextant-jre-base" \
  --config.label "org.opencontainers.image.description=Debian bookworm minbase + openjdk-17-jre-headless"

skopeo copy --quiet "oci:$oci:jre" "docker-archive:$work/jre-base.tar:$image_ref"
mv "$work/jre-base.tar" "$tar_file"
report "built"
