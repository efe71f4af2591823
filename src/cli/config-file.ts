/**
 * The YAML file behind --config (default /etc/crictl.yaml when present). It holds crictl's keys
 * (runtime-endpoint, image-endpoint, timeout) and, optionally, any long flag of `run` by its name.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { UsageError } from './errors.js';

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
    throw new UsageError(`--config ${path} is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new UsageError(`--config ${path}: expected a mapping of keys to values`);
  const values: ConfigValues = {};
  for (const [key, value] of Object.entries(doc)) {
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
