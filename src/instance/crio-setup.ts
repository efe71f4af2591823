/**
 * The CRI-O side of a private instance: the node's effective config from its own binary with its own
 * flags and environment (`crio <flags> config`, and `config --default` for what that leaves out), images
 * through skopeo into the copy's containers-storage, with the node's storage driver and options.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { crioConfigSources, deriveCrioConfig } from './crio-config.js';
import type { FlavorSetup, SetupRequest } from './flavor-setup.js';
import { BUNDLED_IMAGES } from './images.js';

const exec = promisify(execFile);

export async function setUp(request: SetupRequest): Promise<FlavorSetup> {
  const { node, path, host } = request;
  const print = async (extra: string[]) => {
    const cmd = host.command(node.binary, [...node.argv.slice(1), 'config', ...extra]);
    const options = {
      cwd: `/proc/${node.pid}/cwd`,
      env: { ...node.environ, PATH: path },
      maxBuffer: 16 << 20,
      timeout: 30_000,
    };
    return (await exec(cmd.file, cmd.args, options)).stdout;
  };
  const [effective, defaults] = await Promise.all([print([]), print(['--default'])]);
  const derived = deriveCrioConfig(effective, defaults, request);
  return {
    derived,
    sourceConfig: crioConfigSources(node.argv, node.environ),
    importImages: async (archive) => {
      const skopeo = host.onPath('skopeo', path);
      if (skopeo === undefined)
        throw new Error(`no skopeo on the node's PATH (${path}) to import the bundled images`);
      const { driver, root, runroot, options } = derived.storage;
      const store = `[${driver ? `${driver}@` : ''}${root}+${runroot}${options.length > 0 ? `:${options.join(',')}` : ''}]`;
      for (const ref of BUNDLED_IMAGES) {
        // Our own archive, copied locally: the host's signature policy has no say. From a pod the node's
        // skopeo opens it through this process's root.
        const copy = host.command(skopeo, [
          '--insecure-policy',
          'copy',
          '--quiet',
          `oci-archive:${host.ours(archive)}:${ref}`,
          `containers-storage:${store}${ref}`,
        ]);
        await exec(copy.file, copy.args, { timeout: 120_000 });
      }
    },
  };
}
