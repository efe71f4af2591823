#!/usr/bin/env bash
# Installs what scripts/containerd-up.sh needs (and with --with-test-deps what the tests need), as root,
# idempotently.
#
# Usage: sudo scripts/install-deps.sh [--with-test-deps] [-h|--help]
#
#   - adds Debian trixie as an apt source pinned at 100, on the mirror the machine's own sources name
#     (/etc/apt/sources.list or /etc/apt/sources.list.d/*.sources), so nothing upgrades by itself;
#   - installs containerd 1.7 from trixie, runc, CNI plugins, busybox-static, iproute2 and procps, leaving
#     every other package as it is;
#   - --with-test-deps (.ci/run) adds what only the tests use: chromium (the HTML report's browser test),
#     xmllint, the upstream CRI and NRI .proto files (under /usr/share/gocode/src), and debootstrap and
#     systemd-container for the systemd node (scripts/systemd-node-up.sh); systemd-container is pinned to
#     the installed systemd's version, or apt would upgrade the machine's systemd with it;
#   - downloads containerd 2.1 from forky through a private, temporary apt source list (the machine's
#     sources never name forky) and unpacks it (dpkg -x) without installing it: installing from forky
#     would pull a newer libc.
#   .deb files are downloaded into a temporary directory that is removed at the end; what the install adds
#   is recorded under /var/lib/cri-conform for scripts/remove-local.sh, which removes it all again.
#   Steps already done are skipped; apt-get update runs only when a source changed or its lists are missing.
#
# Environment:
#   CRI_CONFORM_CONTAINERD21_DIR   where containerd 2.1 is unpacked (default /opt/cri-conform/containerd-2.1;
#                                  binaries in <dir>/usr/bin)
set -Eeuo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
usage() { sed -n '2,/^set -Eeuo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
with_test_deps=false
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --with-test-deps) with_test_deps=true ;;
  '') ;;
  *) usage >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "install-deps.sh: needs root: sudo $0 $*" >&2; exit 2; }
# shellcheck source=lib/apt-mirror.sh source-path=SCRIPTDIR
. "$here/lib/apt-mirror.sh"
# shellcheck source=lib/footprint.sh source-path=SCRIPTDIR
. "$here/lib/footprint.sh"

export DEBIAN_FRONTEND=noninteractive
cd21="${CRI_CONFORM_CONTAINERD21_DIR:-/opt/cri-conform/containerd-2.1}"
say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'install-deps.sh: %s\n' "$*" >&2; exit 2; }

# Every failure ends with one line naming the step and what to do; the failing tool's own output is above.
step="starting"
advice="run it again once the cause above is fixed"
on_error() { # status
  # Subshells inherit the trap (set -E); only the script itself reports, a subshell goes on as set -e says.
  [ "$BASHPID" = "$$" ] || return 0
  printf 'install-deps.sh: %s failed (exit %s): %s; scripts/remove-local.sh undoes a partial install\n' \
    "$step" "$1" "$advice" >&2
  exit 2
}
trap 'on_error $?' ERR

# .deb files and forky's lists go here, never into apt's own cache.
work=$(mktemp -d /var/tmp/cri-conform-apt.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/archives/partial" "$work/lists/partial" "$work/empty"
# apt downloads as its sandbox user _apt, which must be able to write there.
chown -R _apt "$work" 2>/dev/null || true

# --- apt sources -------------------------------------------------------------------------------------
step="reading this machine's Debian mirror"
mirror=$(debian_mirror /etc/apt) || exit 2

sources_changed=false
ensure_file() { # path content: writes it when it differs, and records it when it did not exist
  if [ "$(cat "$1" 2>/dev/null)" != "$2" ]; then
    [ -e "$1" ] || record_line created-files "$1"
    printf '%s\n' "$2" >"$1.tmp.$$"
    mv -f "$1.tmp.$$" "$1"
    sources_changed=true
  fi
}
step="adding the trixie apt source"
ensure_file /etc/apt/sources.list.d/trixie.sources "Types: deb
URIs: $mirror
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
ensure_file /etc/apt/preferences.d/trixie "Package: *
Pin: release n=trixie
Pin-Priority: 100"

lists_present() {
  local suite
  for suite in bookworm trixie; do
    compgen -G "/var/lib/apt/lists/*_dists_${suite}_main_binary-*_Packages*" >/dev/null || return 1
  done
}
if [ "$sources_changed" = true ] || ! lists_present; then
  step="apt-get update"
  advice="check that the mirror $mirror is reachable, then run it again"
  say "apt-get update (trixie pinned at 100; mirror $mirror)"
  apt-get update -qq
fi

# --- packages ----------------------------------------------------------------------------------------
installed_version() { dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null | awk '$3 == "installed" { print $4 }'; }
# name|apt argument|test that the installed package is the one we need
wanted=(
  "containerd|containerd/trixie|containerd_is_17"
  "runc|runc|"
  "containernetworking-plugins|containernetworking-plugins|"
  "busybox-static|busybox-static|"
  "iproute2|iproute2|"
  "procps|procps|"
)
if [ "$with_test_deps" = true ]; then
  wanted+=(
    "libxml2-utils|libxml2-utils|"
    "chromium|chromium|"
    # NRI 0.6.1 needs ttrpc-dev > 1.2, newer than bookworm's: "/trixie" on the package makes apt take that
    # dependency from trixie too (checked with apt-get -s on a status file without these packages).
    "golang-github-containerd-nri-dev|golang-github-containerd-nri-dev/trixie|"
    "golang-github-kubernetes-cri-api-dev|golang-github-kubernetes-cri-api-dev/trixie|"
    "debootstrap|debootstrap|"
  )
  # systemd-container depends on systemd of its own version exactly: asked for unpinned, apt takes the
  # newest and upgrades the machine's systemd with it. A machine without systemd gets the candidate.
  systemd_version=$(installed_version systemd)
  wanted+=("systemd-container|systemd-container${systemd_version:+=$systemd_version}|systemd_container_matches")
fi
systemd_container_matches() { [ "$(installed_version systemd-container)" = "$(installed_version systemd)" ]; }
containerd_is_17() { case "$(installed_version containerd)" in 1.7.*) return 0 ;; *) return 1 ;; esac; }

