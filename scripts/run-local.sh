#!/usr/bin/env bash
# Runs cri-conform against a throwaway containerd that this script provisions and removes again.
# Usage: sudo scripts/run-local.sh [--version 1.7|2.1] [--keep] [-- <extra `cri-conform run` flags>]
# Default flags: --level all. Reports land in ./reports (junit.xml, results.json, report.html).
# Exit code: the run's (0 pass, 1 fail, 2 setup).
set -euo pipefail
cd "$(dirname "$0")/.."

version=1.7
keep=false
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="$2"; shift 2 ;;
    --keep) keep=true; shift ;;
    -h|--help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "run-local.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$(id -u)" != "0" ]; then
  echo "run-local.sh: needs root (it installs and starts a containerd): sudo $0" >&2
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
env_file="${CRI_CONFORM_STATE:-/tmp/cri-conform}/containerd-$version/env"
stop() {
  if [ "$keep" = false ]; then
    echo "==> removing the throwaway containerd $version"
    bash scripts/containerd-down.sh --version "$version" >/dev/null || true
  fi
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
