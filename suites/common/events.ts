/**
 * Reading what a check's plugins received: short labels for failure messages, waits that end with the
 * evidence instead of a bare timeout, and order by the global `seq` (never by clock).
 */
import type {
  CheckContext,
  EventMatch,
  NriEventName,
  NriEventRecord,
  TestPlugin,
} from '../../src/harness/face.js';

export const POD_EVENTS: readonly NriEventName[] = ['RunPodSandbox', 'StopPodSandbox', 'RemovePodSandbox'];
export const CONTAINER_EVENTS: readonly NriEventName[] = [
  'CreateContainer',
  'StartContainer',
  'StopContainer',
  'RemoveContainer',
];

/** "10" for the plugin labelled "10-cri-conform-hook-07". */
export function pluginIndex(plugin: TestPlugin): string {
  return plugin.label.split('-', 1)[0] ?? plugin.label;
}

export function bySeq(a: NriEventRecord, b: NriEventRecord): number {
  return a.seq - b.seq;
}

/** "[RunPodSandbox#12, StopContainer(workload)#14]" */
export function describeEvents(events: readonly NriEventRecord[]): string {
  const label = (e: NriEventRecord) => `${e.event}${e.container ? `(${e.container.name})` : ''}#${e.seq}`;
  return `[${[...events].sort(bySeq).map(label).join(', ')}]`;
}

/**
 * Waits until `plugin` holds every expected event matching `match`, or `withinMs` ends, and returns what it
 * holds by then in seq order. It never throws on a missing event: the caller's assertion names it.
 */
export async function receivedBy(
  plugin: TestPlugin,
  match: EventMatch,
  expected: readonly NriEventName[],
  withinMs: number,
): Promise<NriEventRecord[]> {
  const endAt = Date.now() + withinMs;
  for (const event of expected) {
    const left = Math.max(0, endAt - Date.now());
    await plugin.waitFor({ ...match, event }, { withinMs: left, what: event }).then(
      () => undefined,
      () => undefined,
    );
  }
  return plugin.events(match).sort(bySeq);
}

/** The expected events that are not among `got`. */
export function missingFrom(
  got: readonly NriEventRecord[],
  expected: readonly NriEventName[],
): NriEventName[] {
  return expected.filter((name) => !got.some((e) => e.event === name));
}

/** "plugin 20 got [RunPodSandbox#12, RemovePodSandbox#15]; missing StopPodSandbox" (empty when none is missing). */
export function missingMessage(
  plugin: TestPlugin,
  got: readonly NriEventRecord[],
  expected: readonly NriEventName[],
): string {
  const missing = missingFrom(got, expected);
  if (missing.length === 0) return '';
  return `plugin ${pluginIndex(plugin)} got ${describeEvents(got)}; missing ${missing.join(', ')}`;
}

/** The first event of that name, by seq. */
export function first(got: readonly NriEventRecord[], name: NriEventName): NriEventRecord | undefined {
  return [...got].sort(bySeq).find((e) => e.event === name);
}

/**
 * Checks that the first occurrences of `chain` come in that order; returns what broke it, or '' when the
 * order holds. Missing events are the caller's to report (see missingMessage).
 */
export function orderViolation(
  plugin: TestPlugin,
  got: readonly NriEventRecord[],
  chain: readonly NriEventName[],
): string {
  for (let i = 1; i < chain.length; i++) {
    const [earlierName, laterName] = [chain[i - 1], chain[i]];
    if (!earlierName || !laterName) continue;
    const earlier = first(got, earlierName);
    const later = first(got, laterName);
    if (earlier && later && later.seq < earlier.seq) {
      return `plugin ${pluginIndex(plugin)} got ${describeEvents(got)}: ${laterName}#${later.seq} came before ${earlierName}#${earlier.seq}; expected ${chain.join(' -> ')}`;
    }
  }
  return '';
}

/** Event names that arrived more than once, as "StopPodSandbox x2". */
export function duplicates(got: readonly NriEventRecord[]): string[] {
  const counts = new Map<string, number>();
  for (const e of got) counts.set(e.event, (counts.get(e.event) ?? 0) + 1);
  return [...counts].filter(([, n]) => n > 1).map(([name, n]) => `${name} x${n}`);
}

/**
 * True when no event matching `match` reaches `plugin` during `windowMs` (the window starts now; an event
 * that already arrived fails at once).
 */
export function noneArrive(
  t: CheckContext,
  plugin: TestPlugin,
  match: EventMatch,
  windowMs: number,
  clause: string,
): Promise<boolean> {
  return t
    .holdsFor(() => plugin.events(match).length === 0, windowMs, 'no event', clause)
    .then(
      () => true,
      () => false,
    );
}

/**
 * Asserts that `plugin` gets every expected event matching `match` (waiting up to `withinMs` for late ones)
 * and that their first occurrences come in the order given, as the check's `clause`. Returns what it got,
 * by seq.
 */
export async function expectInOrder(
  t: CheckContext,
  plugin: TestPlugin,
  match: EventMatch,
  expected: readonly NriEventName[],
  withinMs: number,
  clause: string,
): Promise<NriEventRecord[]> {
  const got = await receivedBy(plugin, match, expected, withinMs);
  const missing = missingMessage(plugin, got, expected);
  t.expect(missing === '', missing, clause);
  const order = orderViolation(plugin, got, expected);
  t.expect(order === '', order, clause);
  return got;
}
