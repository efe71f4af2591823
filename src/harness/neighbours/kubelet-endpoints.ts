/**
 * Which processes run a kubelet, and which runtime endpoint each one uses, read as that kubelet reads it.
 * A kubelet is not always a process named `kubelet`:
 * - k3s runs it inside `k3s server` or `k3s agent`; its own flag `--container-runtime-endpoint`, a
 *   `--kubelet-arg container-runtime-endpoint=...`, the same keys in its config file (`--config`, default
 *   /etc/rancher/k3s/config.yaml, and the drop-ins of config.yaml.d), else its embedded containerd at
 *   /run/k3s/containerd/containerd.sock;
 * - RKE2 (`rke2 server|agent`) starts a kubelet process of its own, but reads the same keys from
 *   /etc/rancher/rke2/config.yaml, and its kubelet may be between restarts when looked for;
 * - MicroK8s runs it inside `kubelite`, whose kubelet flags are in `--kubelet-args-file` (default
 *   $SNAP_DATA/args/kubelet), with $SNAP_COMMON and $SNAP_DATA from kubelite's own environment;
 * - a kubelet's `--config-dir` drop-ins (`*.conf`, in name order) override its `--config` file, and its
 *   flags override both (KEP-3983).
 */
import { basename, join } from 'node:path';
import { parse as parseYaml } from 'yaml';

export type KubeletKind = 'kubelet' | 'k3s' | 'rke2' | 'kubelite';

export interface KubeletEndpoint {
  endpoint: string;
  /** Where the endpoint came from: a flag, a file, or the default. */
  source: string;
}

/** How a process's files are read: paths as the process sees them (its root and cwd). */
export interface ProcessFiles {
  read(path: string): string;
  list(dir: string): string[];
  /** The process's environment. */
  environ: Record<string, string>;
}

/** The kubelet's default since v1.27 (staging/src/k8s.io/kubelet/config/v1beta1 defaults). */
const KUBELET_DEFAULT_ENDPOINT = 'unix:///run/containerd/containerd.sock';
/** The containerd that k3s and RKE2 embed. */
const RANCHER_DEFAULT_ENDPOINT = 'unix:///run/k3s/containerd/containerd.sock';
const ENDPOINT_FLAG = '--container-runtime-endpoint';

/** Whether a command line runs a kubelet, and which kind; undefined for any other process. */
export function kubeletKind(argv: readonly string[]): KubeletKind | undefined {
  const name = basename(argv[0] ?? '');
  const role = argv[1] === 'server' || argv[1] === 'agent';
  if (name === 'kubelet' || name === 'kubelite') return name;
  if ((name === 'k3s' || name === 'rke2') && role) return name;
  return undefined;
}

/** The endpoint the kubelet of this process uses. */
export function kubeletEndpointOf(
  kind: KubeletKind,
  argv: readonly string[],
  files: ProcessFiles,
): KubeletEndpoint {
  if (kind === 'kubelet') return kubeletEndpoint(argv, files);
  if (kind === 'kubelite') return kubeliteEndpoint(argv, files);
  return rancherEndpoint(kind, argv, files);
}

/** The plain kubelet: the flag, else the last drop-in that sets it, else its --config file, else the default. */
export function kubeletEndpoint(argv: readonly string[], files: ProcessFiles): KubeletEndpoint {
  const flag = flagValue(argv, ENDPOINT_FLAG);
  if (flag) return { endpoint: flag, source: ENDPOINT_FLAG };
  const dropIns = flagValue(argv, '--config-dir');
  if (dropIns) {
    const names = files
      .list(dropIns)
      .filter((n) => n.endsWith('.conf'))
      .sort();
    for (const name of names.reverse()) {
      const value = yamlKey(files, join(dropIns, name), 'containerRuntimeEndpoint');
      if (value)
        return { endpoint: value, source: `containerRuntimeEndpoint of --config-dir drop-in ${name}` };
    }
  }
  const config = flagValue(argv, '--config');
  const value = config ? yamlKey(files, config, 'containerRuntimeEndpoint') : undefined;
  if (value) return { endpoint: value, source: 'containerRuntimeEndpoint of --config' };
  return { endpoint: KUBELET_DEFAULT_ENDPOINT, source: 'the default' };
}

