#!/usr/bin/env bash
# Stops a throwaway containerd made by scripts/containerd-up.sh and removes everything it made.
#
# Usage: sudo scripts/containerd-down.sh [--version 1.7|2.1] [--dir DIR] [--bin BIN] [--crun]
#   Same arguments as containerd-up.sh (default dir /tmp/cri-conform/containerd-<version>).
#
# While the instance still answers, its pods are stopped and removed through CRI first (needs the built
# client in dist/; skipped otherwise), so CNI tears their networks down. Then: its containerd is stopped
# (the pid in <dir>/containerd.pid, only if that process's command line names <dir>/config.toml); the
# slow-runtime and slow-CNI wrappers still running for it, its runc and crun containers (roots <dir>/runc
# and <dir>/crun) and its shims (command line "-address <dir>/containerd.sock") are killed; the network
# namespaces its state names, every mount under DIR (deepest first, lazily), its bridge, its CNI result
# cache entries, its shims' sockets and its containers' empty cgroups are removed; last DIR itself, then
# the state root and the claims folder (/run/cri-conform/networks) when nothing else is in them.
# Everything is found through DIR: another containerd's processes and state are never touched.
# Idempotent: an instance that is already gone is not an error.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
# shellcheck source=lib/containerd-common.sh source-path=SCRIPTDIR
. "$here/lib/containerd-common.sh"
parse_common_args "$@"
[ "$(id -u)" = 0 ] || die "needs root: sudo $0 $*"
sock="$dir/containerd.sock"

if [ ! -e "$dir" ]; then
  say "containerd in $dir is already gone"
  exit 0
fi
is_instance_dir "$dir" || die "$dir was not made by containerd-up.sh: not touching it"
recorded=$(instance_version "$dir")
version=${recorded:-$version}
own_bin=$(sed -n 's/^bin=//p' "$dir/$CC_MARKER" 2>/dev/null || true)
label=$version${own_bin:+ ($own_bin)}
read_network "$dir"

# --- 1. pods through CRI, while the runtime answers ----------------------------------------------------
if running_pid "$dir" >/dev/null && answering "$dir"; then
  if command -v node >/dev/null && [ -f "$here/../dist/src/cri/client.js" ]; then
    timeout -k 2 30 node "$here/lib/remove-all-pods.mjs" "unix://$sock" ||
      say "removing the pods through CRI failed; removing them by force"
  fi
fi

# --- 2. what the instance's state names, read before anything is removed ------------------------------
tasks="$dir/state/io.containerd.runtime.v2.task"
ids=()
for d in "$dir"/runc/*/* "$dir"/crun/*/* "$tasks"/*/*; do
  [ -d "$d" ] && ids+=("${d##*/}")
