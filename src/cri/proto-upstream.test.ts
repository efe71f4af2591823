/**
 * Cross-checks src/cri/proto/cri.proto against the upstream CRI api.proto that Debian ships
 * (golang-github-kubernetes-cri-api-dev): same package, services, methods, message fields (number, type,
 * repeated/map) and enum values, for every entry of our subset.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect } from 'chai';
import protobuf from 'protobufjs';
import { skipBecause } from '../skip-reason.test.helper.js';
import { protoPath } from './package-root.js';
import { compareProtos, stripGogo } from './proto-compare.test.helper.js';

const GOCODE = '/usr/share/gocode/src';
const UPSTREAM = join(GOCODE, 'k8s.io/cri-api/pkg/apis/runtime/v1/api.proto');
const GOGO = join(GOCODE, 'github.com/gogo/protobuf/gogoproto/gogo.proto');

/** Loads upstream; says which way it went (gogo resolved from Debian, or stripped from the text). */
function loadUpstream(): { root: protobuf.Root; how: string } {
  const root = new protobuf.Root();
  if (existsSync(GOGO)) {
    // gogo.proto imports google/protobuf/descriptor.proto, which protobufjs bundles but does not register.
    const descriptor = createRequire(import.meta.url)('protobufjs/google/protobuf/descriptor.json');
    protobuf.common('descriptor', descriptor.nested.google.nested.protobuf.nested);
    root.resolvePath = (origin, target) =>
      target.startsWith('github.com/') || target.startsWith('k8s.io/')
        ? join(GOCODE, target)
        : protobuf.util.path.resolve(origin, target);
    root.loadSync(UPSTREAM, { keepCase: true });
    return { root, how: `gogo.proto resolved from ${GOCODE}` };
  }
  protobuf.parse(stripGogo(readFileSync(UPSTREAM, 'utf8')), root, { keepCase: true });
  return { root, how: 'gogo import and options stripped before parsing' };
}

function loadOurs(): protobuf.Root {
  const root = new protobuf.Root().loadSync(protoPath('cri.proto'), { keepCase: true });
  root.resolveAll();
  return root;
}

describe('cri.proto against upstream api.proto', () => {
  it('matches upstream in every service, method, field and enum value it declares', function () {
    if (!existsSync(UPSTREAM)) {
      const why = `${UPSTREAM} is absent: apt-get install golang-github-kubernetes-cri-api-dev`;
      if (process.env.CI === 'true') throw new Error(why);
      skipBecause(this, why);
    }
    const { root, how } = loadUpstream();
    this.test!.title += ` (${how})`;
    expect(compareProtos(loadOurs(), root)).to.deep.equal([]);
  });

  it('finds no difference when a proto is compared with itself, and every one in a changed copy', () => {
    expect(compareProtos(loadOurs(), loadOurs())).to.deep.equal([]);
    const changed = readFileSync(protoPath('cri.proto'), 'utf8')
      .replace('string runtime_name = 2;', 'string runtime_name = 5;')
      .replace('repeated string repo_tags = 2;', 'string repo_tags = 2;')
      .replace('SANDBOX_NOTREADY = 1;', 'SANDBOX_NOTREADY = 2;')
      .replace(
        'rpc Status(StatusRequest) returns (StatusResponse) {}',
        'rpc Status(StatusRequest) returns (VersionResponse) {}',
      );
    const upstream = protobuf.parse(changed, new protobuf.Root(), { keepCase: true }).root;
    expect(compareProtos(loadOurs(), upstream)).to.have.members([
      'runtime.v1.VersionResponse.runtime_name: number 2 vs 5',
      'runtime.v1.Image.repo_tags: repeated true vs false',
      'runtime.v1.PodSandboxState.SANDBOX_NOTREADY: 1 vs 2',
      'runtime.v1.RuntimeService/Status: .runtime.v1.StatusRequest -> .runtime.v1.StatusResponse vs .runtime.v1.StatusRequest -> .runtime.v1.VersionResponse',
    ]);
  });

  it('strips the gogo import and options but keeps the rest', () => {
    const text = [
      'syntax = "proto3";',
      'package runtime.v1;',
      'import "github.com/gogo/protobuf/gogoproto/gogo.proto";',
      'option (gogoproto.goproto_stringer_all) = false;',
      'option go_package = "k8s.io/cri-api/pkg/apis/runtime/v1";',
      'message A { string b = 1 [(gogoproto.nullable) = false]; }',
    ].join('\n');
    const out = stripGogo(text);
    expect(out).not.to.contain('gogo');
    expect(out).to.contain('option go_package');
    const root = protobuf.parse(out, new protobuf.Root(), { keepCase: true }).root;
    expect(root.lookupType('runtime.v1.A').fields.b?.id).to.equal(1);
  });
});
