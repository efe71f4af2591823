# shellcheck shell=bash
# Sourced by install-deps.sh, containerd-up.sh and remove-local.sh: what the set-up adds to the machine
# is recorded as it is added, so scripts/remove-local.sh takes away exactly that and nothing the machine
# had before.
#
#   <record dir>/installed-packages  packages that were not installed before an install-deps.sh run
#   <record dir>/upgraded-packages   "name old-version new-version" of packages an install upgraded
#   <record dir>/created-files       files the set-up created outside its own directories (apt sources)
#   /run/cri-conform/netns-mount     present when containerd-up.sh made /run/netns a bind mount

CC_RECORD_DIR="${CRI_CONFORM_RECORD_DIR:-/var/lib/cri-conform}"
CC_NETNS_MOUNT_RECORD=/run/cri-conform/netns-mount

record_line() { # file line: appends the line unless the file has it already
  mkdir -p "$CC_RECORD_DIR"
  grep -qxF -- "$2" "$CC_RECORD_DIR/$1" 2>/dev/null || printf '%s\n' "$2" >>"$CC_RECORD_DIR/$1"
}

# installed_versions: "name version" of every installed package, sorted by name.
installed_versions() {
  dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Version}\n' | awk '$1 ~ /^.i/ { print $2, $3 }' | sort
}

# record_package_changes BEFORE: records what changed since BEFORE (an installed_versions listing).
record_package_changes() {
  local kind name rest
  while read -r kind name rest; do
    if [ "$kind" = new ]; then record_line installed-packages "$name"; else record_line upgraded-packages "$name $rest"; fi
  done < <(awk 'NR == FNR { old[$1] = $2; next }
    !($1 in old) { print "new", $1; next }
    old[$1] != $2 { print "upgraded", $1, old[$1], $2 }' <(printf '%s\n' "$1") <(installed_versions))
}
