#!/usr/bin/env bash
# Stops a throwaway containerd made by containerd-up.sh and removes everything it made: its pods (through
# CRI first, so CNI tears down), runc containers, shims, mounts, netns, bridge and directory. It never
# touches another containerd: everything is found through this instance's dir, socket and subnet.
# Usage: sudo scripts/containerd-down.sh [--version 1.7|2.1] [--dir DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
usage() { sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; }
# shellcheck source=scripts/lib/containerd-common.sh
. "$here/lib/containerd-common.sh"
parse_common_args "$@"
[ "$(id -u)" = "0" ] || die "needs root: sudo $0"
sock="$dir/containerd.sock"

if running_pid "$dir" >/dev/null; then
  if [ -f "$here/../dist/src/cri/client.js" ]; then
    timeout 45 node "$here/lib/remove-all-pods.mjs" "unix://$sock" || say "removing pods through CRI failed; forcing"
  fi
  stop_containerd "$dir"
fi

# Containers still known to this instance's runc root: kill and delete them (this also removes their cgroups).
if [ -d "$dir/runc/k8s.io" ]; then
  for id in $(runc --root "$dir/runc/k8s.io" list -q 2>/dev/null); do
    runc --root "$dir/runc/k8s.io" delete --force "$id" >/dev/null 2>&1 || true
  done
fi
# Shims of this instance name its socket in their command line.
for pid in $(pgrep -f -- "-address $sock" || true); do kill -KILL "$pid" 2>/dev/null || true; done

# Network namespaces with an address in this instance's subnet.
prefix=$(subnet_of "$version" "$dir" | sed 's/0\/24$//')
for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
  if ip -n "$ns" -4 -o addr show 2>/dev/null | grep -q " inet ${prefix//./\\.}"; then
    ip netns delete "$ns" 2>/dev/null || true
  fi
done

# Mounts under the dir, deepest first.
if [ -d "$dir" ]; then
  awk -v d="$dir/" 'index($5, d) == 1 { print length($5), $5 }' /proc/self/mountinfo | sort -rn | cut -d' ' -f2- |
    while read -r m; do umount -l "$m" 2>/dev/null || true; done
fi
ip link del "$(bridge_of "$version" "$dir")" 2>/dev/null || true
rm -rf "$dir"
say "containerd $version in $dir is gone"
