#!/usr/bin/env bash
# Installs what cri-conform's real-runtime tests and scripts/containerd-up.sh need, idempotently, as root:
# containerd 1.7 from Debian trixie (pinned low, so nothing else upgrades), runc, CNI plugins,
# busybox-static, xmllint, the upstream CRI and NRI .proto files, and containerd 2.1 extracted from forky
# (downloaded, never installed: it would pull a newer libc).
# Usage: scripts/install-deps.sh            (env CRI_CONFORM_CONTAINERD21_DIR, default /opt/cri-conform/containerd-2.1)
set -euo pipefail

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
if [ "$(id -u)" != "0" ]; then echo "install-deps.sh: needs root" >&2; exit 2; fi
export DEBIAN_FRONTEND=noninteractive
cd21="${CRI_CONFORM_CONTAINERD21_DIR:-/opt/cri-conform/containerd-2.1}"
say() { printf '==> %s\n' "$*" >&2; }

# The Debian mirror this machine already uses; never a hard-coded host.
mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
if [ -z "$mirror" ]; then
  mirror=$(awk '$1 == "deb" && $0 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
fi
[ -n "$mirror" ] || { echo "install-deps.sh: cannot find the Debian mirror in /etc/apt/sources.list.d/debian.sources" >&2; exit 2; }

changed=false
add_suite() { # suite priority
  local suite=$1 priority=$2
  local src="/etc/apt/sources.list.d/$suite.sources" pref="/etc/apt/preferences.d/$suite"
  local want_src want_pref
  want_src=$(printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$mirror" "$suite")
  want_pref=$(printf 'Package: *\nPin: release n=%s\nPin-Priority: %s\n' "$suite" "$priority")
  if [ "$(cat "$src" 2>/dev/null)" != "$want_src" ]; then printf '%s\n' "$want_src" >"$src"; changed=true; fi
  if [ "$(cat "$pref" 2>/dev/null)" != "$want_pref" ]; then printf '%s\n' "$want_pref" >"$pref"; changed=true; fi
}
add_suite trixie 100
add_suite forky 1

lists_present() { ls /var/lib/apt/lists/*_dists_trixie_* >/dev/null 2>&1 && ls /var/lib/apt/lists/*_dists_forky_* >/dev/null 2>&1; }
if [ "$changed" = true ] || ! lists_present; then
  say "apt-get update (trixie pinned at 100, forky at 1)"
  apt-get update -qq
fi

want=(containerd runc containernetworking-plugins busybox-static iproute2 libxml2-utils
  golang-github-containerd-nri-dev golang-github-kubernetes-cri-api-dev golang-github-gogo-protobuf-dev)
missing=()
for p in "${want[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  # Name the trixie-only packages (and nothing else) by release, so bookworm stays as it is.
  args=()
  for p in "${missing[@]}"; do
    case "$p" in
      containerd|golang-github-containerd-nri-dev|golang-github-kubernetes-cri-api-dev) args+=("$p/trixie") ;;
      *) args+=("$p") ;;
    esac
  done
  apt-get install -y -qq --no-install-recommends "${args[@]}" >/dev/null
fi
# Installing containerd enables its unit where systemd runs; this machine kind has none, and the
# throwaway instances never use the system one.

if [ ! -x "$cd21/usr/bin/containerd" ]; then
  say "extracting containerd 2.1 from forky into $cd21 (not installed)"
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download -qq containerd/forky >/dev/null)
  mkdir -p "$cd21"
  dpkg -x "$tmp"/containerd_*.deb "$cd21"
  rm -rf "$tmp"
fi
say "ready: containerd $(containerd --version | awk '{print $3}'), containerd 2.1 $("$cd21/usr/bin/containerd" --version | awk '{print $3}')"
