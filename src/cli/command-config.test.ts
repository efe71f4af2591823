/**
 * What run and doctor check before they reach the runtime. The endpoint here does not exist, so a command
 * that got past these checks would fail on it instead, with another message.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { expectUsageFailure } from './usage-failure.test.helper.js';

const entry = (id: string) =>
  [
    `- id: ${id}`,
    '  runtime: containerd',
    '  versions: ">=1.7.0"',
    '  message: x',
    '  reason: y',
    '  link: https://example.com/issues/1',
    '',
  ].join('\n');

describe('an --expected-deviations entry that names no check', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cc-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** `doctor` with a deviations file holding `entries`, against a socket that does not exist. */
  function doctorWith(...entries: string[]): string[] {
    const file = join(dir, 'devs.yaml');
    writeFileSync(file, entries.join(''));
    const endpoint = `unix://${join(dir, 'absent.sock')}`;
    return ['doctor', '--config', '/dev/null', '-r', endpoint, '--expected-deviations', file];
  }

  it('is rejected with the nearest check ID when it looks like a typo', async () => {
    const line = await expectUsageFailure(
      doctorWith(entry('TEAR-05'), entry('TAER-05')),
      /devs\.yaml entry 2: id TAER-05 names no check/,
    );
    expect(line).to.contain('did you mean TEAR-05?');
  });

  it('is rejected with the ID prefixes when no check is near', async () => {
    const line = await expectUsageFailure(doctorWith(entry('NOPE-99')), /entry 1: id NOPE-99 names no check/);
    expect(line)
      .to.match(/IDEM, NAME, HOOK or TEAR/)
      .and.to.contain('cri-conform list');
  });
});
