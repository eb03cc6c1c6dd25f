/**
 * The facts of one agent CLI, as {@link defineProvider} compiles them into a ProviderV1. Everything
 * here is data except the few places a CLI needs code: the files that install its hooks (pure: what
 * the launch needs on disk and reads is an {@link InstallPlan} the kit carries out), the checks only
 * it makes, the payload fields a table cannot name, and the transcript reader.
 */
import type {
  HookEvent,
  HookKind,
  ProviderV1AccountError,
  ProviderV1BillingInput,
  ProviderV1BillingReport,
  ProviderV1EventInfo,
  ProviderV1File,
  ProviderV1InputSpec,
  ProviderV1LaunchOptions,
  ProviderV1Message,
  ProviderV1ReadTurnOptions,
  ProviderV1SandboxSpec,
  ProviderV1ScratchSession,
  ProviderV1SideRecord,
  ProviderV1TurnRead,
  ProviderV1ValidateOptions,
} from '../spec.js';
import type { LaunchEnv } from './launch-model-check.js';
import type { Matcher } from './matchers.js';
import type { ModelListFacts } from './model-list.js';
import type { ManagedHomeFacts } from './home.js';
import type { SessionStateFacts } from './session-state.js';
import type { ToolFacts } from './tools.js';

/** The CLI's executable (found by the one rule: `UMBEL_<ID>_BIN`, settings, `PATH`). */
export interface BinaryFacts {
  /** Its name on PATH (`claude`). */
  readonly name: string;
  /** How to install it, for the not-found hint (`npm install -g @anthropic-ai/claude-code`). */
  readonly install?: string;
  /** The binary the provider's settings name (a path or a name), if any. */
  readonly configured?: string;
}

/** The worker environment. */
export interface EnvFacts {
  /** Configuration variables inherited from the caller, named one by one (never a prefix). */
  readonly inherit?: readonly string[];
  /** Markers a running CLI exports to its children: never inherited, removed from the worker env. */
  readonly hostMarkers?: readonly string[];
  /** Other variables removed from the worker env (e.g. `CI`, which forces a headless mode). */
  readonly unset?: readonly string[];
  /** Variables every worker gets (reserved: they win over explicit ones). */
  readonly set?: Readonly<Record<string, string>>;
  /** Adjust the final env (e.g. drop a key another one supersedes). Pure. */
  readonly reconcile?: (env: Readonly<Record<string, string>>) => Record<string, string>;
  /**
   * Variables umbel sets to a per-worker value of its own (a config dir, a settings file): a spawn
   * that passes one is refused (`<NAME> is umbel's <what> and cannot be passed in`, with the hint).
   */
  readonly owned?: Readonly<Record<string, { readonly what: string; readonly hint: string }>>;
}

/**
 * How the CLI bills. The variables in `apiEnv` switch it from the subscription login to API (or
 * cloud) billing: never inherited (defineProvider refuses facts that inherit one), they reach a
 * worker only when passed by name.
 */
export interface BillingFacts {
  readonly apiEnv: readonly string[];
  /** Variables holding the endpoint's base URL, first set wins (shown in status, credentials removed). */
  readonly endpointEnv?: readonly string[];
  /** Why billing cannot be told from the env before the CLI starts (see ProviderV1BillingSpec). */
  readonly unknowableBeforeStart?: string;
  /**
   * The verdict from the ready screen, the env names and what the launch said (pure). Where it (or,
   * without one, the launch) says `unknown`, a passed `apiEnv` variable means `api`; else unknown.
   */
  readonly detect?: (input: ProviderV1BillingInput) => ProviderV1BillingReport;
}

