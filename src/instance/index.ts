/**
 * A private instance of the node's runtime (`--isolated`): the node's own binary and effective config,
 * with everything the node's daemon and the kubelet use (sockets, root, state, snapshotter, runc root,
 * CNI, NRI plugins, registry credentials) replaced by its own in a folder of its own, the injectors
 * installed, the run's images copied in from the node or the bundled archive. No kubelet talks to it, and
 * it is removed with everything it made when the run ends. Whatever can stop it (an image nowhere to be
 * had, an unsafe node setting, no folder with exec and room, no free subnet) stops it before anything of
 * it exists on the host.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, createReadStream, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  type InstanceRecord,
  type InstanceRequest,
  type RuntimeInstance,
  socketIdentity,
  withInstanceRecord,
} from '../harness/runtime-instance.js';
import { startDaemon, waitAnswering } from './daemon.js';
import type { FlavorSetup, SetupRequest } from './flavor-setup.js';
import { HostView } from './host-view.js';
import { planImages, settleNodeImages } from './image-plan.js';
import { describeImages, imageBytes, provideImages, untilListed } from './image-provision.js';
import { installInjectors } from './injectors.js';
import { type InstanceFile, indexInstance, selfAsOwner, writeInstanceFile } from './instance-file.js';
import { type Flavor, layoutPaths } from './layout.js';
import { claimNetwork, freeSubnets, writeConflist } from './network.js';
import { findNodeDaemon } from './node-daemon.js';
import { overlayUsable } from './overlay-probe.js';
import { chooseInstanceRoot } from './placement.js';
import { removeInstance } from './removal.js';
import { type Supervisor, startSupervisor } from './supervisor.js';
import { takenAround } from './taken-networks.js';

const exec = promisify(execFile);
export const SLOW_HANDLER = 'conform-slow';
const START_WITHIN_MS = 20_000;

export interface InstanceOptions {
  /** The folder to put the instance in instead of the first fitting one of INSTANCE_ROOTS (tests). */
  baseDir?: string;
  imageCache?: string;
  /** The network claims folder (tests). */
  networkClaims?: string;
}

