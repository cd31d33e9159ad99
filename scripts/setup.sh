#!/usr/bin/env bash
# Installs every host tool that the README's two commands (scripts/run.sh, scripts/test.sh) and the
# tests call, from Debian bookworm and bookworm-backports. Idempotent and quick when everything is
# there: one dpkg query, no apt-get run. Proven on a bare `debootstrap --variant=minbase bookworm`
# root by scripts/fresh-machine-check.sh.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then exec sudo -E bash "$0" "$@"; fi
export DEBIAN_FRONTEND=noninteractive

# Packages from bookworm. Each line says who needs it.
BOOKWORM=(
  openjdk-17-jdk-headless maven git ca-certificates   # the build (Maven downloads over HTTPS)
  xxd openssl coreutils util-linux fdisk e2fsprogs    # scripts and tests (xxd, openssl kdf, timeout, setsid, sfdisk, mkfs.ext4)
  swtpm swtpm-tools tpm2-tools                        # real-peer TPM tests, the QEMU nodes' TPMs
  qemu-system-x86 ovmf                                # boot tests and `sextant mini`
  pesign sbsigntool mtools dosfstools gdisk binutils python3 python3-pefile  # measured-boot peers, ukify
  erofs-utils squashfs-tools cryptsetup bubblewrap kmod cpio zstd            # mkosi's image build
  docker.io docker-registry skopeo umoci debootstrap  # container images (scripts/build-jre-base.sh)
  iproute2                                            # endpoint discovery between network namespaces
  etcd-server etcd-client                             # the cluster store: join-api's and the cluster tests, bench-join
)
# Packages whose bookworm version is too old: from bookworm-backports, with the minimum each needs.
# mkosi 24 is the configuration format of mkosi/; systemd 254 brings ukify and systemd-measure with
# the PCR 11 phases measured-boot predicts; systemd-boot(-efi) 254 is the stub the UKI is built on;
# osslsigncode 2.9 is the Authenticode peer the PE hashing was verified against (java-stack.md);
# python3-virt-firmware (virt-fw-vars, only in backports) writes the hostile UEFI variable store the
# boot test starts a node with.
declare -A BACKPORTS_MIN=(
  [mkosi]=24 [systemd]=254 [systemd-container]=254 [systemd-boot]=254 [systemd-boot-efi]=254
  [osslsigncode]=2.9 [python3-virt-firmware]=24
)
# swtpm has no backport: bookworm's 0.7 is what the TPM tests and `sextant tpm manufacture` were
# written against (swtpm_setup --tpm2 --create-ek-cert with swtpm_localca); older is refused below.
declare -A BOOKWORM_MIN=([swtpm]=0.7 [swtpm-tools]=0.7)

log() { echo "setup: $*"; }
die() { echo "setup: $*" >&2; exit 1; }

# bookworm-backports on the mirror apt already uses for bookworm, so no host is named here.
add_backports() {
  local list=/etc/apt/sources.list.d/sextant-backports.sources uri
  [ -f "$list" ] && return 1
  uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$uri" ] || uri=$(awk '/^deb / && /bookworm/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$uri" ] || die "no Debian bookworm mirror configured in apt (/etc/apt/sources.list[.d])"
  cat >"$list" <<SRC
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  log "added bookworm-backports ($uri)"
}

# Installed version of each package, one "name version" per line (absent packages are left out).
installed_versions() {
  dpkg-query -W -f='${Package} ${db:Status-Status} ${Version}\n' "$@" 2>/dev/null | awk '$2 == "installed" {print $1, $3}'
}

