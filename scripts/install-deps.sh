#!/usr/bin/env bash
# Installs what the real-runtime tests and scripts/containerd-up.sh need, as root, idempotently.
#
# Usage: sudo scripts/install-deps.sh [-h|--help]
#
#   - adds Debian trixie (pin priority 100) and forky (pin priority 1) as apt sources, on the mirror that
#     /etc/apt/sources.list.d/debian.sources already names, so nothing on the machine upgrades by itself;
#   - installs containerd 1.7 from trixie, runc, CNI plugins, busybox-static, iproute2, xmllint, chromium
#     (the HTML report's browser test drives it headless) and the upstream CRI and NRI .proto files (under
#     /usr/share/gocode/src), leaving every other package as it is;
#   - downloads containerd 2.1 from forky and unpacks it (dpkg -x) without installing it: installing from
#     forky would pull a newer libc.
#   Steps already done are skipped; apt-get update runs only when a source changed or its lists are missing.
#
# Environment:
#   CRI_CONFORM_CONTAINERD21_DIR   where containerd 2.1 is unpacked (default /opt/cri-conform/containerd-2.1;
#                                  binaries in <dir>/usr/bin)
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  '') ;;
  *) usage >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "install-deps.sh: needs root: sudo $0" >&2; exit 2; }

export DEBIAN_FRONTEND=noninteractive
cd21="${CRI_CONFORM_CONTAINERD21_DIR:-/opt/cri-conform/containerd-2.1}"
say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'install-deps.sh: %s\n' "$*" >&2; exit 2; }

# --- apt sources -------------------------------------------------------------------------------------
# The first URI of the main (non-security) entry of debian.sources: this machine's own mirror.
mirror=$(awk '
  /^[[:space:]]*$/ { if (uri != "" && !security) { print uri; found = 1; exit } uri = ""; security = 0; next }
  $1 == "URIs:" && uri == "" { uri = $2 }
  $1 == "Suites:" && /-security/ { security = 1 }
  END { if (!found && uri != "" && !security) print uri }
' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)
[ -n "$mirror" ] || die "cannot read the Debian mirror (URIs:) from /etc/apt/sources.list.d/debian.sources"

sources_changed=false
ensure_file() { # path content: writes it when it differs
  if [ "$(cat "$1" 2>/dev/null)" != "$2" ]; then
    printf '%s\n' "$2" >"$1.tmp.$$"
    mv -f "$1.tmp.$$" "$1"
    sources_changed=true
  fi
}
add_suite() { # suite pin-priority
  ensure_file "/etc/apt/sources.list.d/$1.sources" "Types: deb
URIs: $mirror
Suites: $1
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
  ensure_file "/etc/apt/preferences.d/$1" "Package: *
Pin: release n=$1
Pin-Priority: $2"
}
add_suite trixie 100
add_suite forky 1

lists_present() {
  local suite
  for suite in bookworm trixie forky; do
    compgen -G "/var/lib/apt/lists/*_dists_${suite}_main_binary-*_Packages*" >/dev/null || return 1
  done
}
if [ "$sources_changed" = true ] || ! lists_present; then
  say "apt-get update (trixie pinned at 100, forky at 1; mirror $mirror)"
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
  "libxml2-utils|libxml2-utils|"
  "chromium|chromium|"
  # NRI 0.6.1 needs ttrpc-dev > 1.2, newer than bookworm's: "/trixie" on the package makes apt take that
  # dependency from trixie too (checked with apt-get -s on a status file without these packages).
  "golang-github-containerd-nri-dev|golang-github-containerd-nri-dev/trixie|"
  "golang-github-kubernetes-cri-api-dev|golang-github-kubernetes-cri-api-dev/trixie|"
)
containerd_is_17() { case "$(installed_version containerd)" in 1.7.*) return 0 ;; *) return 1 ;; esac; }

install_args=()
for entry in "${wanted[@]}"; do
  IFS='|' read -r name arg check <<<"$entry"
  if [ -z "$(installed_version "$name")" ] || { [ -n "$check" ] && ! "$check"; }; then
    install_args+=("$arg")
  fi
done
if [ ${#install_args[@]} -gt 0 ]; then
  say "apt-get install ${install_args[*]}"
  # Only the named packages (and what they need) change; --no-install-recommends keeps trixie's
  # recommendations (and their upgrades) out.
  apt-get install -y -qq --no-install-recommends "${install_args[@]}" >/dev/null
fi
for proto in /usr/share/gocode/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto \
  /usr/share/gocode/src/github.com/containerd/nri/pkg/api/api.proto \
  /usr/share/gocode/src/github.com/gogo/protobuf/gogoproto/gogo.proto; do
  [ -s "$proto" ] || die "$proto is missing after the install"
done

# --- containerd 2.1, unpacked only --------------------------------------------------------------------
if [ ! -x "$cd21/usr/bin/containerd" ] || [ ! -x "$cd21/usr/bin/containerd-shim-runc-v2" ] || [ ! -x "$cd21/usr/bin/ctr" ]; then
  say "downloading containerd from forky and unpacking it into $cd21 (not installed)"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # apt downloads as its sandbox user _apt, which must be able to write there.
  chown _apt "$tmp" 2>/dev/null || true
  if ! (cd "$tmp" && apt-get download -qq containerd/forky); then die "apt-get download containerd/forky failed"; fi
  deb=$(compgen -G "$tmp/containerd_*.deb" | head -n1) || true
  [ -n "$deb" ] || die "apt-get download containerd/forky produced no .deb"
  mkdir -p "$(dirname "$cd21")"
  rm -rf "$cd21.partial"
  dpkg -x "$deb" "$cd21.partial"
  rm -rf "$cd21"
  mv "$cd21.partial" "$cd21"
fi

say "ready: containerd $(containerd --version | awk '{print $3}') (/usr/bin), containerd $("$cd21/usr/bin/containerd" --version | awk '{print $3}') ($cd21/usr/bin), runc $(runc --version | awk 'NR == 1 {print $3}')"
