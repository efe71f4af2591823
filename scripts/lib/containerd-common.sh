# shellcheck shell=bash
# Shared by containerd-up.sh, containerd-down.sh and containerd-restart.sh (sourced, not run).
# One throwaway containerd per directory: its config, sockets, state, CNI network (bridge + /24) and
# injectors all live in or are recorded in that directory, so instances never share anything.

CC_STATE_ROOT="${CRI_CONFORM_STATE:-/tmp/cri-conform}"
CC_CONTAINERD21_DIR="${CRI_CONFORM_CONTAINERD21_DIR:-/opt/cri-conform/containerd-2.1}"
CC_IMAGE_CACHE="${CRI_CONFORM_IMAGE_CACHE:-/var/cache/cri-conform}"
# Claims of bridge/subnet numbers, one symlink per number pointing at the owning instance's dir.
CC_NET_CLAIMS="${CRI_CONFORM_NET_CLAIMS:-/run/cri-conform/networks}"
CC_MARKER=.cri-conform-containerd
CC_SUBNET_PREFIX=10.213
export CC_STATE_ROOT CC_CONTAINERD21_DIR CC_IMAGE_CACHE

say() { printf '==> %s\n' "$*" >&2; }
die() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; exit 2; }

# trap_errors UNDO: from here on, a command that fails without a message of ours ends the script with one
# line saying which line failed and that UNDO (a script, run with the same arguments) removes what was
# made; exit 2. Our own scripts exit 2 (or 3: "this machine cannot") after their own line, which is enough.
trap_errors() {
  CC_UNDO=$1
  trap 'cc_on_error $? $LINENO "$BASH_COMMAND"' ERR
}
cc_on_error() { # status line command
  # Subshells inherit the trap (set -E); only the script itself reports.
  [ "$BASHPID" = "$$" ] || return 0
  if { [ "$1" = 2 ] || [ "$1" = 3 ]; } && [[ $3 == *.sh* ]]; then exit "$1"; fi
  printf '%s: line %s failed (exit %s): %s; its output above says why; scripts/%s with the same arguments removes what was made\n' \
    "$(basename "$0")" "$2" "$1" "$3" "$CC_UNDO" >&2
  exit 2
}

# parse_common_args "$@": sets `version`, `dir`, `bin` and `crun` from --version/--dir/--bin/--crun (caller
# defines usage()); the default dir is <state root>/<CC_DIR_KIND, default containerd>-<version>.
parse_common_args() {
  version=1.7
  dir=""
  bin=""
  crun=false
  while [ $# -gt 0 ]; do
    case "$1" in
      --version) [ $# -ge 2 ] || die "--version needs a value"; version=$2; shift 2 ;;
      --version=*) version=${1#*=}; shift ;;
      --dir) [ $# -ge 2 ] || die "--dir needs a value"; dir=$2; shift 2 ;;
      --dir=*) dir=${1#*=}; shift ;;
      --bin) [ $# -ge 2 ] || die "--bin needs a value"; bin=$2; shift 2 ;;
      --bin=*) bin=${1#*=}; shift ;;
      --crun) crun=true; shift ;;
      -h|--help) usage; exit 0 ;;
      *) usage >&2; die "unknown argument: $1" ;;
    esac
  done
  case "$version" in 1.7|2.1) ;; *) die "--version must be 1.7 or 2.1, not $version" ;; esac
  [ -n "$dir" ] || dir="$CC_STATE_ROOT/${CC_DIR_KIND:-containerd}-$version"
  dir=$(normalize_dir "$dir")
  check_dir_usable "$dir"
  if [ -n "$bin" ]; then
    bin=$(normalize_dir "$bin")
    [ -x "$bin/containerd" ] || die "--bin $bin holds no containerd binary"
  fi
}

normalize_dir() { # path -> absolute, without trailing slashes or . / .. parts
  local d=$1
  case "$d" in /*) ;; *) d="$PWD/$d" ;; esac
  realpath -m -- "$d"
}

check_dir_usable() { # dir
  case "$1" in
    /|/tmp|/var|/run|/opt|/root|/home|/usr|/etc) die "refusing to use $1 itself as an instance dir" ;;
  esac
  # The longest socket path is <dir>/containerd.sock.ttrpc; unix socket paths must stay under 108 bytes.
  [ $((${#1} + 22)) -lt 100 ] || die "$1 is too long: <dir>/containerd.sock.ttrpc must stay well under 108 bytes"
}

# An instance dir is one this tooling made: it has the marker (or, from older versions, config.toml and
# start.sh). Nothing is ever removed from a dir that is not one.
is_instance_dir() { [ -f "$1/$CC_MARKER" ] || { [ -f "$1/config.toml" ] && [ -f "$1/start.sh" ]; }; }

# write_start_script DIR BIN: <dir>/start.sh, how containerd-up.sh and containerd-restart.sh start the
# instance. The containerd's own bin dir comes first on PATH (2.1 must use its own shim); descriptors
# inherited from the caller are closed, so a caller reading our output through a pipe is never held open
# by the daemon; and the caller's TMPDIR is dropped: the restart command runs inside whoever called it
# (npm test points TMPDIR at a scratch dir it removes when it ends), and the daemon hands TMPDIR down to
# its shims and runc, whose every exec then failed once that dir was gone.
write_start_script() {
  local d=$1 bin=$2
  cat >"$d/start.sh" <<START
#!/usr/bin/env bash
for fd in /proc/self/fd/*; do
  fd=\${fd##*/}
  if [ "\$fd" -gt 2 ]; then exec {fd}>&-; fi
