#!/usr/bin/env bash
# Restarts a throwaway containerd set up by containerd-up.sh (for [Restart] checks): SIGTERM, wait for it to
# exit, start it again with the same config, wait until it answers. Running pods' shims survive, as they do
# on a real node.
# Usage: scripts/containerd-restart.sh DIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=scripts/lib/containerd-common.sh
. "$here/lib/containerd-common.sh"
[ $# -eq 1 ] && [ -f "$1/start.sh" ] || die "usage: containerd-restart.sh DIR (a dir made by containerd-up.sh)"
stop_containerd "$1"
start_containerd "$1"
