#!/usr/bin/env bash
# Installs every host tool Sextant's builds and tests use, from Debian bookworm and
# bookworm-backports. Idempotent: a second run installs nothing.
set -euo pipefail

need_root() { if [ "$(id -u)" -ne 0 ]; then exec sudo -E "$0" "$@"; fi; }
need_root "$@"

# Backports reuse the mirror the machine already uses for bookworm, so no host is named here.
add_backports() {
  local list=/etc/apt/sources.list.d/sextant-backports.sources
  [ -f "$list" ] && return
  local uri
  uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$uri" ] || uri=$(awk '/^deb / && /bookworm/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$uri" ] || { echo "setup: no Debian mirror configured in apt" >&2; exit 1; }
  cat >"$list" <<SRC
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  APT_UPDATED=
}

# Packages from bookworm (first list) and from bookworm-backports (second list).
BOOKWORM=(swtpm swtpm-tools tpm2-tools openssl
          qemu-system-x86 ovmf pesign sbsigntool mtools dosfstools erofs-utils squashfs-tools
          cryptsetup bubblewrap kmod cpio python3-pefile zstd gdisk binutils
          docker.io docker-registry skopeo umoci debootstrap iproute2)
BACKPORTS=(mkosi systemd-boot systemd-boot-efi osslsigncode)

missing() { for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"; done; }

add_backports
todo=$(missing "${BOOKWORM[@]}")
todo_bp=$(missing "${BACKPORTS[@]}")
if [ -n "$todo$todo_bp" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  [ -z "$todo" ] || apt-get install -y -qq --no-install-recommends $todo >/dev/null
  # shellcheck disable=SC2086
  [ -z "$todo_bp" ] || apt-get install -y -qq --no-install-recommends -t bookworm-backports $todo_bp >/dev/null
fi
echo "setup: host tools present"
