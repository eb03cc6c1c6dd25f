/** Rendering of a worker environment as POSIX sh `export` lines, read by the launch wrapper. */

const SHELL_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** True when `name` can be exported by a POSIX shell. */
export function isShellIdentifier(name: string): boolean {
  return SHELL_IDENTIFIER.test(name);
}

/** Single-quote `value` for POSIX sh: `'` becomes `'\''`; every other byte is literal. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * Render `env` as `export K='v'` lines (sorted by name, after a comment line so the text is never
 * empty). Names that are not shell identifiers and values holding a NUL byte (impossible in a real
 * environment) are skipped.
 */
export function renderEnvExports(env: Readonly<Record<string, string>>): string {
  const lines = ['# umbel worker environment'];
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (value === undefined || !isShellIdentifier(name) || value.includes('\0')) continue;
    lines.push(`export ${name}=${shellQuote(value)}`);
  }
  return `${lines.join('\n')}\n`;
}
