import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { ENDED_BY_RUNTIME_CLAUSE } from '../src/harness/face.js';
import { ALL_CHECKS } from './index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const catalogue = resolve(root, '../shared/checks.md');

describe('the check catalogue', () => {
  it('has unique IDs of the form ABCD-NN', () => {
    const ids = ALL_CHECKS.map((c) => c.id);
    expect(new Set(ids).size).to.equal(ids.length);
    for (const id of ids) expect(id).to.match(/^[A-Z]{3,5}-\d{2}$/);
  });

  it('keeps each check in a file named after its lower-cased ID', () => {
    for (const c of ALL_CHECKS) {
      expect(existsSync(join(root, 'suites', c.suite, `${c.id.toLowerCase()}.ts`)), `${c.id}`).to.equal(true);
    }
  });

  // The project's catalogue is docs/checks.md, generated from the checks (src/cli/catalogue-text.test.ts).
  // Where the design spec sits beside the clone (the maintainers' workspace), the checks are also held to
  // it; a clone has no such file and so no such test, rather than a skip naming a path it never had.
  (existsSync(catalogue) ? it : () => undefined)(
    'lists every check of the design spec with its level and tags',
    () => {
      const rows = [
        ...readFileSync(catalogue, 'utf8').matchAll(
          /^\| ([A-Z]+-\d{2}) \| (MUST|SHOULD|OBSERVE) \| (.*) \|$/gm,
        ),
      ];
      for (const [, id, level, text] of rows) {
        const c = ALL_CHECKS.find((x) => x.id === id);
        expect(c, `${id} is not implemented`).to.not.equal(undefined);
        expect(c?.level, `${id} level`).to.equal(level);
        for (const tag of ['Slow', 'Node', 'Restart'] as const) {
          expect(c?.tags.includes(tag), `${id} tag [${tag}]`).to.equal((text ?? '').includes(`[${tag}]`));
        }
      }
    },
  );

  /** The check:clause targets of fixtures/MUTATIONS.md's rows (collateral notes in parentheses left out). */
  const targets = () =>
    [
      ...readFileSync(join(root, 'fixtures/MUTATIONS.md'), 'utf8').matchAll(
        /^\| [a-z0-9-]+ \|[^|]+\|([^|]+)\|$/gm,
      ),
    ]
      .map((m) => (m[1] ?? '').replace(/\([^)]*\)/g, ''))
      .map((kills) =>
        [...kills.matchAll(/\b([A-Z]+-\d{2}):([a-z][a-z0-9-]*)/g)].map((t) => `${t[1]}:${t[2]}`),
      );

  it('names, for every clause of every MUST and SHOULD check, [Node] included, a mutation that must fire it', () => {
    const named = new Set(targets().flat());
    const unproven = ALL_CHECKS.filter((c) => c.level !== 'OBSERVE').flatMap((c) =>
      Object.keys(c.clauses)
        .map((clause) => `${c.id}:${clause}`)
        .filter((k) => !named.has(k)),
    );
    expect(unproven).to.deep.equal([]);
  });

  it('gives every MUST and SHOULD check clauses, OBSERVE checks none, and names only declared ones in the table', () => {
    for (const c of ALL_CHECKS) {
      expect(Object.keys(c.clauses).length > 0, `${c.id} clauses`).to.equal(c.level !== 'OBSERVE');
    }
    // Every check's contract also has the harness's clause that the runtime ends nothing only it knows.
    const declared = new Set(
      ALL_CHECKS.flatMap((c) =>
        [...Object.keys(c.clauses), ENDED_BY_RUNTIME_CLAUSE].map((k) => `${c.id}:${k}`),
      ),
    );
    expect(
      targets()
        .flat()
        .filter((k) => !declared.has(k)),
    ).to.deep.equal([]);
    // One run of a mutant can fail a check through one clause only: a row names each check once.
    const twice = targets().flatMap((row) =>
      row.filter((k, i) => row.findIndex((o) => o.split(':')[0] === k.split(':')[0]) !== i),
    );
    expect(twice).to.deep.equal([]);
  });

  it('cites a contract source and states the assertion as its title', () => {
    for (const c of ALL_CHECKS) {
      expect(c.contract.length, `${c.id} contract`).to.be.greaterThan(10);
      expect(c.title.length, `${c.id} title`).to.be.greaterThan(10);
    }
  });
});
