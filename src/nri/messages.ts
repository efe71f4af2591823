/**
 * Protobuf encoding of the ttrpc envelope and the NRI messages, from the .proto files in ./proto,
 * loaded once at run time with protobufjs. Field names are camelCased by protobufjs
 * (`plugin_idx` -> `pluginIdx`, `NRI_version` -> `NRIVersion`).
 */
import protobuf from 'protobufjs';
import { NriProtocolError } from './errors.js';
import { nriProtoPath } from './package-root.js';

export const NRI_PACKAGE = 'nri.pkg.api.v1alpha1';
export const RUNTIME_SERVICE = `${NRI_PACKAGE}.Runtime`;
export const PLUGIN_SERVICE = `${NRI_PACKAGE}.Plugin`;

export interface WireKeyValue {
  key: string;
  value: string;
}

export interface WireRequest {
  service: string;
  method: string;
  payload: Uint8Array;
  /** Relative time left in ns; 0 when the caller has no deadline. */
  timeoutNano: number;
  metadata: WireKeyValue[];
}

export interface WireStatus {
  code: number;
  message: string;
}

export interface WireResponse {
  status: WireStatus | null;
  payload: Uint8Array;
}

export interface WireNamespace {
  type: string;
  path: string;
}

export interface WirePod {
  id: string;
  name: string;
  uid: string;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  runtimeHandler: string;
  linux: { cgroupParent: string; cgroupsPath: string; namespaces: WireNamespace[] } | null;
  pid: number;
  ips: string[];
}

export interface WireContainer {
  id: string;
  podSandboxId: string;
  name: string;
  state: number;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  args: string[];
  env: string[];
  pid: number;
}

let root: protobuf.Root | undefined;
const types = new Map<string, protobuf.Type>();

/** The loaded protobuf root holding both ttrpc.proto and nri.proto. */
export function protoRoot(): protobuf.Root {
  root ??= new protobuf.Root().loadSync([nriProtoPath('ttrpc.proto'), nriProtoPath('nri.proto')]);
  return root;
}

/** A message type by full name (`ttrpc.Request`) or by name inside the NRI package (`PodSandbox`). */
export function protoType(name: string): protobuf.Type {
  let t = types.get(name);
  if (!t) {
    const full = name.includes('.') ? name : `${NRI_PACKAGE}.${name}`;
    t = protoRoot().lookupType(full);
    types.set(name, t);
  }
  return t;
}

/** Encodes a plain object; unknown keys are ignored, absent ones take proto3 defaults. */
export function encodeProto(typeName: string, value: object): Uint8Array {
  const t = protoType(typeName);
  return t.encode(t.fromObject(value as Record<string, unknown>)).finish();
}

/**
 * Decodes `bytes` (zero bytes = the empty message) into a plain object with every field present:
 * scalars default to zero values, repeated to [], maps to {}, messages to null; int64 as number.
 * Throws ERR_NRI_PROTOCOL when the bytes are not a valid encoding.
 */
export function decodeProto<T>(typeName: string, bytes: Uint8Array): T {
  const t = protoType(typeName);
  try {
    const msg = t.decode(bytes);
    return t.toObject(msg, {
      longs: Number,
      enums: Number,
      defaults: true,
      arrays: true,
      objects: true,
    }) as T;
  } catch (err) {
    throw new NriProtocolError('ERR_NRI_PROTOCOL', `cannot decode ${typeName}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