install_args=()
for entry in "${wanted[@]}"; do
  IFS='|' read -r name arg check <<<"$entry"
  if [ -z "$(installed_version "$name")" ] || { [ -n "$check" ] && ! "$check"; }; then
    install_args+=("$arg")
  fi
done
if [ ${#install_args[@]} -gt 0 ]; then
  step="apt-get install ${install_args[*]}"
  advice="see apt's message above (apt-get -f install repairs an interrupted install), then run it again"
  say "apt-get install ${install_args[*]}"
  before=$(installed_versions)
  # Only the named packages (and what they need) change; --no-install-recommends keeps trixie's
  # recommendations (and their upgrades) out. The record is written even when the install fails half-way.
  status=0
  apt-get install -y -qq --no-install-recommends -o "Dir::Cache::Archives=$work/archives/" \
    "${install_args[@]}" >/dev/null || status=$?
  record_package_changes "$before"
  [ "$status" = 0 ] || on_error "$status"
fi
if [ "$with_test_deps" = true ]; then
  for proto in /usr/share/gocode/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto \
    /usr/share/gocode/src/github.com/containerd/nri/pkg/api/api.proto \
    /usr/share/gocode/src/github.com/gogo/protobuf/gogoproto/gogo.proto; do
    [ -s "$proto" ] || die "$proto is missing after the install: apt-get install --reinstall golang-github-containerd-nri-dev/trixie golang-github-kubernetes-cri-api-dev/trixie"
  done
fi

# --- containerd 2.1, unpacked only --------------------------------------------------------------------
is_containerd_2() { [ -x "$1/usr/bin/containerd" ] && [[ "$("$1/usr/bin/containerd" --version)" == *" 2."* ]]; }
if ! is_containerd_2 "$cd21" || [ ! -x "$cd21/usr/bin/containerd-shim-runc-v2" ] || [ ! -x "$cd21/usr/bin/ctr" ]; then
  say "downloading containerd from forky and unpacking it into $cd21 (not installed)"
  step="downloading containerd from forky"
  advice="check that the mirror $mirror is reachable, then run it again"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror forky main" >"$work/forky.list"
  private_apt=(-o "Dir::Etc::SourceList=$work/forky.list" -o "Dir::Etc::SourceParts=$work/empty"
    -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=$work/empty"
    -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work" -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")
  apt-get "${private_apt[@]}" update -qq
  # A folder of its own: the install above leaves trixie's containerd .deb in $work/archives.
  mkdir -p "$work/forky" && chown _apt "$work/forky" 2>/dev/null || true
  (cd "$work/forky" && apt-get "${private_apt[@]}" download -qq containerd/forky)
  deb=$(compgen -G "$work/forky/containerd_*.deb" | head -n1) || true
  [ -n "$deb" ] || die "apt-get download containerd/forky produced no .deb: check that $mirror carries forky"
  step="unpacking containerd 2.1 into $cd21"
  advice="check that $(dirname "$cd21") is writable and has space, then run it again"
  [ -e "$(dirname "$cd21")" ] || record_line created-files "$(dirname "$cd21")"
  mkdir -p "$(dirname "$cd21")"
  rm -rf "$cd21.partial"
  dpkg -x "$deb" "$cd21.partial"
  is_containerd_2 "$cd21.partial" || die "the containerd in $deb is not 2.x: $("$cd21.partial/usr/bin/containerd" --version)"
  rm -rf "$cd21"
  mv "$cd21.partial" "$cd21"
fi

say "ready: containerd $(containerd --version | awk '{print $3}') (/usr/bin), containerd $("$cd21/usr/bin/containerd" --version | awk '{print $3}') ($cd21/usr/bin), runc $(runc --version | awk 'NR == 1 {print $3}')"
