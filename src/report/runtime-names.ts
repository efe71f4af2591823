/**
 * How a runtime's Version name maps to what its default install calls things: CRI-O reports "cri-o" but
 * installs as the service "crio" with its socket in /var/run/crio; containerd uses its own name for both.
 */

/** The systemd unit of a default install. */
export function serviceName(runtimeName: string): string {
  return runtimeName === 'cri-o' ? 'crio' : runtimeName;
}

/** The directory of the CRI socket of a default install. */
export function defaultSocketDir(runtimeName: string): string {
  return runtimeName === 'cri-o' ? '/var/run/crio' : `/run/${runtimeName}`;
}
