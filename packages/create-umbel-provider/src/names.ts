/**
 * What one NAME means for the generated package: the npm package name, its folder, the provider id
 * umbel takes with `--provider`, and the names of the demo CLI (its executable, its variables).
 */

/** Why NAME cannot be used; the CLI prints the message and exits 2. */
export class ScaffoldError extends Error {
  override readonly name = 'ScaffoldError';
}

/** The ids umbel's built-in providers take: a package may not shadow them. */
export const BUILT_IN_IDS: readonly string[] = ['claude', 'codex', 'gemini', 'opencode', 'copilot', 'qwen'];

/** npm's rules for a new package name (lower case, URL-safe, at most 214 characters, an optional @scope/). */
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
const PROVIDER_ID = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const PREFIX = 'umbel-provider-';

export interface ScaffoldNames {
  /** The npm package name (`umbel-provider-acme`, `@me/umbel-provider-acme`). */
  readonly name: string;
  /** The folder it is generated in (the name without its scope). */
  readonly dir: string;
  /** The provider id (`acme`): the name without scope and `umbel-provider-` prefix. */
  readonly id: string;
  /** `Acme`: the id as a title. */
  readonly title: string;
  /** The demo CLI's executable (`acme-agent`). */
  readonly bin: string;
  /** The variable naming another executable for it (`UMBEL_ACME_BIN`). */
  readonly binEnv: string;
  /** The variable naming the demo CLI's home (`ACME_AGENT_HOME`). */
  readonly homeEnv: string;
}

/** The names for NAME, or a ScaffoldError saying what is wrong with it. */
export function scaffoldNames(name: string): ScaffoldNames {
  if (name.length > 214 || !NPM_NAME.test(name)) {
    throw new ScaffoldError(
      `'${name}' is not a valid npm package name: use lower-case letters, digits, '-', '.', '_' and '~', at most 214 characters, optionally @scope/ first (e.g. umbel-provider-acme)`,
    );
  }
  const dir = name.replace(/^@[^/]+\//, '');
  const id = dir.startsWith(PREFIX) ? dir.slice(PREFIX.length) : dir;
  if (!PROVIDER_ID.test(id)) {
    throw new ScaffoldError(
      `the provider id '${id}' (from '${name}') must be kebab-case: a lower-case letter, then letters, digits and single '-' (e.g. umbel-provider-acme)`,
    );
  }
  if (BUILT_IN_IDS.includes(id)) throw new ScaffoldError(`the provider id '${id}' (from '${name}') is a built-in provider of umbel: choose another name`);
  const snake = id.toUpperCase().replace(/-/g, '_');
  return {
    name,
    dir,
    id,
    title: id
      .split('-')
      .map((word) => word[0]?.toUpperCase() + word.slice(1))
      .join(' '),
    bin: `${id}-agent`,
    binEnv: `UMBEL_${snake}_BIN`,
    homeEnv: `${snake}_AGENT_HOME`,
  };
}
