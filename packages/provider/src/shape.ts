/**
 * The one shape check of a provider: what a value must look like to be used as a `ProviderV1` (every
 * required member, and the type of every optional one). The engine's registry and the loader of
 * provider packages both use it, so a provider is refused the same way wherever it comes from.
 */

/** The specification this umbel implements: the one exported literal. */
export const PROVIDER_SPEC_V1 = 'umbel-provider-v1' as const;

type Check = (value: unknown) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const stringArray: Check = (v) => (Array.isArray(v) && v.every((s) => typeof s === 'string') ? undefined : 'expected an array of strings');
const fn: Check = (v) => (typeof v === 'function' ? undefined : 'expected a function');
const str: Check = (v) => (typeof v === 'string' ? undefined : 'expected a string');
const bool: Check = (v) => (typeof v === 'boolean' ? undefined : 'expected a boolean');
const object: Check = (v) => (isObject(v) ? undefined : 'expected an object');
const array: Check = (v) => (Array.isArray(v) ? undefined : 'expected an array');
const nonEmpty: Check = (v) => (typeof v === 'string' && v.length > 0 ? undefined : 'expected a non-empty string');
const kebab: Check = (v) => (typeof v === 'string' && /^[a-z][a-z0-9-]*$/.test(v) ? undefined : 'expected a kebab-case id (a-z, 0-9, -)');
const sessionHook: Check = (v) => (v === 'startup' || v === 'first-prompt' ? undefined : "expected 'startup' or 'first-prompt'");
const promptHook: Check = (v) => (v === 'every-prompt' ? undefined : "expected 'every-prompt'");

/** Every member of ProviderV1: its check, and whether it may be absent. */
const MEMBERS: Readonly<Record<string, readonly [Check, 'required' | 'optional']>> = {
  providerId: [kebab, 'required'],
  displayName: [nonEmpty, 'required'],
  capabilities: [object, 'required'],
  inheritEnv: [stringArray, 'required'],
  doBuildLaunch: [fn, 'required'],
  doDetectStartup: [fn, 'required'],
  doParseEvent: [fn, 'required'],
  doReadTurn: [fn, 'required'],
  description: [str, 'optional'],
  billing: [object, 'optional'],
  sandbox: [object, 'optional'],
  signInHint: [str, 'optional'],
  input: [object, 'optional'],
  verifiedVersions: [stringArray, 'optional'],
  sessionHook: [sessionHook, 'optional'],
  promptHook: [promptHook, 'optional'],
  sideRecords: [array, 'optional'],
  doForgetScratch: [fn, 'optional'],
  doFindBinary: [fn, 'optional'],
  doValidate: [fn, 'optional'],
  doReconcileEnv: [fn, 'optional'],
  doDetectBilling: [fn, 'optional'],
  doPreparePrompt: [fn, 'optional'],
  doFindActivityDirs: [fn, 'optional'],
  doParseTranscript: [fn, 'optional'],
  doReadMessages: [fn, 'optional'],
  doDetectSignIn: [fn, 'optional'],
  doDetectAccountScreen: [fn, 'optional'],
  doDetectInputPrompt: [fn, 'optional'],
  doReadInputBox: [fn, 'optional'],
  doClassifyTool: [fn, 'optional'],
  doReadToolError: [fn, 'optional'],
};

/** Every member of ProviderV1Capabilities. */
const CAPABILITIES: Readonly<Record<string, readonly [Check, 'required' | 'optional']>> = {
  unattended: [bool, 'required'],
  allowedTools: [bool, 'required'],
  appendSystemPrompt: [bool, 'required'],
  permissionModes: [stringArray, 'required'],
  model: [bool, 'optional'],
  resume: [bool, 'optional'],
  launchPrompt: [bool, 'optional'],
};

function membersIssues(value: Record<string, unknown>, members: typeof MEMBERS, prefix: string): string[] {
  const issues: string[] = [];
  for (const [name, [check, presence]] of Object.entries(members)) {
    const member = value[name];
    const problem = member === undefined && presence === 'optional' ? undefined : check(member);
    if (problem) issues.push(`${prefix}${name}: ${problem}`);
  }
  return issues;
}

/** Every way `value` is not a ProviderV1, as `path: problem`; empty when it is one. */
export function providerShapeIssues(value: unknown): string[] {
  if (!isObject(value)) return ['(value): expected an object'];
  const spec = value.specificationVersion;
  if (spec !== PROVIDER_SPEC_V1)
    return [`specificationVersion: implements ${spec === undefined ? '(none)' : `'${String(spec)}'`}; this umbel understands '${PROVIDER_SPEC_V1}'`];
  const issues = membersIssues(value, MEMBERS, '');
  if (isObject(value.capabilities)) issues.push(...membersIssues(value.capabilities, CAPABILITIES, 'capabilities.'));
  return issues;
}
