/**
 * `defineProvider(facts)`: compile one CLI's facts into a ProviderV1. The kit is the supported way
 * to write a provider, never a requirement: what it returns is a plain ProviderV1, and a
 * hand-written one loads the same way.
 */
import { UmbelError, ProviderErrorCode, UsageError } from '../errors.js';
import {
  HOOK_KINDS,
  type ProviderV1,
  type ProviderV1BillingInput,
  type ProviderV1BillingReport,
  type ProviderV1BillingSpec,
  type ProviderV1Capabilities,
  type ProviderV1TurnRead,
} from '../spec.js';
import { ENV_NAME, FORBIDDEN_INHERITED_ENV } from './env-rules.js';
import type { FlagFacts, ProviderFacts, TranscriptFacts } from './facts.js';
import { buildLaunch, findExecutable } from './launch.js';
import { matches } from './matchers.js';
import { parseEvent } from './payload.js';
import { checkModelFormat } from './model-list.js';
import { forgetByFacts } from './prepare.js';
import { preparePrompt } from './prompt.js';
import { accountScreenOf, classifyStartup, readInputBox, signInOf } from './screens.js';
import { classifyTool, type ToolFacts } from './tools.js';
import { PROVIDER_SPEC_V1 } from '../shape.js';

/** Facts that cannot make a working provider (thrown by {@link defineProvider}, when the provider is built). */
export class ProviderFactsError extends UmbelError {
  constructor(id: string, problem: string) {
    super({ name: 'ProviderFactsError', code: ProviderErrorCode.ProviderInvalid, message: `the facts of provider '${id}' are invalid: ${problem}` });
  }
}

function problemsOf(facts: ProviderFacts): string[] {
  const problems: string[] = [];
  if (!/^[a-z][a-z0-9-]*$/.test(facts.id)) problems.push(`id '${facts.id}' is not kebab-case`);
  if (!facts.displayName) problems.push('displayName is empty');
  if (!facts.binary.name || facts.binary.name.includes('/')) problems.push(`binary.name '${facts.binary.name}' must be a bare executable name`);
  if (!facts.verifiedVersions.length) problems.push('verifiedVersions is empty (name the CLI versions these facts were checked on)');
  const removed = new Set([...(facts.env?.hostMarkers ?? []), ...(facts.env?.unset ?? []), ...FORBIDDEN_INHERITED_ENV]);
  const billsApi = new Set(facts.billing?.apiEnv ?? []);
  const owned = Object.keys(facts.env?.owned ?? {});
  for (const name of owned) if (!ENV_NAME.test(name)) problems.push(`env.owned '${name}' is not one variable name`);
  for (const name of facts.env?.inherit ?? []) {
    if (!ENV_NAME.test(name)) problems.push(`env.inherit '${name}' is not one variable name`);
    else if (owned.includes(name)) problems.push(`env.inherit '${name}' is owned by umbel (env.owned): a worker gets umbel's value`);
    else if (removed.has(name)) problems.push(`env.inherit '${name}' is a host marker or removed variable`);
    else if (billsApi.has(name)) problems.push(`env.inherit '${name}' switches the CLI to API billing: such a variable is passed explicitly, never inherited`);
  }
  for (const name of [...billsApi, ...(facts.billing?.endpointEnv ?? [])])
    if (!ENV_NAME.test(name)) problems.push(`billing variable '${name}' is not one variable name`);
  const kinds = Object.values(facts.hooks.events);
  for (const kind of kinds) if (!(HOOK_KINDS as readonly string[]).includes(kind)) problems.push(`hook kind '${kind}' is not one of ${HOOK_KINDS.join(', ')}`);
  for (const needed of ['prompt', 'stop'] as const) if (!kinds.includes(needed)) problems.push(`no hook event is delivered as '${needed}'`);
  const modes = facts.flags?.permissionModes ?? {};
  if (facts.flags?.unattended !== undefined && !Object.hasOwn(modes, facts.flags.unattended)) {
    problems.push(`flags.unattended '${facts.flags.unattended}' is not one of the permission modes`);
  }
  const ready = facts.screens.ready;
  if (ready.hook === undefined && !ready.inputBox && ready.screen === undefined) problems.push('screens.ready names nothing to wait for');
  if (ready.inputBox && !facts.screens.inputBox) problems.push('screens.ready.inputBox needs screens.inputBox');
  return problems;
}

