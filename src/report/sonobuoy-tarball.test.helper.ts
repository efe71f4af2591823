/**
 * A Sonobuoy results tarball as `sonobuoy retrieve` gives it, built with the system tar: the aggregator's
 * layout (vmware-tanzu/sonobuoy pkg/plugin/aggregation/aggregator.go: a DaemonSet plugin's upload lands in
 * plugins/<plugin>/results/<node>/, a gzipped one unpacked there; a failed node under errors/<node>/),
 * beside another plugin's results and the run's meta files.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { RunOutcome } from '../harness/check/result.js';
import { renderJson } from './json.js';

export interface TarballNode {
  node: string;
  outcome: RunOutcome;
  /** The node's results directory arrived as a tarball the aggregator kept as a file. */
  nested?: boolean;
}

type Put = (path: string, content: string | Buffer) => void;

export function sonobuoyTarball(
  nodes: readonly TarballNode[],
  opts: { format?: 'gnu' | 'pax' } = {},
): Buffer {
  return retrieveTarball(opts.format ?? 'gnu', (put, scratch) => {
    for (const n of nodes) {
      const files = {
        'junit.xml': '<testsuites/>',
        'results.json': renderJson(n.outcome),
        'report.html': '<html>',
      };
      const base = `plugins/cri-conform/results/${n.node}`;
      if (!n.nested) {
        for (const [name, content] of Object.entries(files)) put(`${base}/${name}`, content);
        continue;
      }
      const inner = join(scratch, `inner-${n.node}`);
      mkdirSync(inner);
      for (const [name, content] of Object.entries(files)) writeFileSync(join(inner, name), content);
      put(`${base}/results.tar.gz`, packDir(inner, join(scratch, `inner-${n.node}.tar.gz`)));
    }
  });
}

/**
 * What `sonobuoy retrieve` holds after a worker pod wrote `resultsDir` and named it in done: the sidecar
 * packs the directory into a gzipped tarball (pkg/worker handleWaitFile) and the aggregator unpacks that
 * into the node's results directory (DecodeTarball).
 */
export function sonobuoyTarballOfDir(node: string, resultsDir: string): Buffer {
  return retrieveTarball('gnu', (_put, scratch) => {
    const upload = packDir(resultsDir, join(scratch, 'results.tar.gz'));
    const nodeDir = join(scratch, 'out', `plugins/cri-conform/results/${node}`);
    mkdirSync(nodeDir, { recursive: true });
    writeFileSync(join(scratch, 'upload.tar.gz'), upload);
    execFileSync('tar', ['-xzf', join(scratch, 'upload.tar.gz'), '-C', nodeDir]);
  });
}

function packDir(dir: string, archive: string, format: 'gnu' | 'pax' = 'gnu'): Buffer {
  execFileSync('tar', [`--format=${format}`, '-czf', archive, '-C', dir, '.']);
  return readFileSync(archive);
}

/** The run's meta files, another plugin's results and a node that failed, around what `fill` adds. */
function retrieveTarball(format: 'gnu' | 'pax', fill: (put: Put, scratch: string) => void): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'cc-sonobuoy-'));
  const put: Put = (path, content) => {
    mkdirSync(dirname(join(dir, 'out', path)), { recursive: true });
    writeFileSync(join(dir, 'out', path), content);
  };
  try {
    put('meta/config.json', '{"UUID":"dfe30ebc-f635-42f4-9608-8abcd6311916"}');
    put('plugins/cri-conform/definition.json', '{"name":"cri-conform"}');
    put('plugins/cri-conform/sonobuoy_results.yaml', 'name: cri-conform\nstatus: failed\n');
    put('plugins/e2e/results/global/junit.xml', '<testsuites/>');
    put('plugins/e2e/results/global/results.json', '{"not":"ours"}');
    put('plugins/cri-conform/errors/node-gone/error.json', '{"error":"No results received in time"}');
    fill(put, dir);
    return packDir(join(dir, 'out'), join(dir, 'sonobuoy.tar.gz'), format);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