/** Starts the private instance for a run; on any failure whatever was made is removed again. */
export async function startPrivateInstance(
  request: InstanceRequest,
  options: InstanceOptions = {},
): Promise<RuntimeInstance> {
  const started = performance.now();
  const socketPath = request.endpoint.replace(/^unix:\/\//, '');
  // The caller names the flag (cli/isolated.ts prefixes "--isolated: "), so the message does not.
  if (!socketPath.startsWith('/'))
    throw new Error(
      `a private copy is made of a runtime on this node: pass its unix socket with -r, not ${request.endpoint}`,
    );
  const node = findNodeDaemon(socketPath);
  const host = HostView.of(node.pid);
  const path = `${dirname(node.command)}:${node.path}`;

  // Before anything exists on the host: images, folder, storage, config, subnet.
  const planned = await planImages(request);
  const base = options.baseDir ?? chooseInstanceRoot(host, imageBytes(planned));
  mkdirSync(base, { recursive: true, mode: 0o700 });
  const storage = (await overlayUsable(base, host)) ? 'overlay' : 'plain';
  const id = `${Date.now().toString(36)}-${process.pid.toString(36)}`;
  const dir = join(base, id);
  const setupRequest: SetupRequest = {
    node,
    nodeEndpoint: request.endpoint,
    path,
    host,
    dir,
    pauseImage: planned.pauseImage.ref,
    slowHandler: SLOW_HANDLER,
    storage,
  };
  const setup = await setUp(node.flavor, setupRequest);
  const images = await settleNodeImages(planned, request.pull, (name) => setup.inspectNodeImage(name));
  const subnets = freeSubnets(takenAround(host), request.subnet, options.networkClaims);
  const { derived } = setup;
  const runc = host.onPath(derived.runcBinary, path);
  if (runc === undefined)
    throw new Error(`the node's runc "${derived.runcBinary}" is not on its PATH (${path})`);

  const p = layoutPaths(dir, node.flavor);
  mkdirSync(dir, { mode: 0o700 });
  chmodSync(dir, 0o700);
  // The record first: a run killed from here on leaves a folder that cleanup and the sweep can read.
  const targetSocket = socketIdentity(request.endpoint);
  const hostAnchor = host.recordAnchor();
  const info: InstanceFile = {
    id,
    target: request.endpoint,
    ...(targetSocket ? { targetSocket } : {}),
    owner: selfAsOwner(),
    binary: node.command,
    flavor: node.flavor,
    path,
    runcBinary: runc,
    ...(hostAnchor ? { hostAnchor } : {}),
    network: { number: 0, bridge: '', subnet: '', name: '' },
  };
  writeInstanceFile(dir, info);
  indexInstance(id, dir);
  for (const d of [
    p.root,
    p.state,
    p.runcRoot,
    p.cniConf,
    p.cniBin,
    p.cniIpam,
    p.slowRuntime,
    p.slowCni,
    p.nriPlugins,
    p.nriConf,
    ...(node.flavor === 'crio' ? [p.configDir] : []),
  ])
    mkdirSync(d, { recursive: true });
  const record: InstanceRecord = {
    target: `${request.endpoint} (pid ${node.pid})`,
    binary: { path: node.command, version: '', sha256: '' },
    sourceConfig: setup.sourceConfig,
    changed: derived.changes,
    dir,
    network: { bridge: '', subnet: '' },
    images: describeImages(images),
    imageNotes: images.notes,
    timingsMs: { start: 0, imageImport: 0 },
  };
  let supervisor: Supervisor | undefined;
  const remove = async () => {
    const left = await removeInstance(dir, info);
    supervisor?.release();
    return left;
  };
  try {
    // From here on the instance is removed when this process goes, however it goes.
    supervisor = startSupervisor(dir);
    info.network = claimNetwork(dir, id, subnets, options.networkClaims);
    record.network = { bridge: info.network.bridge, subnet: info.network.subnet };
    writeInstanceFile(dir, info);
    writeConflist(p.cniConf, p.cniIpam, info.network);
    installInjectors(dir, runc, derived.nodeCniBinDirs, host);
    writeFileSync(p.config, derived.text, { mode: 0o600 });
    record.binary = {
      path: node.command,
      version: await versionOf(node.command, path, host),
      sha256: await sha256Of(host.path(node.binary)),
    };
    startDaemon(dir, { binary: node.command, path, flavor: node.flavor }, host);
    await waitAnswering(dir, node.flavor, START_WITHIN_MS, request.signal);
    record.timingsMs.start = Math.round(performance.now() - started);
    const imported = performance.now();
    await provideImages(images, setup, options.imageCache);
    await untilListed(`unix://${p.socket}`, images, request.signal);
    record.timingsMs.imageImport = Math.round(performance.now() - imported);
    return {
      record,
      settings: {
        runtimeEndpoint: `unix://${p.socket}`,
        imageEndpoint: `unix://${p.socket}`,
        nriSocket: p.nriSocket,
        nriRequestTimeoutMs: durationMs(derived.nri.requestTimeout),
        slowRuntimeHandler: SLOW_HANDLER,
        slowRuntimeDir: p.slowRuntime,
        slowCniDir: p.slowCni,
        restartCmd: restartCommand(dir),
        pauseImage: images.pauseImage.ref,
        privateInstanceLog: p.log,
        ...(setup.netnsDirs.length > 0 ? { netnsDirs: setup.netnsDirs } : {}),
        ...(host.anchor === undefined ? {} : { nodeAnchorPid: host.anchor }),
      },
      remove,
    };
  } catch (e) {
    const removal = performance.now();
    record.leftovers = await remove();
    record.timingsMs.removal = Math.round(performance.now() - removal);
    throw withInstanceRecord(e, record);
  }
}

/** The command [Restart] checks run: it restarts this private instance only. */
function restartCommand(dir: string): string {
  const main = join(dirname(new URL(import.meta.url).pathname), 'restart-main.js');
  return [process.execPath, main, dir].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
}

async function setUp(flavor: Flavor, request: SetupRequest): Promise<FlavorSetup> {
  const module = flavor === 'crio' ? await import('./crio-setup.js') : await import('./containerd-setup.js');
  return module.setUp(request);
}

async function versionOf(binary: string, path: string, host: HostView): Promise<string> {
  const cmd = host.command(binary, ['--version']);
  const { stdout } = await exec(cmd.file, cmd.args, { env: { PATH: path }, timeout: 10_000 });
  // CRI-O prints a table of build facts below its first line.
  return stdout.trim().split('\n')[0] ?? '';
}

function sha256Of(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (d) => hash.update(d))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/** Go durations as the config holds them: "2s", "500ms", "1m0s". */
export function durationMs(text: string): number {
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1_000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
  }
  return total;
}
