/**
 * The cri-conform runs inside a Sonobuoy results tarball (`sonobuoy retrieve`). Sonobuoy's aggregator
 * stores what a DaemonSet plugin's worker uploads under `plugins/<plugin>/results/<node>/`: a single
 * file as it came, and a gzipped tarball (a results directory the worker packed, or one the plugin packed
 * and named in its done file) unpacked in place. So a node's results.json is either right in that
 * directory or inside an archive there; both are read. Nodes whose upload failed are under
 * `plugins/<plugin>/errors/<node>/` and are reported as such.
 */
import type { RunOutcome } from '../harness/check/result.js';
import { parseResults, ResultsFileError } from './read-results.js';
import { readTar, type TarFile } from './tar.js';

export interface NodeRun {
  plugin: string;
  node: string;
  outcome: RunOutcome;
}

export interface NodeWithoutResults {
  plugin: string;
  node: string;
  why: string;
}

export interface SonobuoyRuns {
  runs: NodeRun[];
  /** Nodes of a plugin that reported cri-conform results elsewhere in the tarball, but not here. */
  missing: NodeWithoutResults[];
}

const RESULTS_JSON = 'results.json';
const NODE_FILE = /(?:^|\/)plugins\/([^/]+)\/(results|errors)\/([^/]+)\/(.+)$/;
const ARCHIVE = /\.(tar\.gz|tgz|tar)$/;

export function sonobuoyRuns(files: readonly TarFile[], source: string): SonobuoyRuns {
  const nodes = new Map<string, { plugin: string; node: string; errors: boolean; files: TarFile[] }>();
  for (const f of files) {
    const m = NODE_FILE.exec(f.path);
    if (!m) continue;
    const [, plugin = '', kind, node = '', rest = ''] = m;
    const key = `${plugin}\0${node}`;
    const entry = nodes.get(key) ?? { plugin, node, errors: false, files: [] };
    if (kind === 'errors') entry.errors = true;
    else entry.files.push({ path: rest, data: f.data });
    nodes.set(key, entry);
  }
  const runs: NodeRun[] = [];
  const missing: NodeWithoutResults[] = [];
  for (const n of nodes.values()) {
    const json = resultsJsonOf(n.files, `${source}: ${n.plugin}/${n.node}`);
    if (json) runs.push({ plugin: n.plugin, node: n.node, outcome: json });
    else
      missing.push({
        plugin: n.plugin,
        node: n.node,
        why: n.errors ? 'Sonobuoy recorded an error for this node' : 'no results.json',
      });
  }
  // Other plugins (e2e, systemd-logs) share the tarball; only those that wrote cri-conform results count.
  const ours = new Set(runs.map((r) => r.plugin));
  return {
    runs: runs.sort((a, b) => a.node.localeCompare(b.node)),
    missing: missing.filter((m) => ours.has(m.plugin)).sort((a, b) => a.node.localeCompare(b.node)),
  };
}

function resultsJsonOf(files: readonly TarFile[], source: string): RunOutcome | undefined {
  const direct = files.find((f) => basename(f.path) === RESULTS_JSON);
  if (direct) return parsed(direct.data, source);
  for (const archive of files.filter((f) => ARCHIVE.test(f.path))) {
    const inner = readTar(archive.data).find((f) => basename(f.path) === RESULTS_JSON);
    if (inner) return parsed(inner.data, `${source}/${archive.path}`);
  }
  return undefined;
}

function parsed(data: Buffer, source: string): RunOutcome | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(data.toString('utf8'));
  } catch {
    return undefined;
  }
  try {
    return parseResults(doc, source);
  } catch (e) {
    // Another plugin's results.json is not ours; that is not an error of the tarball.
    if (e instanceof ResultsFileError) return undefined;
    throw e;
  }
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
