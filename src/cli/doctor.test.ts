/**
 * `doctor` and `run` reach the same verdict on the same environment, because both ask the same readiness
 * probes: against the reference runtime, ready or not, with injectors working, broken or absent. Where a run
 * can start, doctor's skip forecast is exactly what the run then reports as skipped, reason for reason.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { WrapperPart } from '../../fixtures/reference/injector-dirs.js';
import { type ReferenceRuntime, startReferenceRuntime } from '../../fixtures/reference/start.js';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';

interface JsonResult {
  id: string;
  verdict: string;
  message: string | null;
}

interface Verdicts {
  doctor: { code: number; stdout: string };
  run: { code: number; stderr: string; results: JsonResult[] };
}

/** The skip forecast doctor prints: check id -> reason. */
function forecastOf(stdout: string): Map<string, string> {
  const forecast = new Map<string, string>();
  const lines = stdout.split('\n');
  const start = lines.findIndex((l) => l.startsWith('skips:'));
  for (let i = start + 1; i + 1 < lines.length && lines[i]?.startsWith('  '); i += 2) {
    const reason = (lines[i + 1] ?? '').replace(/^\s+-> /, '');
    for (const id of (lines[i] ?? '').trim().split(' ')) forecast.set(id, reason);
  }
  return forecast;
}

