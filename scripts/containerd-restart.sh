#!/usr/bin/env bash
# Restarts a throwaway containerd made by scripts/containerd-up.sh (cri-conform's --restart-cmd for the
# [Restart] checks): SIGTERM to its containerd, wait for it to exit (15 s, then SIGKILL), start it again
# with the same config (<dir>/start.sh) and wait until it answers (20 s). Running pods' shims and
# containers survive, as on a real node.
#
# Usage: sudo scripts/containerd-restart.sh DIR
#   DIR: the instance's directory, as printed in CRI_CONFORM_CONTAINERD_DIR.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
# shellcheck source=lib/containerd-common.sh source-path=SCRIPTDIR
. "$here/lib/containerd-common.sh"
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
esac
if [ $# -ne 1 ] || [ -z "$1" ]; then usage >&2; exit 2; fi
dir=$(normalize_dir "$1")
[ "$(id -u)" = 0 ] || die "needs root: sudo $0 $*"
if ! is_instance_dir "$dir" || [ ! -x "$dir/start.sh" ]; then die "$dir is not a directory made by containerd-up.sh"; fi

started=$(date +%s%N)
stop_containerd "$dir"
start_containerd "$dir"
say "containerd in $dir restarted (pid $(cat "$dir/containerd.pid"), $((($(date +%s%N) - started) / 1000000)) ms)"
