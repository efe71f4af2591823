#!/bin/sh
# The "conform-slow" runtime handler's runc (installed by containerd-up.sh as <dir>/slow-runtime/runc-slow,
# with REAL_RUNC filled in). On `runc create` it appends "<unix time> <container id>" to created.log
# next to itself (a sandbox's id is its pause container's id), sleeps for the milliseconds in delay-ms
# there (missing, empty or not a number: no delay), then runs the real runc with the same arguments.
# Every other subcommand goes straight to runc. POSIX sh: it runs for every runc call of the handler.
real_runc='@REAL_RUNC@'
control=${0%/*}

# runc's command line: [global options] <subcommand> [options] <id>. Global options that take a value
# (runc 1.1/1.2: --root, --log, --log-format, --criu, --rootless) may be spelled -x or --x, with the
# value as the next argument or after "="; all other global options are switches.
sub=
id=
skip=
for arg in "$@"; do
  if [ -n "$skip" ]; then skip=; continue; fi
  if [ -z "$sub" ]; then
    case $arg in
      --root|-root|--log|-log|--log-format|-log-format|--criu|-criu|--rootless|-rootless) skip=1 ;;
      -*) ;;
      *) sub=$arg
         [ "$sub" = create ] || break ;;
    esac
  else
    # `runc create` options that take a value: --bundle/-b, --console-socket, --pid-file, --preserve-fds.
    # Switches: --no-pivot, --no-new-keyring. The first other argument is the container id.
    case $arg in
      --bundle|-bundle|-b|--console-socket|-console-socket|--pid-file|-pid-file|--preserve-fds|-preserve-fds) skip=1 ;;
      -*) ;;
      *) id=$arg; break ;;
    esac
  fi
done

if [ "$sub" = create ] && [ -n "$id" ]; then
  printf '%s %s\n' "$(date +%s.%N)" "$id" >>"$control/created.log"
  ms=
  if [ -r "$control/delay-ms" ]; then read -r ms <"$control/delay-ms" || :; fi
  case $ms in
    ''|*[!0-9]*) ms=0 ;;
  esac
  if [ "$ms" -gt 0 ]; then
    sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
  fi
fi
exec "$real_runc" "$@"
