/**
 * Compares a subset .proto with the upstream one it was written from: for every message, enum and service
 * of the subset, upstream must have the same field numbers, types, repeated/map-ness, enum values and
 * method signatures. Used by proto-upstream.test.ts; kept apart because test files may not export.
 */
import protobuf from 'protobufjs';

const PACKAGE = 'runtime.v1';

/**
 * Differences that are wire-compatible and deliberate. KeyValue.value became bytes in cri-api d3d9c71
 * (after v0.32.3); both are wire type 2, and string is what types.ts promises.
 */
const ALLOWED = new Set(['runtime.v1.KeyValue.value: type string vs bytes']);

/** Removes the gogo import and every gogo option, which only steer Go code generation. */
export function stripGogo(text: string): string {
  return text
    .replace(/^\s*import\s+"github\.com\/gogo\/[^"]*";\s*$/gm, '')
    .replace(/^\s*option\s+\(gogoproto\.[^;]*;\s*$/gm, '')
    .replace(/\s*\[\s*\(gogoproto\.[^\]]*\]/g, '');
}

function typeName(f: protobuf.Field): string {
  return f.resolvedType ? f.resolvedType.fullName : f.type;
}

/** Every difference between our subset and upstream, as readable lines. */
export function compareProtos(ours: protobuf.Root, upstream: protobuf.Root): string[] {
  upstream.resolveAll();
  const problems: string[] = [];
  const ns = ours.lookup(PACKAGE);
  if (!(ns instanceof protobuf.Namespace)) return [`ours has no package ${PACKAGE}`];
  if (!(upstream.lookup(PACKAGE) instanceof protobuf.Namespace))
    return [`upstream has no package ${PACKAGE}`];
  for (const item of ns.nestedArray) {
    const theirs = upstream.lookup(item.fullName.slice(1));
    const name = item.fullName.slice(1);
    if (!theirs) {
      problems.push(`${name}: missing upstream`);
    } else if (item instanceof protobuf.Type) {
      if (!(theirs instanceof protobuf.Type)) problems.push(`${name}: not a message upstream`);
      else problems.push(...compareMessage(name, item, theirs));
    } else if (item instanceof protobuf.Enum) {
      if (!(theirs instanceof protobuf.Enum)) problems.push(`${name}: not an enum upstream`);
      else {
        for (const [key, value] of Object.entries(item.values)) {
          if (theirs.values[key] !== value)
            problems.push(`${name}.${key}: ${value} vs ${theirs.values[key]}`);
        }
      }
    } else if (item instanceof protobuf.Service) {
      if (!(theirs instanceof protobuf.Service)) problems.push(`${name}: not a service upstream`);
      else problems.push(...compareService(name, item, theirs));
    }
  }
  return problems.filter((p) => !ALLOWED.has(p));
}

function compareMessage(name: string, mine: protobuf.Type, theirs: protobuf.Type): string[] {
  const problems: string[] = [];
  for (const f of mine.fieldsArray) {
    const u = theirs.fields[f.name];
    const at = `${name}.${f.name}`;
    if (!u) {
      problems.push(`${at}: missing upstream`);
      continue;
    }
    if (f.id !== u.id) problems.push(`${at}: number ${f.id} vs ${u.id}`);
    if (typeName(f) !== typeName(u)) problems.push(`${at}: type ${typeName(f)} vs ${typeName(u)}`);
    if (f.repeated !== u.repeated) problems.push(`${at}: repeated ${f.repeated} vs ${u.repeated}`);
    if (f.map !== u.map) problems.push(`${at}: map ${f.map} vs ${u.map}`);
    if (f instanceof protobuf.MapField && u instanceof protobuf.MapField && f.keyType !== u.keyType) {
      problems.push(`${at}: map key ${f.keyType} vs ${u.keyType}`);
    }
  }
  return problems;
}

function compareService(name: string, mine: protobuf.Service, theirs: protobuf.Service): string[] {
  const problems: string[] = [];
  for (const m of mine.methodsArray) {
    const u = theirs.methods[m.name];
    const at = `${name}/${m.name}`;
    if (!u) {
      problems.push(`${at}: missing upstream`);
      continue;
    }
    m.resolve();
    u.resolve();
    const sig = (x: protobuf.Method) =>
      `${x.resolvedRequestType?.fullName}${x.requestStream ? ' stream' : ''} -> ${x.resolvedResponseType?.fullName}${x.responseStream ? ' stream' : ''}`;
    if (sig(m) !== sig(u)) problems.push(`${at}: ${sig(m)} vs ${sig(u)}`);
  }
  return problems;
}
