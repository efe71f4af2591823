/**
 * Loads the CRI subset proto once per process with the options the message shapes in types.ts assume.
 */
import type { MethodDefinition } from '@grpc/proto-loader';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { protoPath } from './package-root.js';
import type { CriMethod } from './types.js';
import { IMAGE_METHODS } from './types.js';

/** The options types.ts is written for: camelCase names, int64 as decimal strings, enums as names. */
export const LOADER_OPTIONS = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
} as const;

export const RUNTIME_SERVICE = 'runtime.v1.RuntimeService';
export const IMAGE_SERVICE = 'runtime.v1.ImageService';

let cached: PackageDefinition | undefined;

export function loadCriDefinition(): PackageDefinition {
  cached ??= loadSync(protoPath('cri.proto'), { ...LOADER_OPTIONS });
  return cached;
}

/** The path and codecs of one RPC; throws if the proto lacks it (a types.ts/proto mismatch, i.e. a bug). */
export function methodDefinition(method: CriMethod): MethodDefinition<unknown, unknown> {
  const service = IMAGE_METHODS.has(method) ? IMAGE_SERVICE : RUNTIME_SERVICE;
  const def = loadCriDefinition()[service];
  const m = def && method in def ? (def as Record<string, unknown>)[method] : undefined;
  if (!m || typeof m !== 'object' || !('path' in m)) throw new Error(`cri.proto has no ${service}/${method}`);
  return m as MethodDefinition<unknown, unknown>;
}
