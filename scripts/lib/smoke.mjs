// The logic of `pnpm smoke` (scripts/smoke.mjs) that is tested without a model call: when the
// script refuses to run, the faces it drives, and the table it prints.

/** The faces every installed CLI is driven through, in table order. */
export const FACES = /** @type {const} */ (['verbs', 'print', 'mcp', 'yaml']);

/** Column titles of the faces. */
const TITLES = { verbs: 'spawn/send/wait/read/kill', print: '-p', mcp: 'MCP', yaml: 'YAML' };

/** The tiny prompt of every smoke turn (one small model request each). */
export const SMOKE_PROMPT = 'Reply with the single word: pong';

/**
 * Why the smoke tier must not run in this environment, or undefined when it may: it makes real
 * model requests on the user's own logins, so only on purpose (UMBEL_SMOKE=1) and never in CI.
 * @param {Record<string, string | undefined>} env
 * @returns {string | undefined}
 */
export function refusal(env) {
  if (env.UMBEL_SMOKE !== '1') {
    return 'the smoke tier makes real model requests on your own signed-in CLIs (it costs usage): run it on purpose with UMBEL_SMOKE=1 pnpm smoke';
  }
  const ci = ['CI', 'GITHUB_ACTIONS', 'BUILDKITE', 'GITLAB_CI'].find((name) => env[name] !== undefined && env[name] !== '' && env[name] !== 'false');
  if (ci) return `the smoke tier never runs in CI (${ci} is set)`;
  return undefined;
}

/**
 * One cell: `✓ 12.3s`, `✗ 4.0s`, or `– not run`.
 * @param {{ok: boolean, ms?: number, skipped?: string} | undefined} result
 */
function cell(result) {
  if (!result) return '–';
  if (result.skipped !== undefined) return `– ${result.skipped}`;
  const took = result.ms === undefined ? '' : ` ${(result.ms / 1000).toFixed(1)}s`;
  return `${result.ok ? '✓' : '✗'}${took}`;
}

/**
 * The table: one row per CLI (its version), one column per face, then each failure's reason.
 * @param {{provider: string, version?: string, faces: Partial<Record<typeof FACES[number], {ok: boolean, ms?: number, detail?: string, skipped?: string}>>}[]} rows
 * @returns {string}
 */
export function renderTable(rows) {
  const header = ['CLI', ...FACES.map((f) => TITLES[f])];
  const body = rows.map((r) => [`${r.provider}${r.version ? ` ${r.version}` : ''}`, ...FACES.map((f) => cell(r.faces[f]))]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((line) => (line[i] ?? '').length)));
  const line = (cells) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const out = [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)];
  const failures = rows.flatMap((r) =>
    FACES.filter((f) => r.faces[f] && !r.faces[f]?.ok && r.faces[f]?.skipped === undefined).map(
      (f) => `${r.provider} ${TITLES[f]}: ${r.faces[f]?.detail ?? 'failed'}`,
    ),
  );
  if (rows.length === 0) out.push('(no installed CLI found: nothing was run)');
  if (failures.length) out.push('', ...failures);
  return `${out.join('\n')}\n`;
}

/**
 * Exit code of a run: 0 when every face that ran passed and at least one CLI ran, else 1.
 * @param {{faces: Record<string, {ok: boolean, skipped?: string} | undefined>}[]} rows
 */
export function exitCode(rows) {
  if (rows.length === 0) return 1;
  return rows.every((r) => Object.values(r.faces).every((f) => !f || f.ok || f.skipped !== undefined)) ? 0 : 1;
}
