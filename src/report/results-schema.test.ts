/**
 * results.schema.json is the published contract of results.json: every report renderJson writes must
 * validate against it, and the schema must reject what it promises never to contain.
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { expect } from 'chai';
import { JSON_SCHEMA_VERSION, renderJson } from './json.js';
import { packageRoot } from './package-root.test.helper.js';
import { result, sampleOutcome, TIMELINE } from './sample-outcome.test.helper.js';

const schema = JSON.parse(readFileSync(`${packageRoot()}/src/report/results.schema.json`, 'utf8'));
const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(schema);

function errorsOf(doc: unknown): string {
  return validate(doc) ? '' : JSON.stringify(validate.errors, null, 2);
}

describe('results.json against results.schema.json', () => {
  it('names the schema version renderJson writes', () => {
    expect(schema.properties.schemaVersion.const).to.equal(JSON_SCHEMA_VERSION);
  });

  it('accepts a report with every verdict, trials and observations', () => {
    expect(errorsOf(JSON.parse(renderJson(sampleOutcome())))).to.equal('');
  });

  it('accepts the optional fields: a known issue, stale deviations, an interruption, the cgroup placement, the CPUs, the hook lane', () => {
    const outcome = sampleOutcome();
    outcome.interrupted = 'SIGINT';
    outcome.properties.nriTimeouts = { requestMs: 2_000, registrationMs: 5_000 };
    outcome.properties.cgroup = {
      driver: 'systemd',
      driverSource: 'CRI RuntimeConfig',
      parent: 'cri_conform.slice',
      parentSource: 'default',
    };
    outcome.staleDeviations = ['HOOK-01 containerd 1.7: fixed upstream?'];
    outcome.cpu = { cores: 2, busySeconds: 963.2, busyPct: 94, floorMs: 481_600, toolSeconds: 32.7 };
    outcome.hookLane = {
      turns: 3,
      takenMs: 900,
      spanMs: 1_000,
      byCheck: [{ id: 'TEAR-08', turns: 3, takenMs: 900 }],
    };
    outcome.results = [
      result({
        id: 'TEAR-05',
        verdict: 'failed',
        message: 'plugin 20 never got StopPodSandbox',
        knownIssue: {
          reason: 'skips later plugins',
          links: ['https://github.com/containerd/containerd/issues/1'],
        },
        timeline: TIMELINE,
      }),
    ];
    expect(errorsOf(JSON.parse(renderJson(outcome)))).to.equal('');
  });

  it('accepts the report of a run that could not start', () => {
    const outcome = sampleOutcome();
    outcome.results = [];
    outcome.notStarted = 'cannot reach unix:///nope.sock';
    outcome.properties.nriTimeouts = 'not sent';
    expect(errorsOf(JSON.parse(renderJson(outcome)))).to.equal('');
  });

  it('rejects a report with a missing field, an unknown verdict or an unknown field', () => {
    const doc = JSON.parse(renderJson(sampleOutcome()));
    const noSummary = { ...doc, summary: undefined };
    expect(errorsOf(JSON.parse(JSON.stringify(noSummary)))).to.contain('summary');
    const badVerdict = structuredClone(doc);
    badVerdict.results[0].verdict = 'green';
    expect(errorsOf(badVerdict)).to.contain('verdict');
    expect(errorsOf({ ...doc, extra: 1 })).to.contain('additionalProperties');
  });
});
