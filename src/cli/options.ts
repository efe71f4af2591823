/**
 * Every flag of `run`, declared once as data. `run` and `doctor` take the same set, so a run's command line
 * can be checked by changing the verb; `cleanup`, `list` and `nri watch` take the groups they need. The
 * config file accepts the same names as keys (plus crictl's own), so the list of valid keys comes from here.
 */
import { type Command, Option } from 'commander';

interface FlagSpec {
  /** Commander's flag syntax: '-r, --runtime-endpoint <url>'. */
  flags: string;
  help: string;
  choices?: readonly string[];
  /** The config-file key that sets it: its long name unless given; false when only the flag sets it. */
  fileKey?: string | false;
}

const ENDPOINTS: readonly FlagSpec[] = [
  {
    flags: '-r, --runtime-endpoint <url>',
    help: 'CRI endpoint: unix:///path or /path (env CONTAINER_RUNTIME_ENDPOINT, config runtime-endpoint; default unix:///run/containerd/containerd.sock)',
  },
  { flags: '-i, --image-endpoint <url>', help: 'CRI image endpoint (default: the runtime endpoint)' },
  {
    flags: '--config <file>',
    help: 'YAML file with crictl keys (runtime-endpoint, image-endpoint, timeout, ...) and any long flag of run (default /etc/crictl.yaml when present)',
    fileKey: false,
  },
  {
    flags: '--call-timeout <duration>',
    help: 'deadline of CRI calls that a check does not race on purpose (default 30s; config "timeout"); the first Version call waits at least 5s',
  },
];

const NRI_SOCKET: FlagSpec = {
  flags: '--nri-socket <path>',
  help: 'NRI socket of the runtime (env CRI_CONFORM_NRI_SOCKET; default /var/run/nri/nri.sock)',
};

const SELECTION: readonly FlagSpec[] = [
  { flags: '--suite <name...>', help: 'only these suites: idempotency, names, hooks, teardown (repeatable)' },
  {
    flags: '--level <level>',
    help: 'must: MUST checks; should: also SHOULD; all: also OBSERVE (default must)',
    choices: ['must', 'should', 'all'],
  },
  { flags: '--focus <regex>', help: 'only checks whose "ID title" matches' },
  { flags: '--skip <regex>', help: 'leave out checks whose "ID title" matches' },
];

const ENVIRONMENT: readonly FlagSpec[] = [
  {
    flags: '--isolated',
    help: "test a private copy of the node's runtime (its binary and config, own sockets, state, bridge and injectors) that no kubelet sees; removed at the end (containerd, CRI-O; see README)",
  },
  {
    flags: '--isolated-subnet <cidr>',
    help: 'with --isolated: the IPv4 subnet of the private bridge (default: a 10.214.N.0/24 that no route, rule, address, resolver or open connection of the node overlaps)',
  },
  { flags: '--slow', help: 'also run [Slow] checks (cache TTLs; minutes)' },
  { flags: '--require-nri', help: 'fail (exit 2) instead of skipping NRI checks when NRI is unavailable' },
  {
    flags: '--nri-request-timeout <duration>',
    help: "the runtime's NRI plugin request timeout, for a runtime that does not send it in Configure (NRI before v0.7; default 2s); one the runtime sends wins",
  },
  {
    flags: '--runtime-handler <name>',
    help: 'runtime handler for the pods checks create (default: the runtime default)',
  },
  {
    flags: '--slow-runtime-handler <name>',
    help: 'runtime handler whose runtime sleeps on create (injector; see README "Injectors")',
  },
  {
    flags: '--slow-runtime-dir <dir>',
    help: "control dir of that handler's wrapper: delay-ms, created.log, pods/<key>/ per check",
  },
  {
    flags: '--slow-cni-dir <dir>',
    help: 'control dir of a CNI wrapper that sleeps on ADD: delay-ms, fail, pods/<key>/ per check',
  },
  {
    flags: '--test-image <ref>',
    help: 'image for workload containers (default localhost/cri-conform/busybox:1)',
  },
  {
    flags: '--pause-image <ref>',
    help: "the runtime's sandbox image, checked for presence (default localhost/cri-conform/pause:1)",
  },
  {
    flags: '--pull <policy>',
    help: 'image pull policy (default missing; never for air-gapped nodes)',
    choices: ['never', 'missing', 'always'],
  },
  {
    flags: '--pull-auth-file <file>',
    help: "registry credentials for those pulls, sent in PullImage as a kubelet sends a pod's: a docker config JSON (an imagePullSecret's .dockerconfigjson, ~/.docker/config.json, podman's auth.json); the most specific key that covers the image is used (env CRI_CONFORM_PULL_AUTH_FILE)",
  },
  { flags: '--restart-cmd <command>', help: 'shell command that restarts the runtime ([Restart] checks)' },
  {
    flags: '--restart-timeout <duration>',
    help: 'how long the runtime may take to come back (default 60s)',
  },
  {
    flags: '--cgroup-parent <parent>',
    help: "every pod's cgroup parent (default: the tool's own in the runtime's cgroup driver, learnt from the runtime: cri_conform.slice on systemd, /cri-conform on cgroupfs); never a kubepods one",
  },
  {
    flags: '--beside-kubelet',
    help: 'run although a kubelet drives the runtime: checks whose pods it stops end in ERROR, checks that restart the runtime or stall its hooks skip unless --focus names their ID, and NRI checks skip on containerd 1.7.26+ and 2.0.3+ (a plugin registering while the kubelet removes a pod deadlocks them)',
  },
  {
    flags: '--node-probes <mode>',
    help: 'host leak probes: auto (root on a local socket), on, off',
    choices: ['auto', 'on', 'off'],
  },
];

