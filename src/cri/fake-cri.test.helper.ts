/**
 * Test servers on unix sockets: a CRI v1 server built from our own proto with handlers the test supplies,
 * a server that only knows runtime.v1alpha2 Version, and a plain socket that answers with garbage.
 * Named *.test.helper.ts so mocha's *.test.js glob skips it and the package's !*.test.* rule leaves it out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServiceDefinition,
  status as Status,
  type sendUnaryData,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { IMAGE_SERVICE, LOADER_OPTIONS, loadCriDefinition, RUNTIME_SERVICE } from './load-proto.js';
import { protoPath } from './package-root.js';

export type Handler = (
  request: unknown,
  call: ServerUnaryCall<unknown, unknown>,
) => Promise<unknown> | unknown;

export interface Running {
  socketPath: string;
  endpoint: string;
  close(): Promise<void>;
}

/** A directory for sockets, short enough for sun_path (about 107 bytes). */
export function socketDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'cc-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Serves the given runtime.v1 handlers; any other RPC answers UNIMPLEMENTED (grpc-js's default), as a
 * runtime other than containerd does. With `containerdRecords`, containerd's own Containers/List and
 * Tasks/List answer too, with no record: a containerd that knows none of the ids a test asks about.
 */
export async function startCriServer(
  socketPath: string,
  handlers: Record<string, Handler>,
  { containerdRecords = false }: { containerdRecords?: RecordsServed } = {},
): Promise<Running> {
  const def = loadCriDefinition();
  const server = new Server();
  for (const name of [RUNTIME_SERVICE, IMAGE_SERVICE]) {
    const service = def[name] as ServiceDefinition;
    const impl: UntypedServiceImplementation = {};
    for (const method of Object.keys(service)) {
      const handler = handlers[method];
      if (handler) impl[method] = unary(handler);
    }
    server.addService(service, impl);
  }
  if (containerdRecords)
    serveNoContainerdRecords(server, containerdRecords === true ? () => true : containerdRecords);
  return bind(server, socketPath);
}

/** Whether containerd's record lists are served: always, never, or as the function says at each call. */
export type RecordsServed = boolean | (() => boolean);

function serveNoContainerdRecords(server: Server, served: () => boolean): void {
  const def = loadSync([protoPath('containerd-containers.proto'), protoPath('containerd-tasks.proto')], {
    ...LOADER_OPTIONS,
  });
  // Unserved, they answer as a runtime that is not containerd does.
  const none = (reply: object) =>
    unary(() => {
      if (!served()) throw Object.assign(new Error('unimplemented'), { code: Status.UNIMPLEMENTED });
      return reply;
    });
  server.addService(def['containerd.services.containers.v1.Containers'] as ServiceDefinition, {
    List: none({ containers: [] }),
  });
  server.addService(def['containerd.services.tasks.v1.Tasks'] as ServiceDefinition, {
    List: none({ tasks: [] }),
  });
}

/** Serves only runtime.v1alpha2.RuntimeService/Version with a raw codec, like a pre-v1 runtime. */
export async function startV1alpha2Server(socketPath: string): Promise<Running> {
  const server = new Server();
  const raw = (b: Buffer) => b;
  const service: ServiceDefinition = {
    Version: {
      path: '/runtime.v1alpha2.RuntimeService/Version',
      requestStream: false,
      responseStream: false,
      requestSerialize: raw,
      requestDeserialize: raw,
      responseSerialize: raw,
      responseDeserialize: raw,
    },
  };
  server.addService(service, { Version: unary(() => Buffer.alloc(0)) });
  return bind(server, socketPath);
}

/** A plain socket server that writes bytes no HTTP/2 peer accepts, then hangs up. */
export async function startGarbageServer(socketPath: string): Promise<Running> {
  const sockets = new Set<Socket>();
  const server: NetServer = createServer((sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    sock.on('error', () => {});
    sock.end('SSH-2.0-definitely-not-grpc\r\n\x00\x01\x02garbage');
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    socketPath,
    endpoint: `unix://${socketPath}`,
    close: () =>
      new Promise((resolve) => {
        // server.close waits for open connections; a peer that keeps its half open would stall the test.
        for (const sock of sockets) sock.destroy();
        server.close(() => resolve());
      }),
  };
}

function unary(handler: Handler) {
  return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
    Promise.resolve()
      .then(() => handler(call.request, call))
      .then(
        (reply) => callback(null, reply),
        (e: unknown) => callback(e as Error),
      );
  };
}

async function bind(server: Server, socketPath: string): Promise<Running> {
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socketPath}`, ServerCredentials.createInsecure(), (e) =>
      e ? reject(e) : resolve(),
    ),
  );
  return {
    socketPath,
    endpoint: `unix://${socketPath}`,
    close: () =>
      new Promise((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
}
