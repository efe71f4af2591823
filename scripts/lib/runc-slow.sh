#!/bin/sh
# The protocol it implements (claims, delay-ms, logs) is README "The injector wrappers"; doctor proves it.
# The "conform-slow" runtime handler's runc (installed by containerd-up.sh as <dir>/slow-runtime/runc-slow,
# with REAL_RUNC filled in). On `runc create` it appends "<unix time> <container id> <key>" to created.log
# next to itself (a sandbox's id is its pause container's id), sleeps for the milliseconds in delay-ms,
# then runs the real runc with the same arguments. Every other subcommand goes straight to runc.
#
# Checks that run at once each claim a key: a directory pods/<key>/ here, where <key> starts the names of
# all of that check's pods. A create whose bundle's config.json names such a pod (the runtime puts the pod
# name in its annotations and hostname) takes its delay from pods/<key>/delay-ms and logs the key; any
# other create takes the delay-ms beside this script and logs no key. Missing, empty or not a number: no
# delay. POSIX sh: it runs for every runc call of the handler.
real_runc='@REAL_RUNC@'
control=${0%/*}

# runc's command line: [global options] <subcommand> [options] <id>. Global options that take a value
# (runc 1.1/1.2: --root, --log, --log-format, --criu, --rootless) may be spelled -x or --x, with the
# value as the next argument or after "="; all other global options are switches.
sub=
id=
bundle=.
skip=
want_bundle=
for arg in "$@"; do
  if [ -n "$want_bundle" ]; then bundle=$arg; want_bundle=; continue; fi
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
      --bundle|-bundle|-b) want_bundle=1 ;;
      --bundle=*|-bundle=*|-b=*) bundle=${arg#*=} ;;
      --console-socket|-console-socket|--pid-file|-pid-file|--preserve-fds|-preserve-fds) skip=1 ;;
      -*) ;;
      *) id=$arg; break ;;
    esac
  fi
done

if [ "$sub" = create ] && [ -n "$id" ]; then
  key=
  settings=$control
  for claimed in "$control"/pods/*/; do
    [ -d "$claimed" ] || continue
    claimed=${claimed%/}
    if grep -qF -- "\"${claimed##*/}" "$bundle/config.json" 2>/dev/null; then
      key=${claimed##*/}
      settings=$claimed
      break
    fi
  done
  printf '%s %s %s\n' "$(date +%s.%N)" "$id" "$key" >>"$control/created.log"
  ms=
  if [ -r "$settings/delay-ms" ]; then read -r ms <"$settings/delay-ms" || :; fi
  case $ms in
    ''|*[!0-9]*) ms=0 ;;
  esac
  if [ "$ms" -gt 0 ]; then
    sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
  fi
fi
exec "$real_runc" "$@"