function capabilitiesOf(flags: FlagFacts): ProviderV1Capabilities {
  return {
    unattended: flags.unattended !== undefined,
    allowedTools: flags.allowedTools !== undefined,
    appendSystemPrompt: flags.appendSystemPrompt !== undefined,
    permissionModes: Object.keys(flags.permissionModes ?? {}),
    model: flags.model !== undefined,
    ...(flags.resume ? { resume: true } : {}),
    ...(flags.prompt ? { launchPrompt: true } : {}),
  };
}

const LEGACY_NAMES: Readonly<Record<string, string>> = {
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
  cacheReadTokens: 'cache_read_input_tokens',
  cacheCreationTokens: 'cache_creation_input_tokens',
  costUsd: 'cost_usd',
};

/** A completed read with `tokenUsage` also gets the legacy `usage` record (engines before `tokenUsage` read only that). */
export function withLegacyUsage(read: ProviderV1TurnRead): ProviderV1TurnRead {
  if (read.status !== 'completed' || !read.tokenUsage || read.usage) return read;
  const usage: Record<string, number> = {};
  for (const [key, value] of Object.entries(read.tokenUsage)) if (typeof value === 'number') usage[LEGACY_NAMES[key] ?? key] = value;
  return { ...read, usage };
}

/**
 * How a worker bills: what the provider's own detect (else the launch) saw, unless that is
 * `unknown`; then a passed API-billing variable means the API (it is never inherited, so the caller
 * chose it); else unknown.
 */
/** The billing facts a provider publishes (copies: the facts object stays the author's). */
function billingSpec(billing: NonNullable<ProviderFacts['billing']>): ProviderV1BillingSpec {
  return {
    apiEnv: [...billing.apiEnv],
    ...(billing.endpointEnv ? { endpointEnv: [...billing.endpointEnv] } : {}),
    ...(billing.unknowableBeforeStart ? { unknowableBeforeStart: billing.unknowableBeforeStart } : {}),
  };
}

function detectBilling(billing: ProviderFacts['billing'], input: ProviderV1BillingInput): ProviderV1BillingReport {
  const seen = billing?.detect?.(input) ?? input.launch;
  if (seen && seen.billing !== 'unknown') return seen;
  const passed = billing?.apiEnv.filter((name) => input.envNames.includes(name)) ?? [];
  if (passed.length) return { billing: 'api', evidence: `${passed.join(', ')} passed` };
  return seen ?? { billing: 'unknown' };
}

type Readers = Pick<ProviderV1, 'doParseTranscript' | 'doReadTurn' | 'doReadMessages'>;

/** The transcript members: `parse` runs once per text when the engine passes `parsed`, else per call. */
function readersOf<T>(transcript: TranscriptFacts<T>): Readers {
  if (transcript.read) {
    const { read, messages } = transcript;
    return { doReadTurn: (options) => withLegacyUsage(read(options)), ...(messages ? { doReadMessages: (options) => messages(options) } : {}) };
  }
  const { parse, turn, messages } = transcript;
  const parsed = (options: { content: string; transcriptPath: string; parsed?: unknown }): T =>
    'parsed' in options ? (options.parsed as T) : parse(options.content, options.transcriptPath);
  return {
    doParseTranscript: ({ content, transcriptPath }) => parse(content, transcriptPath),
    doReadTurn: (options) => withLegacyUsage(turn(parsed(options), options)),
    ...(messages ? { doReadMessages: (options) => messages(parsed(options), options) } : {}),
  };
}

/** The tool members of `tools`. */
function toolMembersOf(tools: ToolFacts): Pick<ProviderV1, 'doClassifyTool' | 'doReadToolError'> {
  return { doClassifyTool: (call) => classifyTool(tools, call), ...(tools.readError ? { doReadToolError: tools.readError } : {}) };
}

