/**
 * CRI v1 message shapes as @grpc/proto-loader yields them for src/cri/proto/cri.proto with
 * { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true }.
 * Only the fields cri-conform reads or writes are kept; the .proto is the source of truth and a test
 * cross-checks it against upstream api.proto.
 */

export type StringMap = Record<string, string>;
export type NamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';
export type PodSandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
export type ContainerState =
  | 'CONTAINER_CREATED'
  | 'CONTAINER_RUNNING'
  | 'CONTAINER_EXITED'
  | 'CONTAINER_UNKNOWN';

export interface NamespaceOption {
  network?: NamespaceMode;
  pid?: NamespaceMode;
  ipc?: NamespaceMode;
  targetId?: string;
}

export interface PodSandboxMetadata {
  name: string;
  uid: string;
  namespace: string;
  attempt: number;
}

export interface PodSandboxConfig {
  metadata: PodSandboxMetadata;
  hostname?: string;
  logDirectory?: string;
  dnsConfig?: { servers?: string[]; searches?: string[]; options?: string[] };
  labels: StringMap;
  annotations: StringMap;
  linux?: {
    cgroupParent?: string;
    securityContext?: { namespaceOptions?: NamespaceOption; privileged?: boolean };
    sysctls?: StringMap;
  };
}

export interface ImageSpec {
  image: string;
  annotations?: StringMap;
  userSpecifiedImage?: string;
  runtimeHandler?: string;
}

export interface KeyValue {
  key: string;
  value: string;
}

export type MountPropagation =
  | 'PROPAGATION_PRIVATE'
  | 'PROPAGATION_HOST_TO_CONTAINER'
  | 'PROPAGATION_BIDIRECTIONAL';

export interface Mount {
  containerPath: string;
  hostPath: string;
  readonly?: boolean;
  selinuxRelabel?: boolean;
  propagation?: MountPropagation;
}

/** int64 fields travel as decimal strings (longs: String). */
export interface LinuxContainerResources {
  cpuPeriod?: string;
  cpuQuota?: string;
  cpuShares?: string;
  memoryLimitInBytes?: string;
  oomScoreAdj?: string;
  cpusetCpus?: string;
  cpusetMems?: string;
  unified?: StringMap;
  memorySwapLimitInBytes?: string;
}

export interface AuthConfig {
  username?: string;
  password?: string;
  auth?: string;
  serverAddress?: string;
  identityToken?: string;
  registryToken?: string;
}

export interface ContainerMetadata {
  name: string;
  attempt: number;
}

export interface ContainerConfig {
  metadata: ContainerMetadata;
  image: ImageSpec;
  command?: string[];
  args?: string[];
  workingDir?: string;
  envs?: KeyValue[];
  mounts?: Mount[];
  labels: StringMap;
  annotations: StringMap;
  logPath?: string;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
  linux?: {
    resources?: LinuxContainerResources;
    securityContext?: { namespaceOptions?: NamespaceOption; privileged?: boolean };
  };
}

export interface PodSandbox {
  id: string;
  metadata: PodSandboxMetadata;
  state: PodSandboxState;
  createdAt: string;
  labels: StringMap;
  annotations: StringMap;
  runtimeHandler: string;
}

export interface PodSandboxStatus {
  id: string;
  metadata: PodSandboxMetadata;
  state: PodSandboxState;
  createdAt: string;
  network?: { ip: string; additionalIps?: { ip: string }[] } | null;
  linux?: { namespaces?: { options?: NamespaceOption } | null } | null;
  labels: StringMap;
  annotations: StringMap;
  runtimeHandler: string;
}

export interface PodSandboxStatusResponse {
  status: PodSandboxStatus | null;
  info: StringMap;
}

export interface Container {
  id: string;
  podSandboxId: string;
  metadata: ContainerMetadata;
  image: ImageSpec | null;
  imageRef: string;
  state: ContainerState;
  createdAt: string;
  labels: StringMap;
  annotations: StringMap;
}

