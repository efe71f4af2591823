/** Pure formatting of recorded NRI events for `cri-conform nri watch`. */
import type { NriEventRecord } from './types.js';

/** One JSON line per event; every key is always present (null when the event has no value for it). */
export interface WatchJsonLine {
  time: string;
  seq: number;
  plugin: string;
  event: string;
  via: string;
  podId: string;
  podName: string;
  podNamespace: string;
  podUid: string;
  containerId: string | null;
  containerName: string | null;
  containerState: number | null;
  netnsPath: string | null;
  ips: string[];
  pid: number | null;
  timeoutMs: number | null;
}

/** Wall-clock ISO time of a record whose atMs came from performance.now() in this process. */
export function eventTime(e: NriEventRecord, timeOriginMs: number = performance.timeOrigin): string {
  return new Date(timeOriginMs + e.atMs).toISOString();
}

export function toWatchJson(e: NriEventRecord, timeOriginMs?: number): WatchJsonLine {
  const pid = e.container?.pid || e.pod.pid;
  return {
    time: eventTime(e, timeOriginMs),
    seq: e.seq,
    plugin: `${e.pluginIndex}-${e.pluginName}`,
    event: e.event,
    via: e.via,
    podId: e.pod.id,
    podName: e.pod.name,
    podNamespace: e.pod.namespace,
    podUid: e.pod.uid,
    containerId: e.container?.id ?? null,
    containerName: e.container?.name ?? null,
    containerState: e.container?.state ?? null,
    netnsPath: e.pod.netnsPath || null,
    ips: e.pod.ips,
    pid: pid || null,
    timeoutMs: e.timeoutMs ?? null,
  };
}

/**
 * `12:00:01.234 #7 StopPodSandbox default/web pod=0123456789ab ctr=app(abcdef123456) netns=/var/run/netns/x
 * ips=10.0.0.2 pid=42`; the parts after the pod appear only when the event carries them.
 */
export function formatWatchLine(e: NriEventRecord, opts: { json: boolean; timeOriginMs?: number }): string {
  const j = toWatchJson(e, opts.timeOriginMs);
  if (opts.json) return JSON.stringify(j);
  const parts = [
    j.time.slice(11, 23),
    `#${j.seq}`,
    j.event,
    `${j.podNamespace}/${j.podName}`,
    `pod=${j.podId.slice(0, 12)}`,
  ];
  if (j.containerId !== null) parts.push(`ctr=${j.containerName}(${j.containerId.slice(0, 12)})`);
  if (j.netnsPath !== null) parts.push(`netns=${j.netnsPath}`);
  if (j.ips.length > 0) parts.push(`ips=${j.ips.join(',')}`);
  if (j.pid !== null) parts.push(`pid=${j.pid}`);
  if (e.via === 'StateChange') parts.push('via=StateChange');
  return parts.join(' ');
}
