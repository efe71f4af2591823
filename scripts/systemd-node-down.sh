#!/usr/bin/env bash
# Stops a systemd node made by scripts/systemd-node-up.sh and removes everything it made.
#
# Usage: sudo scripts/systemd-node-down.sh [--version 1.7|2.1] [--dir DIR]
#   Same arguments as systemd-node-up.sh (default dir /tmp/cri-conform/systemd-node-<version>).
#
# While the node's containerd answers, its CRI pods are stopped and removed first (so CNI tears their
# networks down); then systemd-nspawn gets SIGTERM and powers the node off (SIGRTMIN+3 to its systemd),
# which stops containerd and every container; a node still up after 60 s loses its PID 1 (SIGKILL, which
# ends every process of its pid namespace). Frozen cgroups of the node are thawed first, since a frozen
# process ends neither way; a node that still runs after all that is left as it is, with exit 2. Then every mount under DIR (the overlay root first among
# them) is unmounted, the node's cgroups (DIR/cgroups, made below the caller's) are removed depth-first,
# so are the empty /run/systemd/nspawn folders nspawn made when none was there before, and last DIR.
# Nothing outside what DIR records is touched; the cached root (/var/cache/cri-conform/systemd-node) stays.
# Idempotent: a node that is already gone is not an error.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
# shellcheck source=lib/containerd-common.sh source-path=SCRIPTDIR
. "$here/lib/containerd-common.sh"
# shellcheck source=lib/systemd-node-common.sh source-path=SCRIPTDIR
. "$here/lib/systemd-node-common.sh"
CC_DIR_KIND=systemd-node
parse_common_args "$@"
[ "$(id -u)" = 0 ] || die "needs root: sudo $0 $*"

if [ ! -e "$dir" ]; then
  say "the systemd node in $dir is already gone"
  exit 0
fi
is_node_dir "$dir" || die "$dir was not made by systemd-node-up.sh: not touching it"
name=$(node_name "$dir")

# thaw_node DIR: thaws every frozen cgroup of the node (its own, DIR/cgroups). A container whose runc was
# killed while its systemd driver had the cgroup frozen (runc freezes a v1 cgroup while it sets a unit's
# device rules) stays frozen, and neither the node's power-off nor SIGKILL can end a frozen process.
thaw_node() {
  local cg f
  while IFS= read -r cg; do
    [[ $cg == */freezer/* ]] || continue
    while IFS= read -r f; do
      [ "$(cat "$f" 2>/dev/null)" = FROZEN ] || continue
      say "thawing ${f%/freezer.state} (frozen: its processes could not end)"
      echo THAWED >"$f" 2>/dev/null || true
    done < <(find "$cg" -name freezer.state 2>/dev/null)
  done < <(cat "$1/cgroups" 2>/dev/null)
}

# --- 1. pods through CRI, then power off ---------------------------------------------------------------------
if leader=$(node_leader "$dir"); then
  project=$(cd "$here/.." && pwd)
  if [ -f "$project/dist/src/cri/client.js" ]; then
    in_node "$dir" timeout -k 2 30 node "$project/scripts/lib/remove-all-pods.mjs" "unix://$CC_NODE_SOCKET" ||
      say "removing the node's pods through CRI failed; its power-off stops them"
  fi
  nspawn=$(node_nspawn_pid "$dir")
  thaw_node "$dir"
  kill -TERM "$nspawn" 2>/dev/null || true
  deadline=$((SECONDS + 60))
  while alive "$nspawn" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
  if alive "$nspawn"; then
    say "the node did not power off within 60 s: SIGKILL to its PID 1 (host pid $leader)"
    thaw_node "$dir"
    [ "$leader" != 1 ] && kill -KILL "$leader" 2>/dev/null || true
    deadline=$((SECONDS + 10))
    while alive "$nspawn" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
  fi
elif nspawn=$(node_nspawn_pid "$dir"); then
  # nspawn without a PID 1 of the node: it is starting or ending; it has nothing left to power off.
  thaw_node "$dir"
  kill -KILL "$nspawn" 2>/dev/null || true
fi
if nspawn=$(node_nspawn_pid "$dir"); then
  die "the node's systemd-nspawn (pid $nspawn) still runs; nothing removed: ps -o pid,stat,wchan,cmd --ppid $(node_leader "$dir" || echo "$nspawn") shows what holds it; run this again"
fi

# --- 2. mounts, cgroups, nspawn's runtime folders --------------------------------------------------------------
for _ in 1 2 3; do
  grep -qF " $dir/" /proc/self/mountinfo || break
  awk -v d="$dir/" 'index($5 "/", d) == 1 { print length($5), $5 }' /proc/self/mountinfo | sort -rn |
    cut -d' ' -f2- | while IFS= read -r m; do umount -l "$m" 2>/dev/null || true; done
done
if [ -f "$dir/cgroups" ]; then
  while IFS= read -r cg; do
    case "$cg" in /sys/fs/cgroup/*/"$name" | /sys/fs/cgroup/*/*/"$name") ;; *) continue ;; esac
    [ -d "$cg" ] || continue
    find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null || true
    [ ! -d "$cg" ] || say "warning: $cg still holds tasks and stays: $(head -c 200 "$cg/cgroup.procs" | xargs)"
  done <"$dir/cgroups"
fi
for d in /run/systemd/nspawn/*/"$name"; do
  [ -d "$d" ] && rmdir "$d" 2>/dev/null || true
done
if [ -f "$dir/made-run-systemd-nspawn" ]; then rmdir /run/systemd/nspawn/* /run/systemd/nspawn 2>/dev/null || true; fi
if [ -f "$dir/made-run-systemd" ]; then rmdir /run/systemd 2>/dev/null || true; fi

if grep -qF " $dir/" /proc/self/mountinfo; then
  die "mounts under $dir remain; not removing it: $(grep -F " $dir/" /proc/self/mountinfo | awk '{print $5}' | head -3)"
fi
rm -rf --one-file-system "$dir"
if [ "${dir%/*}" = "$(normalize_dir "$CC_STATE_ROOT")" ]; then rmdir "${dir%/*}" 2>/dev/null || true; fi
say "the systemd node $name in $dir is gone"
