/**
 * The `checkLaunch` fact of a CLI that silently falls back on an unknown model: `--model` checked
 * against the CLI's own list (./model-list.ts) before launching, the list read with the worker's env.
 */
import type { ProviderV1LaunchOptions } from '../spec.js';
import { checkModel, listModels, type ModelListFacts } from './model-list.js';

/** The worker's env as the CLI gets it, from the resolved one (e.g. with what the hook install adds). */
export type LaunchEnv = (env: Readonly<Record<string, string>>) => Readonly<Record<string, string>>;

/** `checkLaunch` of these facts: a launch with `--model` runs the list command (with `env` of the worker's env) and refuses a model it does not list. */
export function launchModelCheck(facts: ModelListFacts, env: LaunchEnv = (e) => e): (binary: string, options: ProviderV1LaunchOptions) => Promise<void> {
  return async (binary, options) => {
    if (options.model !== undefined) checkModel(facts, options.model, await listModels(facts, binary, env(options.env), options.cwd));
  };
}
