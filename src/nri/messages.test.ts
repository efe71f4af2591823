import { expect } from 'chai';
import { NriProtocolError } from './errors.js';
import { decodeProto, encodeProto, type WirePod, type WireRequest, type WireResponse } from './messages.js';

describe('NRI and ttrpc protobuf messages', () => {
  it('encodes RegisterPluginRequest with fields 1 and 2 as strings', () => {
    const bytes = encodeProto('RegisterPluginRequest', { pluginName: 'x', pluginIdx: '10' });
    expect(Buffer.from(bytes).toString('hex')).to.equal('0a017812023130');
  });

  it('encodes ConfigureResponse.events as field 2 (there is no field 1)', () => {
    expect(Buffer.from(encodeProto('ConfigureResponse', { events: 0x7ff })).toString('hex')).to.equal(
      '10ff0f',
    );
  });

  it('round-trips a ttrpc Request with timeout_nano and metadata', () => {
    const req = {
      service: 's',
      method: 'm',
      payload: Buffer.from([1, 2]),
      timeoutNano: 1_999_000_000,
      metadata: [{ key: 'k', value: 'v' }],
    };
    const back = decodeProto<WireRequest>('ttrpc.Request', encodeProto('ttrpc.Request', req));
    expect(back.timeoutNano).to.equal(1_999_000_000);
    expect(Buffer.from(back.payload)).to.deep.equal(Buffer.from([1, 2]));
    expect(back.metadata).to.deep.equal([{ key: 'k', value: 'v' }]);
  });

  it('decodes a zero-length Response as success with an empty payload', () => {
    const r = decodeProto<WireResponse>('ttrpc.Response', new Uint8Array());
    expect(r.status).to.equal(null);
    expect(r.payload.length).to.equal(0);
  });

  it('round-trips a PodSandbox with labels, namespaces, pid and ips', () => {
    const pod = {
      id: 'p1',
      name: 'n',
      uid: 'u',
      namespace: 'ns',
      labels: { a: 'b' },
      annotations: {},
      linux: { namespaces: [{ type: 'network', path: '/var/run/netns/x' }] },
      pid: 42,
      ips: ['10.0.0.2'],
    };
    const back = decodeProto<WirePod>('PodSandbox', encodeProto('PodSandbox', pod));
    expect(back).to.deep.include({ id: 'p1', pid: 42, ips: ['10.0.0.2'], labels: { a: 'b' } });
    expect(back.linux?.namespaces).to.deep.equal([{ type: 'network', path: '/var/run/netns/x' }]);
  });

  it('skips fields it does not declare, as newer runtimes send them', () => {
    // Container field 22 (image, v0.12.2) as a length-delimited field, then id = "c".
    const bytes = Buffer.from([0xb2, 0x01, 0x02, 0x0a, 0x00, 0x0a, 0x01, 0x63]);
    expect(decodeProto<{ id: string }>('Container', bytes).id).to.equal('c');
  });

  it('throws ERR_NRI_PROTOCOL for bytes that are not a valid encoding', () => {
    expect(() => decodeProto('PodSandbox', Buffer.from([0x42, 0x05, 0x0a])))
      .to.throw(NriProtocolError)
      .with.property('code', 'ERR_NRI_PROTOCOL');
  });
});
