/**
 * The CRI-O side of a private instance: the node's effective config from its own binary with its own
 * flags and environment (`crio <flags> config`, and `config --default` for what that leaves out), images
 * through skopeo into the copy's containers-storage: the bundled ones from their archive, the node's from
 * the node's own store (read only: skopeo copies out of it).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crioConfigSources, crioPaths, deriveCrioConfig, type StoreSpec } from './crio-config.js';
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
  const copy = async (from: string, to: string) => {
    const skopeo = host.onPath('skopeo', path);
    if (skopeo === undefined)
      throw new Error(`no skopeo on the node's PATH (${path}) to copy images into the copy's store`);
    const cmd = host.command(skopeo, skopeoCopyArgs(from, to));
    await exec(cmd.file, cmd.args, { timeout: 600_000 });
  };
  return {
    derived,
    sourceConfig: crioConfigSources(node.argv, node.environ),
    // CRI-O pins each pod's netns under its namespaces_dir, which the copy keeps in its own folder.
    netnsDirs: [join(crioPaths(request.dir).namespaces, 'netns')],
    // containers-storage holds whole layers or none: whatever ImageStatus lists can be copied.
    inspectNodeImage: async () => undefined,
    importImages: async (archive) => {
      // Our own archive: from a pod the node's skopeo opens it through this process's root.
      for (const ref of BUNDLED_IMAGES)
        await copy(`oci-archive:${host.ours(archive)}:${ref}`, storeRef(derived.storage, ref));
    },
    copyNodeImage: async (names) => {
      for (const name of names)
        await copy(storeRef(derived.nodeStorage, name), storeRef(derived.storage, name));
    },
  };
}

/**
 * skopeo's arguments for one local copy. The source is our archive or the node's store, never a registry,
 * so the host's signature policy has no say (--insecure-policy).
 */
export function skopeoCopyArgs(from: string, to: string): string[] {
  return ['--insecure-policy', 'copy', '--quiet', from, to];
}

/** `containers-storage:[driver@root+runroot:options]name`, as skopeo names an image in a given store. */
export function storeRef(store: StoreSpec, name: string): string {
  const driver = store.driver ? `${store.driver}@` : '';
  const options = store.options.length > 0 ? `:${store.options.join(',')}` : '';
  return `containers-storage:[${driver}${store.root}+${store.runroot}${options}]${name}`;
}
