/** The containerd side of a private instance: `containerd config dump` in, images through the node's ctr. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { derivePrivateConfig } from './containerd-config.js';
import type { FlavorSetup, SetupRequest } from './flavor-setup.js';
import { importArchive } from './images.js';
import { layoutPaths } from './layout.js';

const exec = promisify(execFile);
const DEFAULT_CONFIG = '/etc/containerd/config.toml';

export async function setUp(request: SetupRequest): Promise<FlavorSetup> {
  const { node, path, host, dir } = request;
  const args = [...(node.configArg ? ['--config', node.configArg] : []), 'config', 'dump'];
  const dump = host.command(node.binary, args);
  const { stdout } = await exec(dump.file, dump.args, {
    env: { PATH: path },
    maxBuffer: 16 << 20,
    timeout: 30_000,
  });
  return {
    derived: derivePrivateConfig(stdout, request),
    sourceConfig:
      node.configArg ??
      (existsSync(host.path(DEFAULT_CONFIG))
        ? DEFAULT_CONFIG
        : `none (${DEFAULT_CONFIG} absent: built-in defaults)`),
    importImages: async (archive) => {
      const ctr = host.onPath(join(dirname(node.binary), 'ctr'), path) ?? host.onPath('ctr', path);
      if (ctr === undefined)
        throw new Error(`no ctr beside ${node.binary} or on its PATH to import the bundled images`);
      const socket = layoutPaths(dir, 'containerd').socket;
      // The node's ctr opens the archive: from a pod, through this process's root.
      await importArchive(
        host.command(ctr, ['-a', socket, '-n', 'k8s.io', 'images', 'import', host.ours(archive)]),
      );
    },
  };
}
