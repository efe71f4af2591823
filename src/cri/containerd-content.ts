/**
 * Reading one image out of a containerd through its own API: Images.Get for the record, Content.Info and
 * Content.Read for the blobs. Only read calls: the private instance copies the images the node holds this
 * way without writing anything into the node's store (no lease, no label, no ingest).
 */
import { status as Status } from '@grpc/grpc-js';
import { ContainerdConnection, methodTable } from './containerd-api.js';

/** An OCI descriptor as containerd keeps it; `size` is a decimal string (int64). */
export interface ContentDescriptor {
  mediaType: string;
  digest: string;
  size: string;
  annotations: Record<string, string>;
}

const methods = methodTable(
  ['containerd-images.proto', 'containerd-content.proto'],
  ['containerd.services.images.v1.Images', 'containerd.services.content.v1.Content'],
);

/** Read-only access to the images and content of one containerd namespace. */
export class ContainerdContentReader {
  private readonly connection: ContainerdConnection;

  constructor(
    endpoint: string,
    namespace?: string,
    private readonly deadlineMs = 10_000,
  ) {
    this.connection = new ContainerdConnection(endpoint, methods, namespace);
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
  async *read(digest: string): AsyncIterable<Buffer> {
    const stream = this.connection.stream<{ data: Buffer }>('Content/Read', {
      digest,
      offset: '0',
      size: '0',
    });
    for await (const msg of stream) yield msg.data;
  }

  close(): void {
    this.connection.close();
  }

  private unary<T>(name: string, request: unknown): Promise<T | undefined> {
    return this.connection.unary<T>(name, request, this.deadlineMs, Status.NOT_FOUND);
  }
}
