#!/usr/bin/env bash
# Provisions and starts a throwaway containerd with NRI, a CNI bridge, the slow-runtime and slow-CNI
# injectors, and cri-conform's local images; prints the environment that points cri-conform at it.
# Usage: sudo scripts/containerd-up.sh [--version 1.7|2.1] [--dir DIR]
#   1.7: Debian trixie's containerd 1.7.24 (installed, pinned low); 2.1: forky's 2.1.9 (extracted only).
#   DIR defaults to /tmp/cri-conform/containerd-<version>; both versions can run side by side.
#   Running it again on a healthy instance only prints the environment. Stop: scripts/containerd-down.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
usage() { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; }
# shellcheck source=scripts/lib/containerd-common.sh
. "$here/lib/containerd-common.sh"
parse_common_args "$@"
[ "$(id -u)" = "0" ] || die "needs root (it starts containerd and configures a bridge): sudo $0"

bash "$here/install-deps.sh"
bridge=$(bridge_of "$version" "$dir")
subnet=$(subnet_of "$version" "$dir")
if [ "$version" = 2.1 ]; then bin="$CC_CONTAINERD21_DIR/usr/bin"; else bin=/usr/bin; fi

write_env() {
  cat >"$dir/env" <<ENV
CONTAINER_RUNTIME_ENDPOINT="unix://$dir/containerd.sock"
CRI_CONFORM_NRI_SOCKET="$dir/nri.sock"
CRI_CONFORM_NRI_REQUEST_TIMEOUT="2s"
CRI_CONFORM_TEST_IMAGE="localhost/cri-conform/busybox:1"
CRI_CONFORM_PAUSE_IMAGE="localhost/cri-conform/pause:1"
CRI_CONFORM_SLOW_RUNTIME_HANDLER="conform-slow"
CRI_CONFORM_SLOW_RUNTIME_DIR="$dir/slow-runtime"
CRI_CONFORM_SLOW_CNI_DIR="$dir/slow-cni"
CRI_CONFORM_RESTART_CMD="$here/containerd-restart.sh $dir"
CRI_CONFORM_CONTAINERD_DIR="$dir"
ENV
  sed 's/^/export /' "$dir/env"
}

if running_pid "$dir" >/dev/null && wait_answering "$dir" 2; then
  say "containerd $version in $dir is already running"
  write_env
  exit 0
fi

if [ -e "$dir" ]; then
  # A dead instance (killed with its session, a crashed run) leaves state a new one would restore: clear it.
  say "clearing the stale instance in $dir"
  bash "$here/containerd-down.sh" --version "$version" --dir "$dir" >/dev/null
fi
say "writing a throwaway containerd $version config in $dir"
mkdir -p "$dir"/{root,state,cni,cni-bin,cni-ipam,slow-runtime,slow-cni,runc}
: >"$dir/slow-runtime/created.log"
echo 0 >"$dir/slow-runtime/delay-ms"
echo 0 >"$dir/slow-cni/delay-ms"

# The slow runtime: a runc wrapper that logs the id of every container it is asked to create (a sandbox's
# id is its pause container's id) and sleeps for delay-ms first. Everything else goes straight to runc.
cat >"$dir/slow-runtime/runc-slow" <<WRAP
#!/bin/sh
control="$dir/slow-runtime"
sub=""
skip=0
for arg in "\$@"; do
  if [ \$skip = 1 ]; then skip=0; continue; fi
  case "\$arg" in
    --root|--log|--log-format|--criu|--rootless) skip=1 ;;
    --*=*|-*) ;;
    *) sub="\$arg"; break ;;
  esac
done
if [ "\$sub" = create ]; then
  for id in "\$@"; do :; done
  echo "\$(date +%s.%N) \$id" >>"\$control/created.log"
  ms=\$(cat "\$control/delay-ms" 2>/dev/null || echo 0)
  [ "\${ms:-0}" -gt 0 ] 2>/dev/null && sleep "\$(awk "BEGIN { print \$ms / 1000 }")"
fi
exec $(command -v runc) "\$@"
WRAP
chmod 0755 "$dir/slow-runtime/runc-slow"