# Package lists older than a day are refreshed before anything is installed from them.
lists_stale() {
  [ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*bookworm-backports*Packages*' -mmin -1440 -print -quit 2>/dev/null)" ] || return 0
  [ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*_dists_bookworm_*Packages*' -mmin -1440 -print -quit 2>/dev/null)" ] || return 0
  return 1
}

fresh_lists=
if add_backports; then fresh_lists=needed; fi

declare -A have=()
while read -r pkg version; do have[$pkg]=$version; done < <(installed_versions "${BOOKWORM[@]}" "${!BACKPORTS_MIN[@]}" kubernetes-client)

todo=()
for p in "${BOOKWORM[@]}"; do
  if [ -z "${have[$p]:-}" ]; then
    todo+=("$p")
  elif [ -n "${BOOKWORM_MIN[$p]:-}" ] && dpkg --compare-versions "${have[$p]}" lt "${BOOKWORM_MIN[$p]}"; then
    todo+=("$p")
  fi
done
# kubectl: Debian's kubernetes-client, unless the machine already has a kubectl (another vendor's
# package owns /usr/bin/kubectl on some machines, and the two cannot both be installed).
command -v kubectl >/dev/null || todo+=(kubernetes-client)

todo_bp=()
for p in "${!BACKPORTS_MIN[@]}"; do
  if [ -z "${have[$p]:-}" ]; then
    todo_bp+=("$p")
  elif dpkg --compare-versions "${have[$p]}" lt "${BACKPORTS_MIN[$p]}"; then
    log "$p ${have[$p]} is older than ${BACKPORTS_MIN[$p]}: upgrading from bookworm-backports"
    todo_bp+=("$p")
  fi
done

updated=
apt_update() {
  log "refreshing package lists"
  apt-get update -qq || die "apt-get update failed"
  updated=yes
}
# Installs; when that fails on lists that were not refreshed in this run (a package or version newer
# than them), refreshes them once and tries again.
apt_install() {
  apt-get install -y -qq --no-install-recommends "$@" >/dev/null && return
  [ -z "$updated" ] || die "apt-get install failed for: $*"
  apt_update
  apt-get install -y -qq --no-install-recommends "$@" >/dev/null || die "apt-get install failed for: $*"
}

if [ ${#todo[@]} -gt 0 ] || [ ${#todo_bp[@]} -gt 0 ]; then
  if [ -n "$fresh_lists" ] || lists_stale; then apt_update; fi
  if [ ${#todo[@]} -gt 0 ]; then
    log "installing from bookworm: ${todo[*]}"
    apt_install "${todo[@]}"
  fi
  if [ ${#todo_bp[@]} -gt 0 ]; then
    log "installing from bookworm-backports: ${todo_bp[*]}"
    apt_install -t bookworm-backports "${todo_bp[@]}"
  fi
fi

# Debian's etcd-server package enables an etcd.service with a plaintext client port on localhost.
# This project starts its own etcd processes (with mutual TLS, on ports of their own), so the
# host's default one is stopped and masked where systemd runs.
if [ -d /run/systemd/system ] && systemctl is-enabled etcd >/dev/null 2>&1; then
  log "stopping and masking Debian's default etcd.service"
  systemctl disable --now etcd >/dev/null 2>&1 || true
  systemctl mask etcd >/dev/null 2>&1 || true
fi

# What the commands need must now be there, in the versions they need: say which one is not.
missing=()
for cmd in java javac mvn git xxd kubectl openssl swtpm swtpm_setup tpm2_checkquote qemu-system-x86_64 \
           mkosi docker skopeo umoci debootstrap ip cryptsetup etcd etcdctl pesign osslsigncode sgdisk mkfs.vfat timeout virt-fw-vars; do
  command -v "$cmd" >/dev/null || [ -x "/usr/sbin/$cmd" ] || [ -x "/sbin/$cmd" ] || missing+=("$cmd")
done
for f in /usr/lib/systemd/ukify /usr/lib/systemd/systemd-measure /usr/lib/systemd/boot/efi/linuxx64.efi.stub; do
  [ -e "$f" ] || missing+=("$f")
done
[ ${#missing[@]} -eq 0 ] || die "still missing after install: ${missing[*]}"
while read -r pkg version; do
  min=${BACKPORTS_MIN[$pkg]:-${BOOKWORM_MIN[$pkg]:-}}
  if [ -n "$min" ] && dpkg --compare-versions "$version" lt "$min"; then
    die "$pkg $version is installed but $min or newer is needed"
  fi
done < <(installed_versions "${!BACKPORTS_MIN[@]}" "${!BOOKWORM_MIN[@]}")
java_major=$(java -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.specification.version/ {print $2}')
[ "${java_major%%.*}" -ge 17 ] 2>/dev/null || die "java is version '$java_major'; 17 or newer is needed (openjdk-17-jdk-headless)"
log "host tools present"
