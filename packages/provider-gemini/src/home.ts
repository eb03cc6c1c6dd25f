/**
 * The worker's own Gemini home (`<workerDir>/gemini-home`, passed as `GEMINI_CLI_HOME`): its
 * `.gemini/settings.json` is the user's settings plus umbel's hooks (written by the engine from the
 * launch's files); every other entry of the user's `~/.gemini` is a symlink (credentials, GEMINI.md,
 * commands, extensions, trusted folders, history…), except `projects.json` (per worker, so a stale
 * lock of another process never stalls this one) and `tmp`, which points at the user's
 * `~/.gemini/tmp` when it exists (chats then show up in the user's `gemini --resume`) or else at a
 * directory shared by umbel's workers (so a chat outlives its worker). The user's files are only read.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type HookInstallContext, jsonFile, type LaunchParts, linkUserOrShared, prepareHome, readJsonObject } from '@umbel/provider';
import { buildWorkerSettings, geminiBilling } from './settings.js';

/** The worker's Gemini home, inside its provider dir. */
export const WORKER_HOME_DIR = 'gemini-home';
/** The worker's settings file, relative to its provider dir. */
export const WORKER_SETTINGS_PATH = `${WORKER_HOME_DIR}/.gemini/settings.json`;
/** The CLI's local telemetry file, relative to the worker's provider dir (./telemetry.ts). */
export const TELEMETRY_PATH = 'telemetry.log';

/** Entries of the user's `~/.gemini` that are not shared with a worker's home. */
const NOT_LINKED = new Set(['settings.json', 'projects.json', 'tmp']);

/** The user's own Gemini home (the directory holding `.gemini`). */
export function userGeminiHome(callerEnv: Readonly<Record<string, string | undefined>>): string {
  return callerEnv.GEMINI_CLI_HOME || callerEnv.HOME || homedir();
}

/** Options of {@link installGeminiHome} from the provider's settings. */
export interface GeminiHomeOptions {
  readonly trustWorkspace: boolean;
  readonly settingsOverrides?: Readonly<Record<string, unknown>>;
}

/** Install the hooks: prepare the worker home and return its settings file and env. */
export async function installGeminiHome({ launch }: HookInstallContext, options: GeminiHomeOptions): Promise<LaunchParts> {
  const userDotGemini = join(userGeminiHome(launch.callerEnv), '.gemini');
  const user = await readJsonObject(join(userDotGemini, 'settings.json'), 'Gemini settings');
  const home = join(launch.workerDir, WORKER_HOME_DIR);
  const dotGemini = join(home, '.gemini');
  const linked = (name: string) => !NOT_LINKED.has(name) && !name.endsWith('.lock') && !name.endsWith('.tmp');
  await prepareHome({ user: userDotGemini, home: dotGemini, link: linked });
  await linkUserOrShared(join(userDotGemini, 'tmp'), join(launch.sharedDir, 'tmp'), join(dotGemini, 'tmp'));
  const settings = buildWorkerSettings({
    user,
    hookCommand: (kind) => launch.hookCommand(kind),
    env: launch.env,
    telemetryOutfile: join(launch.workerDir, TELEMETRY_PATH),
    ...(options.settingsOverrides ? { overrides: options.settingsOverrides } : {}),
  });
  return {
    env: { GEMINI_CLI_HOME: home, ...(options.trustWorkspace ? { GEMINI_CLI_TRUST_WORKSPACE: 'true' } : {}) },
    files: [jsonFile(join(dotGemini, 'settings.json'), settings)],
    billing: geminiBilling(settings),
  };
}
