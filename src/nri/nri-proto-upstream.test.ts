import { existsSync } from 'node:fs';
import { expect } from 'chai';
import protobuf from 'protobufjs';
import { skipBecause } from '../skip-reason.test.helper.js';
import { nriProtoPath } from './package-root.js';

/** Debian trixie golang-github-containerd-nri-dev 0.6.1-2 installs upstream v0.6.1's api.proto here. */
const UPSTREAM =
  process.env.CRI_CONFORM_UPSTREAM_NRI_PROTO ??
  '/usr/share/gocode/src/github.com/containerd/nri/pkg/api/api.proto';
const PKG = 'nri.pkg.api.v1alpha1';

/** Kept on purpose although NRI v0.6.1 lacks them; the version says when each appeared upstream. */
const NEWER_THAN_0_6_1 = {
  methods: {
    UpdatePodSandbox: 'v0.10.0',
    ValidateContainerAdjustment: 'v0.10.0',
    RunPodSandbox: 'v0.12.0',
    PostUpdatePodSandbox: 'v0.12.0',
    StopPodSandbox: 'v0.12.0',
    RemovePodSandbox: 'v0.12.0',
    PostCreateContainer: 'v0.12.0',
    StartContainer: 'v0.12.0',
    PostStartContainer: 'v0.12.0',
    PostUpdateContainer: 'v0.12.0',
    RemoveContainer: 'v0.12.0',
  } as Record<string, string>,
  fields: {
    'RegisterPluginRequest.NRI_version': 'v0.12.0',
    'ConfigureRequest.registration_timeout': 'v0.7.0',
    'ConfigureRequest.request_timeout': 'v0.7.0',
    'ConfigureRequest.NRI_version': 'v0.12.0',
    'SynchronizeRequest.more': 'v0.7.0',
    'SynchronizeResponse.more': 'v0.7.0',
    'PodSandbox.ips': 'v0.8.0',
  } as Record<string, string>,
  enumValues: {
    'Event.UPDATE_POD_SANDBOX': 'v0.10.0',
    'Event.POST_UPDATE_POD_SANDBOX': 'v0.10.0',
    'Event.VALIDATE_CONTAINER_ADJUSTMENT': 'v0.10.0',
  } as Record<string, string>,
};
const NEWER_MESSAGE =
  /^(RunPodSandbox|UpdatePodSandbox|PostUpdatePodSandbox|StopPodSandbox|RemovePodSandbox|PostCreateContainer|StartContainer|PostStartContainer|PostUpdateContainer|RemoveContainer|ValidateContainerAdjustment)(Request|Response)$/;

function load(file: string): protobuf.Namespace {
  const root = new protobuf.Root().loadSync(file, { keepCase: true });
  root.resolveAll();
  return root.lookup(PKG) as protobuf.Namespace;
}

function fieldShape(f: protobuf.Field): string {
  const kind = f instanceof protobuf.MapField ? `map<${f.keyType},` : f.repeated ? 'repeated ' : '';
  const type = f.resolvedType ? f.resolvedType.name : f.type;
  return `${f.id} ${kind}${type}${kind.startsWith('map') ? '>' : ''}`;
}

describe('nri.proto against the upstream NRI api.proto', () => {
  let ours: protobuf.Namespace;
  let theirs: protobuf.Namespace;
  before(function () {
    if (!existsSync(UPSTREAM)) {
      if (process.env.CI === 'true')
        throw new Error(
          `upstream NRI proto missing at ${UPSTREAM} (apt install golang-github-containerd-nri-dev)`,
        );
      skipBecause(this, `${UPSTREAM} is absent: apt-get install golang-github-containerd-nri-dev`);
    }
    ours = load(nriProtoPath('nri.proto'));
    theirs = load(UPSTREAM);
  });

  it('gives every kept message field the upstream number and type', () => {
    const problems: string[] = [];
    for (const msg of ours.nestedArray.filter((n): n is protobuf.Type => n instanceof protobuf.Type)) {
      const up = theirs.get(msg.name);
      if (!(up instanceof protobuf.Type)) {
        if (!NEWER_MESSAGE.test(msg.name)) problems.push(`message ${msg.name} missing upstream`);
        continue;
      }
      for (const f of msg.fieldsArray) {
        const uf = up.fields[f.name];
        if (!uf) {
          if (!NEWER_THAN_0_6_1.fields[`${msg.name}.${f.name}`])
            problems.push(`${msg.name}.${f.name} missing upstream`);
        } else if (fieldShape(f) !== fieldShape(uf)) {
          problems.push(`${msg.name}.${f.name}: ours ${fieldShape(f)}, upstream ${fieldShape(uf)}`);
        }
      }
    }
    expect(problems).to.deep.equal([]);
  });

  it('gives every kept enum value the upstream number', () => {
    const problems: string[] = [];
    for (const en of ours.nestedArray.filter((n): n is protobuf.Enum => n instanceof protobuf.Enum)) {
      const up = theirs.get(en.name);
      if (!(up instanceof protobuf.Enum)) {
        problems.push(`enum ${en.name} missing upstream`);
        continue;
      }
      for (const [name, value] of Object.entries(en.values)) {
        if (up.values[name] === undefined) {
          if (!NEWER_THAN_0_6_1.enumValues[`${en.name}.${name}`])
            problems.push(`${en.name}.${name} missing upstream`);
        } else if (up.values[name] !== value)
          problems.push(`${en.name}.${name}: ours ${value}, upstream ${up.values[name]}`);
      }
    }
    expect(problems).to.deep.equal([]);
  });

  it('has the same services and methods, with the same request and response types', () => {
    const problems: string[] = [];
    for (const svc of ['Runtime', 'Plugin']) {
      const mine = ours.get(svc) as protobuf.Service;
      const up = theirs.get(svc) as protobuf.Service;
      for (const m of mine.methodsArray) {
        const um = up.methods[m.name];
        if (!um) {
          if (!NEWER_THAN_0_6_1.methods[m.name]) problems.push(`${svc}.${m.name} missing upstream`);
        } else if (`${um.requestType}->${um.responseType}` !== `${m.requestType}->${m.responseType}`) {
          problems.push(
            `${svc}.${m.name}: ours ${m.requestType}->${m.responseType}, upstream ${um.requestType}->${um.responseType}`,
          );
        }
      }
      for (const um of up.methodsArray)
        if (!mine.methods[um.name]) problems.push(`${svc}.${um.name} missing in ours`);
    }
    expect(problems).to.deep.equal([]);
  });
});
