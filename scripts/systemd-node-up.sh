#!/usr/bin/env bash
# Starts a throwaway node with systemd as PID 1 and containerd on the systemd cgroup driver (runc
# SystemdCgroup = true, as kubeadm sets it up), in systemd-nspawn, as root, and prints its environment.
# It is containerd-up.sh's throwaway containerd on a production-like node: the same containerd config
# (NRI, the conform-slow handler, the slow CNI wrapper, the project's images), but the systemd driver.
#
# Usage: sudo scripts/systemd-node-up.sh [--version 1.7|2.1] [--dir DIR]
#
#   --version  1.7: the root's containerd (Debian trixie's 1.7); 2.1: the containerd 2.1 install-deps.sh
#              unpacks into /opt/cri-conform/containerd-2.1, bound into the node read-only. Default 1.7.
#   --dir      the node's directory (default /tmp/cri-conform/systemd-node-<version>; the parent comes from
#              CRI_CONFORM_STATE). Everything of the node lives or is recorded there.
#
# The node: a Debian bookworm root with systemd 252 (built once from this machine's Debian mirror and
# cached, scripts/lib/systemd-node-root.sh), run on an overlay (upper layer in DIR/up) so the cache stays
# as built; /var/lib/containerd on DIR/containerd; its own network namespace (nspawn --private-network:
# the pods' bridge, routes and sysctls never reach the host); its own cgroup below this shell's in every
# hierarchy, the unified one included (DIR/cgroups lists them), in the host's layout (hybrid here); this
# checkout and the host's node binary bound in read-only at the same paths, so cri-conform runs inside
# it as on a real node. containerd runs as the node's containerd.service with /etc/containerd/config.toml;
# the images are imported into namespace k8s.io.
#
# It writes DIR/env (KEY="value" lines; paths as the node sees them) and prints the same as exports:
#   CONTAINER_RUNTIME_ENDPOINT, CRI_CONFORM_NRI_SOCKET, CRI_CONFORM_NRI_REQUEST_TIMEOUT,
#   CRI_CONFORM_TEST_IMAGE, CRI_CONFORM_PAUSE_IMAGE, CRI_CONFORM_SLOW_RUNTIME_HANDLER,
#   CRI_CONFORM_SLOW_RUNTIME_DIR, CRI_CONFORM_SLOW_CNI_DIR, CRI_CONFORM_RESTART_CMD (systemctl, inside),
#   CRI_CONFORM_SYSTEMD_NODE_DIR, CRI_CONFORM_SYSTEMD_NODE_PID (its PID 1 as the host sees it),
#   CRI_CONFORM_SYSTEMD_NODE_PROJECT (the checkout bound in), CRI_CONFORM_SYSTEMD_NODE_VERSION
# Run a command inside: scripts/systemd-node-exec.sh [--dir DIR] -- COMMAND. Stop and remove:
# scripts/systemd-node-down.sh (same arguments). Exit 3 (and one line why) when this machine cannot host
# the node: no cgroup v1 controllers (systemd 252 in the node needs them), or no systemd-nspawn/debootstrap.
set -Eeuo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
usage() { sed -n '2,/^set -Eeuo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
# shellcheck source=lib/containerd-common.sh source-path=SCRIPTDIR
. "$here/lib/containerd-common.sh"
# shellcheck source=lib/containerd-config.sh source-path=SCRIPTDIR
. "$here/lib/containerd-config.sh"
# shellcheck source=lib/systemd-node-common.sh source-path=SCRIPTDIR
. "$here/lib/systemd-node-common.sh"
# shellcheck source=lib/systemd-node-root.sh source-path=SCRIPTDIR
. "$here/lib/systemd-node-root.sh"
# shellcheck source=lib/apt-mirror.sh source-path=SCRIPTDIR
. "$here/lib/apt-mirror.sh"
trap_errors systemd-node-down.sh
CC_DIR_KIND=systemd-node
parse_common_args "$@"
[ "$(id -u)" = 0 ] || die "needs root (it starts a container and makes cgroups): sudo $0 $*"
cannot_host() { printf 'systemd-node-up.sh: this machine cannot host the systemd node: %s\n' "$*" >&2; exit 3; }

project=$(cd "$here/.." && pwd)
name=$(node_name "$dir")
test_image=localhost/cri-conform/busybox:1
pause_image=localhost/cri-conform/pause:1

# --- can this machine host it? ---------------------------------------------------------------------------
for tool in systemd-nspawn debootstrap nsenter unshare flock; do
  command -v "$tool" >/dev/null ||
    cannot_host "$tool is missing: sudo scripts/install-deps.sh --with-test-deps installs it"
done
mapfile -t hierarchies < <(awk '$9 == "cgroup" { print $5 }' /proc/self/mountinfo)
[ ${#hierarchies[@]} -gt 0 ] ||
  cannot_host "no cgroup v1 controller is mounted, and systemd 252 in the node's bookworm root runs on v1 (hybrid) only here; cgroup v2 only is not covered"
[ "$version" = 1.7 ] || [ -x "$CC_CONTAINERD21_DIR/usr/bin/containerd" ] ||
  die "containerd 2.1 is not unpacked in $CC_CONTAINERD21_DIR: sudo scripts/install-deps.sh"

write_env() {
  cat >"$dir/env.tmp" <<ENV
CONTAINER_RUNTIME_ENDPOINT="unix://$CC_NODE_SOCKET"
CRI_CONFORM_NRI_SOCKET="$CC_NODE_NRI_SOCKET"
CRI_CONFORM_NRI_REQUEST_TIMEOUT="2s"
CRI_CONFORM_TEST_IMAGE="$test_image"
CRI_CONFORM_PAUSE_IMAGE="$pause_image"
CRI_CONFORM_SLOW_RUNTIME_HANDLER="conform-slow"
CRI_CONFORM_SLOW_RUNTIME_DIR="$CC_NODE_CTL/slow-runtime"
CRI_CONFORM_SLOW_CNI_DIR="$CC_NODE_CTL/slow-cni"
CRI_CONFORM_RESTART_CMD="systemctl restart containerd"
CRI_CONFORM_SYSTEMD_NODE_DIR="$dir"
CRI_CONFORM_SYSTEMD_NODE_PID="$(node_leader "$dir")"
CRI_CONFORM_SYSTEMD_NODE_PROJECT="$project"
CRI_CONFORM_SYSTEMD_NODE_VERSION="$version"
ENV
  mv -f "$dir/env.tmp" "$dir/env"
  sed 's/^/export /' "$dir/env"
}

# --- already up? -----------------------------------------------------------------------------------------
if is_node_dir "$dir" && node_leader "$dir" >/dev/null; then
  say "the systemd node $name in $dir already runs (PID 1 is host pid $(node_leader "$dir"))"
  write_env
  exit 0
fi
if [ -e "$dir" ]; then
  if is_node_dir "$dir"; then
    say "removing the leftovers of a dead node in $dir"
    bash "$here/systemd-node-down.sh" --version "$version" --dir "$dir" >/dev/null
  elif [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
    die "$dir exists and was not made by systemd-node-up.sh: pick another --dir"
  fi
fi

# --- the root: cached lower layer, the node's own upper layer ------------------------------------------------
mirror=$(debian_mirror /etc/apt) || exit 2
lower=$(ensure_node_root "$CC_IMAGE_CACHE" "$mirror")
images=$(image_archive "$here" "$CC_IMAGE_CACHE")
say "writing the systemd node $name (containerd $version, systemd cgroup driver) in $dir"
mkdir -p "$dir"/{up,work,root,containerd}
printf 'version=%s\nname=%s\ncreated=%s\n' "$version" "$name" "$(date -u +%FT%TZ)" >"$dir/$CC_NODE_MARKER"
# nspawn makes folders under /run/systemd/nspawn; the down script removes those it made.
[ -d /run/systemd ] || : >"$dir/made-run-systemd"
[ -d /run/systemd/nspawn ] || : >"$dir/made-run-systemd-nspawn"
mount -t overlay overlay -o "lowerdir=$lower,upperdir=$dir/up,workdir=$dir/work" "$dir/root"
root="$dir/root"

mkdir -p "$root/etc/containerd" "$root/etc/cni/net.d" "$root$CC_NODE_CTL"/{slow-runtime,slow-cni,cni-bin}
: >"$root$CC_NODE_CTL/slow-runtime/created.log"
echo 0 >"$root$CC_NODE_CTL/slow-runtime/delay-ms"
echo 0 >"$root$CC_NODE_CTL/slow-cni/delay-ms"
install_template "$here/lib/runc-slow.sh" "$root$CC_NODE_CTL/slow-runtime/runc-slow" REAL_RUNC /usr/sbin/runc
for plugin in "$root"/usr/lib/cni/*; do
  [ -x "$plugin" ] && ln -sfn "/usr/lib/cni/${plugin##*/}" "$root$CC_NODE_CTL/cni-bin/${plugin##*/}"
done
install_template "$here/lib/cni-slow.sh" "$root$CC_NODE_CTL/cni-bin/conform-bridge" REAL_PLUGIN /usr/lib/cni/bridge
# The node has a network namespace of its own: no subnet of the host's can clash with this one.
cni_conflist cri-conform cc-br0 10.213.0.0/24 /var/lib/cni/networks >"$root/etc/cni/net.d/10-cri-conform.conflist"
# shellcheck disable=SC2034 # read by containerd_config_toml
{
  cfg_version=$version cfg_root=/var/lib/containerd cfg_state=/run/containerd cfg_socket=$CC_NODE_SOCKET
  cfg_opt=/opt/containerd cfg_pause_image=$pause_image cfg_cni_bin="$CC_NODE_CTL/cni-bin"
  cfg_cni_conf=/etc/cni/net.d cfg_runc=/usr/sbin/runc cfg_slow_runc="$CC_NODE_CTL/slow-runtime/runc-slow"
  cfg_runc_root='' cfg_systemd_cgroup=true cfg_nri_socket=$CC_NODE_NRI_SOCKET
  cfg_nri_plugins=/opt/nri/plugins cfg_nri_conf=/etc/nri/conf.d
}
containerd_config_toml >"$root/etc/containerd/config.toml"
binds=(--bind="$dir/containerd:/var/lib/containerd" --bind-ro="$project:$project"
  --bind-ro="$(readlink -f "$(command -v node)"):/usr/local/bin/node")
if [ "$version" = 2.1 ]; then
  binds+=(--bind-ro="$CC_CONTAINERD21_DIR:$CC_CONTAINERD21_DIR")
  mkdir -p "$root/etc/systemd/system/containerd.service.d"
  # 2.1 must run its own shim: its bin dir comes first on PATH.
  cat >"$root/etc/systemd/system/containerd.service.d/cri-conform-2.1.conf" <<UNIT
[Service]
ExecStart=
ExecStart=$CC_CONTAINERD21_DIR/usr/bin/containerd
Environment=PATH=$CC_CONTAINERD21_DIR/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin
UNIT
fi
cp "$images" "$root/var/tmp/cri-conform-images.tar"
echo "$name" >"$root/etc/hostname"
# PID 1: nspawn mounts the v1 controller hierarchies read-only, and runc's systemd driver makes and joins
# each container's scope there, so each is made writable (its own subtree is all the node sees of it).
cat >"$root/usr/local/sbin/cc-node-init" <<'INIT'
#!/bin/sh
for d in /sys/fs/cgroup/*; do
  case ${d##*/} in systemd|unified) continue ;; esac
  [ -L "$d" ] || ! mountpoint -q "$d" || mount -o remount,bind,rw "$d"
done
exec /lib/systemd/systemd "$@"
INIT
chmod 0755 "$root/usr/local/sbin/cc-node-init"

# --- cgroups of its own, below this shell's in every hierarchy ----------------------------------------------
: >"$dir/cgroups"
for mount in "${hierarchies[@]}" $(awk '$9 == "cgroup2" { print $5 }' /proc/self/mountinfo); do
  [[ $mount == /sys/fs/cgroup/* ]] || continue
  controllers=$(basename "$mount")
  if [ "$controllers" = unified ]; then own=$(sed -n 's/^0:://p' /proc/self/cgroup)
  else own=$(awk -F: -v m="$controllers" '$2 == m || $2 == "name=" m { print $3; exit }' /proc/self/cgroup)
  fi
  cg="$mount${own%/}/$name"
  mkdir "$cg"
  echo "$cg" >>"$dir/cgroups"
  if [ -f "$cg/cpuset.cpus" ]; then
    cat "$mount${own%/}/cpuset.cpus" >"$cg/cpuset.cpus"
    cat "$mount${own%/}/cpuset.mems" >"$cg/cpuset.mems"
  fi
done

# --- start ---------------------------------------------------------------------------------------------------
say "starting the node (systemd-nspawn --machine=$name)"
(
  while read -r cg; do echo "$BASHPID" >"$cg/cgroup.procs"; done <"$dir/cgroups"
  # The host's layout, hybrid here: systemd 252 drives the v1 controllers and tracks its units in the
  # unified hierarchy, whose cgroup.events tell it when a scope empties. In the legacy layout nothing
  # tells it inside a container, so a scope whose processes runc reaped itself (a create the runtime
  # cancelled) stays "stopping" until systemd's 90 s stop timeout and then "failed". Seccomp off, as runc
  # installs the containers' own filters.
  export SYSTEMD_SECCOMP=0
  exec setsid systemd-nspawn -D "$root" --machine="$name" --register=no --keep-unit --capability=all \
    --private-network --kill-signal=SIGRTMIN+3 --console=read-only --resolv-conf=off --timezone=off \
    --link-journal=no "${binds[@]}" /usr/local/sbin/cc-node-init
) </dev/null >>"$dir/nspawn.log" 2>&1 &
launched=$!
echo "$launched" >"$dir/nspawn.pid"
deadline=$((SECONDS + 20))
# Until nspawn (the launched subshell, once it has joined the cgroups and exec'd) has its PID 1.
until node_leader "$dir" >/dev/null; do
  alive "$launched" || { tail -n 20 "$dir/nspawn.log" >&2; die "systemd-nspawn exited at once (log: $dir/nspawn.log)"; }
  [ "$SECONDS" -lt "$deadline" ] || die "the node's PID 1 did not start within 20 s (log: $dir/nspawn.log)"
  sleep 0.1
done
# Until its systemd has booted: "offline" (or no answer) before its bus is up, then "starting".
deadline=$((SECONDS + 120))
state=
until [[ $state =~ ^(running|degraded)$ ]] || [ "$SECONDS" -ge "$deadline" ]; do
  state=$(in_node "$dir" timeout 60 systemctl is-system-running --wait 2>/dev/null || true)
  [[ $state =~ ^(running|degraded)$ ]] || sleep 0.2
done
if [ "$state" != running ]; then
  say "the node's systemd is ${state:-not answering}; failed units: $(in_node "$dir" systemctl --failed --no-legend --plain 2>/dev/null | awk '{print $1}' | xargs)"
fi
ctr=$(node_ctr "$dir")
deadline=$((SECONDS + 30))
until in_node "$dir" timeout 3 "$ctr" -a "$CC_NODE_SOCKET" version >/dev/null 2>&1; do
  if [ "$SECONDS" -ge "$deadline" ]; then
    in_node "$dir" journalctl -u containerd --no-pager -n 20 >&2 || true
    die "containerd in the node did not answer within 30 s"
  fi
  sleep 0.2
done
in_node "$dir" "$ctr" -a "$CC_NODE_SOCKET" -n k8s.io images import /var/tmp/cri-conform-images.tar >/dev/null
present=$(in_node "$dir" "$ctr" -a "$CC_NODE_SOCKET" -n k8s.io images ls -q)
for ref in "$test_image" "$pause_image"; do
  grep -qxF "$ref" <<<"$present" || die "image $ref is missing in the node after the import"
done
say "systemd node $name ready: containerd $(in_node "$dir" "$ctr" -a "$CC_NODE_SOCKET" version | awk '/Version:/ {print $2; exit}') on the systemd cgroup driver; enter it with scripts/systemd-node-exec.sh --dir $dir -- COMMAND"
write_env
