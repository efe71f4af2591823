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
import { CONFIG_FILE_KEYS } from './options.js';
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
    if (typeof value === 'string' || typeof value === 'boolean') values[key] = value;
    else if (typeof value === 'number') values[key] = String(value);
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) values[key] = value;
    else
      throw new UsageError(
        `--config ${path}: key "${key}" must be a string, number, boolean or list of strings`,
      );
  }
  return values;
}

function unknownKeyMessage(path: string, key: string): string {
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