/** How the spawn options become argv. Capabilities follow from what is mapped. */
export interface FlagFacts {
  /** `--session-id`: the CLI takes umbel's session id (the launch then knows it up front). */
  readonly sessionId?: string;
  /**
   * The arguments that resume the CLI's conversation `sessionId` (Claude: `['--resume', id]`), used
   * instead of `sessionId`'s flag by `umbel revive`. Declare it only where the CLI's reference
   * verifies that it resumes the same conversation; absent = the provider cannot resume.
   */
  readonly resume?: (sessionId: string) => readonly string[];
  /** `--model`. */
  readonly model?: string;
  /** Permission mode → its arguments (`[]` for the CLI's default); the keys are the accepted modes. */
  readonly permissionModes?: Readonly<Record<string, readonly string[]>>;
  /** The permission mode `unattended` means, unless a mode is given (a key of `permissionModes`). */
  readonly unattended?: string;
  /** `--allowedTools`-like flag taking the value as given. */
  readonly allowedTools?: string;
  /** `--append-system-prompt`-like flag. */
  readonly appendSystemPrompt?: string;
  /** Appended after everything (from the provider's settings; never env values). */
  readonly extraArgs?: readonly string[];
  /**
   * The arguments that hand the CLI its first prompt to start on (Claude: `['--', text]`), put last.
   * Declare it only where the CLI's reference verifies that such a prompt is submitted at once, as
   * if typed; it gives the provider `capabilities.launchPrompt`.
   */
  readonly prompt?: (text: string) => readonly string[];
}

/** One hook event umbel installs, with the command that delivers it. */
export interface InstalledHook {
  /** The CLI's event name (`UserPromptSubmit`). */
  readonly event: string;
  readonly kind: HookKind;
  /** The shell command that delivers the payload (stdin) as an event of `kind`. */
  readonly command: string;
}

/** What {@link HookFacts.install} gets. */
export interface HookInstallContext {
  readonly launch: ProviderV1LaunchOptions;
  /** One per entry of {@link HookFacts.events}, in order. */
  readonly hooks: readonly InstalledHook[];
  /** The permission mode the worker runs in (given, or unattended's), if any. */
  readonly permissionMode?: string;
}

/** What installing the hooks adds to the launch. */
export interface LaunchParts {
  /** Arguments right after the executable (e.g. `--settings <file>`). */
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly files?: readonly ProviderV1File[];
  readonly sessionId?: string;
  readonly transcriptPath?: string;
  /** What the files read for the launch say about billing (e.g. Codex's auth.json mode). */
  readonly billing?: ProviderV1BillingReport;
  /** The endpoint's base URL the config read for the launch names. */
  readonly endpoint?: string;
}

/** The CLI's hooks: which of its events mean what, and the files that install them. */
export interface HookFacts {
  /** CLI event name → neutral kind. Must include a `prompt` and a `stop` kind. */
  readonly events: Readonly<Record<string, HookKind>>;
  /** When the `session` hook naming the session (its id, its transcript) fires: at startup (default) or at the first submitted prompt (ProviderV1's `sessionHook`). */
  readonly sessionAt?: 'startup' | 'first-prompt';
  /** `'every-prompt'`: the `prompt` hook fires for every prompt the CLI takes, queued ones when they start (ProviderV1's `promptHook`). */
  readonly promptHook?: 'every-prompt';
  /**
   * What installs them: the launch's parts (the files the engine writes, the arguments and env that
   * point the CLI at them), or a plan — what the kit prepares on disk and reads first (a managed
   * home, directories, links, the user's config), then the parts from what it got. Best pure (a
   * plan says its I/O as facts); must not launch.
   */
  install(context: HookInstallContext): LaunchParts | InstallPlan | Promise<LaunchParts | InstallPlan>;
}

/** A fatal startup message: the first line the matcher matches. */
export interface FatalFact {
  readonly match: Matcher;
  /** The error message; default the matched text (a RegExp's match, else the whole line), trimmed. */
  readonly message?: string | ((line: string) => string);
}

/** A startup dialog and the keys that answer it safely. */
export interface DialogFact {
  readonly id: string;
  readonly match: Matcher;
  readonly keys: readonly string[];
  /** Only when one of these variables is in the worker env (e.g. a key the caller passed on purpose). */
  readonly ifEnv?: readonly string[];
  /** Only when none of these variables is in the worker env. */
  readonly unlessEnv?: readonly string[];
}