export interface ContainerStatus {
  id: string;
  metadata: ContainerMetadata;
  state: ContainerState;
  createdAt: string;
  startedAt: string;
  finishedAt: string;
  exitCode: number;
  image: ImageSpec | null;
  imageRef: string;
  reason: string;
  message: string;
  labels: StringMap;
  annotations: StringMap;
  logPath: string;
}

export interface ContainerStatusResponse {
  status: ContainerStatus | null;
  info: StringMap;
}

export interface PodSandboxFilter {
  id?: string;
  state?: { state: PodSandboxState } | null;
  labelSelector?: StringMap;
}

export interface ContainerFilter {
  id?: string;
  state?: { state: ContainerState } | null;
  podSandboxId?: string;
  labelSelector?: StringMap;
}

export interface VersionResponse {
  version: string;
  runtimeName: string;
  runtimeVersion: string;
  runtimeApiVersion: string;
}

export interface RuntimeCondition {
  type: string;
  status: boolean;
  reason: string;
  message: string;
}

export interface StatusResponse {
  status: { conditions: RuntimeCondition[] } | null;
  info: StringMap;
  runtimeHandlers?: { name: string }[];
}

/** The cgroup driver a runtime names in RuntimeConfig; SYSTEMD is the enum's zero value. */
export type CgroupDriverName = 'SYSTEMD' | 'CGROUPFS';

export interface RuntimeConfigResponse {
  linux: { cgroupDriver: CgroupDriverName } | null;
}

export interface Image {
  id: string;
  repoTags: string[];
  repoDigests: string[];
  size: string;
  /** Kept by the runtime's image GC; containerd pins its sandbox (pause) image. */
  pinned?: boolean;
}

export interface ExecSyncResponse {
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number;
}

/** Request and response type of every RPC the client offers, keyed by the RPC name. */
export interface CriMethods {
  Version: [{ version: string }, VersionResponse];
  Status: [{ verbose: boolean }, StatusResponse];
  RuntimeConfig: [Record<string, never>, RuntimeConfigResponse];
  RunPodSandbox: [{ config: PodSandboxConfig; runtimeHandler: string }, { podSandboxId: string }];
  StopPodSandbox: [{ podSandboxId: string }, Record<string, never>];
  RemovePodSandbox: [{ podSandboxId: string }, Record<string, never>];
  PodSandboxStatus: [{ podSandboxId: string; verbose: boolean }, PodSandboxStatusResponse];
  ListPodSandbox: [{ filter: PodSandboxFilter | null }, { items: PodSandbox[] }];
  CreateContainer: [
    { podSandboxId: string; config: ContainerConfig; sandboxConfig: PodSandboxConfig },
    { containerId: string },
  ];
  StartContainer: [{ containerId: string }, Record<string, never>];
  StopContainer: [{ containerId: string; timeout: string }, Record<string, never>];
  RemoveContainer: [{ containerId: string }, Record<string, never>];
  ListContainers: [{ filter: ContainerFilter | null }, { containers: Container[] }];
  ContainerStatus: [{ containerId: string; verbose: boolean }, ContainerStatusResponse];
  ExecSync: [{ containerId: string; cmd: string[]; timeout: string }, ExecSyncResponse];
  ImageStatus: [{ image: ImageSpec; verbose: boolean }, { image: Image | null; info: StringMap }];
  ListImages: [{ filter: { image: ImageSpec } | null }, { images: Image[] }];
  PullImage: [
    { image: ImageSpec; auth?: AuthConfig | null; sandboxConfig?: PodSandboxConfig | null },
    { imageRef: string },
  ];
}

export type CriMethod = keyof CriMethods;
export type CriRequest<M extends CriMethod> = CriMethods[M][0];
export type CriResponse<M extends CriMethod> = CriMethods[M][1];

/** Which service serves a method: ImageService methods live on the image endpoint. */
export const IMAGE_METHODS: ReadonlySet<CriMethod> = new Set(['ImageStatus', 'ListImages', 'PullImage']);
