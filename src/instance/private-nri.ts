/**
 * The NRI settings of every private instance, whatever the flavor calls them: NRI on and open to external
 * plugins, on the instance's own socket, with empty plugin directories (the node's pre-installed plugins
 * are not started by the copy) and the node's timeouts.
 */
import { tomlString } from './toml-doc.js';

/** The flavor's names of the settings. */
export interface NriKeys {
  /** The key and raw value that turn NRI on (`disable = false`, `enable_nri = true`). */
  on: [string, string];
  disableConnections: string;
  socket: string;
  pluginDir: string;
  pluginConfigDir: string;
  requestTimeout: string;
  registrationTimeout: string;
}

export interface PrivateNri {
  /** The node's timeouts, as Go durations. */
  nri: { requestTimeout: string; registrationTimeout: string };
  /** Key and raw TOML value of each setting the copy holds. */
  settings: Array<[string, string]>;
}

export function privateNri(
  keys: NriKeys,
  nodeValue: (key: string) => string | undefined,
  paths: { nriSocket: string; nriPlugins: string; nriConf: string },
): PrivateNri {
  const nri = {
    requestTimeout: nodeValue(keys.requestTimeout) ?? '2s',
    registrationTimeout: nodeValue(keys.registrationTimeout) ?? '5s',
  };
  return {
    nri,
    settings: [
      keys.on,
      [keys.disableConnections, 'false'],
      [keys.socket, tomlString(paths.nriSocket)],
      [keys.pluginDir, tomlString(paths.nriPlugins)],
      [keys.pluginConfigDir, tomlString(paths.nriConf)],
      [keys.requestTimeout, tomlString(nri.requestTimeout)],
      [keys.registrationTimeout, tomlString(nri.registrationTimeout)],
    ],
  };
}
