#!/bin/sh
# The slow CNI plugin (installed by containerd-up.sh as <dir>/cni-bin/conform-bridge, with REAL_PLUGIN
# filled in): the type of the bridge entry in the throwaway containerd's conflist. On ADD it sleeps for
# the milliseconds in <dir>/slow-cni/delay-ms (missing, empty or not a number: no delay); on DEL it appends
# the sandbox id (CNI_CONTAINERID) to <dir>/slow-cni/del.log, so a check can count teardowns; then, for
# every command, it runs the real bridge plugin with the same environment and stdin (the network config).
real_plugin='@REAL_PLUGIN@'
control=${0%/*}/../slow-cni

if [ "${CNI_COMMAND:-}" = ADD ]; then
  ms=
  if [ -r "$control/delay-ms" ]; then read -r ms <"$control/delay-ms" || :; fi
  case $ms in
    ''|*[!0-9]*) ms=0 ;;
  esac
  if [ "$ms" -gt 0 ]; then
    sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
  fi
fi
if [ "${CNI_COMMAND:-}" = DEL ]; then
  printf '%s\n' "${CNI_CONTAINERID:-}" >>"$control/del.log" || :
fi
exec "$real_plugin" "$@"
