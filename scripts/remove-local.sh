#!/usr/bin/env bash
# Removes what the set-up (scripts/run-local.sh, install-deps.sh, containerd-up.sh, .ci/run) added to this
# machine, as root, and nothing it found there.
#
# Usage: sudo scripts/remove-local.sh [--dry-run] [-h|--help]
#
#   1. every throwaway containerd and systemd node under the state root (CRI_CONFORM_STATE, default
#      /tmp/cri-conform) goes (scripts/containerd-down.sh, systemd-node-down.sh), then the state root and
#      the network claims folder
#      (/run/cri-conform/networks); it stops before anything when instances of another state root run;
#   2. the packages install-deps.sh installed are purged: only those it recorded in
#      /var/lib/cri-conform/installed-packages (the machine's own stay). When the purge would also take a
#      package it did not install (one installed since that needs them), nothing is purged and it says which;
#   3. the apt source and pin it created (trixie) go, with their package lists and apt's binary caches
#      (apt rebuilds them); apt's own logs and its lists of the machine's own sources stay;
#   4. containerd 2.1 (/opt/cri-conform), the image cache (/var/cache/cri-conform, with the systemd node's
#      cached root), the /run/netns bind
#      mount containerd-up.sh made (once no namespace is left in it), containerd's and CNI's empty folders
#      (/run/containerd, /var/lib/cni) and the record itself go.
#   Packages an install upgraded stay upgraded (it names them); reports and the clone's node_modules and
#   dist are not part of the machine and stay.
#   --dry-run prints what it would do and changes nothing.
set -Eeuo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
usage() { sed -n '2,/^set -Eeuo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
dry_run=false
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --dry-run) dry_run=true ;;
  '') ;;
  *) usage >&2; exit 2 ;;
esac
# shellcheck source=lib/containerd-common.sh source-path=SCRIPTDIR
. "$here/lib/containerd-common.sh"
# shellcheck source=lib/systemd-node-common.sh source-path=SCRIPTDIR
. "$here/lib/systemd-node-common.sh"
# shellcheck source=lib/footprint.sh source-path=SCRIPTDIR
. "$here/lib/footprint.sh"
[ "$(id -u)" = 0 ] || die "needs root: sudo $0 $*"

on_error() { # status line command
  [ "$BASHPID" = "$$" ] || return 0
  printf 'remove-local.sh: line %s failed (exit %s): %s; fix the cause above and run it again (each step is skipped once done)\n' "$2" "$1" "$3" >&2
  exit 2
}
trap 'on_error $? $LINENO "$BASH_COMMAND"' ERR
export DEBIAN_FRONTEND=noninteractive

run() { # command...: runs it, or only prints it with --dry-run
  if [ "$dry_run" = true ]; then printf 'would run: %s\n' "$*" >&2; else "$@"; fi
}
left=()
keep=()

# --- 1. instances, state root, claims -------------------------------------------------------------------
state_root=$(normalize_dir "$CC_STATE_ROOT")
# Instances of other state roots run on the same packages: those go first, by their owners' hands.
others=()
for claim in "$CC_NET_CLAIMS"/*; do
  owner=$(readlink "$claim" 2>/dev/null) || continue
  [ "${owner%/*}" != "$state_root" ] && is_instance_dir "$owner" && others+=("$owner")
done
if [ ${#others[@]} -gt 0 ]; then
  msg="throwaway containerds of other state roots still use the set-up: ${others[*]}; stop each (CRI_CONFORM_STATE=<its parent> scripts/containerd-down.sh --dir <it>), then run this again"
  if [ "$dry_run" = true ]; then left+=("$msg"); else die "$msg"; fi
fi
for d in "$state_root"/*/; do
  d=${d%/}
  if is_node_dir "$d"; then
    say "removing the systemd node in $d"
    run bash "$here/systemd-node-down.sh" --dir "$d"
  fi
  is_instance_dir "$d" || continue
  say "removing the throwaway containerd in $d"
  run bash "$here/containerd-down.sh" --dir "$d"
done
if [ -d "$state_root" ]; then
  if [ -z "$(ls -A "$state_root")" ]; then run rmdir "$state_root"; else left+=("$state_root (not empty: files not made by the set-up)"); fi
