/**
 * The lint rules that keep the layers apart must really fire. Each case writes a small tree that breaks one
 * rule into a temp folder, lints it with the project's own biome.json, and expects that rule's diagnostic.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { findPackageRoot } from '../src/nri/package-root.js';

const root = findPackageRoot(import.meta.url);

/** Lints `files` (path -> source) under the project's rules; returns biome's report. */
function lintTree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cc-lint-'));
  try {
    const config = JSON.parse(readFileSync(join(root, 'biome.json'), 'utf8')) as Record<string, unknown>;
    delete config.$schema;
    delete config.vcs;
    delete config.files;
    writeFileSync(join(dir, 'biome.json'), JSON.stringify(config));
    for (const [path, source] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), source);
    }
    try {
      execFileSync(join(root, 'node_modules/.bin/biome'), ['lint', '--colors=off', '.'], {
        cwd: dir,
        encoding: 'utf8',
        stdio: 'pipe',
      });
      return '';
    } catch (e) {
      const { stdout = '', stderr = '' } = e as { stdout?: string; stderr?: string };
      return `${stdout}${stderr}`;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('layer rules in biome.json', function () {
  this.timeout(30_000);

  it('reports an import cycle made only of type imports', () => {
    const report = lintTree({
      'src/harness/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
      'src/harness/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
    });
    expect(report).to.contain('noImportCycles');
  });

  it('stops a suite from importing another suite', () => {
    const report = lintTree({
      'suites/hooks/helper.ts': 'export const helper = 1;\n',
      'suites/names/check.ts': "import { helper } from '../hooks/helper.js';\nexport const used = helper;\n",
    });
    expect(report).to.contain('suites never import each other');
  });

  it('stops a suite from reaching past the face module into the harness', () => {
    const report = lintTree({
      'src/harness/context.ts': 'export interface Inner { x: number }\n',
      'src/harness/face.ts': "export type { Inner } from './context.js';\n",
      'suites/names/check.ts':
        "import type { Inner } from '../../src/harness/context.js';\nexport type Used = Inner;\n",
      'suites/names/fine.ts':
        "import type { Inner } from '../../src/harness/face.js';\nexport type Ok = Inner;\n",
    });
    expect(report).to.contain('src/harness/face.ts only');
    expect(report).not.to.match(/fine\.ts/);
  });
});
