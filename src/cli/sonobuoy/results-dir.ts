/**
 * The results handshake with Sonobuoy's worker sidecar: it polls `<results dir>/done`, and once that file
 * exists it uploads the path written in it. `done` names the results directory itself, so the sidecar tars
 * it (v0.57 pkg/worker: a directory is sent as `<dir>/results.tar.gz`) and every report reaches the
 * aggregator: the JUnit Sonobuoy judges (the plugin's `result-files: [junit.xml]`), results.json and the
 * HTML report. So every report is complete on disk before `done` appears, and `done` itself appears whole:
 * each file is written beside its name and renamed into place (a rename within one directory is atomic),
 * and `done` is the last file written.
 */
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { makeOutputDir, writeOutputFile } from '../../report/output-file.js';

export const DONE_FILE = 'done';
export const JUNIT_FILE = 'junit.xml';
export const JSON_FILE = 'results.json';
export const HTML_FILE = 'report.html';

/** The file operations used, injectable so a test can see their order. */
export interface ResultsFs {
  mkdir(path: string): Promise<void>;
  writeFile(path: string, content: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  rm(path: string): Promise<void>;
}

/** The real file system; a path that cannot be written rejects with an OutputPathError naming it. */
export const realResultsFs: ResultsFs = {
  mkdir: (path) => makeOutputDir(path),
  writeFile: writeOutputFile,
  rename,
  rm: (path) => rm(path, { force: true }),
};

export interface Reports {
  junit: string;
  /** Absent when the run never started (the JUnit then holds the reason). */
  json?: string;
  html?: string;
}

/** Writes the reports, then `done` naming the results directory's absolute path. Resolves with that path. */
export async function publishResults(dir: string, reports: Reports, fs = realResultsFs): Promise<string> {
  const absDir = resolve(dir);
  await fs.mkdir(absDir);
  // A `done` left by an earlier container of this pod must not announce this run's half-written files.
  await fs.rm(join(absDir, DONE_FILE));
  await writeAtomically(fs, join(absDir, JUNIT_FILE), reports.junit);
  if (reports.json !== undefined) await writeAtomically(fs, join(absDir, JSON_FILE), reports.json);
  if (reports.html !== undefined) await writeAtomically(fs, join(absDir, HTML_FILE), reports.html);
  await writeAtomically(fs, join(absDir, DONE_FILE), absDir);
  return absDir;
}

async function writeAtomically(fs: ResultsFs, path: string, content: string): Promise<void> {
  // A dot name: the sidecar tars a directory as it finds it, and this name says "not a result".
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  await fs.writeFile(tmp, content);
  await fs.rename(tmp, path);
}
