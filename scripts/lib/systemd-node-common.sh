# shellcheck shell=bash
# Shared by systemd-node-up.sh, systemd-node-down.sh and systemd-node-exec.sh (sourced, after
# containerd-common.sh). One node per directory: its overlay root, containerd state, cgroups, nspawn
# process and environment are all in it or recorded in it, so nodes never share anything with each other
# or with the host's throwaway containerds.

CC_NODE_MARKER=.cri-conform-systemd-node
# Inside the node: the injectors' wrappers and control dirs, as containerd-up.sh keeps them in its dir.
CC_NODE_CTL=/opt/cri-conform-node
CC_NODE_SOCKET=/run/containerd/containerd.sock
CC_NODE_NRI_SOCKET=/var/run/nri/nri.sock

is_node_dir() { [ -f "$1/$CC_NODE_MARKER" ]; }

# node_name DIR: the machine name (and hostname) of the node of DIR.
node_name() { printf 'cc-node-%s\n' "$(printf '%s' "$1" | cksum | cut -d' ' -f1)"; }

# node_nspawn_pid DIR: the pid of the systemd-nspawn running DIR's node, verified by its command line.
node_nspawn_pid() {
  local pid
  pid=$(cat "$1/nspawn.pid" 2>/dev/null) || return 1
  [ -n "$pid" ] && cmdline_has "$pid" "--machine=$(node_name "$1")" && alive "$pid" && echo "$pid"
}

# node_leader DIR: the node's PID 1 as the host sees it (nspawn's only child), never the host's own.
node_leader() {
  local nspawn leader
  nspawn=$(node_nspawn_pid "$1") || return 1
  leader=$(cat "/proc/$nspawn/task/$nspawn/children" 2>/dev/null) || return 1
  leader=${leader%% *}
  [ -n "$leader" ] && [ "$leader" != 1 ] && alive "$leader" && echo "$leader"
}

# in_node DIR COMMAND...: runs COMMAND in the node's namespaces (mount, UTS, IPC, network, pid, cgroup).
in_node() {
  local leader
  leader=$(node_leader "$1") || { printf 'the node of %s does not run\n' "$1" >&2; return 1; }
  shift
  nsenter -t "$leader" -m -u -i -n -p -C -- "$@"
}

# node_ctr DIR: the ctr inside the node that matches its containerd.
node_ctr() {
  if [ "$(sed -n 's/^version=//p' "$1/$CC_NODE_MARKER" 2>/dev/null)" = 2.1 ]; then
    echo "$CC_CONTAINERD21_DIR/usr/bin/ctr"
  else
    echo /usr/bin/ctr
  fi
}
