import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { status as Status } from '@grpc/grpc-js';
import { expect } from 'chai';
import { CriClient } from './client.js';
import { classifyVersionFailure } from './connect-probe.js';
import { parseEndpoint } from './endpoint.js';
import { CriConnectError } from './errors.js';
import {
  socketDir,
  startCriServer,
  startGarbageServer,
  startV1alpha2Server,
} from './fake-cri.test.helper.js';

async function connectError(runtimeEndpoint: string, connectTimeoutMs = 2_000): Promise<CriConnectError> {
  try {
    const client = await CriClient.connect({ runtimeEndpoint, connectTimeoutMs });
    client.close();
  } catch (e) {
    expect(e).to.be.instanceOf(CriConnectError).with.property('code', 'ERR_CRI_CONNECT');
    expect((e as Error).message, 'one line, no stack').not.to.contain('\n');
    return e as CriConnectError;
  }
  throw new Error(`connect to ${runtimeEndpoint} succeeded`);
}

describe('CriClient.connect failures', () => {
  let tmp: ReturnType<typeof socketDir>;
  beforeEach(() => {
    tmp = socketDir();
  });
  afterEach(() => tmp.remove());

  it('calls a missing socket unreachable and says how to point at the right one', async () => {
    const e = await connectError(join(tmp.dir, 'absent.sock'));
    expect(e.kind).to.equal('unreachable');
    expect(e.message).to.equal(
      `cannot connect to unix://${tmp.dir}/absent.sock: no such socket. Is the runtime running? Set --runtime-endpoint or CONTAINER_RUNTIME_ENDPOINT.`,
    );
  });

  it('calls a regular file not-a-socket', async () => {
    const file = join(tmp.dir, 'file.sock');
    writeFileSync(file, 'not a socket');
    const e = await connectError(`unix://${file}`);
    expect(e.kind).to.equal('not-a-socket');
    expect(e.message).to.contain('is a regular file').and.to.contain('--runtime-endpoint');
  });

  it('calls a directory not-a-socket', async () => {
    expect((await connectError(tmp.dir)).kind).to.equal('not-a-socket');
  });

  it('calls a socket that answers with garbage and hangs up not-cri', async () => {
    const server = await startGarbageServer(join(tmp.dir, 'garbage.sock'));
    try {
      const e = await connectError(server.endpoint);
      expect(e.kind).to.equal('not-cri');
      expect(e.message).to.contain('does not speak CRI v1');
    } finally {
      await server.close();
    }
  });

  it('calls a runtime that serves only runtime.v1alpha2 v1alpha2-only', async () => {
    const server = await startV1alpha2Server(join(tmp.dir, 'old.sock'));
    try {
      const e = await connectError(server.endpoint);
      expect(e.kind).to.equal('v1alpha2-only');
      expect(e.message).to.contain('Upgrade the runtime');
    } finally {
      await server.close();
    }
  });

  it('calls a gRPC server without the CRI RuntimeService not-cri', async () => {
    const server = await startCriServer(join(tmp.dir, 'other.sock'), {});
    try {
      const e = await connectError(server.endpoint);
      expect(e.kind).to.equal('not-cri');
      expect(e.message).to.contain('UNIMPLEMENTED');
    } finally {
      await server.close();
    }
  });

  it('calls a runtime that does not answer Version in time a timeout', async () => {
    const server = await startCriServer(join(tmp.dir, 'hung.sock'), { Version: () => new Promise(() => {}) });
    try {
      const started = performance.now();
      const e = await connectError(server.endpoint, 150);
      expect(e.kind).to.equal('timeout');
      expect(e.message).to.contain('within 150 ms');
      expect(performance.now() - started).to.be.within(140, 1_500);
    } finally {
      await server.close();
    }
  });
});

describe('classifyVersionFailure', () => {
  const ep = parseEndpoint('/run/x.sock');
  const never = async () => {
    throw new Error('v1alpha2 must not be probed');
  };

  it('calls EACCES at connect time a permission problem', async () => {
    const details =
      'No connection established. Last error: Error: connect EACCES /run/x.sock (2026-01-01T00:00:00.000Z).';
    const e = await classifyVersionFailure({ code: Status.UNAVAILABLE, details }, ep, 1_000, never);
    expect(e.kind).to.equal('permission');
    expect(e.message).to.contain('Run cri-conform as root');
  });

  it('calls ECONNREFUSED a stale socket that is unreachable', async () => {
    const details =
      'No connection established. Last error: Error: connect ECONNREFUSED /run/x.sock (2026-01-01T00:00:00.000Z).';
    const e = await classifyVersionFailure({ code: Status.UNAVAILABLE, details }, ep, 1_000, never);
    expect(e.kind).to.equal('unreachable');
    expect(e.message).to.contain('stale socket');
  });

  it('calls ECONNREFUSED on a tcp endpoint nothing listening on its host and port, not a stale socket', async () => {
    const details =
      'No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:1 (2026-01-01T00:00:00.000Z).';
    const tcp = parseEndpoint('tcp://127.0.0.1:1');
    const e = await classifyVersionFailure({ code: Status.UNAVAILABLE, details }, tcp, 1_000, never);
    expect(e.kind).to.equal('unreachable');
    expect(e.message).to.contain('connection refused: nothing listens on 127.0.0.1:1');
    expect(e.message).not.to.contain('stale socket');
  });
});