/**
 * The CLI's input box. Its first line matches `start` (group 1 = the text on it), right below a line
 * matching `above` when given; the box runs to the first line matching `end` (excluded), which must
 * be there when given, else to the screen's end. The box nearest the bottom counts. Used to know the
 * CLI takes input (ready) and to clear an unsubmitted prompt; never to read answers.
 */
export type InputBoxFacts = InputBoxTable | InputBoxReader;

/** The input box as a table (see {@link InputBoxFacts}). */
export interface InputBoxTable {
  readonly start: RegExp;
  readonly above?: Matcher;
  readonly end?: Matcher;
  /** What an empty box shows (placeholders, hints): a string equals the text, a RegExp tests it. */
  readonly empty?: readonly (string | RegExp)[];
  /** Keys that clear a non-empty box, pressed one at a time while the box still holds text. */
  readonly clearKeys: readonly string[];
}

/** An input box a table cannot describe: its own pure reader (`''` empty, undefined when no box is drawn). */
export interface InputBoxReader {
  read(screen: string): string | undefined;
  /** Keys that clear a non-empty box, pressed one at a time while the box still holds text. */
  readonly clearKeys: readonly string[];
}

/** The screens: classified in the order fatal, sign-in, dialogs, ready, else starting. */
export interface ScreenFacts {
  readonly fatal?: readonly FatalFact[];
  /** Lines that mean the CLI wants a sign-in (the matched line is reported, trimmed of box borders). */
  readonly signIn?: readonly Matcher[];
  /** How a user signs this CLI in (ProviderV1's `signInHint`), e.g. "run `acme login` once in a terminal". */
  readonly signInHint?: string;
  /**
   * Blocking account dialogs (ProviderV1's doDetectAccountScreen): one a turn can open before the
   * CLI records its error (Gemini's daily quota), or after it (Claude's /rate-limit-options): the
   * line that marks one (reported, trimmed of box borders, unless `message` words it) and its kind.
   */
  readonly account?: readonly {
    readonly match: Matcher;
    readonly kind: ProviderV1AccountError['kind'];
    /** The message reported (default: the matched line, trimmed of box borders). */
    readonly message?: (line: string) => string;
    /** How the caller answers it with `umbel keys` (ProviderV1AccountScreen.answer). */
    readonly answer?: string;
  }[];
  readonly dialogs?: readonly DialogFact[];
  /** Ready: this hook seen (e.g. `session`), and/or the input box drawn, and/or the screen matching. */
  readonly ready: { readonly hook?: HookKind; readonly inputBox?: boolean; readonly screen?: Matcher };
  /** A permission prompt drawn and taking keys (ProviderV1.doDetectInputPrompt). */
  readonly inputPrompt?: Matcher;
  readonly inputBox?: InputBoxFacts;
}

/** A prompt the CLI would not deliver as sent. */
export interface RefusedPrompt {
  /** Tested on the trimmed prompt. */
  readonly match: RegExp;
  readonly message: (matched: string) => string;
  readonly hint?: (prompt: string) => string;
}

/** How a prompt must be pasted (applied in this order). */
export interface PromptFacts {
  /** CRLF and CR become LF. */
  readonly normalizeNewlines?: boolean;
  /** Refused with a UsageError (the engine already refuses empty prompts). */
  readonly refuse?: readonly RefusedPrompt[];
  /** Leading characters the CLI treats as commands (`/`, `!`): such a prompt gets one leading space. */
  readonly escapeLeading?: readonly string[];
  /** Suffixes: a prompt ending with `endsWith` gets `append` (e.g. a trailing `\` needs a newline). */
  readonly trailing?: readonly { readonly endsWith: string; readonly append: string }[];
}

/** A payload field, optionally ignoring some values. */
export type FieldFact = string | { readonly field: string; readonly except?: readonly string[] };