fi
# Claims whose instance is gone are stale.
for claim in "$CC_NET_CLAIMS"/*; do
  owner=$(readlink "$claim" 2>/dev/null) || continue
  is_instance_dir "$owner" || run rm -f "$claim"
done
if [ -d "$CC_NET_CLAIMS" ] && [ -z "$(ls -A "$CC_NET_CLAIMS")" ]; then run rmdir "$CC_NET_CLAIMS"; fi

# --- 2. packages ------------------------------------------------------------------------------------------
installed_record="$CC_RECORD_DIR/installed-packages"
if [ -s "$installed_record" ]; then
  mapfile -t recorded < <(sort -u "$installed_record")
  mapfile -t present < <(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "${recorded[@]}" 2>/dev/null |
    awk '$1 ~ /^.i/ { print $2 }' || true)
  # A package apt protects (an init system: systemd-sysv, pulled in by chromium's dependencies on a machine
  # that had none) stays, with the recorded packages it needs.
  mapfile -t protected < <(apt-get -s purge "${present[@]}" 2>&1 |
    sed -n '/essential packages will be removed/,/^[0-9]* upgraded/{s/([^)]*)//g; s/^  //p}' | tr ' ' '\n' | grep -v '^$' || true)
  if [ ${#protected[@]} -gt 0 ]; then
    mapfile -t keep < <(apt-cache depends --recurse --installed --no-recommends --no-suggests --no-conflicts \
      --no-breaks --no-replaces --no-enhances "${protected[@]}" | grep -v '^ ' | sort -u | grep -xF -f "$installed_record" || true)
    mapfile -t present < <(printf '%s\n' "${present[@]}" | grep -vxF -f <(printf '%s\n' "${keep[@]}") || true)
    left+=("packages apt protects, with what they need, which stay: ${keep[*]} (apt-get purge --allow-remove-essential them if the machine had no init system before)")
  fi
  if [ ${#present[@]} -gt 0 ]; then
    # What apt would purge, compared with the record: a package beyond it is the user's.
    mapfile -t beyond < <(apt-get -s purge "${present[@]}" | awk '$1 == "Purg" { print $2 }' |
      grep -vxF -f "$installed_record" || true)
    if [ ${#beyond[@]} -gt 0 ]; then
      die "purging the set-up's packages would also remove ${beyond[*]}, which it did not install: nothing purged; remove those first if you want them gone, or purge the set-up's packages by hand (list: $installed_record)"
    fi
    say "purging the ${#present[@]} packages the set-up installed: ${present[*]}"
    run apt-get purge -y -qq "${present[@]}" >/dev/null
  fi
fi
if [ ! -e "$installed_record" ]; then
  left+=("packages: $installed_record does not exist (nothing installed, or a set-up older than the record): none purged")
fi
upgraded_record="$CC_RECORD_DIR/upgraded-packages"
if [ -s "$upgraded_record" ]; then
  left+=("packages an install upgraded, which stay upgraded: $(awk '{ printf "%s%s %s -> %s", sep, $1, $2, $3; sep = ", " }' "$upgraded_record")")
fi

# --- 3. apt sources and pins ------------------------------------------------------------------------------
created_record="$CC_RECORD_DIR/created-files"
sources_removed=false
if [ -s "$created_record" ]; then
  while IFS= read -r f; do
    case "$f" in
      /etc/apt/*) ;;
      *) continue ;;
    esac
    [ -e "$f" ] || continue
    run rm -f "$f"
    sources_removed=true
  done <"$created_record"
fi
# Versions before the record wrote forky's source and pin for good; theirs are recognised by content.
for f in /etc/apt/sources.list.d/forky.sources /etc/apt/preferences.d/forky; do
  [ -f "$f" ] || continue
  if grep -qx 'Suites: forky' "$f" || grep -qx 'Pin: release n=forky' "$f"; then
    if [ "$(wc -l <"$f")" -le 5 ]; then run rm -f "$f"; sources_removed=true; fi
  fi
done
if [ "$sources_removed" = true ]; then
  for suite in trixie forky; do
    [ -e "/etc/apt/sources.list.d/$suite.sources" ] && continue
    for list in /var/lib/apt/lists/*_dists_"$suite"_*; do
      [ -e "$list" ] && run rm -f "$list"
    done
  done
  # apt's binary caches still name the removed suites; apt rebuilds them on its next use.
  run rm -f /var/cache/apt/pkgcache.bin /var/cache/apt/srcpkgcache.bin
fi

# --- 4. containerd 2.1, image cache, /run/netns mount, the record ------------------------------------------
if [ -x "$CC_CONTAINERD21_DIR/usr/bin/containerd" ]; then
  say "removing $CC_CONTAINERD21_DIR"
  run rm -rf --one-file-system "$CC_CONTAINERD21_DIR"
fi
opt_parent=${CC_CONTAINERD21_DIR%/*}
if [ -d "$opt_parent" ] && grep -qxF "$opt_parent" "$created_record" 2>/dev/null; then
  run rmdir "$opt_parent" 2>/dev/null || left+=("$opt_parent (not empty)")
fi
# Only folders the image builder made (each holds cri-conform-images.tar) are removed, then the cache if empty.
for tarball in "$CC_IMAGE_CACHE"/*/cri-conform-images.tar; do
  [ -e "$tarball" ] || continue
  run rm -rf --one-file-system "${tarball%/*}"