/** `doValidate`: a passed variable the env owns refused, a `--model` not in the list's format refused, then the provider's own checks. */
function validateMemberOf({ env, models, validate }: Pick<ProviderFacts, 'env' | 'models' | 'validate'>): Pick<ProviderV1, 'doValidate'> {
  const owned = Object.entries(env?.owned ?? {});
  if (!owned.length && !models) return validate ? { doValidate: validate } : {};
  return {
    doValidate: (options) => {
      for (const [name, { what, hint }] of owned)
        if (options.spawn.env[name] !== undefined) throw new UsageError(`${name} is umbel's ${what} and cannot be passed in`, { hint });
      if (models && options.spawn.model !== undefined) checkModelFormat(models, options.spawn.model);
      validate?.(options);
    },
  };
}

/** `doForgetScratch`: the kit acting on the `scratch` facts, else the provider's own `forgetScratch`. */
function forgetMemberOf(facts: Pick<ProviderFacts, 'scratch' | 'forgetScratch'>): Pick<ProviderV1, 'doForgetScratch'> {
  const { scratch, forgetScratch } = facts;
  if (scratch) return { doForgetScratch: (session) => forgetByFacts(scratch(session)) };
  return forgetScratch ? { doForgetScratch: forgetScratch } : {};
}

/** Compile `facts` into a ProviderV1; throws {@link ProviderFactsError} for facts that cannot work. */
export function defineProvider<T>(facts: ProviderFacts<T>): ProviderV1 {
  const problems = problemsOf(facts);
  if (problems.length) throw new ProviderFactsError(facts.id, problems.join('; '));
  const { screens, payload = {}, transcript, env, billing } = facts;
  const box = screens.inputBox;
  const input = facts.input || box ? { ...facts.input, ...(box ? { clearKeys: box.clearKeys } : {}) } : undefined;
  return {
    specificationVersion: PROVIDER_SPEC_V1,
    providerId: facts.id,
    displayName: facts.displayName,
    ...(facts.description ? { description: facts.description } : {}),
    ...(facts.screens.signInHint ? { signInHint: facts.screens.signInHint } : {}),
    capabilities: capabilitiesOf(facts.flags ?? {}),
    inheritEnv: [...(env?.inherit ?? [])],
    ...(billing ? { billing: billingSpec(billing) } : {}),
    ...(facts.sandbox
      ? { sandbox: { hosts: [...facts.sandbox.hosts], ...(facts.sandbox.writePaths ? { writePaths: facts.sandbox.writePaths.map((w) => ({ ...w })) } : {}) } }
      : {}),
    doDetectBilling: (input) => detectBilling(billing, input),
    verifiedVersions: [...facts.verifiedVersions],
    ...(facts.hooks.sessionAt ? { sessionHook: facts.hooks.sessionAt } : {}),
    ...(facts.hooks.promptHook ? { promptHook: facts.hooks.promptHook } : {}),
    ...(input ? { input } : {}),
    ...validateMemberOf(facts),
    ...(env?.reconcile ? { doReconcileEnv: env.reconcile } : {}),
    doFindBinary: (callerEnv) => findExecutable(facts, callerEnv),
    doBuildLaunch: (options) => buildLaunch(facts, options),
    doDetectStartup: (startup) => classifyStartup(screens, startup),
    ...(facts.prompt ? { doPreparePrompt: (prompt: string) => preparePrompt(facts.prompt ?? {}, prompt) } : {}),
    doParseEvent: (event) => parseEvent(payload, event),
    ...(transcript.sideRecords?.length ? { sideRecords: transcript.sideRecords.map((r) => ({ ...r })) } : {}),
    ...readersOf(transcript),
    ...(facts.tools ? toolMembersOf(facts.tools) : {}),
    ...forgetMemberOf(facts),
    ...(facts.activityDirs ? { doFindActivityDirs: facts.activityDirs } : {}),
    ...(screens.signIn?.length ? { doDetectSignIn: (screen: string) => signInOf(screens.signIn ?? [], screen) } : {}),
    ...(screens.account?.length ? { doDetectAccountScreen: (screen: string) => accountScreenOf(screens.account ?? [], screen) } : {}),
    ...(screens.inputPrompt !== undefined ? { doDetectInputPrompt: (screen: string) => matches(screens.inputPrompt ?? '', screen) } : {}),
    ...(box ? { doReadInputBox: (screen: string) => readInputBox(box, screen) } : {}),
  };
}
