/** Compiling binary, env, flag and hook facts into `doBuildLaunch`. */
import type { ProviderV1Launch, ProviderV1LaunchOptions } from '../spec.js';
import { resolveExecutable } from './executable.js';
import type { FlagFacts, InstalledHook, ProviderFacts } from './facts.js';
import { launchModelCheck } from './launch-model-check.js';
import { carryOut } from './prepare.js';

/** The permission mode a worker runs in: the one given, else the one `unattended` means, else none. */
export function effectivePermissionMode(flags: FlagFacts, options: { readonly permissionMode?: string; readonly unattended: boolean }): string | undefined {
  return options.permissionMode ?? (options.unattended ? flags.unattended : undefined);
}

/** The arguments the spawn options map to, after the executable and the hooks' own arguments. */
export function flagArgs(flags: FlagFacts, options: ProviderV1LaunchOptions, mode: string | undefined): string[] {
  const args: string[] = [];
  if (options.resume) {
    if (!flags.resume) throw new Error('this provider cannot resume a conversation (no flags.resume)');
    args.push(...flags.resume(options.resume.sessionId));
  } else if (flags.sessionId) args.push(flags.sessionId, options.sessionId);
  if (flags.model && options.model !== undefined) args.push(flags.model, options.model);
  if (mode !== undefined) args.push(...(flags.permissionModes?.[mode] ?? []));
  if (flags.allowedTools && options.allowedTools !== undefined) args.push(flags.allowedTools, options.allowedTools);
  if (flags.appendSystemPrompt && options.appendSystemPrompt !== undefined) args.push(flags.appendSystemPrompt, options.appendSystemPrompt);
  args.push(...(flags.extraArgs ?? []));
  if (options.prompt !== undefined) {
    if (!flags.prompt) throw new Error('this provider takes no first prompt on the command line (no flags.prompt)');
    args.push(...flags.prompt(options.prompt));
  }
  return args;
}

/** Every hook event with the command that delivers it. */
export function installedHooks(facts: ProviderFacts, options: ProviderV1LaunchOptions): InstalledHook[] {
  return Object.entries(facts.hooks.events).map(([event, kind]) => ({ event, kind, command: options.hookCommand(kind) }));
}

/** The variables a launch removes: the host markers, then the other unset ones. */
export function unsetNames(facts: ProviderFacts): string[] {
  return [...(facts.env?.hostMarkers ?? []), ...(facts.env?.unset ?? [])];
}

/** The provider's executable by the one rule (`UMBEL_<ID>_BIN`, settings, PATH). */
export function findExecutable(facts: ProviderFacts, callerEnv: Readonly<Record<string, string | undefined>>): Promise<string> {
  const { name, install, configured } = facts.binary;
  return resolveExecutable({
    providerId: facts.id,
    displayName: facts.displayName,
    name,
    callerEnv,
    ...(configured ? { configured } : {}),
    ...(install ? { install } : {}),
  });
}

/** Build the launch: find the executable, install the hooks, map the flags. Never launches anything. */
export async function buildLaunch(facts: ProviderFacts, options: ProviderV1LaunchOptions): Promise<ProviderV1Launch> {
  const flags = facts.flags ?? {};
  const binary = await findExecutable(facts, options.callerEnv);
  const permissionMode = effectivePermissionMode(flags, options);
  const context = { launch: options, hooks: installedHooks(facts, options), ...(permissionMode !== undefined ? { permissionMode } : {}) };
  const parts = await carryOut(await facts.hooks.install(context));
  if (facts.models && facts.models.check !== false) await launchModelCheck(facts.models, facts.models.env)(binary, options);
  await facts.checkLaunch?.(binary, options);
  const unsetEnv = unsetNames(facts);
  const sessionId = options.resume?.sessionId ?? (flags.sessionId ? options.sessionId : parts.sessionId);
  const transcriptPath = parts.transcriptPath ?? facts.transcript.predict?.(options);
  return {
    argv: [binary, ...(parts.args ?? []), ...flagArgs(flags, options, permissionMode)],
    env: { ...facts.env?.set, ...parts.env },
    ...(unsetEnv.length ? { unsetEnv } : {}),
    ...(parts.files?.length ? { files: parts.files } : {}),
    ...(sessionId !== undefined ? { sessionId } : {}),
    ...(transcriptPath !== undefined ? { transcriptPath } : {}),
    ...(parts.billing ? { billing: parts.billing } : {}),
    ...(parts.endpoint ? { endpoint: parts.endpoint } : {}),
  };
}
