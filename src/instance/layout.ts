/**
 * Paths inside a private instance's directory, and the daemon's command line; the config derivations,
 * the daemon, the network and the removal agree on them. The daemon's own files carry its flavor's name
 * (containerd.sock, crio.sock), so that a look into the directory says what ran there.
 */
import { join } from 'node:path';

export type Flavor = 'containerd' | 'crio';

/** The copy's own snapshotter (containerd) or storage driver (CRI-O): overlay, else the plain copying one. */
export type PrivateStorage = 'overlay' | 'plain';

export function layoutPaths(dir: string, flavor: Flavor = 'containerd') {
  return {
    socket: join(dir, `${flavor}.sock`),
    ttrpc: join(dir, 'containerd.sock.ttrpc'),
    pidFile: join(dir, `${flavor}.pid`),
    log: join(dir, `${flavor}.log`),
    nriSocket: join(dir, 'nri.sock'),
    root: join(dir, 'root'),
    state: join(dir, 'state'),
    runcRoot: join(dir, 'runc'),
    cniConf: join(dir, 'cni'),
    cniBin: join(dir, 'cni-bin'),
    cniIpam: join(dir, 'cni-ipam'),
    slowRuntime: join(dir, 'slow-runtime'),
    slowCni: join(dir, 'slow-cni'),
    nriPlugins: join(dir, 'nri-plugins'),
    nriConf: join(dir, 'nri-conf'),
    config: join(dir, 'config.toml'),
    /** CRI-O's drop-in directory, empty: the node's drop-ins are already folded into config.toml. */
    configDir: join(dir, 'crio.conf.d'),
  };
}

/** The daemon's arguments: the private config only, never the node's files. */
export function daemonArgs(dir: string, flavor: Flavor): string[] {
  const p = layoutPaths(dir, flavor);
  return flavor === 'crio' ? ['--config', p.config, '--config-dir', p.configDir] : ['--config', p.config];
}