/** What hook payloads mean. Fields are payload keys (dotted for nested ones). */
export interface PayloadFacts {
  readonly sessionId?: string;
  readonly transcriptPath?: string;
  /** The turn id: one field for every kind, or per kind. */
  readonly turnKey?: string | { readonly [K in HookKind]?: string };
  /** Per kind, the field holding the final message (any string, empty included). */
  readonly lastMessage?: { readonly [K in HookKind]?: FieldFact };
  /** For `stop-failure`: the fields tried for the error text, and the text when none has one. */
  readonly error?: { readonly fields: readonly string[]; readonly fallback: string };
  /** For `stop-failure`: whether the error was the account's (a usage or rate limit, a refused login). */
  readonly account?: (payload: Record<string, unknown>) => ProviderV1AccountError | undefined;
  /** For `permission`/`notify`: what input is needed; undefined = informational. */
  readonly needsInput?: (event: HookEvent, payload: Record<string, unknown>) => ProviderV1EventInfo['needsInput'];
  /** For `tool`: the activity it describes. */
  readonly activity?: (payload: Record<string, unknown>, event: HookEvent) => string | undefined;
  /** The last word on a reading, for payloads the table cannot express. */
  readonly refine?: (event: HookEvent, payload: Record<string, unknown>, info: ProviderV1EventInfo) => ProviderV1EventInfo;
}

/** What every transcript reader states besides its code. */
interface TranscriptCommon {
  /** The transcript's path when it is known at launch (a prediction: hook payloads win). */
  predict?(launch: ProviderV1LaunchOptions): string | undefined;
  /** Files beside the transcript that the reader needs too (ProviderV1's `sideRecords`). */
  readonly sideRecords?: readonly ProviderV1SideRecord[];
}

/**
 * The transcript reader: the one real piece of code of a provider. Pure. `parse` turns one
 * transcript text into what `turn` and `messages` read (the engine calls it once per text, however
 * many readers it has); report usage as `tokenUsage` (the kit adds the legacy `usage` record).
 */
export interface TranscriptReader<T> extends TranscriptCommon {
  parse(content: string, transcriptPath: string): T;
  readonly read?: never;
  turn(parsed: T, options: ProviderV1ReadTurnOptions): ProviderV1TurnRead;
  messages?(parsed: T, options: ProviderV1ReadTurnOptions): readonly ProviderV1Message[];
}

/** The first form of the reader, still accepted: each function parses `options.content` itself. */
export interface UnparsedTranscriptReader extends TranscriptCommon {
  read(options: ProviderV1ReadTurnOptions): ProviderV1TurnRead;
  readonly parse?: never;
  messages?(options: ProviderV1ReadTurnOptions): readonly ProviderV1Message[];
}

/** Either form of the reader. */
export type TranscriptFacts<T = unknown> = TranscriptReader<T> | UnparsedTranscriptReader;

