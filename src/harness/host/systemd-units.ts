/**
 * Asking the node's systemd about its units, through its systemctl: stopping one, and whether one is
 * loaded at all. Injectable, so the cgroup code that decides what to ask is tested without a systemd.
 */
import { execFileSync } from 'node:child_process';

/** Asks the node's systemd to stop a unit; false when that could not be done. */
export type UnitStopper = (unit: string) => boolean;

/**
 * Whether the node's systemd has a unit of that name loaded: 'loaded' (or another load state systemd
 * names), 'not-found' when it has none, undefined when systemd could not be asked.
 */
export type UnitLoadState = (unit: string) => string | undefined;

const SYSTEMCTL_WITHIN_MS = 10_000;

export const stopWithSystemctl: UnitStopper = (unit) => {
  try {
    execFileSync('systemctl', ['stop', unit], { stdio: 'ignore', timeout: SYSTEMCTL_WITHIN_MS });
    return true;
  } catch {
    return false;
  }
};

export const loadStateWithSystemctl: UnitLoadState = (unit) => {
  try {
    const out = execFileSync('systemctl', ['show', '--property=LoadState', '--value', '--', unit], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: SYSTEMCTL_WITHIN_MS,
    });
    return out.trim() || undefined;
  } catch {
    return undefined;
  }
};
