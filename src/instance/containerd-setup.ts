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
import { imageBlobs, writeImageArchive } from './containerd-image-copy.js';
import type { FlavorSetup, SetupRequest } from './flavor-setup.js';
import { importArchive } from './images.js';
import { layoutPaths } from './layout.js';

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
      await withReader((reader) => imageBlobs(reader, name));
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
