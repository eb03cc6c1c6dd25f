/**
 * `@umbel/core/provider-kit`: the supported way to write a provider. `defineProvider(facts)` compiles
 * one CLI's facts (binary, env, flags, hooks, screens, prompt rules, payload fields, the transcript
 * reader) into a ProviderV1; the helpers are what every provider's launch needs. Using it is never
 * required: a hand-written ProviderV1 loads the same way.
 */
export { defineProvider, ProviderFactsError, withLegacyUsage } from './define.js';
export type {
  BinaryFacts,
  DialogFact,
  EnvFacts,
  FatalFact,
  FieldFact,
  FlagFacts,
  HookFacts,
  HookInstallContext,
  InputBoxFacts,
  InputBoxReader,
  InputBoxTable,
  InstalledHook,
  InstallPlan,
  InstallPrepFacts,
  LaunchParts,
  PayloadFacts,
  PreparedInstall,
  PromptFacts,
  ProviderFacts,
  RefusedPrompt,
  ScratchFacts,
  ScreenFacts,
  SharedLinkFacts,
  TranscriptFacts,
  TranscriptReader,
  UnparsedTranscriptReader,
} from './facts.js';
export { classifyTool, jsonToolError, type ToolFacts, type ToolRule } from './tools.js';
export {
  binEnvName,
  ExecutableNotFoundError,
  findOnPath,
  isExecutableFile,
  pathDirs,
  resolveExecutable,
  type ExecutableQuery,
  type ExecutableSource,
} from './executable.js';
export { asRecord, deepMerge, isRecord, jsonLines, parseJson, stringField, stripJsonComments, type JsonLine } from './json.js';
export { readJsonObject, readTextIfExists, symlinkIfAbsent, writeIfChanged } from './files.js';
export { withDirLock, type DirLockOptions } from './lock.js';
export { type ManagedHomeFacts, prepareHome } from './home.js';
export { carryOut, forgetByFacts, prepareInstall } from './prepare.js';
export { type CommandHook, type CommandHookShape, commandHooks, jsonFile } from './settings.js';
export { addUsage, assistantMessage, textBlock, toolResultBlock, toolResultsMessage, toolUseBlock, type UsageTotal } from './messages.js';
export { allOf, anyOf, cursorOn, findLine, type Matcher, matchedText, matches, oneLine, trimBox } from './matchers.js';
export { classifyStartup, fatalOf, readInputBox, signInOf } from './screens.js';
export { accountError, accountErrorOfStatus, accountFailure, isoOfEpoch } from './account.js';
export { parseEvent } from './payload.js';
export { preparePrompt } from './prompt.js';
export { buildLaunch, effectivePermissionMode, findExecutable, flagArgs } from './launch.js';
export { ENV_NAME, FORBIDDEN_INHERITED_ENV } from './env-rules.js';

/** `flag value` for every mode, except `bare` ones (the CLI's default) which map to no argument. */
export function modeFlags(flag: string, modes: readonly string[], bare: readonly string[] = []): Record<string, readonly string[]> {
  return Object.fromEntries(modes.map((mode) => [mode, bare.includes(mode) ? [] : [flag, mode]]));
}
export { shellQuote } from './shell.js';
export { functionCallBlocks, functionResponseBlocks, partsText } from './parts.js';
export { linkUserOrShared } from './shared-link.js';
export { type ActivityStyle, payloadActivity, type ToolActivityFacts, toolActivity, toolArgument } from './activity.js';
export { canonicalJson, lastOf, recordAt, valueAt } from './records.js';
export { blockText } from './blocks.js';
export { quotaWindow, usedUpReset } from './quota.js';
export { type CommandOptions, type CommandResult, lastLines, runCommand, stripAnsi } from './command.js';
export { contentBlocks } from './content-blocks.js';
export { splitToolRules } from './tool-rules.js';
export { editSharedFile, withoutJsonLines } from './shared-file.js';
export { statePath } from './state-path.js';
export { definedMembers } from './defined.js';
export { type AccountErrorNames, accountKindOf, payloadAccountError } from './account-names.js';
export { ANTHROPIC_USAGE_NAMES } from './anthropic-usage.js';
export { envPrecedence } from './env-precedence.js';
export { type ToolErrorFacts, toolErrorReader } from './tool-errors.js';
export { settingsWithHooks } from './hook-settings.js';
export { type CommandPromptFacts, commandPrompt, SLASH_COMMAND } from './command-prompt.js';
export { type PermissionFacts, permissionInput } from './permission.js';
export { rememberLast } from './remember-last.js';
export { argvCommandLine } from './argv.js';
export { jsonText } from './json-text.js';
export { teeScript } from './tee-script.js';
export { withoutJsonMember } from './json-member.js';
export { type NotificationFacts, notificationInput } from './notification.js';
export { type QuotaNames, namedQuota } from './named-quota.js';
export { type BackgroundTaskFacts, backgroundTasks } from './background-tasks.js';
export { type RootModeFacts, refuseModeAsRoot } from './root-mode.js';
export { groupBy } from './group-by.js';
export { samePrompt } from './same-prompt.js';
export { type CliSettings, cliBinary } from './cli-settings.js';
export { attempt } from './attempt.js';
export { type ActivityDirFacts, activityDirsOf } from './activity-dirs.js';
export { type PartsMessageOptions, partsMessage } from './parts-message.js';
export { type NamedBillingFacts, namedBilling } from './named-billing.js';
export { type AccountTextFacts, accountErrorOfText } from './account-text.js';
export { editQuietly, removeSessionState, type SessionStateFacts } from './session-state.js';
export { unparsedReader } from './unparsed.js';
export { type SumUsageOptions, sumUsage, type UsageNames } from './sum-usage.js';
export {
  checkModel,
  checkModelFormat,
  describeModels,
  listModels,
  type ModelListFacts,
  ModelsUnreadableError,
  ModelUnknownError,
  MODELS_NAMED,
  parseModelList,
} from './model-list.js';
export { type SubagentFacts, subagentEvents } from './subagent-events.js';
export { type FailedTurnFacts, failedTurn } from './failed-turn.js';
export { type PluginHookSettings, type PluginModuleFacts, type PluginNode, type PluginRuntime, pluginRuntime, renderPluginModule } from './cli-plugin.js';
export { MODEL_VENDOR_KEY_ENV } from './vendor-keys.js';
export { type LaunchEnv, launchModelCheck } from './launch-model-check.js';
