#!/usr/bin/env bash
# Provisions and starts a throwaway containerd for cri-conform, as root, and prints its environment.
#
# Usage: sudo scripts/containerd-up.sh [--version 1.7|2.1] [--dir DIR] [--bin BIN] [--crun]
#        eval "$(sudo scripts/containerd-up.sh --version 2.1)"
#
#   --version  1.7: Debian trixie's containerd 1.7 (installed by scripts/install-deps.sh, pinned low);
#              2.1: Debian forky's containerd 2.1, unpacked (not installed) by install-deps.sh. Default 1.7.
#              With --bin it says only which config the build takes: 1.7 (version 2) or 2.1 (version 3,
#              any 2.x).
#   --dir      the instance's directory (default /tmp/cri-conform/containerd-<version>; the parent comes
#              from CRI_CONFORM_STATE). Everything of the instance lives or is recorded there.
#   --bin      a directory with a containerd, containerd-shim-runc-v2 and ctr of your own (a release you
#              built from its tag, a branch under test) to run instead of the packaged one; first on the
#              daemon's PATH, so that it runs its own shim.
#   --crun     also the runtime handlers "crun" (crun instead of runc, root <dir>/crun) and
#              "conform-slow-crun" (the slow handler's wrapper around crun, same control dir): run
#              cri-conform with --runtime-handler crun --slow-runtime-handler conform-slow-crun. The crun
#              is CRI_CONFORM_CRUN, else the one on PATH.
#
# The instance has: its own sockets (<dir>/containerd.sock, <dir>/nri.sock), root and state; NRI enabled
# (plugin_request_timeout 2s, plugin_registration_timeout 5s); restrict_oom_score_adj; a CNI bridge
# cc-brN on a private 10.213.N.0/24 (N per instance) with host-local IPAM state in <dir>/cni-ipam;
# an extra runtime handler "conform-slow" (a runc wrapper: on create it logs the id to
# <dir>/slow-runtime/created.log and sleeps <dir>/slow-runtime/delay-ms ms, or a check's own
# pods/<key>/delay-ms there); a slow CNI (the bridge entry's plugin sleeps <dir>/slow-cni/delay-ms ms on
# ADD, with the same per-check claims); the images localhost/cri-conform/busybox:1 and
# localhost/cri-conform/pause:1 (scripts/build-images.sh, built once into CRI_CONFORM_IMAGE_CACHE,
# default /var/cache/cri-conform) imported into namespace k8s.io. 1.7 and 2.1 run side by side.
#
# It writes <dir>/env (KEY="value" lines) and prints the same lines as shell exports:
#   CONTAINER_RUNTIME_ENDPOINT, CRI_CONFORM_NRI_SOCKET, CRI_CONFORM_NRI_REQUEST_TIMEOUT,
#   CRI_CONFORM_TEST_IMAGE, CRI_CONFORM_PAUSE_IMAGE, CRI_CONFORM_SLOW_RUNTIME_HANDLER,
#   CRI_CONFORM_SLOW_RUNTIME_DIR, CRI_CONFORM_SLOW_CNI_DIR, CRI_CONFORM_RESTART_CMD, CRI_CONFORM_CONTAINERD_DIR
# and with --crun CRI_CONFORM_CRUN_HANDLER and CRI_CONFORM_CRUN_SLOW_HANDLER (names for the flags above).
# Progress goes to stderr. On an instance that already runs and answers it only prints the environment;
# a dead instance's leftovers are removed first. Log: <dir>/containerd.log. Restart:
# scripts/containerd-restart.sh DIR. Stop and remove: scripts/containerd-down.sh (same arguments).
set -Eeuo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
usage() { sed -n '2,/^set -Eeuo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
# shellcheck source=lib/containerd-common.sh source-path=SCRIPTDIR
. "$here/lib/containerd-common.sh"
# shellcheck source=lib/containerd-config.sh source-path=SCRIPTDIR
. "$here/lib/containerd-config.sh"
# shellcheck source=lib/footprint.sh source-path=SCRIPTDIR
. "$here/lib/footprint.sh"
trap_errors containerd-down.sh
parse_common_args "$@"
[ "$(id -u)" = 0 ] || die "needs root (it starts containerd and creates a bridge): sudo $0 $*"

own_bin=$bin
bin=$(containerd_bin_dir "$version" "$own_bin")
label=$version
[ -z "$own_bin" ] || label="$("$bin/containerd" --version | awk '{print $3}') ($bin)"
test_image=localhost/cri-conform/busybox:1
pause_image=localhost/cri-conform/pause:1

deps_ready() {
  local f
  for f in "$bin/containerd" "$bin/containerd-shim-runc-v2" "$bin/ctr" /usr/lib/cni/bridge \
    /usr/lib/cni/host-local /usr/lib/cni/loopback /bin/busybox; do
    [ -x "$f" ] || return 1
  done
  command -v runc >/dev/null && command -v ip >/dev/null || return 1
  # A build of one's own is taken as it is; it may print its version with a "v" (upstream's builds do).
  [ -z "$own_bin" ] || return 0
  if [ "$version" = 1.7 ] && [[ "$("$bin/containerd" --version)" != *" 1.7."* ]]; then return 1; fi
  if [ "$version" = 2.1 ] && [[ "$("$bin/containerd" --version)" != *" 2."* ]]; then return 1; fi
}
if [ -n "$own_bin" ] && { [ ! -x "$bin/containerd-shim-runc-v2" ] || [ ! -x "$bin/ctr" ]; }; then
  die "--bin $bin needs containerd-shim-runc-v2 and ctr beside containerd"
fi
crun_bin=${CRI_CONFORM_CRUN:-$(command -v crun || true)}
if [ "$crun" = true ] && [ ! -x "$crun_bin" ]; then
  die "--crun needs crun on PATH or CRI_CONFORM_CRUN (one that takes runtime-spec 1.1 configs: Debian 12's 1.8.1 refuses them)"
fi
if ! deps_ready; then
  say "installing dependencies (scripts/install-deps.sh)"
  bash "$here/install-deps.sh"
  deps_ready || die "dependencies are still missing after scripts/install-deps.sh"
fi

write_env() {
  cat >"$dir/env.tmp" <<ENV
CONTAINER_RUNTIME_ENDPOINT="unix://$dir/containerd.sock"
CRI_CONFORM_NRI_SOCKET="$dir/nri.sock"
CRI_CONFORM_NRI_REQUEST_TIMEOUT="2s"
CRI_CONFORM_TEST_IMAGE="$test_image"
CRI_CONFORM_PAUSE_IMAGE="$pause_image"
CRI_CONFORM_SLOW_RUNTIME_HANDLER="conform-slow"
CRI_CONFORM_SLOW_RUNTIME_DIR="$dir/slow-runtime"
CRI_CONFORM_SLOW_CNI_DIR="$dir/slow-cni"
CRI_CONFORM_RESTART_CMD="$here/containerd-restart.sh $dir"
CRI_CONFORM_CONTAINERD_DIR="$dir"
ENV
  if grep -qx 'crun=true' "$dir/$CC_MARKER"; then
    printf 'CRI_CONFORM_CRUN_HANDLER="crun"\nCRI_CONFORM_CRUN_SLOW_HANDLER="conform-slow-crun"\n' >>"$dir/env.tmp"
  fi
  mv -f "$dir/env.tmp" "$dir/env"
  sed 's/^/export /' "$dir/env"
}

# --- already up? ---------------------------------------------------------------------------------------
if [ -d "$dir" ] && running_pid "$dir" >/dev/null; then
  wait_answering "$dir" 5 || die "containerd of $dir runs (pid $(running_pid "$dir")) but does not answer: scripts/containerd-down.sh --dir $dir, then try again"
  say "containerd $label in $dir is already running (pid $(running_pid "$dir"))"
  write_env
  exit 0
fi

# --- a fresh directory ---------------------------------------------------------------------------------
if [ -e "$dir" ]; then
  if is_instance_dir "$dir"; then
    # A dead instance (killed with its session, a crashed run) leaves state a new one would restore.
    say "removing the leftovers of a dead instance in $dir"
    bash "$here/containerd-down.sh" --version "$version" --dir "$dir" >/dev/null
  elif [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
    die "$dir exists and was not made by containerd-up.sh: pick another --dir"
  fi
fi
say "writing a throwaway containerd $label in $dir"
mkdir -p "$dir"
printf 'version=%s\ncreated=%s\nbin=%s\ncrun=%s\ncrun_bin=%s\n' "$version" "$(date -u +%FT%TZ)" "$own_bin" "$crun" \
  "$crun_bin" >"$dir/$CC_MARKER"
choose_network "$version" "$dir"
read_network "$dir"
mkdir -p "$dir"/{root,state,opt,runc,crun,cni,cni-bin,cni-ipam,slow-runtime,slow-cni,nri-plugins,nri-conf}
: >"$dir/slow-runtime/created.log"
echo 0 >"$dir/slow-runtime/delay-ms"
echo 0 >"$dir/slow-cni/delay-ms"

real_runc=$(command -v runc)
# The slow runtime handler's runc (scripts/lib/runc-slow.sh).
install_template "$here/lib/runc-slow.sh" "$dir/slow-runtime/runc-slow" REAL_RUNC "$real_runc"
# The same wrapper around crun: crun takes runc's command line, and both log into one control dir.
if [ "$crun" = true ]; then
  install_template "$here/lib/runc-slow.sh" "$dir/slow-runtime/crun-slow" REAL_RUNC "$crun_bin"
fi
# The CNI bin dir: every installed plugin, plus the slow bridge wrapper the conflist names.
for plugin in /usr/lib/cni/*; do
  [ -x "$plugin" ] && ln -sfn "$plugin" "$dir/cni-bin/${plugin##*/}"
done
install_template "$here/lib/cni-slow.sh" "$dir/cni-bin/conform-bridge" REAL_PLUGIN /usr/lib/cni/bridge

cni_conflist "$net_name" "$bridge" "$subnet" "$dir/cni-ipam" >"$dir/cni/10-cri-conform.conflist"

# shellcheck disable=SC2034 # read by containerd_config_toml
{
  cfg_version=$version cfg_root="$dir/root" cfg_state="$dir/state" cfg_socket="$dir/containerd.sock"
  cfg_opt="$dir/opt" cfg_pause_image=$pause_image cfg_cni_bin="$dir/cni-bin" cfg_cni_conf="$dir/cni"
  cfg_runc=$real_runc cfg_slow_runc="$dir/slow-runtime/runc-slow" cfg_runc_root="$dir/runc"
  cfg_crun='' cfg_slow_crun='' cfg_crun_root="$dir/crun"
  cfg_systemd_cgroup=false cfg_nri_socket="$dir/nri.sock" cfg_nri_plugins="$dir/nri-plugins"
  cfg_nri_conf="$dir/nri-conf"
}
if [ "$crun" = true ]; then cfg_crun=$crun_bin cfg_slow_crun="$dir/slow-runtime/crun-slow"; fi
containerd_config_toml >"$dir/config.toml"

write_start_script "$dir" "$bin"

# `ip netns` turns /run/netns into a shared bind mount of itself the first time it runs. Done after
# containerd made namespaces there (the reference runtime's root mode runs `ip netns add`), that bind hides
# them, and containerd can no longer remove them ("failed to remove network namespace"). Make it so first.
mkdir -p /run/netns
if ! mountpoint -q /run/netns; then
  mount --bind /run/netns /run/netns && mount --make-shared /run/netns
  mkdir -p "${CC_NETNS_MOUNT_RECORD%/*}" && : >"$CC_NETNS_MOUNT_RECORD"
fi
say "starting containerd $("$bin/containerd" --version | awk '{print $3}') (bridge $bridge, $subnet)"
start_containerd "$dir"

# --- images ----------------------------------------------------------------------------------------------
images=$(image_archive "$here" "$CC_IMAGE_CACHE")
ctr=$(instance_ctr "$dir")
"$ctr" -a "$dir/containerd.sock" -n k8s.io images import "$images" >/dev/null
present=$("$ctr" -a "$dir/containerd.sock" -n k8s.io images ls -q)
for ref in "$test_image" "$pause_image"; do
  grep -qxF "$ref" <<<"$present" || die "image $ref is missing after the import of $images"
done

say "containerd $label ready: unix://$dir/containerd.sock, NRI $dir/nri.sock (pid $(cat "$dir/containerd.pid"))"
write_env
