/** The settings a provider's factory takes for its CLI (`createAcme({bin, extraArgs})`), for a provider's own settings to extend. Pure. */
import type { BinaryFacts } from './facts.js';

/** What every CLI provider lets its user set. */
export interface CliSettings {
  /** Executable to run (a path or a name on PATH). `UMBEL_<ID>_BIN` wins over it. */
  readonly bin?: string;
  /** Extra arguments appended to every launch (never env values). */
  readonly extraArgs?: readonly string[];
  /** Provider id (default the CLI's own), to register a second configuration. */
  readonly providerId?: string;
}

/** The binary facts of the CLI `name` (installed by `install`), with the executable `settings.bin` names when it names one. */
export function cliBinary(name: string, install: string, settings: CliSettings): BinaryFacts {
  return { name, install, ...(settings.bin ? { configured: settings.bin } : {}) };
}
