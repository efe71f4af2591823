# shellcheck shell=bash
# Sourced by systemd-node-up.sh: the root filesystem of the systemd node, built once per content and
# kept in the image cache (CRI_CONFORM_IMAGE_CACHE, default /var/cache/cri-conform) as
# systemd-node/<key>/root, where <key> hashes what goes into it, the mirror and the architecture. A node
# never writes to it: it runs on an overlay whose upper layer lives in the node's own directory. Roots of
# other keys are removed once no node runs on them.
#
# What the root holds: Debian bookworm (minbase) with systemd as init (systemd 256+ refuses cgroup v1, so
# not trixie), dbus, iproute2, iptables, procps, util-linux and kmod; containerd 1.7 and the CNI plugins
# from trixie (pinned at 100 inside the root, as install-deps.sh pins it on the host), runc from bookworm
# (trixie's needs a newer libc), libstdc++6 for the host's node binary, which the node gets bound in, and
# busybox-static, from which cri-conform builds its bundled images (as install-deps.sh installs it on a node).
# Units that only make noise in a throwaway node (gettys, time sync, apt's and man's timers) are masked.
# Needs: debootstrap (install-deps.sh --with-test-deps), root, the machine's Debian mirror.

# The mirror's suites and the packages taken from each; part of the key through this file's bytes.
CC_NODE_SUITE=bookworm
CC_NODE_INCLUDE=systemd,systemd-sysv,dbus,iproute2,iptables,ca-certificates,procps,util-linux,kmod,libstdc++6,busybox-static
CC_NODE_TRIXIE_PACKAGES=(containerd/trixie runc containernetworking-plugins/trixie)
CC_NODE_MASKED=(getty@.service console-getty.service serial-getty@.service systemd-timesyncd.service
  apt-daily.timer apt-daily-upgrade.timer man-db.timer e2scrub_all.timer e2scrub_reap.service fstrim.timer
  dpkg-db-backup.timer)

# node_root_key MIRROR: the cache key of a root built from MIRROR: what goes into it (the lists above and
# the build's code), not this file's comments or its cache keeping.
node_root_key() {
  {
    printf '%s\n' "$CC_NODE_SUITE" "$CC_NODE_INCLUDE" "${CC_NODE_TRIXIE_PACKAGES[*]}" "${CC_NODE_MASKED[*]}"
    declare -f build_node_root in_root
    printf '%s\n%s\n' "$1" "$(dpkg --print-architecture)"
  } | sha256sum | cut -c1-16
}

# in_root ROOT COMMAND...: runs COMMAND chrooted into ROOT with /proc and /dev mounted in a mount
# namespace of its own, so the mounts end with it and never stay on the host.
in_root() {
  local root=$1
  shift
  unshare --mount --propagation private -- sh -c '
    root=$1; shift
    mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" && exec chroot "$root" "$@"
  ' in_root "$root" "$@"
}

# ensure_node_root CACHE MIRROR: prints the path of the cached root, building it first when missing.
# Concurrent callers wait for one build (flock); a build that fails or is killed leaves only a
# <key>.partial.<pid> folder, which the next build removes.
ensure_node_root() {
  local cache=$1/systemd-node mirror=$2 key dir partial
  key=$(node_root_key "$mirror")
  dir="$cache/$key"
  mkdir -p "$cache"
  exec {lock}>"$cache/.lock"
  flock "$lock"
  if [ ! -f "$dir/built" ]; then
    rm -rf --one-file-system "$cache"/*.partial.* 2>/dev/null || true
    partial="$dir.partial.$$"
    say "building the systemd node's root from $mirror into $dir (a few minutes, once)"
    build_node_root "$partial/root" "$mirror"
    date -u +%FT%TZ >"$partial/built"
    rm -rf --one-file-system "$dir"
    mv "$partial" "$dir"
  fi
  prune_node_roots "$cache" "$key"
  exec {lock}>&-
  printf '%s\n' "$dir/root"
}

# prune_node_roots CACHE KEEP: removes roots of other keys (an older recipe) that no overlay mounts.
prune_node_roots() {
  local d
  for d in "$1"/*/; do
    d=${d%/}
    [ "${d##*/}" != "$2" ] || continue
    grep -qF "lowerdir=$d/root" /proc/self/mountinfo || rm -rf --one-file-system "$d"
  done
}

build_node_root() { # root mirror
  local root=$1 mirror=$2
  mkdir -p "$root"
  debootstrap --variant=minbase --include="$CC_NODE_INCLUDE" "$CC_NODE_SUITE" "$root" "$mirror" >&2
  cat >"$root/etc/apt/sources.list.d/trixie.sources" <<SOURCES
Types: deb
URIs: $mirror
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  printf 'Package: *\nPin: release n=trixie\nPin-Priority: 100\n' >"$root/etc/apt/preferences.d/trixie"
  # No service starts while packages install: the root is not running yet.
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 0755 "$root/usr/sbin/policy-rc.d"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  in_root "$root" apt-get update -qq >&2
  in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${CC_NODE_TRIXIE_PACKAGES[@]}" >&2
  in_root "$root" apt-get clean
  rm -rf "$root"/var/lib/apt/lists/* "$root/usr/sbin/policy-rc.d"
  : >"$root/etc/resolv.conf"
  local unit
  for unit in "${CC_NODE_MASKED[@]}"; do ln -sfn /dev/null "$root/etc/systemd/system/$unit"; done
  # The node's machine id comes with each boot (nspawn hands it one); an empty file lets it.
  : >"$root/etc/machine-id"
}
