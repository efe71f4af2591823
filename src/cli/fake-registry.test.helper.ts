/**
 * A registry that serves one image, read only, to a client that logs in with HTTP Basic: enough of the
 * distribution API (manifests by tag or digest, blobs) for a runtime's PullImage, over plain HTTP on the
 * loopback, which runtimes reach without TLS. It records who asked for what, so a test sees whether the
 * runtime sent the credentials it was given.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ROOT } from './e2e-env.test.helper.js';

export interface FakeRegistry {
  /** `127.0.0.1:<port>`: the host part of an image reference. */
  host: string;
  /** The image it serves: `<host>/<repository>:<tag>`. */
  image: string;
  /** Every request, with the user it logged in as ('' when it sent no valid credentials). */
  requests: { method: string; path: string; user: string }[];
  close(): Promise<void>;
}

/**
 * Serves the bundled test image (scripts/build-images.sh, built into `dir`) as `cc/busybox:1` to `user`
 * with `password`; any other client gets 401 with a Basic challenge, as a private registry answers.
 */
export async function startFakeRegistry(dir: string, user: string, password: string): Promise<FakeRegistry> {
  const layout = join(dir, 'layout');
  mkdirSync(layout, { recursive: true });
  const archive = execFileSync('bash', [join(ROOT, 'scripts/build-images.sh'), dir], {
    encoding: 'utf8',
  }).trim();
  execFileSync('tar', ['-xf', archive, '-C', layout]);
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as {
    manifests: { digest: string; mediaType: string; annotations?: Record<string, string> }[];
  };
  const manifest = index.manifests.find(
    (m) => m.annotations?.['org.opencontainers.image.ref.name'] === 'localhost/cri-conform/busybox:1',
  );
  if (!manifest) throw new Error(`${archive} holds no localhost/cri-conform/busybox:1`);
  const blob = (digest: string) => join(layout, 'blobs', ...digest.split(':'));
  const requests: FakeRegistry['requests'] = [];
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://registry').pathname;
    const authorised = req.headers.authorization === expected;
    requests.push({ method: req.method ?? '', path, user: authorised ? user : '' });
    if (!authorised) {
      res.writeHead(401, {
        'WWW-Authenticate': 'Basic realm="cri-conform"',
        'Content-Type': 'application/json',
      });
      res.end('{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}');
      return;
    }
    if (path === '/v2/') return void res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    const m = /^\/v2\/cc\/busybox\/(manifests|blobs)\/([^/]+)$/.exec(path);
    const digest = m?.[1] === 'manifests' && m[2] === '1' ? manifest.digest : m?.[2];
    const file = digest?.startsWith('sha256:') ? blob(digest) : undefined;
    const size = file ? sizeOf(file) : undefined;
    if (!digest || !file || size === undefined) {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end('{"errors":[{"code":"NOT_FOUND","message":"unknown"}]}');
      return;
    }
    const type = m?.[1] === 'manifests' ? manifest.mediaType : 'application/octet-stream';
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': size, 'Docker-Content-Digest': digest });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host,
    image: `${host}/cc/busybox:1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function sizeOf(file: string): number | undefined {
  try {
    return statSync(file).size;
  } catch {
    return undefined;
  }
}
