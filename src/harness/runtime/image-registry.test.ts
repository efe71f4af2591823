import { expect } from 'chai';
import { bySpecificity, covers, placeOfKey, registryOf } from './image-registry.js';

describe("an image's registry, and the docker config keys that cover it", () => {
  it('reads the registry and repository of a reference, Docker Hub for a name without a host', () => {
    const cases: [string, string, string][] = [
      ['busybox', 'docker.io', 'library/busybox'],
      ['busybox:1.36', 'docker.io', 'library/busybox'],
      ['team/app:v2', 'docker.io', 'team/app'],
      ['index.docker.io/team/app', 'docker.io', 'team/app'],
      ['localhost/cri-conform/pause:1', 'localhost', 'cri-conform/pause'],
      ['Registry.Example.com:5000/team/app:1@sha256:abc', 'registry.example.com:5000', 'team/app'],
      [
        '123456789012.dkr.ecr.eu-west-1.amazonaws.com/app@sha256:abc',
        '123456789012.dkr.ecr.eu-west-1.amazonaws.com',
        'app',
      ],
    ];
    for (const [image, host, path] of cases) expect(registryOf(image), image).to.deep.equal({ host, path });
  });

  it('reads a key with or without a scheme, a path, or the API path the Docker CLI writes', () => {
    expect(placeOfKey('https://index.docker.io/v1/')).to.deep.equal({ host: 'docker.io', path: '' });
    expect(placeOfKey('registry.example.com')).to.deep.equal({ host: 'registry.example.com', path: '' });
    expect(placeOfKey('https://registry.example.com:5000/v2/')).to.deep.equal({
      host: 'registry.example.com:5000',
      path: '',
    });
    expect(placeOfKey('quay.io/team/')).to.deep.equal({ host: 'quay.io', path: 'team' });
  });

  it('matches as a kubelet keyring does: host parts with globs, the exact port, a path prefix on a boundary', () => {
    const covered = (key: string, image: string) => covers(placeOfKey(key), registryOf(image));
    expect(covered('registry.example.com', 'registry.example.com/team/app:1')).to.equal(true);
    expect(covered('*.example.com', 'registry.example.com/app')).to.equal(true);
    expect(covered('*.example.com', 'example.com/app'), 'a glob stands for one part').to.equal(false);
    expect(covered('*.example.com', 'a.b.example.com/app')).to.equal(false);
    expect(covered('registry.example.com:5000', 'registry.example.com/app'), 'another port').to.equal(false);
    expect(covered('registry.example.com', 'registry.example.com:5000/app')).to.equal(false);
    expect(covered('registry.example.com/team', 'registry.example.com/team/app')).to.equal(true);
    expect(covered('registry.example.com/team', 'registry.example.com/teams/app')).to.equal(false);
    expect(covered('https://index.docker.io/v1/', 'busybox')).to.equal(true);
    expect(covered('docker.io', 'quay.io/busybox')).to.equal(false);
  });

  it('puts the most specific key first: a longer path, then fewer wildcards', () => {
    const keys = [
      '*.example.com',
      'registry.example.com',
      'registry.example.com/team',
      '*.example.com/team/app',
    ];
    const sorted = keys
      .map((k) => ({ k, place: placeOfKey(k) }))
      .sort((a, b) => bySpecificity(a.place, b.place));
    expect(sorted.map((s) => s.k)).to.deep.equal([
      '*.example.com/team/app',
      'registry.example.com/team',
      'registry.example.com',
      '*.example.com',
    ]);
  });
});
