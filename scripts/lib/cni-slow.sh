#!/bin/sh
# The slow CNI plugin (installed by containerd-up.sh as <dir>/cni-bin/conform-bridge, with REAL_PLUGIN
# filled in): the type of the bridge entry in the throwaway containerd's conflist. On ADD it appends
# "<container id> <netns path>" to <dir>/slow-cni/added.log (which netns the runtime made for which sandbox)
# and sleeps for the milliseconds in <dir>/slow-cni/delay-ms (missing, empty or not a number: no delay).
# Then, for every command, it runs the real bridge plugin with the same environment and stdin (the network
# config). When <dir>/slow-cni/fail exists, an ADD fails after the real plugin has set the network up (as
# when a later step of a chain fails), so the runtime must undo a half-made network. On DEL it appends the
# sandbox id to <dir>/slow-cni/del.log, so a check can count teardowns.
real_plugin='@REAL_PLUGIN@'
control=${0%/*}/../slow-cni

if [ "${CNI_COMMAND:-}" = ADD ]; then
  printf '%s %s\n' "${CNI_CONTAINERID:-}" "${CNI_NETNS:-}" >>"$control/added.log"
  ms=
  if [ -r "$control/delay-ms" ]; then read -r ms <"$control/delay-ms" || :; fi
  case $ms in
    ''|*[!0-9]*) ms=0 ;;
  esac
  if [ "$ms" -gt 0 ]; then
    sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
  fi
  if [ -e "$control/fail" ]; then
    "$real_plugin" "$@" >/dev/null 2>&1 || :
    printf '{"code":999,"msg":"cri-conform slow CNI: told to fail (%s/fail exists)"}\n' "$control"
    exit 1
  fi
fi
if [ "${CNI_COMMAND:-}" = DEL ]; then
  printf '%s\n' "${CNI_CONTAINERID:-}" >>"$control/del.log" || :
fi
exec "$real_plugin" "$@"
