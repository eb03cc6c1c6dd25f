/** Where doctor's scratch workers live: a host over a private state root (no engine types, so the contract can name it). */
import type { Substrate } from '../contract/substrate.js';

/** A host for one scratch state root, and how to end it (e.g. its tmux server). */
export interface ScratchHost {
  readonly substrate: Substrate;
  dispose(): Promise<void>;
}

/** Makes the host of a scratch state root. */
export type ScratchHostFactory = (home: string) => ScratchHost;
