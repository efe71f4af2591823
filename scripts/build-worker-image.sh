#!/usr/bin/env bash
# Builds cri-conform's fleet image (the one deploy/sonobuoy/ runs) without a registry, as an OCI archive.
#
# Usage: scripts/build-worker-image.sh [--platforms amd64,arm64] OUT_DIR
#   Writes OUT_DIR/cri-conform-image.tar and prints its path; the sizes go to stderr. --platforms (default
#   amd64,arm64) names the architectures: with more than one the image is an index of one manifest each,
#   and nodes pull the one of their own architecture.
#
# It holds what deploy/sonobuoy/Containerfile installs, without a Node base image. For this machine's
# architecture, from this machine: the `node` binary on PATH and the shared libraries it loads (ldd),
# nsenter and what it loads, busybox-static as /bin/sh. For another architecture: Node's own binary of the
# same version from the npm registry (package node-linux-<arch>), and Debian's packages of this machine's
# release for it (libc6, libstdc++6, libgcc-s1, util-linux for nsenter, busybox-static), fetched with apt
# into a scratch directory (this machine's apt state and configuration are not touched); the libraries
# each binary needs are read from its ELF headers (readelf). For every architecture: the tarball `npm pack`
# makes of this checkout, the production dependencies from this checkout's node_modules (npm ls --omit=dev;
# run `npm ci` first; all are plain JavaScript), and the bundled images (scripts/build-images.sh, with that
# architecture's busybox) in /opt/cri-conform/images. One gzip layer per architecture; no package manager.
#   name        localhost/cri-conform/cri-conform:<package version> (annotations io.containerd.image.name
#               and org.opencontainers.image.ref.name)
#   entrypoint  node /opt/cri-conform/bin/cri-conform    cmd: run --sonobuoy
# Same inputs, same bytes: fixed mtimes, owners and order.
#
# Import:  ctr -a SOCKET -n k8s.io images import OUT_DIR/cri-conform-image.tar      (containerd, per node)
#          skopeo copy --all oci-archive:OUT_DIR/cri-conform-image.tar docker://REGISTRY/cri-conform:TAG
# Needs: node and npm, nsenter (util-linux), busybox-static, GNU tar, gzip, sha256sum, ldd; for another
# architecture also apt-get, dpkg-deb and readelf (binutils), and the npm registry and a Debian mirror.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
platforms=amd64,arm64
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --platforms) platforms=${2:-}; shift 2 || { usage >&2; exit 2; } ;;
  --platforms=*) platforms=${1#--platforms=}; shift ;;
esac
if [ $# -ne 1 ] || [ -z "$1" ]; then usage >&2; exit 2; fi
out=$1
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
# shellcheck source=lib/oci-layout.sh source-path=SCRIPTDIR
. "$here/lib/oci-layout.sh"
# shellcheck source=lib/apt-mirror.sh source-path=SCRIPTDIR
. "$here/lib/apt-mirror.sh"

die() { printf 'build-worker-image.sh: %s\n' "$*" >&2; exit 2; }
host_arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
for arch in ${platforms//,/ }; do
  case "$arch" in amd64 | arm64) ;; *) die "--platforms: $arch is not amd64 or arm64" ;; esac
done
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

# --- the package and its production dependencies, the same for every architecture ------------------------
app="$work/app"
mkdir -p "$app"
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
# What only editors and humans read.
find "$app/node_modules" -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \
  -o -name 'CHANGELOG*' -o -name 'README*' \) -delete

