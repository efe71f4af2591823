/**
 * The inputs of `cri-conform report`: results.json files, and Sonobuoy results tarballs whose nodes each
 * hold one. Every run becomes a MatrixRun; a tarball's runs are named after their node directories.
 */
import { readFile } from 'node:fs/promises';
import type { RunOutcome } from '../harness/check/result.js';
import type { MatrixRun } from '../report/matrix.js';
import { UsageError } from './errors.js';

export interface ReportInputs {
  runs: MatrixRun[];
  /** Lines for the reader: nodes of a tarball that had no results. */
  notes: string[];
  /** True when a tarball was among the inputs: the output is a matrix even for one node. */
  fromTarball: boolean;
}

export async function readReportInputs(files: readonly string[]): Promise<ReportInputs> {
  const out: ReportInputs = { runs: [], notes: [], fromTarball: false };
  for (const file of files) {
    const bytes = await readBytes(file);
    const { isGzip, isTar } = await import('../report/tar.js');
    if (!isGzip(bytes) && !isTar(bytes)) {
      const outcome = await readResults(file);
      out.runs.push({ outcome, node: outcome.properties.node ?? 'unknown', source: file });
      continue;
    }
    out.fromTarball = true;
    const found = await tarballRuns(file, bytes);
    if (found.runs.length === 0)
      throw new UsageError(
        `${file} holds no cri-conform results.json under plugins/<plugin>/results/<node>/: pass the tarball of \`sonobuoy retrieve\` after a cri-conform plugin run`,
      );
    out.runs.push(
      ...found.runs.map((r) => ({ outcome: r.outcome, node: r.node, source: `${file}: ${r.node}` })),
    );
    out.notes.push(
      ...found.missing.map((m) => `${file}: node ${m.node} has no cri-conform results (${m.why})`),
    );
  }
  return out;
}

async function readBytes(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`cannot read ${file} (${code}): pass a results.json or a Sonobuoy results tarball`);
  }
}

async function tarballRuns(file: string, bytes: Buffer) {
  const [{ readTar, TarError }, { sonobuoyRuns }] = await Promise.all([
    import('../report/tar.js'),
    import('../report/sonobuoy-results.js'),
  ]);
  try {
    return sonobuoyRuns(readTar(bytes), file);
  } catch (e) {
    if (e instanceof TarError) throw new UsageError(`${file}: ${e.message}: pass a Sonobuoy results tarball`);
    throw e;
  }
}

/** A results file, or a UsageError naming what is wrong with it. */
export async function readResults(file: string): Promise<RunOutcome> {
  const { readResultsFile, ResultsFileError } = await import('../report/read-results.js');
  try {
    return await readResultsFile(file);
  } catch (e) {
    if (e instanceof ResultsFileError) throw new UsageError(e.message);
    throw e;
  }
}