describe('doctor and run agree', function () {
  this.timeout(60_000);
  let runtime: ReferenceRuntime;
  const dir = mkdtempSync(join(tmpdir(), 'cc-'));

  before(async () => {
    runtime = await startReferenceRuntime();
  });
  after(async () => {
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs doctor, then run, with the same flags and environment. */
  async function both(flags: string[], env: Record<string, string> = runtime.env): Promise<Verdicts> {
    const common = ['--config', '/dev/null', '--node-probes', 'off', ...flags];
    const doctorIo = recordingIo(env);
    const doctorCode = await main(['node', 'cri-conform', 'doctor', ...common], doctorIo);
    const reportDir = mkdtempSync(join(dir, 'rep-'));
    const runIo = recordingIo(env);
    const runCode = await main(['node', 'cri-conform', 'run', ...common, '--report-dir', reportDir], runIo);
    const results =
      runCode === 2
        ? []
        : (JSON.parse(readFileSync(join(reportDir, 'results.json'), 'utf8')) as { results: JsonResult[] })
            .results;
    return {
      doctor: { code: doctorCode, stdout: doctorIo.stdout() },
      run: { code: runCode, stderr: runIo.stderr(), results },
    };
  }

  function expectForecastMatchesRun(v: Verdicts): void {
    expect(v.doctor.code, v.doctor.stdout).to.equal(0);
    expect(v.run.code, v.run.stderr).to.be.oneOf([0, 1]);
    const skipped = new Map(
      v.run.results.filter((r) => r.verdict === 'skipped').map((r) => [r.id, r.message ?? '']),
    );
    expect(forecastOf(v.doctor.stdout)).to.deep.equal(skipped);
  }

  /** The run's one stderr line is doctor's FAIL finding, word for word. */
  function expectSameBlocker(v: Verdicts, pattern: RegExp): void {
    expect(v.doctor.code, v.doctor.stdout).to.equal(2);
    expect(v.run.code, v.run.stderr).to.equal(2);
    const fail = /^FAIL (.*)\n {7}-> (.*)$/m.exec(v.doctor.stdout);
    expect(fail, v.doctor.stdout).to.not.equal(null);
    // Each proof makes its own pod, so only the pod ids differ.
    const ids = (text: string) => text.replace(/\b[0-9a-f]{12}\b/g, '<id>');
    expect(ids(v.run.stderr.trim())).to.equal(ids(`cri-conform: ${fail?.[1]}: ${fail?.[2]}`));
    expect(v.run.stderr).to.match(pattern);
  }

  it('forecasts exactly the [Slow], [Restart] and [Node] skips a run then reports', async () => {
    const { CRI_CONFORM_RESTART_CMD: _noRestart, ...env } = runtime.env;
    const v = await both(['--level', 'all', '--focus', '^(IDEM-08|IDEM-09|IDEM-11|IDEM-13|TEAR-11) '], env);
    expect([...forecastOf(v.doctor.stdout).keys()]).to.deep.equal([
      'IDEM-08',
      'IDEM-09',
      'IDEM-13',
      'TEAR-11',
    ]);
    expectForecastMatchesRun(v);
  });

  it('forecasts the skips of checks whose injector is not configured', async () => {
    const {
      CRI_CONFORM_SLOW_RUNTIME_HANDLER: _h,
      CRI_CONFORM_SLOW_RUNTIME_DIR: _d,
      CRI_CONFORM_SLOW_CNI_DIR: _c,
      ...env
    } = runtime.env;
    const v = await both(['--level', 'all', '--focus', '^(IDEM-01|IDEM-03|IDEM-11) '], env);
    expect([...forecastOf(v.doctor.stdout).keys()]).to.deep.equal(['IDEM-01', 'IDEM-03']);
    expectForecastMatchesRun(v);
  });

  it('proves working injectors, and both proceed', async () => {
    const v = await both(['--focus', '^IDEM-11 ']);
    expect(v.doctor.stdout)
      .to.match(/^ok {3}slow runtime handler "conform-slow" .* works: it logged the creates/m)
      .and.to.match(/^ok {3}slow CNI wrapper .* works: RunPodSandbox took \d+ ms/m)
      .and.to.match(/^ok {3}cgroup driver cgroupfs \(CRI RuntimeConfig\), parent \/cri-conform$/m);
    expectForecastMatchesRun(v);
  });

  it('both stop when a check needs the slow runtime handler and it logs nothing', async () => {
    const elsewhere = join(dir, 'not-the-handlers-dir');
    mkdirSync(elsewhere, { recursive: true });
    const v = await both(['--focus', '^IDEM-01 ', '--slow-runtime-dir', elsewhere]);
    expectSameBlocker(v, /did not record the create of sandbox .*needed by IDEM-01/);
  });

  it('both proceed when only an injector no selected check needs is broken, and doctor warns', async () => {
    const elsewhere = join(dir, 'not-the-cni-dir');
    mkdirSync(elsewhere, { recursive: true });
    // IDEM-04 holds its build in the slow handler only; IDEM-01 would spread its trials over the CNI too.
    const v = await both(['--level', 'all', '--focus', '^IDEM-04 ', '--slow-cni-dir', elsewhere]);
    expect(v.doctor.stdout).to.match(/^warn slow CNI wrapper .* does not work\n.*did not sleep on ADD/m);
    expect(v.run.code, v.run.stderr).to.be.oneOf([0, 1]);
    expect(v.doctor.code).to.equal(0);
  });

  it('both stop, before any pod, when --cgroup-parent is a slice and the runtime is on cgroupfs', async () => {
    const v = await both(['--focus', '^IDEM-11 ', '--cgroup-parent', 'cri_conform.slice']);
    expectSameBlocker(
      v,
      /--cgroup-parent cri_conform\.slice: the runtime uses the cgroupfs driver \(CRI RuntimeConfig\)/,
    );
  });

  it('both stop when --require-nri meets no NRI socket', async () => {
    const v = await both(['--focus', '^HOOK-01 ', '--require-nri', '--nri-socket', join(dir, 'none.sock')]);
    expectSameBlocker(v, /--require-nri/);
  });

  it('both stop when an image is missing and --pull is never', async () => {
    const v = await both(['--focus', '^IDEM-11 ', '--pull', 'never', '--test-image', 'localhost/absent:1']);
    expectSameBlocker(v, /localhost\/absent:1 .*--pull is never/);
  });

  it("both stop on an --expected-deviations file the run cannot read, and doctor takes run's own flags", async () => {
    const absent = join(dir, 'absent.yaml');
    const line = ['--config', '/dev/null', '--node-probes', 'off', '--expected-deviations', absent];
    const doctorIo = recordingIo(runtime.env);
    const doctorCode = await main(
      ['node', 'cri-conform', 'doctor', ...line, '--html', join(dir, 'r.html')],
      doctorIo,
    );
    const runIo = recordingIo(runtime.env);
    const runCode = await main(['node', 'cri-conform', 'run', ...line, '--report-dir', dir], runIo);
    expect([doctorCode, runCode]).to.deep.equal([2, 2]);
    expect(doctorIo.stderr()).to.match(
      new RegExp(`^cri-conform: cannot read --expected-deviations ${absent}: `),
    );
    expect(runIo.stderr()).to.contain(doctorIo.stderr());
  });

  it('leaves nothing labelled on the runtime', async () => {
    const { CriClient } = await import('../cri/client.js');
    const client = await CriClient.connect({ runtimeEndpoint: runtime.env.CONTAINER_RUNTIME_ENDPOINT ?? '' });
    try {
      const { items } = await client.call('ListPodSandbox', { filter: null });
      expect(items.map((p) => p.metadata.name)).to.deep.equal([]);
    } finally {
      client.close();
    }
  });
});

describe('doctor proves the injectors through a claim, as the checks use them', function () {
  this.timeout(60_000);

  /** Doctor's output against a reference runtime whose wrappers lack the given parts of the protocol. */
  async function doctorWith(
    lacks: readonly WrapperPart[],
    focus = '^IDEM-01 ',
  ): Promise<{ code: number; stdout: string }> {
    const runtime = await startReferenceRuntime({ wrapperLacks: lacks });
    try {
      const io = recordingIo(runtime.env);
      const args = [
        'doctor',
        '--config',
        '/dev/null',
        '--node-probes',
        'off',
        '--level',
        'all',
        '--focus',
        focus,
      ];
      const code = await main(['node', 'cri-conform', ...args], io);
      return { code, stdout: io.stdout() };
    } finally {
      await runtime.close();
    }
  }

  it('fails wrappers written to the old description (shared delay-ms, no key, no fail, no del.log), naming each lack', async () => {
    const { code, stdout } = await doctorWith(['claims', 'key column', 'fail', 'del.log']);
    expect(code, stdout).to.equal(2);
    const fails = stdout.split('\n').filter((l) => l.startsWith('FAIL') || l.startsWith('       ->'));
    expect(fails.join('\n'))
      .to.match(/FAIL slow runtime handler "conform-slow" .* does not work/)
      .and.match(
        /lacks claims: CreateContainer \+ StartContainer took \d+ ms with pods\/cc-doctor-\/delay-ms 500/,
      )
      .and.match(
        /the key column in created\.log \("<time> <id> <key>"; its line for [0-9a-f]{12} has no cc-doctor-\)/,
      )
      .and.match(/FAIL slow CNI wrapper .* does not work/)
      .and.match(
        /lacks claims: RunPodSandbox took \d+ ms with pods\/cc-doctor-\/delay-ms 500; the key column in added\.log/,
      )
      .and.match(
        /del\.log: no "<sandbox id> <key>" line for [0-9a-f]{12} after StopPodSandbox; fail: RunPodSandbox succeeded while pods\/cc-doctor-\/fail existed/,
      )
      .and.match(/needed by IDEM-01/);
  });

  it('names only what is missing: a CNI wrapper without `fail`', async () => {
    const { code, stdout } = await doctorWith(['fail']);
    expect(code, stdout).to.equal(2);
    expect(stdout).to.match(
      /^ok {3}slow runtime handler .* works: it logged the creates of the sandbox and the container under the key/m,
    );
    expect(stdout).to.match(
      /^FAIL slow CNI wrapper .* does not work\n {7}-> the slow CNI wrapper lacks fail: RunPodSandbox succeeded while pods\/cc-doctor-\/fail existed \(see README/m,
    );
  });

  it('fails it for a check that takes the slow CNI only where offered (IDEM-15 counts DELs in del.log)', async () => {
    const { code, stdout } = await doctorWith(['del.log'], '^IDEM-15 ');
    expect(code, stdout).to.equal(2);
    expect(stdout).to.match(/^ {7}-> the slow CNI wrapper lacks del\.log: .*; needed by IDEM-15$/m);
  });

  it('passes wrappers that follow the whole protocol', async () => {
    const { code, stdout } = await doctorWith([]);
    expect(code, stdout).to.equal(0);
    expect(stdout).to.match(
      /^ok {3}slow CNI wrapper .* works: RunPodSandbox took \d+ ms with pods\/cc-doctor-\/delay-ms 500; it logged the ADD and the DEL under the key and failed an ADD while pods\/cc-doctor-\/fail existed$/m,
    );
  });
});