done
# The systemd node's cached roots (systemd-node-root.sh), unless a node of another state root runs on one.
if [ -d "$CC_IMAGE_CACHE/systemd-node" ]; then
  if grep -qF "lowerdir=$CC_IMAGE_CACHE/systemd-node/" /proc/self/mountinfo; then
    left+=("$CC_IMAGE_CACHE/systemd-node (a systemd node still runs on it: scripts/systemd-node-down.sh --dir <its dir>)")
  else
    run rm -rf --one-file-system "$CC_IMAGE_CACHE/systemd-node"
  fi
fi
if [ -d "$CC_IMAGE_CACHE" ]; then
  if [ -z "$(ls -A "$CC_IMAGE_CACHE")" ] || [ "$dry_run" = true ]; then run rmdir "$CC_IMAGE_CACHE"; else left+=("$CC_IMAGE_CACHE (not empty)"); fi
fi
if [ -e "$CC_NETNS_MOUNT_RECORD" ]; then
  if [ -n "$(ls -A /run/netns 2>/dev/null)" ]; then
    left+=("the /run/netns bind mount (network namespaces are still in it: $(ls /run/netns | head -3 | tr '\n' ' '))")
  else
    if mountpoint -q /run/netns; then run umount /run/netns; fi
    run rmdir /run/netns
    run rm -f "$CC_NETNS_MOUNT_RECORD"
  fi
fi
# The runs' pod log root (each run removes its own folder in it).
run rmdir /run/cri-conform/pod-logs 2>/dev/null || true
run rmdir "${CC_NET_CLAIMS%/*}" 2>/dev/null || true
# A shim that was killed leaves its socket behind; one that no process listens on (/proc/net/unix) is such.
for s in /run/containerd/s/*; do
  if [ -S "$s" ] && ! grep -qF " $s" /proc/net/unix; then run rm -f "$s"; fi
done
# Folders containerd makes on first use (shim sockets, the CNI result cache); the machine's own containerd
# keeps files there, so only empty ones go.
run rmdir /run/containerd/s /run/containerd 2>/dev/null || true
run rmdir /var/lib/cni/results /var/lib/cni 2>/dev/null || true
for f in installed-packages upgraded-packages created-files; do
  [ -e "$CC_RECORD_DIR/$f" ] && run rm -f "$CC_RECORD_DIR/$f"
done
# The second folder of private instances (src/instance/instance-roots.ts), when no instance is left in it.
run rmdir "$CC_RECORD_DIR/isolated" 2>/dev/null || true
# What stayed stays recorded, for a later purge by hand.
if [ ${#keep[@]} -gt 0 ] && [ "$dry_run" = false ]; then printf '%s\n' "${keep[@]}" >"$installed_record"; fi
if [ -d "$CC_RECORD_DIR" ]; then run rmdir "$CC_RECORD_DIR" 2>/dev/null || left+=("$CC_RECORD_DIR (not empty)"); fi

for l in "${left[@]}"; do say "left: $l"; done
if [ "$dry_run" = true ]; then
  echo "remove-local.sh: dry run, nothing changed"
else
  echo "remove-local.sh: the set-up's packages, apt sources, containerd 2.1, image cache, state and mounts are removed${left:+ (except what is listed as left)}"
fi
