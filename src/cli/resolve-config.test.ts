import { expect } from 'chai';
import { UsageError } from './errors.js';
import { normaliseEndpoint, resolveRunConfig, resolveSelection } from './resolve-config.js';

describe('resolveRunConfig', () => {
  const none = {};

  it("defaults to containerd's socket, NRI at /var/run/nri, 20 trials, MUST level", () => {
    const c = resolveRunConfig({}, {}, none);
    expect(c.runtimeEndpoint).to.equal('unix:///run/containerd/containerd.sock');
    expect(c.imageEndpoint).to.equal(c.runtimeEndpoint);
    expect(c.nriSocket).to.equal('/var/run/nri/nri.sock');
    expect(c.trials).to.equal(20);
    expect(c.level).to.equal('must');
    expect(c.nriRequestTimeoutMs).to.equal(2_000);
    expect(c.cacheTtlMs).to.equal(150_000);
    expect(c.pull).to.equal('missing');
  });

  it('puts the reports nobody named beside the first one named, and in reports/ when none is', () => {
    expect(resolveRunConfig({}, {}, none).reportDir).to.equal('reports');
    expect(resolveRunConfig({ junit: 'out/a.xml', html: 'web/r.html' }, {}, none).reportDir).to.equal('out');
    expect(resolveRunConfig({ html: 'web/r.html' }, {}, none).reportDir).to.equal('web');
    expect(resolveRunConfig({ json: '/tmp/x/r.json' }, {}, none).reportDir).to.equal('/tmp/x');
    expect(resolveRunConfig({ junit: 'a.xml' }, {}, none).reportDir).to.equal('.');
    expect(resolveRunConfig({ junit: 'out/a.xml', reportDir: 'r' }, {}, none).reportDir).to.equal('r');
  });

  const precedence = [
    {
      source: 'flag',
      flags: { runtimeEndpoint: '/flag.sock' },
      env: { CONTAINER_RUNTIME_ENDPOINT: '/env.sock' },
      file: { 'runtime-endpoint': '/file.sock' },
      expected: 'unix:///flag.sock',
    },
    {
      source: 'env',
      flags: {},
      env: { CONTAINER_RUNTIME_ENDPOINT: '/env.sock' },
      file: { 'runtime-endpoint': '/file.sock' },
      expected: 'unix:///env.sock',
    },
    {
      source: 'config file',
      flags: {},
      env: {},
      file: { 'runtime-endpoint': 'unix:///file.sock' },
      expected: 'unix:///file.sock',
    },
  ];
  for (const row of precedence) {
    it(`takes the runtime endpoint from the ${row.source} when it is the highest source given`, () => {
      expect(resolveRunConfig(row.flags, row.env, row.file).runtimeEndpoint).to.equal(row.expected);
    });
  }

  it("reads crictl.yaml's timeout as the per-call deadline and --timeout as the per-check deadline", () => {
    const c = resolveRunConfig({ timeout: '90s' }, {}, { timeout: '4' });
    expect(c.callTimeoutMs).to.equal(4_000);
    expect(c.checkTimeoutMs).to.equal(90_000);
  });

  it('takes injector settings from the environment the provisioning script prints', () => {
    const c = resolveRunConfig(
      {},
      {
        CRI_CONFORM_SLOW_RUNTIME_HANDLER: 'conform-slow',
        CRI_CONFORM_SLOW_RUNTIME_DIR: '/d',
        CRI_CONFORM_NRI_REQUEST_TIMEOUT: '500ms',
      },
      {},
    );
    expect(c.slowRuntimeHandler).to.equal('conform-slow');
    expect(c.slowRuntimeDir).to.equal('/d');
    expect(c.nriRequestTimeoutMs).to.equal(500);
  });

  it('rejects an empty --skip, which would silently select everything', () => {
    expect(() => resolveRunConfig({ skip: '' }, {}, {})).to.throw(UsageError, /--skip ""/);
  });

  it('rejects an invalid regular expression, an unknown suite, a bad duration and a zero trial count', () => {
    expect(() => resolveRunConfig({ focus: '(' }, {}, {})).to.throw(UsageError, /--focus/);
    expect(() => resolveRunConfig({ suite: ['nope'] }, {}, {})).to.throw(UsageError, /unknown suite "nope"/);
    expect(() => resolveRunConfig({ cacheTtl: 'soon' }, {}, {})).to.throw(UsageError, /--cache-ttl/);
    expect(() => resolveRunConfig({ trials: '0' }, {}, {})).to.throw(UsageError, /--trials/);
  });

  it('names where a refused value came from: the flag, the environment variable or the config key', () => {
    expect(() => resolveRunConfig({}, {}, { trials: 'abc' })).to.throw(
      UsageError,
      /^config key trials \(--trials\): "abc"/,
    );
    expect(() => resolveRunConfig({}, { CRI_CONFORM_NRI_REQUEST_TIMEOUT: 'soon' }, {})).to.throw(
      UsageError,
      /^CRI_CONFORM_NRI_REQUEST_TIMEOUT \(--nri-request-timeout\): "soon"/,
    );
    expect(() => resolveRunConfig({ trials: 'x' }, {}, { trials: '5' })).to.throw(
      UsageError,
      /^--trials: "x"/,
    );
  });

  it('bounds durations and counts to what a run can use: no zero, nothing a timer cannot wait, no endless trials', () => {
    expect(() => resolveRunConfig({ timeout: '0' }, {}, {})).to.throw(
      UsageError,
      '"0" is too short; give at least 1s',
    );
    expect(() => resolveRunConfig({ callTimeout: '0.1ms' }, {}, {})).to.throw(UsageError, /--call-timeout/);
    expect(() => resolveRunConfig({ timeout: '600h' }, {}, {})).to.throw(UsageError, 'give at most 596h');
    expect(() => resolveRunConfig({ runTimeout: '2000h' }, {}, {})).to.throw(UsageError, /--run-timeout/);
    expect(() => resolveRunConfig({ runTimeout: '0' }, {}, {})).to.throw(
      UsageError,
      'leave it out for no limit',
    );
    expect(() => resolveRunConfig({ trials: '100000' }, {}, {})).to.throw(UsageError, 'from 1 to 1000');
    expect(() => resolveRunConfig({ parallelTrials: '101' }, {}, {})).to.throw(UsageError, 'from 1 to 100');
    expect(() => resolveRunConfig({ flakeAttempts: '11' }, {}, {})).to.throw(UsageError, 'from 0 to 10');
    const config = resolveRunConfig(
      { nriRequestTimeout: '100ms', runTimeout: '596h', trials: '1000' },
      {},
      {},
    );
    expect(config).to.include({ nriRequestTimeoutMs: 100, runTimeoutMs: 596 * 3_600_000, trials: 1000 });
  });

  it('takes a --cgroup-parent either driver could use, from the flag or the config file, and refuses the rest', () => {
    expect(resolveRunConfig({}, {}, {}).cgroupParent).to.equal(undefined);
    expect(resolveRunConfig({ cgroupParent: 'team.slice' }, {}, {}).cgroupParent).to.equal('team.slice');
    expect(resolveRunConfig({}, {}, { 'cgroup-parent': '/team' }).cgroupParent).to.equal('/team');
    expect(() => resolveRunConfig({ cgroupParent: 'kubepods.slice' }, {}, {})).to.throw(
      UsageError,
      /kubepods/,
    );
    expect(() => resolveRunConfig({ cgroupParent: 'team' }, {}, {})).to.throw(
      UsageError,
      /neither a systemd slice/,
    );
  });

  it('takes --isolated-subnet in network form only, and whether the pause image was named', () => {
    const isolated = { isolated: true };
    expect(
      resolveRunConfig({ ...isolated, isolatedSubnet: '192.168.77.0/24' }, {}, {}).isolatedSubnet,
    ).to.equal('192.168.77.0/24');
    for (const bad of ['192.168.77.5/24', '10.0.0.0', '10.0.0.0/30', 'ten/8'])
      expect(() => resolveRunConfig({ ...isolated, isolatedSubnet: bad }, {}, {}), bad).to.throw(
        UsageError,
        /--isolated-subnet/,
      );
    expect(resolveRunConfig({}, {}, {}).pauseImageNamed).to.equal(undefined);
    expect(resolveRunConfig({}, { CRI_CONFORM_PAUSE_IMAGE: 'p:1' }, {}).pauseImageNamed).to.equal(true);
  });

  it('splits comma-separated suites and keeps repeated ones', () => {
    expect(resolveRunConfig({ suite: ['hooks,teardown', 'names'] }, {}, {}).suites).to.deep.equal([
      'hooks',
      'teardown',
      'names',
    ]);
  });

  it('resolves only the selection flags for list', () => {
    const s = resolveSelection({ level: 'all', focus: '^HOOK' });
    expect(s.level).to.equal('all');
    expect(s.focus?.test('HOOK-01 x')).to.equal(true);
  });
});

describe('normaliseEndpoint', () => {
  it('accepts unix URLs and bare socket paths, and refuses anything else with the flag named', () => {
    expect(normaliseEndpoint('/run/x.sock', '--runtime-endpoint')).to.equal('unix:///run/x.sock');
    expect(normaliseEndpoint('unix:///run/x.sock', '--runtime-endpoint')).to.equal('unix:///run/x.sock');
    expect(() => normaliseEndpoint('x.sock', '--runtime-endpoint')).to.throw(
      UsageError,
      /--runtime-endpoint/,
    );
  });
});