# --- another architecture's binaries: Node from npm, the rest from Debian --------------------------------
# foreign_sysroot ARCH DIR: Debian's packages of this release for ARCH, unpacked into DIR.
foreign_sysroot() {
  local arch=$1 dir=$2 apt="$work/apt-$1" mirror suite
  mirror=$(debian_mirror /etc/apt) || exit 2
  suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
  mkdir -p "$apt"/{lists/partial,cache/archives/partial,sources.list.d,preferences.d,debs} "$dir"
  printf 'deb [arch=%s signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' "$arch" "$mirror" "$suite" >"$apt/sources.list"
  local opts=(-o "Dir::State=$apt" -o "Dir::State::Lists=$apt/lists" -o Dir::State::status=/dev/null
    -o "Dir::Cache=$apt/cache" -o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/sources.list.d"
    -o "Dir::Etc::Preferences=$apt/preferences" -o "Dir::Etc::PreferencesParts=$apt/preferences.d"
    -o "APT::Architecture=$arch" -o "APT::Architectures::=$arch" -o APT::Sandbox::User=root)
  apt-get "${opts[@]}" -qq update >"$apt/update.log" 2>&1 || die "apt-get update for $arch failed: $(tail -n 3 "$apt/update.log")"
  (cd "$apt/debs" && apt-get "${opts[@]}" -qq download libc6 libstdc++6 libgcc-s1 util-linux libselinux1 \
    libpcre2-8-0 busybox-static >"$apt/download.log" 2>&1) || die "apt-get download for $arch failed: $(tail -n 3 "$apt/download.log")"
  for deb in "$apt"/debs/*.deb; do dpkg-deb -x "$deb" "$dir"; done
}

# foreign_node ARCH DIR: Node's own binary for ARCH, of the version on PATH, as DIR/node.
foreign_node() {
  local v
  v=$(node -p process.versions.node)
  mkdir -p "$2"
  (cd "$work" && npm pack --silent "node-linux-$1@$v" >"$work/node-$1.name" 2>"$work/node-$1.log") ||
    die "npm pack node-linux-$1@$v failed: $(tail -n 3 "$work/node-$1.log")"
  tar -xzf "$work/$(tail -n1 "$work/node-$1.name")" -C "$2" --strip-components=2 package/bin/node
}

# elf_needs SYSROOT BINARY...: the sysroot paths of the interpreter and every library the binaries need,
# and the libraries those need, as their ELF headers name them.
elf_needs() {
  local sysroot=$1 file interp lib dir found
  shift
  local queue=("$@")
  declare -A seen=()
  while [ ${#queue[@]} -gt 0 ]; do
    file=${queue[0]}
    queue=("${queue[@]:1}")
    interp=$(readelf -l "$file" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
    if [ -n "$interp" ] && [ -z "${seen[$interp]:-}" ]; then seen[$interp]=1; printf '%s\n' "$interp"; fi
    for lib in $(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
      found=""
      for dir in "$sysroot"/lib/*-linux-gnu "$sysroot"/usr/lib/*-linux-gnu "$sysroot"/lib "$sysroot"/usr/lib; do
        if [ -e "$dir/$lib" ]; then
          found=${dir#"$sysroot"}/$lib
          break
        fi
      done
      [ -n "$found" ] || die "$lib, needed by $file, is in none of the packages"
      if [ -z "${seen[$found]:-}" ]; then seen[$found]=1; printf '%s\n' "$found"; queue+=("$sysroot$found"); fi
    done
  done
}

# --- one root filesystem per architecture -----------------------------------------------------------------
# rootfs ARCH ROOT: node, nsenter, sh and what they load, the package, and the bundled images for ARCH.
rootfs() {
  local arch=$1 root=$2 node nsenter busybox sysroot=""
  mkdir -p "$root"/{etc,proc,sys,dev,tmp,bin,usr/bin,usr/local/bin,opt}
  if [ "$arch" = "$host_arch" ]; then
    node=$node_bin nsenter=$nsenter_bin busybox=/bin/busybox
  else
    sysroot="$work/sysroot-$arch"
    foreign_sysroot "$arch" "$sysroot"
    foreign_node "$arch" "$work/node-$arch"
    node="$work/node-$arch/node" nsenter="$sysroot/usr/bin/nsenter" busybox="$sysroot/bin/busybox"
  fi
  install -m 0755 "$node" "$root/usr/local/bin/node"
  # The private instance runs in the node's mount namespace (src/instance/host-view.ts).
  install -m 0755 "$nsenter" "$root/usr/bin/nsenter"
  # A /bin/sh, as the Containerfile's Debian base has: the run spawns its restart command through it.
  install -m 0755 "$busybox" "$root/bin/sh"
  local libs
  if [ -z "$sysroot" ]; then
    # ldd lines: "libx.so => /path (addr)" or "/lib64/ld-linux-x86-64.so.2 (addr)"; vdso has no file; with
    # two binaries, each is named alone on a line first.
    libs=$(ldd "$node" "$nsenter" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && NF > 1 { print $1 }' | sort -u)
  else
    libs=$(elf_needs "$sysroot" "$node" "$nsenter" | sort -u)
  fi
  while read -r lib; do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$sysroot$lib" "$root$lib"
    chmod 0755 "$root$lib"
  done <<<"$libs"
  cp -a "$app" "$root/opt/cri-conform"
  # The bundled test and pause images, which the private instance imports (src/instance/images.ts).
  ARCH=$arch BUSYBOX=$busybox bash "$here/build-images.sh" "$root/opt/cri-conform/images" >/dev/null
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
  chmod -R u+rwX,go+rX,go-w "$root"
  chmod 1777 "$root/tmp"
}

# --- OCI layout: a layer, config and manifest per architecture ---------------------------------------------
oci_layout_init "$work/layout"
manifests=()
for arch in ${platforms//,/ }; do
  root="$work/rootfs-$arch"
  rootfs "$arch" "$root"
  det_tar "$root" "$work/layer-$arch.tar"
  diff_id=$(sha256sum "$work/layer-$arch.tar" | cut -d' ' -f1)
  gzip -n -6 <"$work/layer-$arch.tar" >"$work/layer-$arch.tar.gz"
  read -r layer_digest layer_size < <(store_blob "$work/layer-$arch.tar.gz")
  cat >"$work/config-$arch.json" <<JSON
{"architecture":"$arch","os":"linux","config":{"Env":["PATH=/usr/local/bin","NODE_ENV=production"],"Entrypoint":["/usr/local/bin/node","/opt/cri-conform/bin/cri-conform"],"Cmd":["run","--sonobuoy"],"WorkingDir":"/opt/cri-conform","Labels":{"org.opencontainers.image.title":"cri-conform","org.opencontainers.image.version":"$version"}},"rootfs":{"type":"layers","diff_ids":["sha256:$diff_id"]},"history":[{"created_by":"cri-conform scripts/build-worker-image.sh"}]}
JSON
  read -r config_digest config_size < <(store_blob "$work/config-$arch.json")
  cat >"$work/manifest-$arch.json" <<JSON
{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:$config_digest","size":$config_size},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:$layer_digest","size":$layer_size}]}
JSON
  read -r manifest_digest manifest_size < <(store_blob "$work/manifest-$arch.json")
  manifests+=("$manifest_digest $manifest_size $arch")
  printf '%s %s: %s MB compressed layer, %s MB unpacked (node %s MB)\n' "$ref" "$arch" \
    "$((layer_size / 1000000))" "$(($(stat -c %s "$work/layer-$arch.tar") / 1000000))" \
    "$(($(stat -c %s "$root/usr/local/bin/node") / 1000000))" >&2
  rm -rf "$root" "$work/layer-$arch.tar" "$work/layer-$arch.tar.gz"
done
if [ ${#manifests[@]} -eq 1 ]; then
  read -r manifest_digest manifest_size arch <<<"${manifests[0]}"
  oci_layout_index "$manifest_digest" "$manifest_size" "$ref" "$arch"
else
  oci_platform_index "$ref" "${manifests[@]}"
fi

mkdir -p "$out"
# Written next to its final name and renamed: a reader never sees half an archive.
det_tar "$OCI_LAYOUT" "$out/.cri-conform-image.tar.$$"
mv -f "$out/.cri-conform-image.tar.$$" "$out/cri-conform-image.tar"
printf '%s\n' "$out/cri-conform-image.tar"
