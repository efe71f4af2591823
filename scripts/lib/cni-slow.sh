#!/bin/sh
# The protocol it implements (claims, delay-ms, fail, logs) is README "The injector wrappers"; doctor proves it.
# The slow CNI plugin (installed by containerd-up.sh as <dir>/cni-bin/conform-bridge, with REAL_PLUGIN
# filled in): the type of the bridge entry in the throwaway containerd's conflist. On ADD it appends
# "<container id> <netns path> <key>" to <dir>/slow-cni/added.log (which netns the runtime made for which
# sandbox) and sleeps for the milliseconds in delay-ms (missing, empty or not a number: no delay). Then,
# for every command, it runs the real bridge plugin with the same environment and stdin (the network
# config). When a `fail` file exists, an ADD fails after the real plugin has set the network up (as when a
# later step of a chain fails), so the runtime must undo a half-made network. On DEL it appends
# "<sandbox id> <key>" to <dir>/slow-cni/del.log, so a check can count teardowns.
#
# Checks that run at once each claim a key: a directory slow-cni/pods/<key>/, where <key> starts the names
# of all of that check's pods. A pod whose name (K8S_POD_NAME in CNI_ARGS, which the runtime sets) starts
# with a claimed key takes delay-ms and fail from that directory and logs the key; any other pod takes them
# from slow-cni/ itself and logs no key.
real_plugin='@REAL_PLUGIN@'
control=${0%/*}/../slow-cni

key=
settings=$control
for claimed in "$control"/pods/*/; do
  [ -d "$claimed" ] || continue
  claimed=${claimed%/}
  case ";${CNI_ARGS:-};" in
    *";K8S_POD_NAME=${claimed##*/}"*)
      key=${claimed##*/}
      settings=$claimed
      break ;;
  esac
done

if [ "${CNI_COMMAND:-}" = ADD ]; then
  printf '%s %s %s\n' "${CNI_CONTAINERID:-}" "${CNI_NETNS:-}" "$key" >>"$control/added.log"
  ms=
  if [ -r "$settings/delay-ms" ]; then read -r ms <"$settings/delay-ms" || :; fi
  case $ms in
    ''|*[!0-9]*) ms=0 ;;
  esac
  if [ "$ms" -gt 0 ]; then
    # A runtime that gives up on the ADD kills this shell and waits for its output to close. Were the
    # sleep to keep that pipe open, the runtime would wait out the whole delay, as it never would for a
    # real plugin it killed.
    sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))" </dev/null >/dev/null 2>&1
  fi
  if [ -e "$settings/fail" ]; then
    "$real_plugin" "$@" >/dev/null 2>&1 || :
    printf '{"code":999,"msg":"cri-conform slow CNI: told to fail (%s/fail exists)"}\n' "$settings"
    exit 1
  fi
fi
if [ "${CNI_COMMAND:-}" = DEL ]; then
  printf '%s %s\n' "${CNI_CONTAINERID:-}" "$key" >>"$control/del.log" || :
fi
exec "$real_plugin" "$@"
