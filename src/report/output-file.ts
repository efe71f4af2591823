/**
 * Writing the files a user named (reports, the Sonobuoy results dir). Folders are made one level at a time:
 * Node's `mkdir(p, { recursive: true })` never returns for a path under /proc (mkdir there fails with
 * ENOENT, which it takes for a missing parent, so it makes the parent and tries again, for good). Every
 * failure becomes an OutputPathError whose message names the path and what is wrong with it.
 */
import { constants } from 'node:fs';
import { access, mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

export class OutputPathError extends Error {
  readonly code = 'ERR_OUTPUT_PATH';
  override readonly name = 'OutputPathError';
  constructor(
    readonly path: string,
    readonly why: string,
  ) {
    super(`cannot write ${path} (${why}): pass a writable path`);
  }
}

/** Makes `dir` and its missing parents; `forPath` is the output the user named, for the message. */
export async function makeOutputDir(dir: string, forPath = dir): Promise<void> {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    const kind = await kindOf(at, forPath);
    if (kind === 'folder') break;
    if (kind === 'other') throw new OutputPathError(forPath, `${at} is a file, not a folder`);
    missing.unshift(at);
    at = dirname(at);
  }
  for (const folder of missing) {
    try {
      await mkdir(folder);
    } catch (e) {
      // Another process may have made it meanwhile; anything else is the user's path.
      if (errnoOf(e) !== 'EEXIST' || (await kindOf(folder, forPath)) !== 'folder')
        throw new OutputPathError(forPath, `cannot make the folder ${folder}: ${whyNoFolder(e)}`);
    }
  }
}

/**
 * Fails as writing `path` would, without writing it: its folder is made and must be writable, and `path`
 * must not be a folder. A run checks its report paths so before it starts, not after an hour of checks.
 */
export async function checkOutputFile(path: string): Promise<void> {
  await makeOutputDir(dirname(path), path);
  if ((await kindOf(resolve(path), path)) === 'folder')
    throw new OutputPathError(path, 'it is a folder: name a file');
  try {
    await access(dirname(resolve(path)), constants.W_OK);
  } catch (e) {
    throw new OutputPathError(path, describeErrno(e));
  }
}

/** Writes `content` to `path`, making its folder first. */
export async function writeOutputFile(path: string, content: string): Promise<void> {
  await makeOutputDir(dirname(path), path);
  try {
    await writeFile(path, content, 'utf8');
  } catch (e) {
    throw new OutputPathError(
      path,
      errnoOf(e) === 'EISDIR' ? 'it is a folder: name a file' : describeErrno(e),
    );
  }
}

/** What is at `path`: a folder, something else, or nothing (the root always exists, so a walk up ends). */
async function kindOf(path: string, forPath: string): Promise<'folder' | 'other' | 'none'> {
  try {
    return (await stat(path)).isDirectory() ? 'folder' : 'other';
  } catch (e) {
    // ENOTDIR: a parent is a file; the walk up finds which one and names it.
    if (errnoOf(e) === 'ENOENT' || errnoOf(e) === 'ENOTDIR') return 'none';
    throw new OutputPathError(forPath, `cannot look at ${path}: ${describeErrno(e)}`);
  }
}

const ERRNO_WORDS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EROFS: 'a read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'over the disk quota',
  ENAMETOOLONG: 'the name is too long',
};

/** ENOENT with the parent there: a file system such as /proc that makes no folders on request. */
function whyNoFolder(e: unknown): string {
  return errnoOf(e) === 'ENOENT' ? 'this file system takes no new folders, ENOENT' : describeErrno(e);
}

function errnoOf(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? 'unknown error';
}

function describeErrno(e: unknown): string {
  const code = errnoOf(e);
  const words = ERRNO_WORDS[code];
  return words ? `${words}, ${code}` : code;
}
