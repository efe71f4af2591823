/** Option declarations shared by several commands, so each flag is spelled and explained once. */
import { type Command, Option } from 'commander';

export function addEndpointOptions(cmd: Command): Command {
  return cmd
    .option(
      '-r, --runtime-endpoint <url>',
      'CRI endpoint: unix:///path or /path (env CONTAINER_RUNTIME_ENDPOINT, config runtime-endpoint; default unix:///run/containerd/containerd.sock)',
    )
    .option('-i, --image-endpoint <url>', 'CRI image endpoint (default: the runtime endpoint)')
    .option(
      '--config <file>',
      'YAML file with crictl keys (runtime-endpoint, image-endpoint, timeout) and any long flag of run (default /etc/crictl.yaml when present)',
    )
    .option(
      '--call-timeout <duration>',
      'deadline of CRI calls that a check does not race on purpose (default 30s; config "timeout")',
    );
}

export function addNriSocketOption(cmd: Command): Command {
  return cmd.option(
    '--nri-socket <path>',
    'NRI socket of the runtime (env CRI_CONFORM_NRI_SOCKET; default /var/run/nri/nri.sock)',
  );
}

export function colorOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--color', 'force colored output'))
    .addOption(new Option('--no-color', 'no colors (NO_COLOR and FORCE_COLOR are honoured too)'));
}
