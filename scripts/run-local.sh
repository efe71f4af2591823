#!/usr/bin/env bash
# Runs cri-conform against a throwaway containerd that this script provisions and removes again.
# Usage (as root; others prefix sudo): bash scripts/run-local.sh [--version 1.7|2.1] [--keep] [-- <run flags>]
# Default flags: --level all. Reports land in reports/run-<UTC time>-containerd-<version>/ (junit.xml,
# results.json, report.html; --report-dir overrides); reports/latest points at the last run's.
# Exit code: the run's (0 pass, 1 fail, 2 setup). It installs what a run needs (scripts/install-deps.sh);
# scripts/remove-local.sh removes everything the set-up added to the machine.
# --keep leaves the containerd up and prints its env file, for CRI_CONFORM_E2E_ENV_FILES=<file> npm test.
set -Eeuo pipefail
cd "$(dirname "$0")/.."

# Every failure of the set-up ends with one line naming the step and what to do.
step="reading the arguments"
advice="see the message above"
step_reports=false
on_error() { # status
  [ "$BASHPID" = "$$" ] || return 0
  # Our own scripts exit 2 after their own line; one line per failure is enough.
  if [ "$1" = 2 ] && [ "$step_reports" = true ]; then exit 2; fi
  printf 'run-local.sh: %s failed (exit %s): %s\n' "$step" "$1" "$advice" >&2
  exit 2
}
trap 'on_error $?' ERR

version=1.7
keep=false
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="${2:-}"; shift 2 || shift ;;
    --keep) keep=true; shift ;;
    -h|--help) sed -n '2,/^set -Eeuo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "run-local.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$version" in 1.7|2.1) ;; *) echo "run-local.sh: --version must be 1.7 or 2.1, not '$version'" >&2; exit 2 ;; esac
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
  step="npm ci"
  advice="check that the npm registry is reachable (npm's message is above), then run it again"
  echo "==> npm ci"
  npm ci --no-audit --no-fund >/dev/null
fi
step="building cri-conform (npx tsc -b)"
advice="the compiler's message is above; a clean clone builds, so check for local changes"
echo "==> building cri-conform"
npx tsc -b

step="provisioning a throwaway containerd $version (scripts/containerd-up.sh)"
advice="its message is above; scripts/remove-local.sh removes what the set-up added so far"
step_reports=true
echo "==> provisioning a throwaway containerd $version"
bash scripts/containerd-up.sh --version "$version" >/dev/null
step_reports=false
step="reading the containerd's environment file"
advice="run scripts/containerd-down.sh --version $version, then this again"
state_root="${CRI_CONFORM_STATE:-/tmp/cri-conform}"
env_file="$state_root/containerd-$version/env"
claims="${CRI_CONFORM_NET_CLAIMS:-/run/cri-conform/networks}"

# Each run keeps its reports in a folder of its own (reports/latest names the last one), unless
# --report-dir says where; the HTML report goes next to the JUnit.
report_dir=""
for ((i = 0; i < ${#extra[@]}; i++)); do
  case "${extra[$i]}" in
    --report-dir) report_dir="${extra[$((i + 1))]:-}" ;;
    --report-dir=*) report_dir="${extra[$i]#--report-dir=}" ;;
  esac
done
own_dir=()
if [ -z "$report_dir" ]; then
  report_dir="reports/run-$(date -u +%Y%m%dT%H%M%SZ)-containerd-$version"
  own_dir=(--report-dir "$report_dir")
fi

stop() {
  if [ "$keep" = true ]; then
    echo "==> containerd $version stays up; its environment is in $env_file"
    echo "    real-containerd tests: CRI_CONFORM_E2E_ENV_FILES=$env_file npm test"
    echo "    remove it: CRI_CONFORM_STATE=$state_root bash scripts/containerd-down.sh --version $version"
  else
    echo "==> removing the throwaway containerd $version"
    bash scripts/containerd-down.sh --version "$version" >/dev/null || true
    # Folders that only held this instance; another instance's files keep them (rmdir leaves non-empty ones).
    rmdir "$state_root" "$claims" "$(dirname "$claims")" 2>/dev/null || true
  fi
  if [ -d "$report_dir" ]; then
    echo "==> this run's reports: $report_dir/ (earlier runs keep theirs; scripts/remove-local.sh removes the machine set-up, not reports)"
  fi
}
trap stop EXIT
set -a
# shellcheck disable=SC1090
. "$env_file"
set +a

if [ ${#own_dir[@]} -gt 0 ]; then
  mkdir -p "$report_dir"
  ln -sfn "${report_dir#reports/}" reports/latest
fi
echo "==> cri-conform run --level all --html $report_dir/report.html ${own_dir[*]} ${extra[*]}"
status=0
node bin/cri-conform run --level all --html "$report_dir/report.html" "${own_dir[@]}" "${extra[@]}" || status=$?
exit "$status"
