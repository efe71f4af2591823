# shellcheck shell=bash
# Writing an OCI image layout by hand, reproducibly (sourced by build-images.sh and build-worker-image.sh).

# det_tar DIR ARCHIVE: the same bytes for the same files (fixed order, mtimes, owners and format).
det_tar() {
  tar --format=gnu --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
    --no-acls --no-xattrs --no-selinux -C "$1" -cf "$2" .
}

# oci_layout_init DIR: an empty layout; sets OCI_LAYOUT.
oci_layout_init() {
  OCI_LAYOUT=$1
  mkdir -p "$OCI_LAYOUT/blobs/sha256"
  printf '{"imageLayoutVersion":"1.0.0"}\n' >"$OCI_LAYOUT/oci-layout"
}

# store_blob FILE: stores it under blobs/sha256 and prints "<hex digest> <size>".
store_blob() {
  local digest size
  digest=$(sha256sum "$1" | cut -d' ' -f1)
  size=$(stat -c %s "$1")
  cp "$1" "$OCI_LAYOUT/blobs/sha256/$digest"
  chmod 0644 "$OCI_LAYOUT/blobs/sha256/$digest"
  printf '%s %s\n' "$digest" "$size"
}

# oci_layout_index MANIFEST_DIGEST MANIFEST_SIZE NAME [ARCH]: index.json naming one manifest (amd64 unless
# ARCH is given).
oci_layout_index() {
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"platform":{"architecture":"%s","os":"linux"},"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}\n' \
    "$1" "$2" "${4:-amd64}" "$3" "$3" >"$OCI_LAYOUT/index.json"
  chmod 0755 "$OCI_LAYOUT" "$OCI_LAYOUT/blobs" "$OCI_LAYOUT/blobs/sha256"
  chmod 0644 "$OCI_LAYOUT/index.json" "$OCI_LAYOUT/oci-layout"
}

# oci_platform_index NAME "DIGEST SIZE ARCH"...: a multi-platform image: stores an image index of the
# platforms' manifests as a blob and writes index.json naming it.
oci_platform_index() {
  local name=$1 entries="" digest size arch
  shift
  for m in "$@"; do
    read -r digest size arch <<<"$m"
    entries="${entries:+$entries,}$(printf '{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"platform":{"architecture":"%s","os":"linux"}}' "$digest" "$size" "$arch")"
  done
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[%s]}\n' "$entries" >"$OCI_LAYOUT/.platforms.json"
  read -r digest size < <(store_blob "$OCI_LAYOUT/.platforms.json")
  rm -f "$OCI_LAYOUT/.platforms.json"
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"mediaType":"application/vnd.oci.image.index.v1+json","digest":"sha256:%s","size":%s,"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}\n' \
    "$digest" "$size" "$name" "$name" >"$OCI_LAYOUT/index.json"
  chmod 0755 "$OCI_LAYOUT" "$OCI_LAYOUT/blobs" "$OCI_LAYOUT/blobs/sha256"
  chmod 0644 "$OCI_LAYOUT/index.json" "$OCI_LAYOUT/oci-layout"
}
