/**
 * What a launch needs on disk before its hooks can be installed, said as facts and done by the kit:
 * a managed config home, directories, links that outlive a worker, and the files the install reads.
 * With them, a provider's `hooks.install` is pure: it returns an {@link InstallPlan}. A scratch
 * session is forgotten by facts too (the shared files to edit, the per-session state to remove).
 */
import { mkdir } from 'node:fs/promises';
import type { InstallPlan, InstallPrepFacts, LaunchParts, PreparedInstall, ScratchFacts } from './facts.js';
import { readJsonObject, readTextIfExists } from './files.js';
import { prepareHome } from './home.js';
import { editQuietly, removeSessionState } from './session-state.js';
import { linkUserOrShared } from './shared-link.js';

/** The launch's parts of what `install` returned: a plan carried out, parts as they are. */
export async function carryOut(installed: LaunchParts | InstallPlan): Promise<LaunchParts> {
  if (!('parts' in installed && typeof installed.parts === 'function')) return installed as LaunchParts;
  const plan = installed as InstallPlan;
  return plan.parts(await prepareInstall(plan.prepare));
}

/** Do what `facts` say, in order: the JSON reads, the home, the dirs, the links, then the other reads. */
export async function prepareInstall(facts: InstallPrepFacts): Promise<PreparedInstall> {
  const json: Record<string, Record<string, unknown>> = {};
  for (const [name, { path, what }] of Object.entries(facts.readJson ?? {})) json[name] = await readJsonObject(path, what);
  const home = facts.home ? await prepareHome(facts.home) : {};
  for (const dir of facts.dirs ?? []) await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const link of facts.links ?? []) await linkUserOrShared(link.target, link.shared, link.path);
  const read: Record<string, string | undefined> = {};
  for (const [name, path] of Object.entries(facts.read ?? {}))
    read[name] = path === undefined ? undefined : await readTextIfExists(path).catch(() => undefined);
  return { home, read, json };
}

/** Forget by `facts`: the edits in order, then the session state. Best effort: never throws. */
export async function forgetByFacts(facts: ScratchFacts): Promise<void> {
  for (const { path, edit } of facts.edits ?? []) await editQuietly(path, edit);
  const state = facts.sessionState;
  if (state?.root) await removeSessionState(state.root, state.sessionIds, state);
}
