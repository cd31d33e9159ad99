#!/usr/bin/env bash
# The README's set-up on a new user's machine: a bare Debian bookworm root (debootstrap --variant=minbase:
# no JDK, no Maven, no git), the repository copied in as a fresh clone has it, then inside a chroot exactly
# what scripts/run.sh does before `mini up`: scripts/setup.sh, the Maven build, and `bin/sextant --help`.
# Fails naming the step that failed. Needs root. Usage: scripts/fresh-machine-check.sh [WORK_DIR]
# (default out/fresh-machine: the logs). The root itself, with its mounts, lives outside the repository
# (FRESH_ROOT, default a new /var/tmp/sextant-fresh-machine.XXXXXX per run) so that nothing walking or
# cleaning the work tree ever meets the host's /dev, and so that two runs on one machine (a developer's
# and CI's) never share, mount over or delete each other's root. FRESH_KEEP=1 keeps it after a success.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mkdir -p "${1:-$repo/out/fresh-machine}" && cd "${1:-$repo/out/fresh-machine}" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "fresh-machine: needs root (debootstrap, chroot, mounts)" >&2; exit 1; }
scratch=${FRESH_ROOT:-$(mktemp -d /var/tmp/sextant-fresh-machine.XXXXXX)}
root=$scratch/root

started=$(date +%s)
step_name=""
step_start=$started
step() {
  local now; now=$(date +%s)
  [ -z "$step_name" ] || printf 'fresh-machine: %s took %d s\n' "$step_name" $((now - step_start))
  step_name=$1
  step_start=$now
  printf 'fresh-machine: %s ...\n' "$1"
}

mounts=()
unmount_all() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount "${mounts[$i]}" 2>/dev/null || umount -l "${mounts[$i]}" || true
  done
  mounts=()
}
still_mounted() { awk -v r="$1" '$2 == r || index($2, r "/") == 1 {found = 1} END {exit !found}' /proc/mounts; }
remove_root() {
  # Never delete through a mount that is still there (the host's /dev or caches would go with it).
  still_mounted "$root" && { echo "fresh-machine: $root still has mounts; not deleting it" >&2; return 1; }
  rm -rf --one-file-system "$root" "$scratch/m2-upper" "$scratch/m2-work"
  [ -n "${FRESH_ROOT:-}" ] || rmdir "$scratch"
}
on_exit() {
  local rc=$?
  unmount_all
  if [ $rc -ne 0 ]; then
    echo "fresh-machine: FAILED at step: $step_name (exit $rc; the root is kept at $root until a run a day later removes it)" >&2
  elif [ -z "${FRESH_KEEP:-}" ]; then
    remove_root
  fi
  exit $rc
}
trap on_exit EXIT
trap 'exit 130' INT TERM

mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '/^deb / && /bookworm/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || { echo "fresh-machine: no Debian mirror configured in apt" >&2; exit 1; }

step "bare bookworm root (debootstrap --variant=minbase, $mirror)"
# Roots that earlier runs kept (after a failure, or when a time limit killed them) go once they are a
# day old: each holds a whole Debian root with the host tools and a build of the repository, space that
# a later run's node image build needs. Never one with mounts on it.
find /var/tmp -maxdepth 1 -name 'sextant-fresh-machine.*' -mtime +0 -print0 | while IFS= read -r -d '' old; do
  still_mounted "$old" || { rm -rf --one-file-system "$old" && echo "fresh-machine: removed $old (a day old)"; } || true
done
[ -z "${FRESH_ROOT:-}" ] || remove_root  # a named root may hold an earlier run's; a new one is empty
# The bare root is cached as a tarball for a week, outside the repository so that it outlives a fresh
# clone (CI): it is exactly what debootstrap makes, nothing installed yet.
cache=${FRESH_CACHE:-/var/cache/sextant}
tarball=$cache/bookworm-minbase.tar
mkdir -p "$cache"
find "$tarball" -mtime +7 -delete 2>/dev/null || true
if [ ! -f "$tarball" ]; then
  mkdir -p "$root"
  debootstrap --variant=minbase --cache-dir=/var/cache/apt/archives bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  # Written aside and renamed: a concurrent run reads either no tarball or a whole one.
  part=$(mktemp "$tarball.XXXXXX")
  tar -C "$root" -cf "$part" . && mv "$part" "$tarball"
