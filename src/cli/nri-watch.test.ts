/**
 * `nri watch` with bad input: a bad flag is named as such, and an --nri-socket that is no NRI socket is
 * told apart from a runtime whose NRI is off. Nothing here needs a runtime.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type ClosingServer, listenClosing } from '../closing-server.test.helper.js';
import { startCriServer } from '../cri/fake-cri.test.helper.js';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';
import { expectUsageFailure } from './usage-failure.test.helper.js';

describe('nri watch with bad input', () => {
  let dir: string;
  let http: ClosingServer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cc-'));
    http = await listenClosing(join(dir, 'http.sock'), (socket) =>
      socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'),
    );
  });
  after(async () => {
    await http.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const watch = (...args: string[]) => ['nri', 'watch', '--nri-socket', join(dir, 'absent.sock'), ...args];

  for (const name of ['', 'a/b c']) {
    it(`rejects --name ${JSON.stringify(name)} as a bad flag, not as NRI being off`, async () => {
      const line = await expectUsageFailure(watch('--name', name), /^cri-conform: --name ".*" must match/);
      expect(line)
        .to.contain(`--name ${JSON.stringify(name)}`)
        .and.not.to.contain('Is NRI enabled');
    });
  }

  it('prints the default of --index once in its help', async () => {
    const io = recordingIo();
    expect(await main(['node', 'cri-conform', 'nri', 'watch', '--help'], io)).to.equal(0);
    // Commander wraps a long help text onto the next lines: take the option up to the next one.
    const indexHelp = /--index[\s\S]*?(?=\n {2}-)/.exec(io.stdout())?.[0] ?? '';
    expect(indexHelp.match(/default/g), indexHelp).to.have.length(1);
  });

  it('says that an --nri-socket that is a regular file is not a socket', async () => {
    const file = join(dir, 'file.sock');
    writeFileSync(file, 'not a socket');
    await expectUsageFailure(
      ['nri', 'watch', '--nri-socket', file],
      /--nri-socket .*file\.sock is a regular file, not a unix socket/,
    );
  });

  it('says that an --nri-socket that is a directory is not a socket', async () => {
    const sub = join(dir, 'dir.sock');
    mkdirSync(sub);
    await expectUsageFailure(
      ['nri', 'watch', '--nri-socket', sub],
      /--nri-socket .*dir\.sock is a directory, not a unix socket/,
    );
  });

  it('says that a socket that answers HTTP does not speak NRI', async () => {
    const line = await expectUsageFailure(
      ['nri', 'watch', '--nri-socket', join(dir, 'http.sock')],
      /http\.sock does not speak NRI \(ttrpc over the NRI mux\)/,
    );
    expect(line).not.to.contain('Is NRI enabled');
  });

  it("says that a gRPC socket (the runtime's CRI socket, say) does not speak NRI", async () => {
    const grpc = await startCriServer(join(dir, 'grpc.sock'), {});
    try {
      await expectUsageFailure(
        ['nri', 'watch', '--nri-socket', grpc.socketPath],
        /grpc\.sock does not speak NRI \(ttrpc over the NRI mux\)/,
      );
    } finally {
      await grpc.close();
    }
  });
});
