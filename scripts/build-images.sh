#!/usr/bin/env bash
# Builds cri-conform's images without a registry: an OCI image-layout archive whose index names one
# busybox manifest twice, so one import gives both
#   localhost/cri-conform/busybox:1   (test image: busybox-static applets; checks always set the command)
#   localhost/cri-conform/pause:1     (sandbox image: entrypoint /pause traps TERM and waits)
# Usage: scripts/build-images.sh OUT_DIR    -> OUT_DIR/cri-conform-images.tar (deterministic bytes)
# Import: ctr -a <socket> -n k8s.io images import OUT_DIR/cri-conform-images.tar
#         skopeo copy oci-archive:<tar>:localhost/cri-conform/busybox:1 containers-storage:localhost/cri-conform/busybox:1
set -euo pipefail

if [ $# -ne 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit $(( $# == 1 ? 0 : 2 )); fi
out=$1
busybox=/bin/busybox
[ -x "$busybox" ] && "$busybox" --list >/dev/null 2>&1 || { echo "build-images.sh: needs busybox-static (apt-get install busybox-static)" >&2; exit 2; }
test_ref=localhost/cri-conform/busybox:1
pause_ref=localhost/cri-conform/pause:1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
mkdir -p "$root"/{bin,etc,tmp,proc,sys,dev,root}
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
  [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
# The pause process: a foreground sleep would delay the TERM trap, so sleep in the background and wait.
cat >"$root/pause" <<'PAUSE'
#!/bin/sh
trap 'exit 0' TERM INT
while :; do sleep 3600 & wait $!; done
PAUSE
chmod 0755 "$root/pause"
chmod 1777 "$root/tmp"

layout="$work/layout"
mkdir -p "$layout/blobs/sha256"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$root" -cf "$work/layer.tar" .

blob() { # file -> prints "digest size" after storing it
  local digest size
  digest=$(sha256sum "$1" | cut -d' ' -f1)
  size=$(stat -c %s "$1")
  cp "$1" "$layout/blobs/sha256/$digest"
  echo "$digest $size"
}
read -r layer_digest layer_size < <(blob "$work/layer.tar")
printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":["/pause"],"Env":["PATH=/bin"],"WorkingDir":"/"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
  "$layer_digest" >"$work/config.json"
read -r config_digest config_size < <(blob "$work/config.json")
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
  "$config_digest" "$config_size" "$layer_digest" "$layer_size" >"$work/manifest.json"
read -r manifest_digest manifest_size < <(blob "$work/manifest.json")
entry() { # image-name ref-name
  printf '{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"platform":{"architecture":"amd64","os":"linux"},"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}' \
    "$manifest_digest" "$manifest_size" "$1" "$2"
}
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[%s,%s]}' \
  "$(entry "$test_ref" 1)" "$(entry "$pause_ref" 1)" >"$layout/index.json"
printf '{"imageLayoutVersion":"1.0.0"}' >"$layout/oci-layout"

mkdir -p "$out"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$layout" -cf "$out/cri-conform-images.tar" .
echo "$out/cri-conform-images.tar"
