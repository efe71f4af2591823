import { expect } from 'chai';
import { ProgressPoster, type ProgressUpdate } from './progress.js';
import { closedPort, progressServer } from './progress-server.test.helper.js';

const update = (completed: number, failures: string[] = []): ProgressUpdate => ({
  msg: `${completed} done`,
  total: 3,
  completed,
  errors: [],
  failures,
});

describe('Sonobuoy progress updates', () => {
  it('POSTs the whole state as JSON to /progress, with exactly the fields Sonobuoy reads', async () => {
    const server = await progressServer();
    const poster = new ProgressPoster({ port: server.port, onProblem: () => undefined });
    poster.send(update(1, ['IDEM-01 a title']));
    await poster.flush();
    await server.close();
    expect(server.received).to.have.length(1);
    const [got] = server.received;
    expect(got?.method).to.equal('POST');
    expect(got?.path).to.equal('/progress');
    expect(got?.contentType).to.equal('application/json');
    expect(got?.body).to.deep.equal({
      msg: '1 done',
      total: 3,
      completed: 1,
      errors: [],
      failures: ['IDEM-01 a title'],
    });
    expect(poster.deliveredCount).to.equal(1);
  });

  it('replaces updates queued behind a slow post, and the last one always arrives', async () => {
    let release: () => void = () => undefined;
    const server = await progressServer({ hold: new Promise<void>((r) => (release = r)) });
    const poster = new ProgressPoster({ port: server.port, onProblem: () => undefined });
    for (let i = 0; i <= 3; i++) poster.send(update(i));
    release();
    await poster.flush();
    await server.close();
    expect(server.received.map((r) => r.body.completed)).to.deep.equal([0, 3]);
  });

  it('with nothing on the port: no exception, one note, and flush still resolves', async () => {
    const port = await closedPort();
    const notes: string[] = [];
    const poster = new ProgressPoster({ port, onProblem: (t) => notes.push(t) });
    for (let i = 0; i <= 3; i++) {
      poster.send(update(i));
      await poster.flush();
    }
    expect(notes).to.have.length(1);
    expect(notes[0]).to.match(/ECONNREFUSED.*results are not affected/);
    expect(poster.deliveredCount).to.equal(0);
  });

  it('without a port (a plain DaemonSet) sends nothing at all', async () => {
    const notes: string[] = [];
    const poster = new ProgressPoster({ port: undefined, onProblem: (t) => notes.push(t) });
    poster.send(update(1));
    await poster.flush();
    expect(notes).to.deep.equal([]);
    expect(poster.deliveredCount).to.equal(0);
  });
});
