/**
 * A permission mode the CLI refuses to run in as root unless a variable says the machine is a
 * disposable sandbox (Claude Code's bypass mode and `IS_SANDBOX=1`): refused before launch. Pure.
 */
import { OptionUnsupportedError } from '../errors.js';
import type { ProviderV1ValidateOptions } from '../spec.js';

/** The refused mode and what lifts the refusal. */
export interface RootModeFacts {
  /** The provider id the error names. */
  readonly provider: string;
  /** The mode refused as root, the flag that takes it (`--permission-mode`), and whether `unattended` means it. */
  readonly mode: string;
  readonly flag: string;
  readonly unattended: boolean;
  /** The variable and exact value in the worker env that lift the refusal. */
  readonly unless: { readonly env: string; readonly value: string };
  /** Why, and what to do instead (the error's hint). */
  readonly hint: string;
}

/** The fact `validate` of these facts: throws OptionUnsupportedError for the mode as root without the variable. */
export function refuseModeAsRoot(facts: RootModeFacts): (options: ProviderV1ValidateOptions) => void {
  return ({ spawn, isRoot }) => {
    const mode = spawn.permissionMode ?? (spawn.unattended && facts.unattended ? facts.mode : undefined);
    if (mode !== facts.mode || !isRoot || spawn.env[facts.unless.env] === facts.unless.value) return;
    const option = spawn.permissionMode === undefined ? `unattended mode (${facts.flag} ${mode})` : `permission mode ${mode}`;
    throw new OptionUnsupportedError(facts.provider, `${option} when running as root`, facts.hint);
  };
}
