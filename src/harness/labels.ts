/** The marks every object of a run carries. Cleanup acts on these and on nothing else. */
import { randomBytes } from 'node:crypto';

export const RUN_LABEL = 'cri-conform.io/run';
export const CHECK_LABEL = 'cri-conform.io/check';
/** Set on the objects of one trial of a check: the trial's listings, events and cleanup see only them. */
export const TRIAL_LABEL = 'cri-conform.io/trial';
export const NAME_PREFIX = 'cc-';
export const POD_NAMESPACE = 'cri-conform';

export function newRunId(): string {
  const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 12);
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

export function uniqueToken(): string {
  return randomBytes(4).toString('hex');
}

export function labelsFor(runId: string, checkId: string): Record<string, string> {
  return { [RUN_LABEL]: runId, [CHECK_LABEL]: checkId };
}

export function isRunObject(labels: Record<string, string> | undefined, runId?: string): boolean {
  const value = labels?.[RUN_LABEL];
  return value !== undefined && (runId === undefined || value === runId);
}
