/**
 * What differs between a private containerd and a private CRI-O before the shared machinery takes over:
 * how the node's effective config is read and turned into the copy's, and how images get into the copy
 * (the bundled archive, or an image copied from the node's own store). Everything else (directory,
 * network, injectors, daemon, removal) is shared.
 */
import type { DerivedConfig } from './containerd-config.js';
import type { HostView } from './host-view.js';
import type { PrivateStorage } from './layout.js';
import type { NodeDaemon } from './node-daemon.js';

export interface SetupRequest {
  node: NodeDaemon;
  /** The node runtime's CRI endpoint as this process reaches it (the images are read there). */
  nodeEndpoint: string;
  /** PATH of the copy: the node binary's directory, then the node daemon's PATH. */
  path: string;
  /** How node binaries are run and node files read from here (through nsenter from a pod). */
  host: HostView;
  dir: string;
  pauseImage: string;
  slowHandler: string;
  storage: PrivateStorage;
}

export interface FlavorSetup {
  derived: DerivedConfig;
  /** The node's config files the derivation started from, for the report. */
  sourceConfig: string;
  /** Throws UncopyableImage when the node holds `name` only in part (checked before the copy starts). */
  inspectNodeImage(name: string): Promise<void>;
  /** Imports the OCI archive's images into the running copy. */
  importImages(archive: string): Promise<void>;
  /** Where the copy pins network namespaces besides /run/netns: host probes look there too. */
  netnsDirs: string[];
  /** Copies an image of the node's store into the running copy, under each of `names`. */
  copyNodeImage(names: readonly string[]): Promise<void>;
}
