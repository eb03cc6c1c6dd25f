/**
 * A run's journal: `status.json` written atomically, one write at a time (calls made while a write
 * waits join it: it serialises the state when it starts, so a burst of changes costs one write, not
 * one each), and the progress events, whose listener never breaks a run.
 */
import { join } from 'node:path';
import { writeFileAtomic } from '@umbel/core';
import type { WorkflowEvent } from './progress.js';
import type { RunStatus } from './run-status.js';

export interface RunJournal {
  /** Write `status.json` (updatedAt set now); resolves once a write made after this call is done. */
  persist(): Promise<void>;
  /** Tell the listener; what it throws is ignored. */
  emit(event: WorkflowEvent): void;
}

export function createJournal(runDir: string, state: RunStatus, onEvent?: (event: WorkflowEvent) => void): RunJournal {
  let writing: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  return {
    persist() {
      state.updatedAt = new Date().toISOString();
      if (queued) return queued;
      const write = writing.then(() => {
        queued = undefined;
        return writeFileAtomic(join(runDir, 'status.json'), `${JSON.stringify(state, null, 2)}\n`);
      });
      queued = write;
      writing = write.catch(() => undefined);
      return write;
    },
    emit(event) {
      try {
        onEvent?.(event);
      } catch {
        // a progress listener never breaks a run
      }
    },
  };
}