else
  echo "fresh-machine: bare root from $tarball (debootstrap of $(date -u -r "$tarball" +%F))"
  mkdir -p "$root" && tar -C "$root" -xf "$tarball"
fi
for tool in java javac mvn git; do
  if chroot "$root" sh -c "command -v $tool" >/dev/null; then
    echo "fresh-machine: the bare root already has $tool: not a fresh machine" >&2; exit 1
  fi
done

step "chroot set-up (policy-rc.d, /proc /sys /dev, caches, the repository)"
# No package's maintainer script may start a daemon in the chroot.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
# A throwaway root: dpkg need not fsync every file it unpacks (the same packages get installed, only
# faster on this disk).
echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/fresh-machine-unsafe-io"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The network's own trust, as a fresh machine on this network has it: a site CA in Debian's place for
# them (here the sandbox's egress CA, which re-signs Maven Central's certificate). Copied before setup.sh
# installs ca-certificates and the JDK, whose trust stores are built from it. Without it the chroot's
# Maven passed only while the host's build had already downloaded every artifact into the shared cache.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
fi
mount -t proc proc "$root/proc" && mounts+=("$root/proc")
mount -t sysfs sys "$root/sys" && mounts+=("$root/sys")
mount --bind /dev "$root/dev" && mounts+=("$root/dev")
mount --bind /dev/pts "$root/dev/pts" && mounts+=("$root/dev/pts")
# Caches, not installs, to stay within CI's budget: the host's apt archive (downloaded .debs; apt in the
# chroot still resolves, unpacks and configures every package itself) and the host's Maven repository
# as the read-only lower layer of an overlay (the chroot's own `mvn install` writes only to the upper
# layer, so it cannot overwrite the host's artifacts).
mount --bind /var/cache/apt/archives "$root/var/cache/apt/archives" && mounts+=("$root/var/cache/apt/archives")
if [ -d "$HOME/.m2/repository" ]; then
  rm -rf "$scratch/m2-upper" "$scratch/m2-work"
  mkdir -p "$root/root/.m2/repository" "$scratch/m2-upper" "$scratch/m2-work"
  mount -t overlay overlay -o "lowerdir=$HOME/.m2/repository,upperdir=$scratch/m2-upper,workdir=$scratch/m2-work" \
    "$root/root/.m2/repository" && mounts+=("$root/root/.m2/repository")
fi
# The repository as a fresh clone has it: the files git tracks (plus new, not yet committed, files that
# are not ignored), none of the host's build output. Outside a git checkout (a source tarball): all but
# out/, target/ and .git.
mkdir -p "$root/work/sextant"
if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$repo" && git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
    | tar --null -T - -cf -) | tar -C "$root/work/sextant" -xf -
else
  tar -C "$repo" --exclude=./out --exclude=target --exclude=.git -cf - . | tar -C "$root/work/sextant" -xf -
fi

in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c "cd /work/sextant && $1"
}

step "scripts/setup.sh"
in_root "bash scripts/setup.sh"

step "Maven build (mvn -B -ntp -DskipTests install)"
in_root "mvn -B -ntp -q -DskipTests install" >"$work/mvn.log" 2>&1 || { tail -40 "$work/mvn.log" >&2; exit 1; }

step "bin/sextant --help"
in_root "SEXTANT_NO_BUILD=1 bin/sextant --help" >"$work/help.txt" 2>&1 || { cat "$work/help.txt" >&2; exit 1; }
grep -q "attest" "$work/help.txt" || { cat "$work/help.txt" >&2; echo "fresh-machine: --help does not list the commands" >&2; exit 1; }

step "finished"
printf 'fresh-machine: PASSED in %d s: setup, build and bin/sextant --help on a bare bookworm root\n' $(($(date +%s) - started))
