/** `cri-conform doctor`: is this node ready for a run, and if not, what to fix. */
import { accessSync, constants } from 'node:fs';
import type { Command } from 'commander';
import { CRICTL_CONFIG, readConfigFile } from './config-file.js';
import type { Io } from './io.js';
import { addEndpointOptions, addNriSocketOption } from './options.js';
import { type RunFlags, resolveRunConfig } from './resolve-config.js';

interface Finding {
  ok: boolean;
  what: string;
  fix?: string;
  fatal?: boolean;
}

export function addDoctor(program: Command, io: Io, setExit: (code: number) => void): void {
  const cmd = program
    .command('doctor')
    .description('check that the runtime, NRI, images and injectors are ready, and say what to fix');
  addNriSocketOption(addEndpointOptions(cmd))
    .option('--test-image <ref>', 'image for workload containers')
    .option('--pause-image <ref>', "the runtime's sandbox image")
    .option('--slow-runtime-handler <name>', 'runtime handler whose runtime sleeps on create')
    .option('--slow-runtime-dir <dir>', "control dir of that handler's wrapper")
    .option('--slow-cni-dir <dir>', 'control dir of the slow CNI wrapper')
    .option('--restart-cmd <command>', 'command that restarts the runtime')
    .addHelpText(
      'after',
      '\nExit code 0 when a run can proceed (some checks may still be skipped), 2 when it cannot.\n\nExample:\n  $ cri-conform doctor -r unix:///run/containerd/containerd.sock --nri-socket /var/run/nri/nri.sock',
    )
    .action(async (flags: RunFlags & { config?: string }) => {
      const { config: configPath, ...rest } = flags;
      const config = resolveRunConfig(
        rest,
        io.env,
        readConfigFile(configPath ?? CRICTL_CONFIG, configPath !== undefined),
      );
      const findings: Finding[] = [];
      const [{ connectRuntime, describeRuntime, nodeProbeAvailability, probeNri }, { imagePresent }] =
        await Promise.all([import('../harness/environment.js'), import('../harness/images.js')]);
      const client = await connectRuntime(config);
      try {
        findings.push({
          ok: true,
          what: `CRI: ${describeRuntime(client.version)} at ${config.runtimeEndpoint}`,
        });
        const status = await client.call('Status', { verbose: false });
        for (const c of status.status?.conditions ?? []) {
          findings.push({
            ok: c.status,
            what: `condition ${c.type}`,
            ...(c.status ? {} : { fix: `${c.reason}: ${c.message}`, fatal: c.type === 'RuntimeReady' }),
          });
        }
        for (const [image, flag] of [
          [config.testImage, '--test-image'],
          [config.pauseImage, '--pause-image'],
        ] as const) {
          const present = await imagePresent(client, image);
          findings.push({
            ok: present,
            what: `image ${image} (${flag})`,
            ...(present
              ? {}
              : {
                  fix: 'import it (scripts/build-images.sh builds one; ctr -n k8s.io images import <tar>) or run with --pull missing',
                }),
          });
        }
        const handlers = (status.runtimeHandlers ?? []).map((h) => h.name);
        if (config.slowRuntimeHandler) {
          const listed = handlers.length === 0 || handlers.includes(config.slowRuntimeHandler);
          findings.push({
            ok: listed && writable(config.slowRuntimeDir),
            what: `slow runtime handler ${config.slowRuntimeHandler} (dir ${config.slowRuntimeDir ?? 'unset'})`,
            fix: 'register the handler in the runtime config and pass --slow-runtime-dir with its writable control dir',
          });
        } else
          findings.push({
            ok: false,
            what: 'slow runtime handler',
            fix: 'IDEM/NAME checks that need a creation delay will skip: see README "Injectors"',
          });
        findings.push(
          config.slowCniDir
            ? {
                ok: writable(config.slowCniDir),
                what: `slow CNI dir ${config.slowCniDir}`,
                fix: 'make the dir writable',
              }
            : { ok: false, what: 'slow CNI wrapper', fix: 'optional: see README "Injectors"' },
        );
      } finally {
        client.close();
      }
      const nri = await probeNri(config.nriSocket);
      findings.push(
        nri.unavailable
          ? { ok: false, what: 'NRI', fix: `${nri.unavailable}; NRI checks will skip` }
          : { ok: true, what: `NRI ${nri.version ?? '?'} at ${config.nriSocket} (${nri.runtime ?? ''})` },
      );
      const host = nodeProbeAvailability(config);
      findings.push(
        'unavailable' in host
          ? { ok: false, what: 'host probes', fix: `${host.unavailable}; [Node] checks will skip` }
          : { ok: true, what: 'host probes (/proc, cgroups, netns, mountinfo)' },
      );
      findings.push(
        config.restartCmd
          ? { ok: true, what: `restart command: ${config.restartCmd}` }
          : { ok: false, what: 'restart command', fix: '[Restart] checks will skip: pass --restart-cmd' },
      );
      for (const f of findings)
        io.out(
          `${f.ok ? 'ok  ' : f.fatal ? 'FAIL' : 'warn'} ${f.what}${!f.ok && f.fix ? `\n       -> ${f.fix}` : ''}\n`,
        );
      setExit(findings.some((f) => f.fatal) ? 2 : 0);
    });
}

function writable(dir: string | undefined): boolean {
  if (!dir) return false;
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
