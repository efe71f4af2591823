#!/usr/bin/env bash
# Runs cri-conform against a throwaway containerd that this script provisions and removes again.
# Usage (as root; others prefix sudo): bash scripts/run-local.sh [--version 1.7|2.1] [--keep] [-- <run flags>]
# Default flags: --level all. Reports land in ./reports (junit.xml, results.json, report.html).
# Exit code: the run's (0 pass, 1 fail, 2 setup).
# --keep leaves the containerd up and prints its env file, for CRI_CONFORM_E2E_ENV_FILES=<file> npm test.
set -euo pipefail
cd "$(dirname "$0")/.."

version=1.7
keep=false
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="$2"; shift 2 ;;
    --keep) keep=true; shift ;;
    -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "run-local.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$(id -u)" != "0" ]; then
  echo "run-local.sh: needs root (it installs and starts a containerd): sudo bash $0 $*" >&2
  exit 2
fi
# Debian 12 ships Node 18; cri-conform needs what package.json's engines say.
node_hint="install Node 20.19 or later (Debian 12 ships 18): see README \"Set up\""
if ! command -v node >/dev/null 2>&1; then
  echo "run-local.sh: node is not installed; $node_hint" >&2
  exit 2
fi
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'; then
  echo "run-local.sh: node $(node --version) is too old; $node_hint" >&2
  exit 2
fi

if [ ! -d node_modules ]; then
  echo "==> npm ci"
  npm ci --no-audit --no-fund >/dev/null
fi
echo "==> building cri-conform"
npx tsc -b

echo "==> provisioning a throwaway containerd $version"
bash scripts/containerd-up.sh --version "$version" >/dev/null
state_root="${CRI_CONFORM_STATE:-/tmp/cri-conform}"
env_file="$state_root/containerd-$version/env"
claims="${CRI_CONFORM_NET_CLAIMS:-/run/cri-conform/networks}"
stop() {
  if [ "$keep" = true ]; then
    echo "==> containerd $version stays up; its environment is in $env_file"
    echo "    real-containerd tests: CRI_CONFORM_E2E_ENV_FILES=$env_file npm test"
    echo "    remove it: CRI_CONFORM_STATE=$state_root bash scripts/containerd-down.sh --version $version"
    return
  fi
  echo "==> removing the throwaway containerd $version"
  bash scripts/containerd-down.sh --version "$version" >/dev/null || true
  # Folders that only held this instance; another instance's files keep them (rmdir leaves non-empty ones).
  rmdir "$state_root" "$claims" "$(dirname "$claims")" 2>/dev/null || true
}
trap stop EXIT
set -a
# shellcheck disable=SC1090
. "$env_file"
set +a

# The HTML report goes next to the JUnit, wherever --report-dir puts that.
report_dir=reports
for ((i = 0; i < ${#extra[@]}; i++)); do
  case "${extra[$i]}" in
    --report-dir) report_dir="${extra[$((i + 1))]:-reports}" ;;
    --report-dir=*) report_dir="${extra[$i]#--report-dir=}" ;;
  esac
done
echo "==> cri-conform run --level all --html $report_dir/report.html ${extra[*]}"
status=0
node bin/cri-conform run --level all --html "$report_dir/report.html" "${extra[@]}" || status=$?
exit "$status"