const PACING: readonly FlagSpec[] = [
  {
    flags: '--cache-ttl <duration>',
    help: 'how long a runtime may keep a timed-out resource (default 150s)',
  },
  {
    flags: '--trials <n>',
    help: 'repetitions of race-prone scenarios, per path of the check; the first violation fails the check and ends them; a PASS states what the trials could have seen (default 20: a race in 15% of trials shows with 95% confidence)',
  },
  {
    flags: '--parallel-trials <n>',
    help: "trials of one race check at once (default 4): most of a trial is waiting, and each trial has its own objects; a check runs fewer where running them together would change what they test, and a trial's held NRI hooks take turns",
  },
  {
    flags: '--parallel <n>',
    help: 'checks at once that may share the runtime: injector checks, or NRI checks that only watch hooks, each with CRI-only checks (default 4); checks that stall hooks or restart the runtime run alone',
  },
  // In the config file `timeout` is crictl's per-call timeout, so the per-check one has its own key.
  {
    flags: '--timeout <duration>',
    help: "deadline of each check's own work at 20 trials (a race check with more gets it in proportion); the waits it declares add to it (default 5m)",
    fileKey: 'check-timeout',
  },
  { flags: '--run-timeout <duration>', help: 'deadline of the whole run (default none)' },
  { flags: '--fail-fast', help: 'stop after the first failure' },
  {
    flags: '--flake-attempts <n>',
    help: 're-runs of a failed non-trial check (default 0; a flake is recorded)',
  },
];

const REPORTS: readonly FlagSpec[] = [
  {
    flags: '--report-dir <dir>',
    help: 'where the reports not named by --junit/--json/--html go (default: beside the first one named, else reports/; created if missing)',
  },
  { flags: '--report-prefix <prefix>', help: 'prefix of report file names' },
  { flags: '--junit <file>', help: 'JUnit file (default <report-dir>/<prefix>junit.xml)' },
  { flags: '--json <file>', help: 'JSON results file (default <report-dir>/<prefix>results.json)' },
  {
    flags: '--expected-deviations <file>',
    help: 'YAML list of known runtime deviations (id, runtime, versions, message, reason, link)',
  },
  {
    flags: '--strict-deviations',
    help: 'exit 1 when an --expected-deviations entry matched no failure (stale; an entry with race: true is never stale from one run, since its bug shows in some trials only)',
  },
];

const COLOR: readonly FlagSpec[] = [
  { flags: '--color', help: 'force colored output', fileKey: false },
  { flags: '--no-color', help: 'no colors (NO_COLOR and FORCE_COLOR are honoured too)', fileKey: false },
];

