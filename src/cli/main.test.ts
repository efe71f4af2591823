import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type ClosingServer, listenClosing } from '../closing-server.test.helper.js';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';
import { expectUsageFailure as expectOneLineFailure } from './usage-failure.test.helper.js';

const argv = (...args: string[]) => ['node', 'cri-conform', ...args];
const REPORTS = mkdtempSync(join(tmpdir(), 'cc-'));

/** The house rule for bad input (one line, exit 2, no stack), for these commands. */
async function expectUsageFailure(args: string[], pattern: RegExp): Promise<void> {
  // A run that cannot start still writes its reports: keep them out of the working tree.
  await expectOneLineFailure([...args, ...(args[0] === 'run' ? ['--report-dir', REPORTS] : [])], pattern);
}

describe('cri-conform CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-'));
  let garbage: ClosingServer;

  before(async () => {
    garbage = await listenClosing(join(dir, 'garbage.sock'), (socket) =>
      socket.end('HTTP/1.1 400 nope\r\n\r\n'),
    );
  });
  after(async () => {
    await garbage.close();
    rmSync(REPORTS, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints help with the commands and exits 0', async () => {
    const io = recordingIo();
    expect(await main(argv('--help'), io)).to.equal(0);
    expect(io.stdout())
      .to.match(/run/)
      .and.to.match(/doctor/)
      .and.to.match(/cleanup/);
  });

  it('teaches run with examples and exit codes in its help', async () => {
    const io = recordingIo();
    expect(await main(argv('run', '--help'), io)).to.equal(0);
    expect(io.stdout())
      .to.match(/Examples:/)
      .and.to.match(/Exit codes:/);
  });

  it("says in run's help where each report goes by default", async () => {
    const io = recordingIo();
    expect(await main(argv('run', '--help'), io)).to.equal(0);
    const help = io.stdout().replace(/\s+/g, ' ');
    expect(help)
      .to.include('default: beside the first one named, else reports/')
      .and.to.include('(default <report-dir>/<prefix>junit.xml)')
      .and.to.include('(default <report-dir>/<prefix>results.json)')
      .and.to.include('here (default: none)');
  });

  it('rejects an unknown flag with exit 2', () =>
    expectUsageFailure(['run', '--no-such-flag'], /unknown option/));

  it('rejects an unreadable --config', () =>
    expectUsageFailure(['run', '--config', join(dir, 'missing.yaml')], /cannot read --config/));

  it('rejects a --config that is not YAML', async () => {
    writeFileSync(join(dir, 'bad.yaml'), 'a: [unclosed');
    await expectUsageFailure(['run', '--config', join(dir, 'bad.yaml')], /not valid YAML/);
  });

  it('rejects a focus that selects nothing', () =>
    expectUsageFailure(['run', '--focus', '^NOPE-99', '--config', '/dev/null'], /selects no check/));

  it('says in one line that a runtime stopped answering a call the run needs before its checks', async () => {
    const { startFakeRuntime, grpcError } = await import('../harness/check/fake-runtime.test.helper.js');
    const { status } = await import('@grpc/grpc-js');
    const fake = await startFakeRuntime();
    try {
      fake.override('ListPodSandbox', () => {
        throw grpcError(status.DEADLINE_EXCEEDED, 'Deadline exceeded');
      });
      await expectOneLineFailure(
        ['doctor', '-r', fake.endpoint, '--config', '/dev/null', '--node-probes', 'off'],
        /^cri-conform: the runtime did not answer as it must: ListPodSandbox: DEADLINE_EXCEEDED .*give it longer with --call-timeout$/,
      );
    } finally {
      await fake.close();
    }
  });

  it('lists nothing for a filter that selects no check, and takes one output format', async () => {
    await expectOneLineFailure(
      ['list', '--focus', '^NOPE-99'],
      /selects no check; leave them out to list all/,
    );
    await expectOneLineFailure(
      ['list', '--json', '--markdown'],
      /^cri-conform: --json and --markdown: each chooses the output; give one$/,
    );
  });

  it('refuses --isolated-subnet without --isolated, which has no bridge to give it', () =>
    expectOneLineFailure(
      ['run', '--isolated-subnet', '10.77.0.0/24', '--config', '/dev/null'],
      /it needs --isolated$/,
    ));

  it('exits 2 when it shows help for a command that needs more (an unknown help topic, nri alone)', async () => {
    for (const args of [['help', 'bogus'], ['nri']])
      expect(await main(['node', 'cri-conform', ...args], recordingIo()), args.join(' ')).to.equal(2);
  });

  it('rejects an empty --skip', () =>
    expectUsageFailure(['run', '--skip', '', '--config', '/dev/null'], /--skip ""/));

  it('says what to do when the runtime socket does not exist', () =>
    expectUsageFailure(
      ['run', '--runtime-endpoint', 'unix:///nonexistent.sock', '--config', '/dev/null'],
      /nonexistent\.sock/,
    ));

  it('says so when the endpoint is a regular file', async () => {
    writeFileSync(join(dir, 'file.sock'), '');
    await expectUsageFailure(
      ['run', '-r', join(dir, 'file.sock'), '--config', '/dev/null'],
      /not a (unix )?socket/,
    );
  });

  it('says so when the socket does not speak CRI', () =>
    expectUsageFailure(['run', '-r', join(dir, 'garbage.sock'), '--config', '/dev/null'], /CRI|gRPC/i));

  it('lists every check as JSON with id, level and tags', async () => {
    const io = recordingIo();
    expect(await main(argv('list', '--json'), io)).to.equal(0);
    const rows = JSON.parse(io.stdout()) as { id: string; level: string; tags: string[] }[];
    for (const r of rows) expect(r).to.include.keys('id', 'level', 'tags', 'suite', 'title');
  });
});
