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
import type { RunOutcome } from '../harness/result.js';
import { renderJson } from './json.js';

export interface TarballNode {
  node: string;
  outcome: RunOutcome;
  /** The node's results directory arrived as a tarball the aggregator kept as a file. */
  nested?: boolean;
}

export function sonobuoyTarball(
  nodes: readonly TarballNode[],
  opts: { format?: 'gnu' | 'pax' } = {},
): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'cc-sonobuoy-'));
  const put = (path: string, content: string | Buffer) => {
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
      const inner = join(dir, `inner-${n.node}`);
      mkdirSync(inner);
      for (const [name, content] of Object.entries(files)) writeFileSync(join(inner, name), content);
      const archive = join(dir, `inner-${n.node}.tar.gz`);
      execFileSync('tar', ['-czf', archive, '-C', inner, '.']);
      put(`${base}/results.tar.gz`, readFileSync(archive));
    }
    const out = join(dir, 'sonobuoy.tar.gz');
    execFileSync('tar', [`--format=${opts.format ?? 'gnu'}`, '-czf', out, '-C', join(dir, 'out'), '.']);
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
