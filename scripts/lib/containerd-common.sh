# Shared by containerd-up.sh, containerd-down.sh and containerd-restart.sh (sourced, not run).
# One throwaway containerd per version, each in its own directory with its own sockets, bridge and subnet.

CC_STATE_ROOT="${CRI_CONFORM_STATE:-/tmp/cri-conform}"
CC_CONTAINERD21_DIR="${CRI_CONFORM_CONTAINERD21_DIR:-/opt/cri-conform/containerd-2.1}"
CC_IMAGE_CACHE="${CRI_CONFORM_IMAGE_CACHE:-/var/cache/cri-conform}"

say() { printf '==> %s\n' "$*" >&2; }
die() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; exit 2; }

# parse_common_args "$@": sets version and dir from --version/--dir.
parse_common_args() {
  version=1.7
  dir=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --version) version="${2:-}"; shift 2 ;;
      --dir) dir="${2:-}"; shift 2 ;;
      -h|--help) usage; exit 0 ;;
      *) die "unknown argument $1 (see --help)" ;;
    esac
  done
  case "$version" in 1.7|2.1) ;; *) die "--version must be 1.7 or 2.1" ;; esac
  [ -n "$dir" ] || dir="$CC_STATE_ROOT/containerd-$version"
  case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac
  [ "${#dir}" -lt 70 ] || die "--dir $dir is too long: unix socket paths must stay under 107 bytes"
}

# The bridge and subnet of an instance: per version in the default place, so 1.7 and 2.1 run side by
# side; derived from the dir otherwise, so a second instance of a version never shares a bridge or subnet.
instance_number() { # version dir -> 17 or 21 by default; otherwise 100-149 (1.7) or 150-199 (2.1)
  if [ "$2" = "$CC_STATE_ROOT/containerd-$1" ] && [ -z "${CRI_CONFORM_STATE:-}" ]; then echo "${1//./}"; return; fi
  local base=100
  [ "$1" = 2.1 ] && base=150
  echo $((base + $(printf '%s' "$2" | cksum | cut -d' ' -f1) % 50))
}
bridge_of() { echo "cc-br$(instance_number "$1" "$2")"; }
subnet_of() { echo "10.88.$(instance_number "$1" "$2").0/24"; }

# The pid of the containerd serving $1 (a dir), if it runs: checked by pid file and command line.
running_pid() {
  local d=$1 pid
  pid=$(cat "$d/containerd.pid" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "--config $d/config.toml" || return 1
  echo "$pid"
}

# Waits until containerd answers on its socket (short polls, bounded).
wait_answering() {
  local d=$1 deadline=$((SECONDS + ${2:-20}))
  until ctr -a "$d/containerd.sock" version >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    running_pid "$d" >/dev/null || return 1
    sleep 0.1
  done
}

# Starts containerd from the dir's start script, detached from this shell.
start_containerd() {
  local d=$1
  setsid bash "$d/start.sh" </dev/null >>"$d/containerd.log" 2>&1 &
  echo $! >"$d/containerd.pid"
  # setsid may fork: record the pid whose command line really is this containerd.
  local deadline=$((SECONDS + 5)) pid
  until pid=$(pgrep -n -f -- "--config $d/config.toml"); do
    [ "$SECONDS" -lt "$deadline" ] || die "containerd in $d did not start (log: $d/containerd.log)"
    sleep 0.05
  done
  echo "$pid" >"$d/containerd.pid"
  wait_answering "$d" 20 || { tail -20 "$d/containerd.log" >&2; die "containerd in $d did not come up (log: $d/containerd.log)"; }
}

stop_containerd() {
  local d=$1 pid deadline
  pid=$(running_pid "$d") || return 0
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + 15))
  while [ -d "/proc/$pid" ] && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
  [ -d "/proc/$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  rm -f "$d/containerd.pid"
}
