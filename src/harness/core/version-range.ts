/**
 * Version ranges for expected deviations, in the semver style: comparators joined by spaces must all
 * hold, and `||` separates alternatives: `>=1.7.0 <1.8.0 || >=2.1.0 <2.2.0`. A comparator is `>=`, `>`,
 * `<=`, `<` or `=` (or none, meaning `=`) before a version of one to three numbers; missing numbers are 0.
 * Runtimes report versions with suffixes (`1.7.24~ds1`, `v2.1.9`, `1.31.0-dev`): only the leading
 * numbers count, so a distribution build matches the upstream release it packages.
 */

export type VersionTriple = readonly [number, number, number];

const OPERATORS = ['>=', '<=', '>', '<', '='] as const;
type Operator = (typeof OPERATORS)[number];

interface Comparator {
  op: Operator;
  version: VersionTriple;
}

export interface VersionRange {
  /** The range as written, for messages. */
  text: string;
  test(version: string): boolean;
}

/** The leading `[v]N[.N[.N]]` of a version string, or undefined when it does not start with one. */
export function leadingVersion(text: string): VersionTriple | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(text.trim());
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
}

function compare(a: VersionTriple, b: VersionTriple): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

function holds(c: Comparator, v: VersionTriple): boolean {
  const d = compare(v, c.version);
  switch (c.op) {
    case '>=':
      return d >= 0;
    case '<=':
      return d <= 0;
    case '>':
      return d > 0;
    case '<':
      return d < 0;
    case '=':
      return d === 0;
  }
}

function parseComparator(token: string, range: string): Comparator {
  const op = OPERATORS.find((o) => token.startsWith(o)) ?? '=';
  const rest = token.slice(token.startsWith(op) ? op.length : 0);
  if (!/^v?\d+(\.\d+){0,2}$/.test(rest)) {
    throw new RangeError(`"${token}" in version range "${range}" is not a comparator such as >=1.7.0`);
  }
  return { op, version: leadingVersion(rest) ?? [0, 0, 0] };
}

/** Parses a range; throws RangeError with a one-line reason when it is malformed. */
export function parseVersionRange(text: string): VersionRange {
  const alternatives = text.split('||').map((alt) => {
    // `>= 1.7` is written with a space as often as without; glue the operator back to its version.
    const tokens = alt
      .trim()
      .replace(/(>=|<=|>|<|=)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean);
    if (tokens.length === 0) throw new RangeError(`version range "${text}" has an empty alternative`);
    return tokens.map((t) => parseComparator(t, text));
  });
  return {
    text,
    test(version) {
      const v = leadingVersion(version);
      return v !== undefined && alternatives.some((all) => all.every((c) => holds(c, v)));
    },
  };
}
