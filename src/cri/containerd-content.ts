/**
 * Reading one image out of a containerd through its own API: Images.Get for the record, Content.Info and
 * Content.Read for the blobs. Only read calls: the private instance copies the images the node holds this
 * way without writing anything into the node's store (no lease, no label, no ingest).
 */
import { Client, credentials, Metadata, type ServiceError, status as Status } from '@grpc/grpc-js';
import { loadSync, type MethodDefinition } from '@grpc/proto-loader';
import { CONTAINERD_K8S_NAMESPACE, ContainerdNativeError } from './containerd-native.js';
import { parseEndpoint } from './endpoint.js';
import { LOADER_OPTIONS } from './load-proto.js';
import { protoPath } from './package-root.js';

/** An OCI descriptor as containerd keeps it; `size` is a decimal string (int64). */
export interface ContentDescriptor {
  mediaType: string;
  digest: string;
  size: string;
  annotations: Record<string, string>;
}

type Method = MethodDefinition<unknown, unknown>;
let loaded: Record<string, Method> | undefined;

function method(name: string): Method {
  loaded ??= (() => {
    const def = loadSync([protoPath('containerd-images.proto'), protoPath('containerd-content.proto')], {
      ...LOADER_OPTIONS,
    });
    const out: Record<string, Method> = {};
    for (const service of [
      'containerd.services.images.v1.Images',
      'containerd.services.content.v1.Content',
    ]) {
      for (const [rpc, m] of Object.entries((def[service] ?? {}) as Record<string, Method>)) {
        out[`${service.split('.').at(-1)}/${rpc}`] = m;
      }
    }
    return out;
  })();
  const m = loaded[name];
  if (!m) throw new Error(`containerd protos lack ${name}`);
  return m;
}

/** Read-only access to the images and content of one containerd namespace. */
export class ContainerdContentReader {
  private readonly client: Client;
  private readonly metadata = new Metadata();

  constructor(
    endpoint: string,
    namespace = CONTAINERD_K8S_NAMESPACE,
    private readonly deadlineMs = 10_000,
  ) {
    this.client = new Client(parseEndpoint(endpoint).target, credentials.createInsecure());
    this.metadata.set('containerd-namespace', namespace);
  }

  /** The image record's target, or undefined when no image has this name. */
  async imageTarget(name: string): Promise<ContentDescriptor | undefined> {
    const r = await this.unary<{ image: { target: ContentDescriptor } }>('Images/Get', { name });
    return r?.image.target;
  }

  /** Whether the blob is in the store (a lazily pulled or discarded layer is not). */
  async has(digest: string): Promise<boolean> {
    return (await this.unary('Content/Info', { digest })) !== undefined;
  }

  /** A whole blob, for manifests and indexes (small). */
  async readAll(digest: string): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const chunk of this.read(digest)) parts.push(chunk);
    return Buffer.concat(parts);
  }

  /** A blob as the server streams it, in order. */
  read(digest: string): AsyncIterable<Buffer> {
    const m = method('Content/Read');
    const stream = this.client.makeServerStreamRequest(
      m.path,
      m.requestSerialize,
      m.responseDeserialize,
      { digest, offset: '0', size: '0' },
      this.metadata,
    );
    return (async function* () {
      try {
        for await (const msg of stream as AsyncIterable<{ data: Buffer }>) yield msg.data;
      } catch (e) {
        const err = e as ServiceError;
        throw new ContainerdNativeError('Content/Read', err.code ?? Status.UNKNOWN, err.details ?? String(e));
      }
    })();
  }

  close(): void {
    this.client.close();
  }

  /** Resolves undefined on NOT_FOUND; rejects with ContainerdNativeError on any other failure. */
  private unary<T>(name: string, request: unknown): Promise<T | undefined> {
    const m = method(name);
    return new Promise<T | undefined>((resolve, reject) => {
      this.client.makeUnaryRequest(
        m.path,
        m.requestSerialize,
        m.responseDeserialize,
        request,
        this.metadata,
        { deadline: Date.now() + this.deadlineMs },
        (err: ServiceError | null, value) => {
          if (!err) resolve(value as T);
          else if (err.code === Status.NOT_FOUND) resolve(undefined);
          else reject(new ContainerdNativeError(name, err.code, err.details));
        },
      );
    });
  }
}
