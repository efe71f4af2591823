/**
 * The YAML file behind --config (default /etc/crictl.yaml when present). It holds crictl's keys
 * (runtime-endpoint, image-endpoint, timeout, ...) and, optionally, any long flag of `run` by its name.
 * Any other key is a typo: rejected with the nearest valid key, because a misspelt runtime-endpoint would
 * otherwise send the run to the default socket without a word.
 */
import { readFileSync } from 'node:fs';
import { parse, YAMLParseError } from 'yaml';
import { errorMessage } from '../harness/core/errors.js';
import { UsageError } from './errors.js';
import { COMMAND_LINE_ONLY, CONFIG_FILE_KEYS, type ConfigKeyKind, configKeyKind } from './options.js';
import { closestName } from './suggest.js';

export const CRICTL_CONFIG = '/etc/crictl.yaml';

export type ConfigValues = Record<string, string | boolean | string[]>;

export function readConfigFile(path: string, explicit: boolean): ConfigValues {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (!explicit && (e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new UsageError(
      `cannot read --config ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; pass a readable YAML file`,
    );
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new UsageError(
      `--config ${path} is not valid YAML: ${describeYamlError(e)}; fix the file or pass another one`,
    );
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new UsageError(`--config ${path}: expected a mapping of keys to values`);
  const values: ConfigValues = {};
  for (const [key, value] of Object.entries(doc)) {
    if (!CONFIG_FILE_KEYS.includes(key)) throw new UsageError(unknownKeyMessage(path, key));
    const kind = configKeyKind(key);
    const taken = valueOfKind(kind, value);
    if (taken === undefined) throw new UsageError(`--config ${path}: key "${key}" ${KIND_WANTS[kind]}`);
    values[key] = taken;
  }
  return values;
}

const KIND_WANTS: Record<ConfigKeyKind, string> = {
  switch: 'must be true or false',
  list: 'must be a name or a list of names',
  value: 'must be one string or number',
  crictl: 'must be a string, number, boolean or list of strings',
};

/**
 * The value as the flags would have it, or undefined when it is not of the key's kind: a value dropped
 * for its type would send the run to a default without a word, as an unknown key would. YAML reads `yes`
 * as a string, so `isolated: yes` is refused rather than taken for false.
 */
function valueOfKind(kind: ConfigKeyKind, value: unknown): string | boolean | string[] | undefined {
  const strings = Array.isArray(value) && value.every((v) => typeof v === 'string');
  const scalar = typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  switch (kind) {
    case 'switch':
      return typeof value === 'boolean'
        ? value
        : value === 'true' || value === 'false'
          ? value === 'true'
          : undefined;
    case 'list':
      return strings ? (value as string[]) : scalar;
    case 'value':
      return scalar;
    case 'crictl':
      return strings ? (value as string[]) : typeof value === 'boolean' ? value : scalar;
  }
}

function unknownKeyMessage(path: string, key: string): string {
  if (COMMAND_LINE_ONLY.includes(key))
    return `--config ${path}: "${key}" is a flag of the command line only (--${key}); a config file cannot set it`;
  const near = closestName(key, CONFIG_FILE_KEYS);
  const hint = near
    ? `did you mean "${near}"?`
    : "valid keys are crictl's (runtime-endpoint, image-endpoint, timeout, ...) and the long flags of `cri-conform run --help`";
  return `--config ${path}: unknown key "${key}"; ${hint}`;
}

/** The parser's reason and position, without its trailing colon and source excerpt. */
function describeYamlError(e: unknown): string {
  const firstLine = errorMessage(e).split('\n')[0] ?? '';
  const reason = firstLine.replace(/ at line \d+, column \d+:?$/, '').replace(/:$/, '');
  const pos = e instanceof YAMLParseError ? e.linePos?.[0] : undefined;
  return pos ? `${reason} (line ${pos.line}, column ${pos.col})` : reason;
}
