/**
 * umbel's config file: `$UMBEL_CONFIG`, else `$XDG_CONFIG_HOME/umbel/config.json`, else
 * `~/.config/umbel/config.json`. One schema ({@link UmbelConfigSchema}); a missing file is an empty
 * config, an unreadable or invalid one a {@link ConfigInvalidError} (a usage error, exit 2).
 */
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import {
  FleetLimitsSchema,
  HostNameSchema,
  HostSchema,
  readStateFile,
  SandboxRequestSchema,
  type StateInvalidError,
  UmbelError,
  UmbelErrorCode,
  UsageError,
} from '@umbel/core';
import * as z from 'zod';
import type { RuntimeEnv } from './env.js';
import { unsafeConfigMode } from './config-mode.js';

/** The config file. Unknown keys are refused (a typo must not be ignored), `$schema` excepted. */
export const UmbelConfigSchema = z
  .object({
    $schema: z.string().optional(),
    providers: z.array(z.string().min(1)).optional().describe('provider packages to load: package names, or paths (absolute, or relative to this file)'),
    hosts: z.record(HostNameSchema, HostSchema).optional().describe('named SSH hosts'),
    limits: FleetLimitsSchema.optional().describe('fleet limits on this state root: maxWorkers, minFreeMemoryMB, queue (docs/cli.md#fleet-limits)'),
    sandbox: SandboxRequestSchema.optional().describe(
      'confine every worker that does not say otherwise (sandbox: false, --no-sandbox): true, or {write, read, allow} to widen the default policy (docs/cli.md#confined-workers)',
    ),
  })
  .strict();

export type UmbelConfig = z.infer<typeof UmbelConfigSchema>;

/** A config as read. */
export interface LoadedConfig {
  /** The file's path (whether or not it exists). */
  readonly path: string;
  readonly exists: boolean;
  readonly config: UmbelConfig;
}

/** The config file cannot be read or is invalid. Exit 2. */
export class ConfigInvalidError extends UsageError {
  readonly path: string;
  constructor(path: string, problem: string, options: { issues?: readonly { path: string; message: string }[]; cause?: unknown; hint?: string } = {}) {
    super(`umbel config ${path}: ${problem}`, {
      hint: 'fix or remove the file (set UMBEL_CONFIG to use another one); see docs/cli.md#the-config-file',
      ...options,
    });
    this.name = 'ConfigInvalidError';
    this.path = path;
  }
}

/** Where the config file is for this environment. Pure. */
export function configPath(env: RuntimeEnv, cwd: string): string {
  if (env.UMBEL_CONFIG) return resolve(cwd, env.UMBEL_CONFIG);
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.config');
  return join(base, 'umbel', 'config.json');
}

/** A config file is a few kilobytes. */
const CONFIG_MAX_BYTES = 1024 * 1024;

/** Read and validate the config file. */
export async function loadConfig(options: { readonly env: RuntimeEnv; readonly cwd: string }): Promise<LoadedConfig> {
  const path = configPath(options.env, options.cwd);
  await refuseUnsafeMode(path);
  let text: string;
  try {
    text = await readStateFile(path, CONFIG_MAX_BYTES);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { path, exists: false, config: {} };
    if (UmbelError.isInstance(error) && error.code === UmbelErrorCode.StateInvalid)
      throw new ConfigInvalidError(path, `cannot read it (it ${(error as StateInvalidError).reason})`, { cause: error });
    throw new ConfigInvalidError(path, `cannot read it (${code === 'EISDIR' ? 'it is a directory' : (code ?? String(error))})`, { cause: error });
  }
  if (text.trim() === '') throw new ConfigInvalidError(path, 'the file is empty (write {} for an empty config)');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigInvalidError(path, `not valid JSON (${(error as Error).message})`, { cause: error });
  }
  const parsed = UmbelConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
    const list = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
    throw new ConfigInvalidError(path, `invalid: ${list}`, { issues });
  }
  return { path, exists: true, config: parsed.data };
}

/** Refuse a config file others can write (config-mode.ts); a missing one is left to the read. */
async function refuseUnsafeMode(path: string): Promise<void> {
  const stats = await stat(path).catch(() => undefined);
  const problem = stats && unsafeConfigMode(stats, process.getuid?.());
  if (problem) throw new ConfigInvalidError(path, problem, { hint: `chmod go-w ${path} (and check what it holds), or set UMBEL_CONFIG to another file` });
}
