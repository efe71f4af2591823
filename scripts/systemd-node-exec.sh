#!/usr/bin/env bash
# Runs a command inside a systemd node made by scripts/systemd-node-up.sh as a process of the node: a
# transient service of its systemd (systemd-run), so it lives in the node's namespaces and cgroups like a
# command an operator runs there, and what it starts (a private instance's daemon) stays in the node.
#
# Usage: sudo scripts/systemd-node-exec.sh [--version 1.7|2.1] [--dir DIR] -- COMMAND [ARG...]
#   Without --dir or --version: the node whose env file this environment holds (CRI_CONFORM_SYSTEMD_NODE_DIR),
#   else the default dir of --version 1.7.
#   e.g. eval "$(sed 's/^/export /' /tmp/cri-conform/systemd-node-1.7/env)"
#        sudo -E scripts/systemd-node-exec.sh -- node "$PWD/bin/cri-conform" doctor
#   The checkout that brought the node up is bound in at its own path, and is the working directory.
#   Passed on from this environment: CONTAINER_RUNTIME_ENDPOINT, IMAGE_SERVICE_ENDPOINT, CRI_CONFORM_*,
#   NO_COLOR, FORCE_COLOR and CI (the node's env file holds the first ones as the node sees them).
# Standard input and output are the command's; its exit status is this script's.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
# shellcheck source=lib/containerd-common.sh source-path=SCRIPTDIR
. "$here/lib/containerd-common.sh"
# shellcheck source=lib/systemd-node-common.sh source-path=SCRIPTDIR
. "$here/lib/systemd-node-common.sh"
args=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
[ $# -gt 1 ] || { usage >&2; exit 2; }
shift
# A sourced env file names its node, which may live under another CRI_CONFORM_STATE than this shell's.
if [ ${#args[@]} -eq 0 ] && [ -n "${CRI_CONFORM_SYSTEMD_NODE_DIR:-}" ]; then
  args=(--dir "$CRI_CONFORM_SYSTEMD_NODE_DIR")
fi
CC_DIR_KIND=systemd-node
parse_common_args "${args[@]}"
[ "$(id -u)" = 0 ] || die "needs root: sudo $0 $*"
is_node_dir "$dir" || die "no systemd node in $dir: scripts/systemd-node-up.sh brings one up"
setenv=()
while IFS= read -r var; do
  setenv+=(-E "$var=${!var}")
done < <(compgen -e | grep -E '^(CONTAINER_RUNTIME_ENDPOINT|IMAGE_SERVICE_ENDPOINT|CRI_CONFORM_[A-Z0-9_]+|NO_COLOR|FORCE_COLOR|CI)$' || true)
project=$(cd "$here/.." && pwd)
in_node "$dir" systemd-run --quiet --wait --pipe --collect --service-type=exec \
  --working-directory="$project" "${setenv[@]}" -- "$@"
