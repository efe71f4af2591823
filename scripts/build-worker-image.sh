#!/usr/bin/env bash
# Builds cri-conform's fleet image (the one deploy/sonobuoy/ runs) without a registry, as an OCI archive.
#
# Usage: scripts/build-worker-image.sh OUT_DIR
#   Writes OUT_DIR/cri-conform-image.tar and prints its path; the sizes go to stderr.
#
# It holds what deploy/sonobuoy/Containerfile installs, taken from this machine instead of a Node base
# image: the `node` binary on PATH and the shared libraries it loads (ldd), the tarball `npm pack` makes
# of this checkout, and the production dependencies from this checkout's node_modules (npm ls --omit=dev;
# run `npm ci` first); nsenter and what it loads; the bundled images (scripts/build-images.sh) in
# /opt/cri-conform/images; busybox-static as /bin/sh. One gzip layer; no package manager.
#   name        localhost/cri-conform/cri-conform:<package version> (annotations io.containerd.image.name
#               and org.opencontainers.image.ref.name)
#   entrypoint  node /opt/cri-conform/bin/cri-conform    cmd: run --sonobuoy
# Same inputs, same bytes: fixed mtimes, owners and order.
#
# Import:  ctr -a SOCKET -n k8s.io images import OUT_DIR/cri-conform-image.tar      (containerd, per node)
#          skopeo copy oci-archive:OUT_DIR/cri-conform-image.tar docker://REGISTRY/cri-conform:TAG
# Needs: node and npm, nsenter (util-linux), busybox-static, GNU tar, gzip, sha256sum, ldd.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
esac
if [ $# -ne 1 ] || [ -z "$1" ]; then usage >&2; exit 2; fi
out=$1
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
# shellcheck source=lib/oci-layout.sh source-path=SCRIPTDIR
. "$here/lib/oci-layout.sh"

die() { printf 'build-worker-image.sh: %s\n' "$*" >&2; exit 2; }
node_bin=$(command -v node) || die "node is not on PATH"
node_bin=$(readlink -f "$node_bin")
nsenter_bin=$(command -v nsenter) || die "nsenter is not on PATH (apt-get install util-linux)"
nsenter_bin=$(readlink -f "$nsenter_bin")
command -v npm >/dev/null || die "npm is not on PATH"
[ -d "$repo/node_modules" ] || die "$repo/node_modules is missing: run npm ci first"
version=$(node -p "require('$repo/package.json').version")
ref="localhost/cri-conform/cri-conform:$version"

umask 022
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
app="$root/opt/cri-conform"
mkdir -p "$root"/{etc,proc,sys,dev,tmp,usr/bin,usr/local/bin} "$app"

# --- Node, nsenter and what they load -------------------------------------------------------------------
install -m 0755 "$node_bin" "$root/usr/local/bin/node"
# The private instance runs in the node's mount namespace (src/instance/host-view.ts).
install -m 0755 "$nsenter_bin" "$root/usr/bin/nsenter"
# A /bin/sh, as the Containerfile's Debian base has: the run spawns its restart command through it.
mkdir -p "$root/bin"
install -m 0755 /bin/busybox "$root/bin/sh"
# ldd lines: "libx.so => /path (addr)" or "/lib64/ld-linux-x86-64.so.2 (addr)"; vdso has no file; with
# two binaries, each is named alone on a line first.
while read -r lib; do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
  chmod 0755 "$root$lib"
done < <(ldd "$node_bin" "$nsenter_bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && NF > 1 { print $1 }' | sort -u)

# --- the package and its production dependencies --------------------------------------------------------
(cd "$repo" && npm pack --silent --pack-destination "$work" >"$work/pack-name" 2>"$work/pack.log") ||
  die "npm pack failed: $(tail -n 5 "$work/pack.log")"
tar -xzf "$work/$(tail -n1 "$work/pack-name")" -C "$app" --strip-components=1
mkdir -p "$app/node_modules"
# Top-level entries only: a package's own nested node_modules come along with it.
(cd "$repo" && npm ls --omit=dev --all --parseable 2>/dev/null) |
  sed "s|^$repo/||" | awk -F/ '$1 == "node_modules" && (NF == 2 || (NF == 3 && $2 ~ /^@/))' | sort -u |
  while read -r dep; do
    mkdir -p "$app/$(dirname "$dep")"
    cp -a "$repo/$dep" "$app/$dep"
  done
[ -d "$app/node_modules/@grpc/grpc-js" ] || die "production dependencies missing from npm ls: run npm ci"
# The bundled test and pause images, which the private instance imports (src/instance/images.ts).
bash "$here/build-images.sh" "$app/images" >/dev/null
# What only editors and humans read.
find "$app/node_modules" -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \
  -o -name 'CHANGELOG*' -o -name 'README*' \) -delete

printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
chmod -R u+rwX,go+rX,go-w "$root"
chmod 1777 "$root/tmp"

# --- OCI layout -----------------------------------------------------------------------------------------
oci_layout_init "$work/layout"
det_tar "$root" "$work/layer.tar"
diff_id=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
gzip -n -6 <"$work/layer.tar" >"$work/layer.tar.gz"
read -r layer_digest layer_size < <(store_blob "$work/layer.tar.gz")

cat >"$work/config.json" <<JSON
{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/usr/local/bin","NODE_ENV=production"],"Entrypoint":["/usr/local/bin/node","/opt/cri-conform/bin/cri-conform"],"Cmd":["run","--sonobuoy"],"WorkingDir":"/opt/cri-conform","Labels":{"org.opencontainers.image.title":"cri-conform","org.opencontainers.image.version":"$version"}},"rootfs":{"type":"layers","diff_ids":["sha256:$diff_id"]},"history":[{"created_by":"cri-conform scripts/build-worker-image.sh"}]}
JSON
read -r config_digest config_size < <(store_blob "$work/config.json")

cat >"$work/manifest.json" <<JSON
{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:$config_digest","size":$config_size},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:$layer_digest","size":$layer_size}]}
JSON
read -r manifest_digest manifest_size < <(store_blob "$work/manifest.json")
oci_layout_index "$manifest_digest" "$manifest_size" "$ref"

mkdir -p "$out"
# Written next to its final name and renamed: a reader never sees half an archive.
det_tar "$OCI_LAYOUT" "$out/.cri-conform-image.tar.$$"
mv -f "$out/.cri-conform-image.tar.$$" "$out/cri-conform-image.tar"
printf '%s: %s MB compressed layer, %s MB unpacked (node %s MB)\n' "$ref" \
  "$((layer_size / 1000000))" "$(($(stat -c %s "$work/layer.tar") / 1000000))" \
  "$(($(stat -c %s "$node_bin") / 1000000))" >&2
printf '%s\n' "$out/cri-conform-image.tar"
