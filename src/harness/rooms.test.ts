/**
 * The harness's rooms (docs/architecture.md): each sub-folder of src/harness holds one concern, and the two
 * top-level modules are doors (face.ts for suites, runtime-instance.ts for src/instance). A room imports only
 * what stands below it in ROOMS_BOTTOM_UP, so no two rooms import each other and no cycle runs between
 * them. Each room's README.md says which rooms it may import, and the map in docs/architecture.md draws the
 * arrows the code has: both are held to the imports here. Tests and their helpers may reach into any room.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { packageRoot } from '../cri/package-root.js';

/** Lowest first. A room may import the rooms before it, never one after it. */
const ROOMS_BOTTOM_UP: readonly string[] = [
  'core',
  'host',
  'runtime-instance.ts',
  'neighbours',
  'check',
  'deviations',
  'injectors',
  'runtime',
  'readiness',
  'run',
  'face.ts',
];

const harnessDir = join(packageRoot(), 'src', 'harness');
const isTest = (path: string) => /\.test(\.helper)?\.ts$/.test(path);

/** Every .ts file under src/harness, as a path relative to it. */
function harnessFiles(dir = ''): string[] {
  return readdirSync(join(harnessDir, dir)).flatMap((name) => {
    const path = posix.join(dir, name);
    if (statSync(join(harnessDir, path)).isDirectory()) return harnessFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The room a harness path belongs to: its first folder, or the file itself at the top level. */
const roomOf = (path: string) => path.split('/')[0] ?? path;

interface Arrow {
  from: string;
  to: string;
}

/** Each import of one harness module by another (tests left out), as paths relative to src/harness. */
function harnessImports(): Arrow[] {
  return harnessFiles()
    .filter((file) => !isTest(file))
    .flatMap((file) =>
      ts
        .preProcessFile(readFileSync(join(harnessDir, file), 'utf8'), true, true)
        .importedFiles.map((ref) => ref.fileName)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, '.ts'))
        .filter((target) => !target.startsWith('../'))
        .map((to) => ({ from: file, to })),
    );
}

/** room -> the rooms it imports, from the code. */
function roomArrows(): Map<string, Set<string>> {
  const arrows = new Map<string, Set<string>>();
  for (const { from, to } of harnessImports()) {
    if (roomOf(from) === roomOf(to)) continue;
    const targets = arrows.get(roomOf(from)) ?? new Set<string>();
    targets.add(roomOf(to));
    arrows.set(roomOf(from), targets);
  }
  return arrows;
}

const sorted = (rooms: Iterable<string>) =>
  [...rooms].sort((a, b) => ROOMS_BOTTOM_UP.indexOf(a) - ROOMS_BOTTOM_UP.indexOf(b));

/** The rooms a room's README.md says it may import: its "May import:" line ("nothing" for none). */
function declaredImports(room: string): string[] {
  const text = readFileSync(join(harnessDir, room, 'README.md'), 'utf8');
  const line = /^May import: (.*)$/m.exec(text)?.[1];
  if (line === undefined) throw new Error(`src/harness/${room}/README.md has no "May import:" line`);
  return line === 'nothing' ? [] : line.replace(/\.$/, '').split(/,\s*/);
}

describe('the rooms of src/harness', () => {
  it('puts every module in a room of ROOMS_BOTTOM_UP and keeps only the doors at the top level', () => {
    const strays = harnessFiles().filter((f) => !isTest(f) && !ROOMS_BOTTOM_UP.includes(roomOf(f)));
    expect(strays, 'modules outside every room: put each in one, or name a new room').to.deep.equal([]);
    const missing = ROOMS_BOTTOM_UP.filter((room) => !harnessFiles().some((f) => roomOf(f) === room));
    expect(missing, 'rooms that hold nothing').to.deep.equal([]);
  });

  it('has every import between rooms point to a lower room', () => {
    const upward = harnessImports()
      .filter(({ from, to }) => ROOMS_BOTTOM_UP.indexOf(roomOf(to)) > ROOMS_BOTTOM_UP.indexOf(roomOf(from)))
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(upward, 'imports from a lower room to a higher one').to.deep.equal([]);
  });

  it('has each room README name every room its modules import, and only lower ones', () => {
    const arrows = roomArrows();
    for (const room of ROOMS_BOTTOM_UP.filter((r) => !r.endsWith('.ts'))) {
      const declared = declaredImports(room);
      const below = ROOMS_BOTTOM_UP.slice(0, ROOMS_BOTTOM_UP.indexOf(room));
      expect(
        declared.filter((r) => !below.includes(r)),
        `${room}/README.md names rooms not below it`,
      ).to.deep.equal([]);
      const undeclared = sorted(arrows.get(room) ?? []).filter((r) => !declared.includes(r));
      expect(undeclared, `${room}/README.md "May import:" leaves out rooms it imports`).to.deep.equal([]);
    }
  });

  it('has docs/architecture.md draw exactly the arrows the code has', () => {
    const doc = readFileSync(join(packageRoot(), 'docs', 'architecture.md'), 'utf8');
    const block = /```text\n(# arrows[^\n]*\n[\s\S]*?)```/.exec(doc)?.[1];
    const arrows = roomArrows();
    const drawn = ROOMS_BOTTOM_UP.slice()
      .reverse()
      .map((room) => `${room.padEnd(19)} -> ${sorted(arrows.get(room) ?? []).join(', ') || '(nothing)'}`);
    expect(
      block?.split('\n').slice(1).filter(Boolean),
      'the arrows block of docs/architecture.md',
    ).to.deep.equal(drawn);
  });
});
