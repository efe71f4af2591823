# shellcheck shell=bash
# Sourced by containerd-up.sh and systemd-node-up.sh: what a containerd for cri-conform is configured
# with, written once for both, so the throwaway containerd and the systemd node differ only in their
# paths and cgroup driver: NRI on (plugin request timeout 2s, registration 5s), restrict_oom_score_adj
# (these machines lack CAP_SYS_RESOURCE), the local pause image, a CNI bridge through the slow CNI wrapper,
# and the "conform-slow" runtime handler (the runc wrapper), next to the default runc handler.

# install_template TEMPLATE DESTINATION PLACEHOLDER VALUE: the template with @PLACEHOLDER@ filled in,
# executable, written atomically.
install_template() {
  sed "s|@$3@|$4|" "$1" >"$2.tmp"
  chmod 0755 "$2.tmp"
  mv -f "$2.tmp" "$2"
}

# cni_conflist NAME BRIDGE SUBNET IPAM_DIR: the network every pod joins; its bridge entry is the slow CNI
# wrapper (conform-bridge), with host-local IPAM whose state stays in IPAM_DIR. No loopback entry:
# containerd brings each pod's lo up with a network of its own (cni-loopback), so one here would run the
# loopback plugin twice on every ADD and DEL.
cni_conflist() {
  cat <<CNI
{
  "cniVersion": "1.0.0",
  "name": "$1",
  "plugins": [
    {
      "type": "conform-bridge",
      "bridge": "$2",
      "isGateway": true,
      "ipMasq": false,
      "ipam": {
        "type": "host-local",
        "ranges": [[{ "subnet": "$3" }]],
        "routes": [{ "dst": "0.0.0.0/0" }],
        "dataDir": "$4"
      }
    }
  ]
}
CNI
}

# containerd_config_toml: prints the config.toml, from these variables of the caller:
#   cfg_version       1.7 (config version 2) or 2.1 (config version 3)
#   cfg_root, cfg_state, cfg_socket, cfg_opt   containerd's own paths ([grpc] address, ttrpc beside it)
#   cfg_pause_image   the sandbox image
#   cfg_cni_bin, cfg_cni_conf                  CNI plugin dir (with conform-bridge) and conflist dir
#   cfg_runc, cfg_slow_runc                    the real runc and the conform-slow handler's wrapper
#   cfg_runc_root     runc's state root for both handlers; empty: runc's default
#   cfg_crun, cfg_slow_crun, cfg_crun_root     when cfg_crun is set: the handlers "crun" and
#                     "conform-slow-crun" (the slow wrapper around crun), with crun's state root
#   cfg_systemd_cgroup true (the systemd cgroup driver) or false (cgroupfs), for every handler
#   cfg_nri_socket, cfg_nri_plugins, cfg_nri_conf
# CRI runtime settings live in plugin io.containerd.grpc.v1.cri in 1.7 and in io.containerd.cri.v1.runtime
# in 2.x; the sandbox image moved to io.containerd.cri.v1.images' pinned_images, and the CNI bin dir
# became the list bin_dirs.
containerd_config_toml() {
  local cri config_version cni_bin options crun_options
  if [ "$cfg_version" = 1.7 ]; then
    cri='plugins."io.containerd.grpc.v1.cri"'
    config_version=2
    cni_bin="bin_dir = \"$cfg_cni_bin\""
  else
    cri='plugins."io.containerd.cri.v1.runtime"'
    config_version=3
    cni_bin="bin_dirs = [\"$cfg_cni_bin\"]"
  fi
  options="SystemdCgroup = $cfg_systemd_cgroup"
  crun_options="$options"$'\n'"        Root = \"${cfg_crun_root:-}\""
  [ -z "$cfg_runc_root" ] || options+=$'\n'"        Root = \"$cfg_runc_root\""
  cat <<TOML
# Written by cri-conform's scripts for a throwaway containerd $cfg_version; removed with it.
version = $config_version
root = "$cfg_root"
state = "$cfg_state"

[grpc]
  address = "$cfg_socket"

[ttrpc]
  address = "$cfg_socket.ttrpc"

[plugins."io.containerd.internal.v1.opt"]
  path = "$cfg_opt"

TOML
  if [ "$cfg_version" = 1.7 ]; then
    printf '[%s]\n  sandbox_image = "%s"\n' "$cri" "$cfg_pause_image"
  else
    printf '[plugins."io.containerd.cri.v1.images".pinned_images]\n  sandbox = "%s"\n\n[%s]\n' \
      "$cfg_pause_image" "$cri"
  fi
  cat <<TOML
  # Required here: the machine lacks CAP_SYS_RESOURCE, and a negative oom_score_adj makes runc fail.
  restrict_oom_score_adj = true
  enable_selinux = false

  [$cri.cni]
    $cni_bin
    conf_dir = "$cfg_cni_conf"
    max_conf_num = 1

  [$cri.containerd]
    default_runtime_name = "runc"

    [$cri.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [$cri.containerd.runtimes.runc.options]
        BinaryName = "$cfg_runc"
        $options

    [$cri.containerd.runtimes.conform-slow]
      runtime_type = "io.containerd.runc.v2"
      [$cri.containerd.runtimes.conform-slow.options]
        BinaryName = "$cfg_slow_runc"
        $options
TOML
  if [ -n "${cfg_crun:-}" ]; then
    cat <<TOML

    [$cri.containerd.runtimes.crun]
      runtime_type = "io.containerd.runc.v2"
      [$cri.containerd.runtimes.crun.options]
        BinaryName = "$cfg_crun"
        $crun_options

    [$cri.containerd.runtimes.conform-slow-crun]
      runtime_type = "io.containerd.runc.v2"
      [$cri.containerd.runtimes.conform-slow-crun.options]
        BinaryName = "$cfg_slow_crun"
        $crun_options
TOML
  fi
  cat <<TOML

[plugins."io.containerd.nri.v1.nri"]
  disable = false
  disable_connections = false
  socket_path = "$cfg_nri_socket"
  plugin_path = "$cfg_nri_plugins"
  plugin_config_path = "$cfg_nri_conf"
  plugin_request_timeout = "2s"
  plugin_registration_timeout = "5s"
TOML
}

# image_archive SCRIPTS_DIR CACHE: prints the path of the project's images archive (build-images.sh),
# built once per content of the builder, the pause script and busybox into CACHE/<key>/.
image_archive() {
  local here=$1 cache=$2 key archive
  key=$(cat "$here/build-images.sh" "$here/lib/oci-layout.sh" "$here/../fixtures/images/pause.sh" /bin/busybox |
    sha256sum | cut -c1-16)
  archive="$cache/$key/cri-conform-images.tar"
  if [ ! -s "$archive" ]; then
    say "building the images into $cache/$key"
    bash "$here/build-images.sh" "$cache/$key" >/dev/null
  fi
  printf '%s\n' "$archive"
}
