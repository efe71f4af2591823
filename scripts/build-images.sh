#!/usr/bin/env bash
# Builds cri-conform's container images without a registry, as one OCI image-layout archive.
#
# Usage: scripts/build-images.sh OUT_DIR
#   Writes OUT_DIR/cri-conform-images.tar and prints its path. The same inputs always give the same bytes
#   (fixed mtimes, owners and order), so the image digests are stable.
#
# The archive's index.json names two manifests of one layer, so one import gives both images:
#   localhost/cri-conform/busybox:1   test image: /bin/busybox (busybox-static) and a symlink per applet
#                                     (sh, sleep, cat, echo, ls, kill, ps, mount, ...); checks set the command
#   localhost/cri-conform/pause:1     sandbox (pause) image: entrypoint /pause (fixtures/images/pause.sh)
#                                     exits 0 on SIGTERM; with arguments it execs them instead. Its config
#                                     says StopSignal SIGKILL: a shell traps TERM only once it has started,
#                                     and as its pid namespace's init it ignores a TERM sent before that,
#                                     so a runtime that stops a sandbox just started (CRI-O rolling back a
#                                     failed RunPodSandbox) waited out the whole call's deadline on it. The
#                                     kubelet's pause handles TERM from its first instruction; a kill ends
#                                     ours as promptly (containerd kills sandboxes anyway).
# Both carry annotations io.containerd.image.name and org.opencontainers.image.ref.name (the full name).
#
# Import:  ctr -a SOCKET -n k8s.io images import OUT_DIR/cri-conform-images.tar          (containerd)
#          skopeo copy oci-archive:OUT_DIR/cri-conform-images.tar:localhost/cri-conform/pause:1 \
#            containers-storage:localhost/cri-conform/pause:1                               (CRI-O)
# Needs: busybox-static (/bin/busybox), GNU tar, sha256sum.
# ARCH (default amd64) and BUSYBOX (default /bin/busybox) build them for another architecture, from that
# architecture's busybox-static (scripts/build-worker-image.sh does, for its arm64 image); its applets are
# listed by this machine's busybox when the other one cannot run here.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
esac
if [ $# -ne 1 ] || [ -z "$1" ]; then usage >&2; exit 2; fi
out=$1
here="$(cd "$(dirname "$0")" && pwd)"
pause_src="$here/../fixtures/images/pause.sh"
# shellcheck source=lib/oci-layout.sh source-path=SCRIPTDIR
. "$here/lib/oci-layout.sh"
busybox=${BUSYBOX:-/bin/busybox}
arch=${ARCH:-amd64}
test_ref=localhost/cri-conform/busybox:1
pause_ref=localhost/cri-conform/pause:1

die() { printf 'build-images.sh: %s\n' "$*" >&2; exit 2; }
[ -x "$busybox" ] || die "$busybox is missing (apt-get install busybox-static)"
applets=$("$busybox" --list 2>/dev/null || /bin/busybox --list 2>/dev/null) ||
  die "$busybox has no applet list: is it busybox-static?"
[ -f "$pause_src" ] || die "$pause_src is missing"

umask 022
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- rootfs ------------------------------------------------------------------------------------------
root="$work/rootfs"
mkdir -p "$root"/{bin,dev,etc,proc,root,sys,tmp,var}
install -m 0755 "$busybox" "$root/bin/busybox"
while read -r applet; do
  case "$applet" in
    busybox|*/*|'') ;;
    *) ln -s busybox "$root/bin/$applet" ;;
  esac
done <<<"$applets"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
install -m 0755 "$pause_src" "$root/pause"
chmod 0755 "$root" "$root"/{bin,dev,etc,proc,root,sys,var}
chmod 1777 "$root/tmp"
chmod 0644 "$root/etc/passwd" "$root/etc/group"

# --- OCI layout (det_tar: the same bytes for the same inputs) ---------------------------------------------
oci_layout_init "$work/layout"
layout=$OCI_LAYOUT

det_tar "$root" "$work/layer.tar"
read -r layer_digest layer_size < <(store_blob "$work/layer.tar")

# The layer is uncompressed, so its diff_id is its own digest. Each image gets a config and a manifest;
# index_entry prints the index entry of the manifest it stores.
index_entry() { # image name, extra config fields ("" or ',"StopSignal":"..."')
  local config_digest config_size manifest_digest manifest_size
  cat >"$work/config.json" <<JSON
{"architecture":"$arch","os":"linux","config":{"Env":["PATH=/bin"],"Entrypoint":["/pause"],"WorkingDir":"/"$2},"rootfs":{"type":"layers","diff_ids":["sha256:$layer_digest"]},"history":[{"created_by":"cri-conform scripts/build-images.sh"}]}
JSON
  read -r config_digest config_size < <(store_blob "$work/config.json")
  cat >"$work/manifest.json" <<JSON
{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:$config_digest","size":$config_size},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:$layer_digest","size":$layer_size}]}
JSON
  read -r manifest_digest manifest_size < <(store_blob "$work/manifest.json")
  printf '{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"platform":{"architecture":"%s","os":"linux"},"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}' \
    "$manifest_digest" "$manifest_size" "$arch" "$1" "$1"
}
test_entry=$(index_entry "$test_ref" "")
pause_entry=$(index_entry "$pause_ref" ',"StopSignal":"SIGKILL"')
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[%s,%s]}\n' \
  "$test_entry" "$pause_entry" >"$layout/index.json"
chmod 0755 "$layout" "$layout/blobs" "$layout/blobs/sha256"
chmod 0644 "$layout/index.json" "$layout/oci-layout"

mkdir -p "$out"
# Written next to its final name and renamed: a reader never sees half an archive.
det_tar "$layout" "$out/.cri-conform-images.tar.$$"
mv -f "$out/.cri-conform-images.tar.$$" "$out/cri-conform-images.tar"
printf '%s\n' "$out/cri-conform-images.tar"