done
unset TMPDIR
export PATH="$bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
exec "$bin/containerd" --config "$d/config.toml"
START
  chmod 0755 "$d/start.sh"
}

containerd_bin_dir() { # version [the --bin dir]
  if [ -n "${2:-}" ]; then echo "$2"; elif [ "$1" = 2.1 ]; then echo "$CC_CONTAINERD21_DIR/usr/bin"; else echo /usr/bin; fi
}
instance_version() { # dir -> the version recorded by containerd-up.sh (empty if unknown)
  if [ -f "$1/$CC_MARKER" ]; then sed -n 's/^version=//p' "$1/$CC_MARKER"; fi
}
instance_ctr() { # dir -> the ctr binary matching the instance's containerd (its --bin dir's, if it had one)
  local v b=""
  v=$(instance_version "$1")
  if [ -f "$1/$CC_MARKER" ]; then b=$(sed -n 's/^bin=//p' "$1/$CC_MARKER"); fi
  echo "$(containerd_bin_dir "$v" "$b")/ctr"
}

# --- processes -----------------------------------------------------------------------------------------
# cmdline_has PID ARG...: the process's command line holds ARG... as consecutive, exact arguments.
cmdline_has() {
  local pid=$1 i j want
  shift
  local -a argv=()
  mapfile -d '' -t argv 2>/dev/null <"/proc/$pid/cmdline" || return 1
  for ((i = 0; i + $# <= ${#argv[@]}; i++)); do
    j=0
    for want in "$@"; do
      [ "${argv[i + j]}" = "$want" ] || continue 2
      j=$((j + 1))
    done
    return 0
  done
  return 1
}

# alive PID: the process exists and is not a zombie waiting for a slow reaper.
alive() {
  local stat rest
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  rest=${stat##*) }
  [ "${rest%% *}" != Z ]
}

# pids_with_args ARG...: every live process whose command line holds ARG... (see cmdline_has).
pids_with_args() {
  local p pid
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    [ "$pid" != "$$" ] || continue
    cmdline_has "$pid" "$@" && alive "$pid" && echo "$pid"
  done
  return 0
}

# running_pid DIR: the pid of the containerd serving DIR, if it runs. Taken from the pid file and
# verified by its command line; a process whose command line names this dir's config is found as well.
running_pid() {
  local d=$1 pid
  pid=$(cat "$d/containerd.pid" 2>/dev/null || true)
  if [ -n "$pid" ] && cmdline_has "$pid" --config "$d/config.toml" && alive "$pid"; then
    echo "$pid"
    return 0
  fi
  pid=$(pids_with_args --config "$d/config.toml")
  pid=${pid%%$'\n'*}
  [ -n "$pid" ] || return 1
  echo "$pid" 2>/dev/null >"$d/containerd.pid" || true
  echo "$pid"
}

# answering DIR: containerd answers on the dir's socket.
answering() {
  timeout 3 "$(instance_ctr "$1")" -a "$1/containerd.sock" version >/dev/null 2>&1
}

# wait_answering DIR SECONDS: short polls until containerd answers; fails early when it died.
wait_answering() {
  local d=$1 deadline=$((SECONDS + ${2:-20}))
  until answering "$d"; do
    running_pid "$d" >/dev/null || return 1
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}

# start_containerd DIR: starts the dir's containerd (start.sh) in its own session, detached from the
# caller's terminal and pipes, records its pid and waits until it answers.
start_containerd() {
  local d=$1 pid deadline
  printf '==== %s containerd-%s start\n' "$(date -u +%FT%TZ)" "$(basename "$0")" >>"$d/containerd.log"
  setsid "$d/start.sh" </dev/null >>"$d/containerd.log" 2>&1 &
  pid=$!
  # A background job of a script is no process-group leader, so setsid does not fork and start.sh
  # execs containerd: $! becomes containerd once the exec happened. Look it up by command line anyway.
  deadline=$((SECONDS + 5))
  until cmdline_has "$pid" --config "$d/config.toml"; do
    if ! alive "$pid"; then
      pid=$(pids_with_args --config "$d/config.toml")
      pid=${pid%%$'\n'*}
      [ -n "$pid" ] && break
      tail -n 20 "$d/containerd.log" >&2
      die "containerd in $d exited at once (log: $d/containerd.log)"
    fi
    [ "$SECONDS" -lt "$deadline" ] || die "containerd in $d did not start within 5 s (log: $d/containerd.log)"
    sleep 0.02
  done
  echo "$pid" >"$d/containerd.pid"
  if ! wait_answering "$d" 20; then
    tail -n 20 "$d/containerd.log" >&2
    die "containerd in $d did not answer within 20 s (log: $d/containerd.log)"
  fi
}

# stop_containerd DIR: SIGTERM, wait (15 s), then SIGKILL. Only ever the process verified by running_pid.
stop_containerd() {
  local d=$1 pid deadline
  pid=$(running_pid "$d") || { rm -f "$d/containerd.pid"; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + 15))
  while alive "$pid" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.05; done
  if alive "$pid"; then
    say "containerd $pid did not exit within 15 s of SIGTERM: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    deadline=$((SECONDS + 5))
    while alive "$pid" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.05; done
  fi
  rm -f "$d/containerd.pid"
}

# --- network -------------------------------------------------------------------------------------------
# Every instance gets a number N: bridge cc-brN, subnet 10.213.N.0/24, CNI network cri-conform-cc-brN.
# The default dirs get 17 (1.7) and 21 (2.1); other dirs a number from their path (1.7: 100-149,
# 2.1: 150-199), moved on to the next free one when another instance holds it.
preferred_number() { # version dir
  if [ "$2" = "$(normalize_dir "$CC_STATE_ROOT/containerd-$1")" ] && [ -z "${CRI_CONFORM_STATE:-}" ]; then
    echo "${1//./}"
    return
  fi
  local base=100
  [ "$1" = 2.1 ] && base=150
  echo $((base + $(printf '%s' "$2" | cksum | cut -d' ' -f1) % 50))
}

# claim_number N DIR: takes N for DIR unless a live instance (another dir whose network file names N)
# or a host device/route holds it.
claim_number() {
  local n=$1 d=$2 claim owner
  claim="$CC_NET_CLAIMS/$n"
  mkdir -p "$CC_NET_CLAIMS"
  if owner=$(readlink "$claim" 2>/dev/null); then
    if [ "$owner" != "$d" ] && [ "$(sed -n 's/^number=//p' "$owner/network" 2>/dev/null)" = "$n" ]; then
      return 1
    fi
    rm -f "$claim"
  fi
  # A bridge or route of that name/subnet that no claim explains belongs to someone else.
  if [ "$owner" != "$d" ]; then
    ip link show dev "cc-br$n" >/dev/null 2>&1 && return 1
    if ip -4 route show to match "$CC_SUBNET_PREFIX.$n.1" 2>/dev/null | grep -qv '^default'; then return 1; fi
  fi
  # containerd-down.sh removes the claims folder once it is empty: it may have gone since the mkdir above.
  ln -s "$d" "$claim" 2>/dev/null || { mkdir -p "$CC_NET_CLAIMS" && ln -s "$d" "$claim" 2>/dev/null; } ||
    [ "$(readlink "$claim")" = "$d" ]
}

choose_network() { # version dir -> writes DIR/network
  local v=$1 d=$2 n lo hi tries=0
  n=$(preferred_number "$v" "$d")
  if [ "$v" = 2.1 ]; then lo=150; hi=199; else lo=100; hi=149; fi
  until claim_number "$n" "$d"; do
    if [ "$n" -lt "$lo" ] || [ "$n" -ge "$hi" ]; then n=$lo; else n=$((n + 1)); fi
    tries=$((tries + 1))
    [ "$tries" -le 51 ] || die "no free bridge number for $d (claims in $CC_NET_CLAIMS)"
  done
  cat >"$d/network" <<NET
number=$n
bridge=cc-br$n
subnet=$CC_SUBNET_PREFIX.$n.0/24
name=cri-conform-cc-br$n
NET
}

# read_network DIR: sets net_number, bridge, subnet, net_name from DIR/network. Instances made before
# that file existed used the preferred number and 10.88.N.0/24.
# shellcheck disable=SC2034 # the variables are the function's output, read by the sourcing script
read_network() {
  local d=$1 v
  if [ -f "$d/network" ]; then
    net_number=$(sed -n 's/^number=//p' "$d/network")
    bridge=$(sed -n 's/^bridge=//p' "$d/network")
    subnet=$(sed -n 's/^subnet=//p' "$d/network")
    net_name=$(sed -n 's/^name=//p' "$d/network")
  else
    v=${version:-1.7}
    net_number=$(preferred_number "$v" "$d")
    bridge="cc-br$net_number"
    subnet="10.88.$net_number.0/24"
    net_name="cri-conform-$v"
  fi
}

release_network() { # dir
  local claim
  read_network "$1"
  claim="$CC_NET_CLAIMS/$net_number"
  if [ "$(readlink "$claim" 2>/dev/null)" = "$1" ]; then rm -f "$claim"; fi
}
