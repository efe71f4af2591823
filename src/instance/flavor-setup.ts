/**
 * What differs between the flavors (containerd-setup.ts, crio-setup.ts) when a private instance is set
 * up: how the node's effective config is read and turned into the copy's, and how the bundled images get
 * into the copy. Everything else (directory, network, injectors, daemon, removal) is shared.
 */
import type { DerivedConfig } from './containerd-config.js';
import type { HostView } from './host-view.js';
import type { NodeDaemon } from './node-daemon.js';

export interface SetupRequest {
  node: NodeDaemon;
  /** PATH of the copy: the node binary's directory, then the node daemon's PATH. */
  path: string;
  /** How node binaries are run and node files read from here (through nsenter from a pod). */
  host: HostView;
  dir: string;
  pauseImage: string;
  slowHandler: string;
}

export interface FlavorSetup {
  derived: DerivedConfig;
  /** The node's config files the derivation started from, for the report. */
  sourceConfig: string;
  /** Imports the OCI archive's images into the running copy. */
  importImages(archive: string): Promise<void>;
}