# The slow CNI: the bridge plugin under another name, sleeping delay-ms on ADD.
for p in /usr/lib/cni/*; do ln -sf "$p" "$dir/cni-bin/$(basename "$p")"; done
cat >"$dir/cni-bin/conform-bridge" <<WRAP
#!/bin/sh
if [ "\$CNI_COMMAND" = ADD ]; then
  ms=\$(cat "$dir/slow-cni/delay-ms" 2>/dev/null || echo 0)
  [ "\${ms:-0}" -gt 0 ] 2>/dev/null && sleep "\$(awk "BEGIN { print \$ms / 1000 }")"
fi
exec /usr/lib/cni/bridge
WRAP
chmod 0755 "$dir/cni-bin/conform-bridge"
cat >"$dir/cni/10-cri-conform.conflist" <<CNI
{
  "cniVersion": "1.0.0",
  "name": "cri-conform-$version",
  "plugins": [
    { "type": "conform-bridge", "bridge": "$bridge", "isGateway": true, "ipMasq": false,
      "ipam": { "type": "host-local", "ranges": [[{ "subnet": "$subnet" }]], "dataDir": "$dir/cni-ipam" } },
    { "type": "loopback" }
  ]
}
CNI

runtimes() { # the section prefix of the CRI runtimes table
  local p=$1
  cat <<TOML
  [$p.containerd]
    default_runtime_name = "runc"
    [$p.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [$p.containerd.runtimes.runc.options]
        Root = "$dir/runc"
    [$p.containerd.runtimes.conform-slow]
      runtime_type = "io.containerd.runc.v2"
      [$p.containerd.runtimes.conform-slow.options]
        BinaryName = "$dir/slow-runtime/runc-slow"
        Root = "$dir/runc"
TOML
}
nri_section() {
  cat <<TOML
[plugins."io.containerd.nri.v1.nri"]
  disable = false
  disable_connections = false
  socket_path = "$dir/nri.sock"
  plugin_path = "$dir/nri-plugins"
  plugin_config_path = "$dir/nri-conf"
  plugin_request_timeout = "2s"
  plugin_registration_timeout = "5s"
TOML
}
common_head() {
  cat <<TOML
root = "$dir/root"
state = "$dir/state"
[grpc]
  address = "$dir/containerd.sock"
[ttrpc]
  address = "$dir/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$dir/opt"
TOML
}
if [ "$version" = 1.7 ]; then
  {
    echo 'version = 2'
    common_head
    cat <<TOML
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "localhost/cri-conform/pause:1"
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$dir/cni-bin"
    conf_dir = "$dir/cni"
TOML
    runtimes 'plugins."io.containerd.grpc.v1.cri"'
    nri_section
  } >"$dir/config.toml"
else
  {
    echo 'version = 3'
    common_head
    cat <<TOML
[plugins."io.containerd.cri.v1.images".pinned_images]
  sandbox = "localhost/cri-conform/pause:1"
[plugins."io.containerd.cri.v1.runtime"]
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.cri.v1.runtime".cni]
    bin_dirs = ["$dir/cni-bin"]
    conf_dir = "$dir/cni"
TOML
    runtimes 'plugins."io.containerd.cri.v1.runtime"'
    nri_section
  } >"$dir/config.toml"
fi
# Its own shim comes first on PATH (2.1's shim must go with 2.1's containerd).
cat >"$dir/start.sh" <<START
export PATH="$bin:\$PATH"
exec "$bin/containerd" --config "$dir/config.toml"
START

say "starting containerd $version ($("$bin/containerd" --version | awk '{print $3}'))"
start_containerd "$dir"

images="$CC_IMAGE_CACHE/cri-conform-images.tar"
if [ ! -s "$images" ]; then
  say "building the local images into $CC_IMAGE_CACHE"
  bash "$here/build-images.sh" "$CC_IMAGE_CACHE" >/dev/null
fi
ctr -a "$dir/containerd.sock" -n k8s.io images import "$images" >/dev/null
say "containerd $version ready at unix://$dir/containerd.sock (NRI $dir/nri.sock, bridge $bridge $subnet)"
write_env
