import { expect } from 'chai';
import { decodeString, decodeStringArray, TomlDoc } from './toml-doc.js';

const DUMP_V3 = `version = 3
root = '/var/lib/containerd'
imports = []

[plugins]
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ['/opt/cni/bin',
      '/usr/lib/cni']
    conf_dir = '/etc/cni/net.d'

[timeouts]
  'io.containerd.timeout.shim.load' = '5s'

[[plugins."io.containerd.transfer.v1.local".unpack_config]]
  platform = "linux/amd64"
`;

describe('TomlDoc, the editor for containerd config dumps', () => {
  it('reads values of tables whose headers quote keys with either quote', () => {
    const doc = TomlDoc.parse(DUMP_V3);
    expect(doc.string([], 'root')).to.equal('/var/lib/containerd');
    expect(doc.string(['plugins', 'io.containerd.cri.v1.runtime', 'cni'], 'conf_dir')).to.equal(
      '/etc/cni/net.d',
    );
    expect(doc.string(['timeouts'], 'io.containerd.timeout.shim.load')).to.equal('5s');
  });

  it('keeps an array written over several lines as one value', () => {
    const doc = TomlDoc.parse(DUMP_V3);
    const raw = doc.raw(['plugins', 'io.containerd.cri.v1.runtime', 'cni'], 'bin_dirs') ?? '';
    expect(decodeStringArray(raw)).to.deep.equal(['/opt/cni/bin', '/usr/lib/cni']);
  });

  it('sets a value in place, returns the old one, and creates a missing table at the end', () => {
    const doc = TomlDoc.parse(DUMP_V3);
    expect(doc.set([], 'root', '"/x/root"')).to.equal("'/var/lib/containerd'");
    expect(doc.set(['plugins', 'io.containerd.nri.v1.nri'], 'disable', 'false')).to.equal(undefined);
    const again = TomlDoc.parse(doc.toString());
    expect(again.string([], 'root')).to.equal('/x/root');
    expect(again.raw(['plugins', 'io.containerd.nri.v1.nri'], 'disable')).to.equal('false');
    expect(doc.toString()).to.match(/\[plugins\."io\.containerd\.nri\.v1\.nri"\]\ndisable = false\n$/);
  });

  it('writes an array of tables back as one, and deletes keys and subtrees', () => {
    const doc = TomlDoc.parse(DUMP_V3);
    expect(doc.toString()).to.include('[[plugins."io.containerd.transfer.v1.local".unpack_config]]');
    expect(doc.delete([], 'imports')).to.equal('[]');
    doc.deleteTree(['plugins', 'io.containerd.cri.v1.runtime']);
    const text = doc.toString();
    expect(text).not.to.include('imports');
    expect(text).not.to.include('conf_dir');
  });

  it('lists the direct subtables of a table', () => {
    const doc = TomlDoc.parse('[a.b.x]\nk = 1\n[a.b.y]\n[a.b.y.options]\nk = 2\n');
    expect(doc.childNames(['a', 'b'])).to.deep.equal(['x', 'y']);
  });

  it('decodes literal and basic strings, and nothing else', () => {
    expect(decodeString("'a\\b'")).to.equal('a\\b');
    expect(decodeString('"a\\\\b"')).to.equal('a\\b');
    expect(decodeString('42')).to.equal(undefined);
  });
});