done
mapfile -t ids < <(printf '%s\n' "${ids[@]}" | grep -E '^[0-9a-f]{64}$' | sort -u || true)
state_files=()
while IFS= read -r -d '' f; do state_files+=("$f"); done < <(
  find "$dir/state" "$dir/root/io.containerd.metadata.v1.bolt" -maxdepth 6 -type f \
    \( -name config.json -o -name address -o -name bootstrap.json -o -name meta.db -o -name '*.json' \) \
    -size -64M -print0 2>/dev/null
)
netns=()
shim_sockets=()
if [ ${#state_files[@]} -gt 0 ]; then
  mapfile -t netns < <(grep -aohE '/(var/)?run/netns/cni-[0-9a-f-]{36}' "${state_files[@]}" 2>/dev/null | sort -u || true)
  mapfile -t shim_sockets < <(grep -aohE '/run/containerd/s/[0-9a-f]{64}' "${state_files[@]}" 2>/dev/null | sort -u || true)
fi

# --- 3. stop the daemon, then everything still running for it -------------------------------------------
stop_containerd "$dir"

kill_with_children() { # pid...
  local pid
  for pid in "$@"; do
    pkill -KILL -P "$pid" 2>/dev/null || true
    kill -KILL "$pid" 2>/dev/null || true
  done
}
# Wrappers in the middle of a delay would otherwise go on to create a container or a veth.
mapfile -t wrappers < <(
  pids_with_args "$dir/slow-runtime/runc-slow"
  pids_with_args "$dir/slow-runtime/crun-slow"
  pids_with_args "$dir/cni-bin/conform-bridge"
)
[ ${#wrappers[@]} -eq 0 ] || kill_with_children "${wrappers[@]}"

# The crun its --crun handlers ran (recorded by containerd-up.sh), which knows its own state format.
crun_bin=$(sed -n 's/^crun_bin=//p' "$dir/$CC_MARKER" 2>/dev/null || true)
for oci in "runc runc" "crun ${crun_bin:-crun}"; do
  read -r name binary <<<"$oci"
  command -v "$binary" >/dev/null || continue
  for root in "$dir/$name"/*; do
    [ -d "$root" ] || continue
    for id in $("$binary" --root "$root" list -q 2>/dev/null || true); do
      "$binary" --root "$root" delete --force "$id" >/dev/null 2>&1 || true
    done
  done
done

mapfile -t shims < <(pids_with_args -address "$sock")
if [ ${#shims[@]} -gt 0 ]; then
  kill_with_children "${shims[@]}"
  deadline=$((SECONDS + 5))
  for pid in "${shims[@]}"; do
    while alive "$pid" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.05; done
  done
fi

# --- 4. host state the instance made -----------------------------------------------------------------------
for ns in "${netns[@]}"; do
  [ -e "$ns" ] || continue
  ip netns delete "${ns##*/}" 2>/dev/null || { umount -l "$ns" 2>/dev/null || true; rm -f "$ns" 2>/dev/null; } ||
    say "warning: $ns is still mounted under another mount of ${ns%/*} and stays (harmless: names are unique)"
done
# Namespaces whose CNI setup got an address of this instance's subnet, in case the state missed one.
prefix=${subnet%.0/24}.
for name in $(ip netns list 2>/dev/null | awk '{print $1}'); do
  if ip -n "$name" -4 -o addr show 2>/dev/null | grep -qF " inet $prefix"; then
    ip netns delete "$name" 2>/dev/null || true
  fi
done

unmount_under() { # dir: lazy umount of every mount at or below it, deepest first
  awk -v d="$1/" 'index($5 "/", d) == 1 { print length($5), $5 }' /proc/self/mountinfo | sort -rn |
    cut -d' ' -f2- | while IFS= read -r m; do umount -l "$m" 2>/dev/null || true; done
}
for _ in 1 2 3; do
  grep -qF " $dir/" /proc/self/mountinfo || break
  unmount_under "$dir"
done

if ip link show dev "$bridge" >/dev/null 2>&1; then ip link delete dev "$bridge" 2>/dev/null || true; fi

# CNI result cache (libcni keeps it in /var/lib/cni/results): this network's entries, and the entries of
# containerd's built-in loopback network for this instance's sandboxes.
rm -f /var/lib/cni/results/"$net_name"-* 2>/dev/null || true
for id in "${ids[@]}"; do rm -f /var/lib/cni/results/cni-loopback-"$id"-* 2>/dev/null || true; done
# Sockets of shims that were killed rather than shut down.
for s in "${shim_sockets[@]}"; do rm -f "$s"; done
# Cgroups of its containers that runc could not delete (rmdir removes only empty ones).
if [ ${#ids[@]} -gt 0 ]; then
  pattern=$(IFS='|'; echo "${ids[*]}")
  find /sys/fs/cgroup -mindepth 1 -maxdepth 6 -type d -regextype posix-extended -regex ".*/($pattern)" \
    -print0 2>/dev/null | sort -zr | xargs -0 -r rmdir 2>/dev/null || true
fi

release_network "$dir"
if grep -qF " $dir/" /proc/self/mountinfo; then
  die "mounts under $dir remain; not removing it: $(grep -F " $dir/" /proc/self/mountinfo | awk '{print $5}' | head -3)"
fi
rm -rf --one-file-system "$dir"
# The folders that held only this instance: the state root (when DIR is in it) and the claims folder.
if [ "${dir%/*}" = "$(normalize_dir "$CC_STATE_ROOT")" ]; then rmdir "${dir%/*}" 2>/dev/null || true; fi
rmdir "$CC_NET_CLAIMS" "${CC_NET_CLAIMS%/*}" 2>/dev/null || true
say "containerd $label in $dir is gone"