const RUN_FLAGS: readonly FlagSpec[] = [
  ...ENDPOINTS,
  NRI_SOCKET,
  ...SELECTION,
  ...ENVIRONMENT,
  ...PACING,
  ...REPORTS,
  ...COLOR,
];

/**
 * The keys crictl itself reads from /etc/crictl.yaml (cri-tools pkg/common/file.go). The file is shared with
 * crictl, so they stay valid even where cri-conform ignores them.
 */
export const CRICTL_KEYS: readonly string[] = [
  'runtime-endpoint',
  'image-endpoint',
  'timeout',
  'debug',
  'pull-image-on-create',
  'disable-pull-on-run',
  'max-retries',
  'enable-streaming',
];

/** Every key the config file may hold. */
export const CONFIG_FILE_KEYS: readonly string[] = [
  ...new Set([...CRICTL_KEYS, ...RUN_FLAGS.flatMap((f) => fileKeyOf(f) ?? [])]),
];

/**
 * What a config key's value must be: a switch true or false, a list (or one name) for a repeatable flag,
 * else one value; crictl's own keys that cri-conform ignores are crictl's to judge.
 */
export type ConfigKeyKind = 'switch' | 'list' | 'value' | 'crictl';

export function configKeyKind(key: string): ConfigKeyKind {
  const spec = RUN_FLAGS.find((f) => fileKeyOf(f) === key);
  if (spec === undefined)
    return ['runtime-endpoint', 'image-endpoint', 'timeout'].includes(key) ? 'value' : 'crictl';
  if (!spec.flags.includes('<')) return 'switch';
  return spec.flags.includes('...>') ? 'list' : 'value';
}

/**
 * Flags only `run` has: what to do with its results, and the worker mode. A config file cannot set them,
 * so a shared crictl.yaml never turns a run into a Sonobuoy worker.
 */
const RUN_ONLY: readonly FlagSpec[] = [
  {
    flags: '--html <file>',
    help: 'also write the self-contained HTML report (sequence diagrams) here (default: none)',
    fileKey: false,
  },
  {
    flags: '--baseline <old.json>',
    help: "compare with an earlier run's results.json at the end (as `diff`)",
    fileKey: false,
  },
  {
    flags: '--sonobuoy',
    help: 'run as a Sonobuoy/DaemonSet worker: find the host runtime, write JUnit and done to $SONOBUOY_RESULTS_DIR, then wait for SIGTERM (deploy/sonobuoy/)',
    fileKey: false,
  },
];

/** Long flags of `run` that a config file cannot set (they say what to do with this one invocation). */
export const COMMAND_LINE_ONLY: readonly string[] = [...RUN_FLAGS, ...RUN_ONLY].flatMap((f) =>
  fileKeyOf(f) === undefined ? (/--([a-z-]+)/.exec(f.flags)?.[1] ?? []) : [],
);

export function addRunOnlyOptions(cmd: Command): Command {
  return addAll(cmd, RUN_ONLY);
}

/** Every flag of `run`; `doctor` takes the same ones. */
export function addRunOptions(cmd: Command): Command {
  return addAll(cmd, RUN_FLAGS);
}

export function addEndpointOptions(cmd: Command): Command {
  return addAll(cmd, ENDPOINTS);
}

export function addNriSocketOption(cmd: Command): Command {
  return addAll(cmd, [NRI_SOCKET]);
}

export function addSelectionOptions(cmd: Command): Command {
  return addAll(cmd, SELECTION);
}

function addAll(cmd: Command, specs: readonly FlagSpec[]): Command {
  for (const spec of specs) {
    const option = new Option(spec.flags, spec.help);
    cmd.addOption(spec.choices ? option.choices(spec.choices) : option);
  }
  return cmd;
}

function fileKeyOf(spec: FlagSpec): string | undefined {
  if (spec.fileKey === false) return undefined;
  if (spec.fileKey !== undefined) return spec.fileKey;
  return /--([a-z-]+)/.exec(spec.flags)?.[1];
}
