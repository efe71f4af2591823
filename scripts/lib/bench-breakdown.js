// Where a check's time went, read from its timeline in the JSON report. The harness counts the waits a
// contract requires (absence and census windows, deliberate pauses, deadlines of calls meant to time out)
// in requiredWaitMs. A hook that a check hangs until the runtime's plugin request timeout ends it is a
// required wait too (TEAR-04/06 measure exactly that bound), but the harness cannot see where the runtime
// gave up, so it is found here: a CRI call in flight when a hung hook arrived, which took at least 90% of
// the timeout, counts with min(latency, timeout).

const LIFECYCLE = new Set([
  'RunPodSandbox',
  'StopPodSandbox',
  'RemovePodSandbox',
  'CreateContainer',
  'StartContainer',
  'StopContainer',
  'RemoveContainer',
]);

/** "2s", "1500ms", "1.5s" -> ms; undefined when absent or unreadable. */
export function durationMs(text) {
  const m = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(String(text ?? '').trim());
  if (!m) return undefined;
  return Number(m[1]) * (m[2] === 's' ? 1000 : 1);
}

/** Total length of the union of [start, end) intervals. */
function unionMs(intervals) {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = -Infinity;
  for (const [s, e] of sorted) {
    if (e <= end) continue;
    total += e - Math.max(s, end);
    end = e;
  }
  return total;
}

function pluginTimeouts(timeline, nriRequestTimeoutMs) {
  if (!nriRequestTimeoutMs) return { ms: 0, calls: new Set() };
  const hangs = timeline.filter((e) => e.kind === 'nri' && e.note === 'fault: hang');
  const calls = new Set();
  let ms = 0;
  for (const c of timeline) {
    if (c.kind !== 'cri' || c.latencyMs < 0.9 * nriRequestTimeoutMs) continue;
    const end = c.atMs + c.latencyMs;
    if (!hangs.some((h) => h.atMs >= c.atMs && h.atMs <= end)) continue;
    calls.add(c);
    ms += Math.min(c.latencyMs, nriRequestTimeoutMs);
  }
  return { ms, calls };
}

/** Retries that spent their budget without converging: part of requiredWaitMs (see tracked-cri.ts). */
function unconvergedRetriesMs(timeline) {
  let total = 0;
  for (const e of timeline) {
    const m = e.kind === 'note' ? /^retries did not converge in (\d+) ms/.exec(e.text) : null;
    if (m) total += Number(m[1]);
  }
  return total;
}

/** Gaps between a trial's verdict note and the next trial's start: the cleanup between trials. */
function betweenTrialsMs(timeline) {
  let total = 0;
  let endedAt;
  for (const e of timeline) {
    if (e.kind !== 'note') continue;
    if (/^trial \d+: /.test(e.text)) endedAt = e.atMs;
    else if (/^trial \d+ of \d+$/.test(e.text) && endedAt !== undefined) {
      total += e.atMs - endedAt;
      endedAt = undefined;
    }
  }
  return total;
}

/**
 * One check's wall time split into named parts. `afterLastEntryMs` is the time after the check's last
 * timeline entry: the teardown of its objects, or a wait that ended with nothing to record (a failing
 * check waiting out an event that never came). `otherMs` is what no part explains: plugin registration,
 * host probes and their grace windows, polls and the harness itself.
 */
export function breakdownOf(result, nriRequestTimeoutMs) {
  const timeline = result.timeline ?? [];
  const required = result.requiredWaitMs ?? 0;
  const hung = pluginTimeouts(timeline, nriRequestTimeoutMs);
  const calls = timeline.filter((e) => e.kind === 'cri' && !hung.calls.has(e));
  // A call that was meant to time out is already in requiredWaitMs.
  const counted = calls.filter((c) => c.code !== 'DEADLINE_EXCEEDED');
  const span = (c) => [c.atMs, c.atMs + c.latencyMs];
  const lifecycle = unionMs(counted.filter((c) => LIFECYCLE.has(c.method)).map(span));
  const otherCri = Math.max(0, unionMs(counted.map(span)) - lifecycle);
  const lastEntry = Math.max(0, ...timeline.map((e) => e.atMs + (e.kind === 'cri' ? e.latencyMs : 0)));
  const afterCheck = Math.max(0, result.durationMs - lastEntry);
  const betweenTrials = betweenTrialsMs(timeline);
  const parts = {
    requiredWaitMs: required,
    pluginTimeoutMs: hung.ms,
    podLifecycleCriMs: lifecycle,
    otherCriMs: otherCri,
    cleanupBetweenTrialsMs: betweenTrials,
    afterLastEntryMs: afterCheck,
  };
  const explained = Object.values(parts).reduce((s, v) => s + v, 0);
  const rounded = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, Math.round(v)]));
  return { ...rounded, otherMs: Math.max(0, Math.round(result.durationMs - explained)) };
}

