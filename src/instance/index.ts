/**
 * A private instance of the node's runtime (`--isolated`): the node's own binary and effective config,
 * with everything the node's daemon and the kubelet use (sockets, root, state, runc root, CNI, NRI
 * plugins) moved into a directory of its own, the injectors installed, the bundled images imported. No
 * kubelet talks to it, and it is removed with everything it made when the run ends.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { InstanceRecord, InstanceRequest, RuntimeInstance } from '../harness/runtime-instance.js';
import { startDaemon, waitAnswering } from './daemon.js';
import type { FlavorSetup, SetupRequest } from './flavor-setup.js';
import { HostView } from './host-view.js';
import { BUNDLED_IMAGES, bundledArchive } from './images.js';
import { installInjectors } from './injectors.js';
import {
  DEFAULT_BASE_DIR,
  type InstanceFile,
  indexInstance,
  selfAsOwner,
  writeInstanceFile,
} from './instance-file.js';
import { type Flavor, layoutPaths } from './layout.js';
import { claimNetwork, writeConflist } from './network.js';
import { findNodeDaemon } from './node-daemon.js';
import { removeInstance } from './removal.js';
import { socketIdentity } from './socket-identity.js';
import { type Supervisor, startSupervisor } from './supervisor.js';

const exec = promisify(execFile);
export const SLOW_HANDLER = 'conform-slow';
const START_WITHIN_MS = 20_000;
const DEFAULT_IMAGE_CACHE = '/var/cache/cri-conform';

export interface InstanceOptions {
  baseDir?: string;
  imageCache?: string;
}

/** Starts the private instance for a run; on any failure whatever was made is removed again. */
export async function startPrivateInstance(
  request: InstanceRequest,
  options: InstanceOptions = {},
): Promise<RuntimeInstance> {
  const started = performance.now();
  const socketPath = request.endpoint.replace(/^unix:\/\//, '');
  if (!socketPath.startsWith('/'))
    throw new Error(`--isolated needs the node runtime's unix socket, not ${request.endpoint}`);
  const node = findNodeDaemon(socketPath);
  const id = `${Date.now().toString(36)}-${process.pid.toString(36)}`;
  const dir = join(options.baseDir ?? DEFAULT_BASE_DIR, id);
  const p = layoutPaths(dir, node.flavor);
  const host = HostView.of(node.pid);
  const path = `${dirname(node.binary)}:${node.path}`;
  const setup = await setUp(node.flavor, {
    node,
    path,
    host,
    dir,
    pauseImage: request.pauseImage,
    slowHandler: SLOW_HANDLER,
  });
  const { derived } = setup;
  const runc = host.onPath(derived.runcBinary, path);
  if (runc === undefined)
    throw new Error(`the node's runc "${derived.runcBinary}" is not on its PATH (${path})`);

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
  const targetSocket = socketIdentity(request.endpoint);
  const hostAnchor = host.recordAnchor();
  const info: InstanceFile = {
    id,
    target: request.endpoint,
    ...(targetSocket ? { targetSocket } : {}),
    owner: selfAsOwner(),
    binary: node.binary,
    flavor: node.flavor,
    path,
    runcBinary: runc,
    ...(hostAnchor ? { hostAnchor } : {}),
    network: { number: 0, bridge: '', subnet: '', name: '' },
  };
  writeInstanceFile(dir, info);
  indexInstance(id, dir);
  let supervisor: Supervisor | undefined;
  const remove = async () => {
    const left = await removeInstance(dir, info);
    supervisor?.release();
    return left;
  };
  try {
    // From here on the instance is removed when this process goes, however it goes.
    supervisor = startSupervisor(dir);
    info.network = claimNetwork(dir, id);
    writeInstanceFile(dir, info);
    writeConflist(p.cniConf, p.cniIpam, info.network);
    installInjectors(dir, runc, derived.nodeCniBinDirs, host);
    writeFileSync(p.config, derived.text);
    startDaemon(dir, { binary: node.binary, path, flavor: node.flavor }, host);
    await waitAnswering(dir, node.flavor, START_WITHIN_MS, request.signal);
    const startMs = Math.round(performance.now() - started);
    const imported = performance.now();
    const images = await provideImages(request, setup, options.imageCache);
    const record: InstanceRecord = {
      target: `${request.endpoint} (pid ${node.pid})`,
      binary: {
        path: node.binary,
        version: await versionOf(node.binary, path, host),
        sha256: await sha256Of(host.path(node.binary)),
      },
      sourceConfig: setup.sourceConfig,
      changed: derived.changes,
      dir,
      network: { bridge: info.network.bridge, subnet: info.network.subnet },
      images,
      timingsMs: { start: startMs, imageImport: Math.round(performance.now() - imported) },
    };
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
        pauseImage: request.pauseImage,
        ...(host.anchor === undefined ? {} : { nodeAnchorPid: host.anchor }),
      },
      remove,
    };
  } catch (e) {
    await remove();
    throw e;
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

async function provideImages(
  request: InstanceRequest,
  setup: FlavorSetup,
  cache = process.env.CRI_CONFORM_IMAGE_CACHE ?? DEFAULT_IMAGE_CACHE,
): Promise<string> {
  const wanted = [request.testImage, request.pauseImage];
  if (request.pull === 'always' || !wanted.some((i) => BUNDLED_IMAGES.includes(i)))
    return `pulled by the run (--pull ${request.pull})`;
  const archive = await bundledArchive(cache);
  await setup.importImages(archive);
  return `imported from ${archive}`;
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
