/** The worker's own config dir `<workerDir>/opencode` (`OPENCODE_CONFIG_DIR`), loaded last, hiding nothing (opencode-FACTS.md: "The config dir"). */
import { join } from 'node:path';
import { type HookInstallContext, type InstallPlan, jsonFile } from '@umbel/provider';
import { type PluginSettings, renderPlugin } from './plugin.js';

/** Permission modes: no flag; a mode is a `permission` block in the worker's config, over the user's and project's (`default` keeps theirs). */
export const OPENCODE_PERMISSION_MODES = {
  default: undefined,
  /** Shell commands, file edits and web access ask first (a `needs-input` outcome). */
  ask: { bash: 'ask', edit: 'ask', webfetch: 'ask', websearch: 'ask' },
  /** Everything is allowed (what `--unattended` means). */
  allow: 'allow',
} as const satisfies Record<string, unknown>;
export type OpencodePermissionMode = keyof typeof OPENCODE_PERMISSION_MODES;

/** The `@opencode-ai/plugin` version opencode installs into every config dir (its own version). */
export const PLUGIN_PACKAGE_VERSION = '1.18.33';

/** Settings of the worker config dir (the provider's): the plugin's retry limits (default 2 retries, 60 000 ms) and config overrides. */
export interface ConfigDirOptions extends Partial<Pick<PluginSettings, 'maxRetries' | 'maxRetryDelayMs'>> {
  /** Deep-merged last into the worker's opencode.json (tests; e.g. `{ share: 'disabled' }`). */
  readonly configOverrides?: Readonly<Record<string, unknown>>;
}

/** What umbel adds so opencode's npm never stalls an offline start: `npm_config_offline=true`, unless the env has a say of its own. */
export function offlineEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  return env.npm_config_offline === undefined && env.NPM_CONFIG_OFFLINE === undefined ? { npm_config_offline: 'true' } : {};
}

/** The worker's opencode.json (`$schema`: opencode writes it into any config file that lacks it, FACTS.md §a). Pure. */
export function workerConfig(permissionMode: string | undefined, overrides: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  const permission = permissionMode ? OPENCODE_PERMISSION_MODES[permissionMode as OpencodePermissionMode] : undefined;
  return {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    experimental: { disable_paste_summary: true },
    ...(permission !== undefined ? { permission } : {}),
    ...overrides,
  };
}

/** The lock that tells opencode's background install there is nothing to do. */
const INSTALLED_LOCK = { packages: { '': { dependencies: { '@opencode-ai/plugin': PLUGIN_PACKAGE_VERSION } } } };

/** Install umbel's plugin, a plan the kit carries out: the worker config dir (its empty `node_modules` made), the env that points opencode at it. */
export function installConfigDir({ launch, hooks, permissionMode }: HookInstallContext, options: ConfigDirOptions): InstallPlan {
  const dir = join(launch.workerDir, 'opencode');
  const offline = offlineEnv(launch.env);
  const plugin = renderPlugin({
    hooks: Object.fromEntries(hooks.map((h) => [h.event, h.command])),
    transcriptDir: join(launch.workerDir, 'transcripts'),
    maxRetries: options.maxRetries ?? 2,
    maxRetryDelayMs: options.maxRetryDelayMs ?? 60_000,
    dropEnv: Object.keys(offline),
  });
  const files = [
    { path: join(dir, 'plugins/umbel.js'), content: plugin, mode: 0o600 },
    jsonFile(join(dir, 'opencode.json'), workerConfig(permissionMode, options.configOverrides)),
    jsonFile(join(dir, 'package-lock.json'), INSTALLED_LOCK),
  ];
  return { prepare: { dirs: [join(dir, 'node_modules')] }, parts: () => ({ env: { OPENCODE_CONFIG_DIR: dir, ...offline }, files }) };
}
