import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { readConfigFile } from './config-file.js';
import { UsageError } from './errors.js';
import { main } from './main.js';
import { closestName } from './suggest.js';
import { recordingIo } from './test-io.test.helper.js';

describe('the config file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('rejects an unknown key with one line, exit 2, naming the closest valid key', async () => {
    const path = file('typo.yaml', 'runtime-endpont: unix:///run/containerd/containerd.sock\n');
    const io = recordingIo();
    expect(await main(['node', 'cri-conform', 'run', '--config', path], io)).to.equal(2);
    expect(io.stderr()).to.equal(
      `cri-conform: --config ${path}: unknown key "runtime-endpont"; did you mean "runtime-endpoint"?\n`,
    );
  });

  it('suggests the closest key for a misspelt long flag of run too', () => {
    const path = file('flag.yaml', 'nri-sokcet: /var/run/nri/nri.sock\n');
    expect(() => readConfigFile(path, true))
      .to.throw(UsageError)
      .with.property('message')
      .that.matches(/unknown key "nri-sokcet"; did you mean "nri-socket"\?$/);
  });

  it('names where the valid keys are listed when nothing is close', () => {
    const path = file('far.yaml', 'colour-scheme: dark\n');
    expect(() => readConfigFile(path, true)).to.throw(/unknown key "colour-scheme"; valid keys are crictl's/);
  });

  it("accepts every key crictl reads from /etc/crictl.yaml, since the file is crictl's too", () => {
    const path = file(
      'crictl.yaml',
      [
        'runtime-endpoint: unix:///run/containerd/containerd.sock',
        'image-endpoint: unix:///run/containerd/containerd.sock',
        'timeout: 10',
        'debug: false',
        'pull-image-on-create: false',
        'disable-pull-on-run: false',
        'max-retries: 3',
        'enable-streaming: false',
      ].join('\n'),
    );
    expect(readConfigFile(path, true)).to.include({ timeout: '10', debug: false, 'max-retries': '3' });
  });

  it("accepts run's long flags by name, and check-timeout for run's --timeout", () => {
    const path = file('run.yaml', 'nri-socket: /n.sock\ntrials: 10\ncheck-timeout: 2m\nslow: true\n');
    expect(readConfigFile(path, true)).to.deep.equal({
      'nri-socket': '/n.sock',
      trials: '10',
      'check-timeout': '2m',
      slow: true,
    });
  });

  it('refuses a value of the wrong kind rather than dropping it for a default without a word', () => {
    for (const [text, why] of [
      ['runtime-endpoint: true\n', '"runtime-endpoint" must be one string or number'],
      ['focus: [IDEM-01]\n', '"focus" must be one string or number'],
      ['isolated: yes\n', '"isolated" must be true or false'],
      ['slow: 1\n', '"slow" must be true or false'],
    ] as const) {
      const path = file('kind.yaml', text);
      expect(() => readConfigFile(path, true), text).to.throw(UsageError, why);
    }
    const path = file('kinds.yaml', 'suite: [hooks, names]\nisolated: "true"\nslow: false\n');
    expect(readConfigFile(path, true)).to.deep.equal({
      suite: ['hooks', 'names'],
      isolated: true,
      slow: false,
    });
  });

  it('says that a flag of the command line only cannot be set in the file', () => {
    const path = file('html.yaml', 'html: out/r.html\n');
    expect(() => readConfigFile(path, true)).to.throw(
      UsageError,
      `"html" is a flag of the command line only (--html); a config file cannot set it`,
    );
  });

  it('describes bad YAML in one sentence with its position, without the parser excerpt', () => {
    const path = file('bad.yaml', 'a: [unclosed');
    let message = '';
    try {
      readConfigFile(path, true);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).to.match(/^--config .* is not valid YAML: .* \(line 1, column \d+\); fix the file/);
    expect(message).to.not.match(/:$/);
    expect(message).to.not.include('\n');
  });
});

describe('closestName', () => {
  const keys = ['runtime-endpoint', 'image-endpoint', 'timeout', 'trials'];

  it('finds a transposition, an omission and an extra letter', () => {
    expect(closestName('tiemout', keys)).to.equal('timeout');
    expect(closestName('runtime-endpont', keys)).to.equal('runtime-endpoint');
    expect(closestName('triails', keys)).to.equal('trials');
  });

  it('suggests nothing for a name that is not near any key', () => {
    expect(closestName('colour', keys)).to.equal(undefined);
  });
});
