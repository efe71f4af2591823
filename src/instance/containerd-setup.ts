/**
 * The containerd side of a private instance: `containerd config dump` in; images through the copy's ctr,
 * the node's ones read from the node's content store through its own API first (containerd-image-copy.ts).
 */
import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ContainerdContentReader } from '../cri/containerd-content.js';
import { derivePrivateConfig } from './containerd-config.js';
import { imageBlobs, UncopyableImage, writeImageArchive } from './containerd-image-copy.js';
import type { FlavorSetup, SetupRequest } from './flavor-setup.js';
import { importArchive } from './images.js';
import { layoutPaths } from './layout.js';
import { TomlDoc } from './toml-doc.js';

const exec = promisify(execFile);
const DEFAULT_CONFIG = '/etc/containerd/config.toml';

export async function setUp(request: SetupRequest): Promise<FlavorSetup> {
  const { node, path, host, dir } = request;
  const args = [...(node.configArg ? ['--config', node.configArg] : []), 'config', 'dump'];
  const dump = host.command(node.command, args);
  const { stdout } = await exec(dump.file, dump.args, {
    env: { PATH: path },
    maxBuffer: 16 << 20,
    timeout: 30_000,
  });
  const derived = derivePrivateConfig(stdout, request);
  const importInto = async (archive: string) => {
    const ctr = host.onPath(join(dirname(node.command), 'ctr'), path) ?? host.onPath('ctr', path);
    if (ctr === undefined)
      throw new Error(`no ctr beside ${node.command} or on its PATH to import images into the copy`);
    const socket = layoutPaths(dir, 'containerd').socket;
    // The node's ctr opens the archive: from a pod, through this process's root.
    const args = ['-a', socket, '-n', 'k8s.io', 'images', 'import', '--snapshotter', derived.snapshotter];
    await importArchive(host.command(ctr, [...args, host.ours(archive)]));
  };
  const withReader = async <T>(use: (reader: ContainerdContentReader) => Promise<T>): Promise<T> => {
    const reader = new ContainerdContentReader(request.nodeEndpoint);
    try {
      return await use(reader);
    } finally {
      reader.close();
    }
  };
  return {
    derived,
    netnsDirs: [],
    sourceConfig: describeSource(node.configArg, (f) => existsSync(host.path(f))),
    inspectNodeImage: async (name) => {
      await withReader((reader) => imageBlobs(reader, name)).catch((e: unknown) => {
        const why = partialImageCause(stdout);
        if (e instanceof UncopyableImage && why) e.message += ` (${why})`;
        throw e;
      });
    },
    importImages: importInto,
    copyNodeImage: (names) =>
      withReader(async (reader) => {
        const archive = join(dir, 'node-image.tar');
        try {
          await writeImageArchive(reader, await imageBlobs(reader, names[0] ?? ''), names, archive);
          await importInto(archive);
        } finally {
          rmSync(archive, { force: true });
        }
      }),
  };
}

/** The node setting that keeps layers out of its content store, when it has one. */
export function partialImageCause(dump: string): string | undefined {
  const doc = TomlDoc.parse(dump);
  const images =
    doc.raw([], 'version')?.trim() === '3'
      ? ['plugins', 'io.containerd.cri.v1.images']
      : ['plugins', 'io.containerd.grpc.v1.cri', 'containerd'];
  if (doc.raw(images, 'discard_unpacked_layers')?.trim() === 'true')
    return `the node sets ${images.join('.')}.discard_unpacked_layers = true: its containerd removes layers it has unpacked`;
  const snapshotter = doc.string(images, 'snapshotter') ?? '';
  if (snapshotter !== '' && snapshotter !== 'overlayfs' && snapshotter !== 'native')
    return `the node's snapshotter "${snapshotter}" may fetch layers lazily, outside its content store`;
  return undefined;
}

/**
 * The config file the node's containerd reads, and the template k3s and RKE2 generate it from, when there
 * is one beside it (<config>.tmpl): the generated file is what containerd read, the template what to edit.
 */
export function describeSource(configArg: string | undefined, exists: (file: string) => boolean): string {
  if (configArg === undefined)
    return exists(DEFAULT_CONFIG) ? DEFAULT_CONFIG : `none (${DEFAULT_CONFIG} absent: built-in defaults)`;
  const template = `${configArg}.tmpl`;
  return exists(template) ? `${configArg} (generated from ${template})` : configArg;
}