/**
 * Each check's wall time beside the floors its required waits allow (results.json floorMs: the trials
 * packed as the run ran them, and one after another), and for a race check the strength it reached: its
 * trials and, when it passed, the statement of what the PASS is worth.
 */
export function floorsOf(report) {
  return report.results
    .filter((r) => r.floorMs || r.trials)
    .map((r) => ({
      id: r.id,
      verdict: r.verdict,
      wallMs: r.durationMs,
      floorSideBySideMs: r.floorMs?.sideBySide ?? null,
      floorSerialMs: r.floorMs?.serial ?? null,
      trials: r.trials
        ? { run: r.trials.run, violated: r.trials.violated, atOnce: r.trials.atOnce ?? null }
        : null,
      strength:
        r.verdict === 'passed' ? (/not seen in [\s\S]*?confidence/.exec(r.message ?? '')?.[0] ?? null) : null,
    }));
}

/** A run's summary: wall time against required waits, per-suite sums and the slowest checks. */
export function summarize(report, wallMs, nriRequestTimeoutMs) {
  const checks = report.results.map((r) => ({
    id: r.id,
    suite: r.suite,
    verdict: r.verdict,
    durationMs: r.durationMs,
    breakdown: breakdownOf(r, nriRequestTimeoutMs),
  }));
  const sum = (pick) => checks.reduce((s, c) => s + pick(c), 0);
  const declared = sum((c) => c.breakdown.requiredWaitMs);
  const required = declared + sum((c) => c.breakdown.pluginTimeoutMs);
  const unconverged = report.results.reduce((s, r) => s + unconvergedRetriesMs(r.timeline ?? []), 0);
  const suites = {};
  for (const c of checks) {
    suites[c.suite] ??= { checks: 0, sumOfDurationsMs: 0, requiredWaitMs: 0 };
    const s = suites[c.suite];
    s.checks++;
    s.sumOfDurationsMs += c.durationMs;
    s.requiredWaitMs += c.breakdown.requiredWaitMs + c.breakdown.pluginTimeoutMs;
  }
  const ratio = (den) => (den > 0 ? Number((wallMs / den).toFixed(2)) : null);
  return {
    runtime: `${report.properties.runtimeName} ${report.properties.runtimeVersion}`,
    wallMs: Math.round(wallMs),
    sumOfDurationsMs: sum((c) => c.durationMs),
    requiredWaitMs: required,
    declaredRequiredWaitMs: declared,
    overheadRatio: ratio(required),
    overheadRatioDeclaredOnly: ratio(declared),
    // Retries that never converged wait out their budget; shown apart so the ratio can be read without them.
    unconvergedRetriesMs: unconverged,
    overheadRatioWithoutUnconvergedRetries: ratio(required - unconverged),
    verdicts: Object.fromEntries(checks.map((c) => [c.id, c.verdict])),
    suites,
    slowest: [...checks].sort((a, b) => b.durationMs - a.durationMs).slice(0, 5),
    floors: floorsOf(report),
    schedule: scheduleOf(report),
  };
}

/**
 * When each check that ran started and ended, in seconds since the first began, in the order they
 * started (results.json startedAt, schema 8 on): which checks shared the runtime, and what waited for what.
 */
export function scheduleOf(report) {
  const ran = report.results.filter((r) => typeof r.startedAt === 'string');
  if (ran.length === 0) return [];
  const at = (r) => Date.parse(r.startedAt);
  const first = Math.min(...ran.map(at));
  const seconds = (ms) => Number((ms / 1000).toFixed(1));
  return ran
    .map((r) => ({ id: r.id, startS: seconds(at(r) - first), endS: seconds(at(r) - first + r.durationMs) }))
    .sort((a, b) => a.startS - b.startS);
}