/** k3s and RKE2: their flags, then their config file and its drop-ins (the last one wins), then the default. */
function rancherEndpoint(
  kind: 'k3s' | 'rke2',
  argv: readonly string[],
  files: ProcessFiles,
): KubeletEndpoint {
  const fromArgs = endpointInRancherArgs(
    flagValue(argv, ENDPOINT_FLAG),
    flagValues(argv, '--kubelet-arg').map((a) => a.replace(/^--?/, '')),
  );
  if (fromArgs) return { endpoint: fromArgs, source: `${kind} ${ENDPOINT_FLAG} or --kubelet-arg` };
  const config = flagValue(argv, '--config') ?? flagValue(argv, '-c') ?? `/etc/rancher/${kind}/config.yaml`;
  const dropInDir = `${config}.d`;
  const dropIns = files
    .list(dropInDir)
    .filter((n) => /\.ya?ml$/.test(n))
    .sort()
    .map((n) => join(dropInDir, n));
  for (const file of [config, ...dropIns].reverse()) {
    const doc = yamlDoc(files, file);
    const args = doc?.['kubelet-arg'];
    const found = endpointInRancherArgs(
      typeof doc?.[ENDPOINT_FLAG.slice(2)] === 'string' ? (doc[ENDPOINT_FLAG.slice(2)] as string) : undefined,
      Array.isArray(args) ? args.map(String) : typeof args === 'string' ? [args] : [],
    );
    if (found) return { endpoint: found, source: `${kind} config ${file}` };
  }
  return { endpoint: RANCHER_DEFAULT_ENDPOINT, source: `the ${kind} default` };
}

/** The endpoint flag wins; else the last `container-runtime-endpoint=...` passed to the kubelet. */
function endpointInRancherArgs(flag: string | undefined, kubeletArgs: readonly string[]): string | undefined {
  if (flag) return flag;
  const prefix = `${ENDPOINT_FLAG.slice(2)}=`;
  return kubeletArgs
    .filter((a) => a.startsWith(prefix))
    .map((a) => a.slice(prefix.length))
    .at(-1);
}

/** MicroK8s: the kubelet flags in kubelite's args file, with its $SNAP variables, read as a kubelet reads them. */
function kubeliteEndpoint(argv: readonly string[], files: ProcessFiles): KubeletEndpoint {
  const expand = (text: string) =>
    text.replace(/\$\{?(SNAP_COMMON|SNAP_DATA|SNAP)\}?/g, (_, name: string) => files.environ[name] ?? '');
  // biome-ignore lint/suspicious/noTemplateCurlyInString: MicroK8s' own spelling, expanded just above
  const argsFile = expand(flagValue(argv, '--kubelet-args-file') ?? '${SNAP_DATA}/args/kubelet');
  let text = '';
  try {
    text = files.read(argsFile);
  } catch {
    // no args file: the kubelet's own defaults
  }
  const args = ['kubelet', ...text.split('\n').flatMap((l) => expand(l.trim()).split(/\s+/).filter(Boolean))];
  const found = kubeletEndpoint(args, files);
  return found.source === 'the default' ? found : { ...found, source: `${found.source} in ${argsFile}` };
}

function yamlDoc(files: ProcessFiles, path: string): Record<string, unknown> | undefined {
  try {
    const doc = parseYaml(files.read(path)) as unknown;
    return doc !== null && typeof doc === 'object' ? (doc as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // unreadable or absent: the next source decides
  }
}

function yamlKey(files: ProcessFiles, path: string, key: string): string | undefined {
  const value = yamlDoc(files, path)?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `--name=value` or `--name value` (pflag also takes a single dash); the last one wins, as in pflag. */
function flagValue(argv: readonly string[], name: string): string | undefined {
  return flagValues(argv, name).at(-1);
}

function flagValues(argv: readonly string[], name: string): string[] {
  const values: string[] = [];
  const spellings = name.startsWith('--') ? [name, name.slice(1)] : [name];
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    for (const spelling of spellings) {
      if (arg === spelling && argv[i + 1] !== undefined) values.push(argv[i + 1] ?? '');
      else if (arg.startsWith(`${spelling}=`)) values.push(arg.slice(spelling.length + 1));
    }
  }
  return values;
}