/** Everything {@link defineProvider} needs (`T`: what the transcript reader's `parse` makes). */
export interface ProviderFacts<T = unknown> {
  /** Stable kebab-case id (`claude`); the executable variable is `UMBEL_<ID>_BIN`. */
  readonly id: string;
  readonly displayName: string;
  /** One line of help for people and models choosing a provider (ProviderV1's `description`). */
  readonly description?: string;
  /** The CLI versions these facts were verified against (newest last). */
  readonly verifiedVersions: readonly string[];
  readonly binary: BinaryFacts;
  readonly env?: EnvFacts;
  readonly billing?: BillingFacts;
  /** What a confined worker (`--sandbox`) needs: the model endpoint's hosts, the CLI's own write paths. */
  readonly sandbox?: ProviderV1SandboxSpec;
  readonly flags?: FlagFacts;
  readonly hooks: HookFacts;
  readonly screens: ScreenFacts;
  /** Delivery timing (the input box's clear keys come from `screens.inputBox`). */
  readonly input?: Omit<ProviderV1InputSpec, 'clearKeys'>;
  readonly prompt?: PromptFacts;
  readonly payload?: PayloadFacts;
  readonly transcript: TranscriptFacts<T>;
  /**
   * A check of the spawn that needs the executable found (opencode: that the model is in the CLI's
   * own list), run by `doBuildLaunch` after the hooks are installed. Throw a UsageError to refuse.
   */
  readonly checkLaunch?: (binary: string, options: ProviderV1LaunchOptions) => Promise<void>;
  /**
   * The CLI's own model list, for a CLI that silently falls back on a model it does not know: a
   * spawn's `--model` is checked against its format before any I/O, and against the list (read with
   * the worker's env as `env` makes it) before launching, unless `check` is false.
   */
  readonly models?: ModelListFacts & { readonly env?: LaunchEnv; readonly check?: boolean };
  /** What its tool calls do (ProviderV1's `doClassifyTool`, `doReadToolError`). */
  readonly tools?: ToolFacts;
  /** What forgetting a scratch session umbel ran edits and removes in the CLI's state (ProviderV1's `doForgetScratch`, done by the kit). Pure. */
  readonly scratch?: (session: ProviderV1ScratchSession) => ScratchFacts;
  /** Forget a scratch session by code of its own instead (best effort, never throws); `scratch` wins when both are given. */
  readonly forgetScratch?: (session: ProviderV1ScratchSession) => Promise<void>;
  /** Directories of the CLI's background work beside a transcript, or named by its session id (ProviderV1's `doFindActivityDirs`). Pure. */
  readonly activityDirs?: (transcriptPath: string, sessionId?: string) => readonly string[];
  /**
   * Checks only this CLI makes, before any I/O (throw a UsageError subclass). The engine has
   * already refused options the capabilities do not cover; do not repeat those.
   */
  readonly validate?: (options: ProviderV1ValidateOptions) => void;
}

/** A directory entry that outlives one worker: linked to `target` when that exists, else to `shared` (created 0700). */
export interface SharedLinkFacts {
  readonly target: string;
  readonly shared: string;
  readonly path: string;
}

/** What the kit does for an {@link InstallPlan}: the JSON reads first (a file that is not one refuses the launch before anything is made), then the rest in this order. */
export interface InstallPrepFacts {
  /** A managed config home (see `prepareHome`); its managed files' texts reach the install as `prepared.home`. */
  readonly home?: ManagedHomeFacts;
  /** Directories created (0700, with their parents). */
  readonly dirs?: readonly string[];
  /** Entries linked by {@link SharedLinkFacts}; an existing entry is kept. */
  readonly links?: readonly SharedLinkFacts[];
  /** Files read (by name → path): their text, undefined when absent or unreadable. */
  readonly read?: Readonly<Record<string, string | undefined>>;
  /** JSON (or JSONC) objects read (by name): `{}` when absent or empty; a UsageError naming `what` when the file is not one. */
  readonly readJson?: Readonly<Record<string, { readonly path: string; readonly what: string }>>;
}

/** What the preparation gives the install. */
export interface PreparedInstall {
  /** The managed home's files, by name, as written. */
  readonly home: Readonly<Record<string, string>>;
  readonly read: Readonly<Record<string, string | undefined>>;
  readonly json: Readonly<Record<string, Record<string, unknown>>>;
}

/** An install that needs the disk first: what the kit prepares and reads, then the launch's parts from what it got. */
export interface InstallPlan {
  readonly prepare: InstallPrepFacts;
  parts(prepared: PreparedInstall): LaunchParts;
}

/** What forgetting a scratch session edits and removes in the CLI's own state. */
export interface ScratchFacts {
  /** Shared files edited in place (`edit` returns the new text, or undefined to leave it), each atomically; a file not named (undefined) is skipped. */
  readonly edits?: readonly { readonly path: string | undefined; readonly edit: (text: string) => string | undefined }[];
  /** The state of `sessionIds` removed under `root` (nothing without a root). */
  readonly sessionState?: SessionStateFacts & { readonly root: string | undefined; readonly sessionIds: readonly string[] };
}
