import { expect } from 'chai';
import { checkSettingsOf, type RunConfig } from '../core/settings.js';
import { besideDetectedKubelet, kubeletFinding, nriTimeoutFinding } from './readiness-probes.js';

const NRI = { socketPath: '/run/nri.sock', version: '0.8.0' };
const KUBELET = { signs: ['kubelet process 42 uses this socket (flag unix:///run/containerd.sock)'] };

describe('the NRI plugin request timeout the checks use', () => {
  it('is the one the runtime sent in Configure, over --nri-request-timeout', () => {
    const settings = checkSettingsOf({ nriRequestTimeoutMs: 2_000 } as RunConfig, {
      cgroupParent: '/cri-conform',
      nriTimeouts: { requestMs: 6_000 },
    });
    expect([settings.nriRequestTimeoutMs, settings.nriRequestTimeoutFrom]).to.deep.equal([
      6_000,
      'sent by the runtime in Configure',
    ]);
    const unsent = checkSettingsOf({ nriRequestTimeoutMs: 2_000 } as RunConfig, {
      cgroupParent: '/cri-conform',
    });
    expect([unsent.nriRequestTimeoutMs, unsent.nriRequestTimeoutFrom]).to.deep.equal([
      2_000,
      '--nri-request-timeout',
    ]);
  });

  it('is a warning in doctor when a given flag disagrees with what the runtime sent', () => {
    const sent = { ...NRI, timeouts: { requestMs: 6_000, registrationMs: 5_000 } };
    expect(
      nriTimeoutFinding(sent, { nriRequestTimeoutMs: 2_000, nriRequestTimeoutGiven: true }),
    ).to.deep.equal({
      severity: 'warn',
      what: 'NRI plugin request timeout: the runtime sent 6000 ms in Configure, --nri-request-timeout says 2000 ms',
      fix: "the checks' bounds use the runtime's 6000 ms; drop the flag or correct whichever is wrong",
    });
    expect(nriTimeoutFinding(sent, { nriRequestTimeoutMs: 2_000 }), 'the default says nothing').to.deep.equal(
      {
        severity: 'ok',
        what: 'NRI plugin request timeout 6000 ms, as the runtime sent it in Configure',
      },
    );
    expect(
      nriTimeoutFinding(NRI, { nriRequestTimeoutMs: 2_000, nriRequestTimeoutGiven: true }),
    ).to.deep.equal({
      severity: 'ok',
      what: 'NRI plugin request timeout 2000 ms: --nri-request-timeout, since the runtime sends none in Configure',
    });
    expect(nriTimeoutFinding({ unavailable: 'no NRI socket' }, { nriRequestTimeoutMs: 2_000 })).to.equal(
      undefined,
    );
  });
});

describe('--beside-kubelet', () => {
  it('counts only beside a kubelet that was found', () => {
    expect(besideDetectedKubelet(KUBELET, { besideKubelet: true })).to.equal(true);
    expect(besideDetectedKubelet({ signs: [] }, { besideKubelet: true })).to.equal(false);
    expect(besideDetectedKubelet(KUBELET, {})).to.equal(false);
  });

  it('says in doctor that it changes nothing where no kubelet drives the runtime', () => {
    expect(kubeletFinding({ signs: [] }, { besideKubelet: true })).to.deep.equal({
      severity: 'ok',
      what: "kubelet: none drives this runtime, so --beside-kubelet changes nothing: what the checks did not ask for is the runtime's own doing",
    });
  });
});
