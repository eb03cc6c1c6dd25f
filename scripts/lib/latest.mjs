// The pure logic of `pnpm test:latest` (scripts/test-latest.mjs): version order, arguments, which
// real-tier files and tests belong to a CLI, vitest's JSON report, the table, the JSON and the exit
// code. No I/O here, so tests/repo/test-latest.test.ts can check all of it.

/** A bad command line (the script prints it with the usage and exits 2). */
export class UsageError extends Error {}

export const USAGE = `usage: pnpm test:latest [--only claude,codex]… [--json] [--no-build]

Asks the npm registry for the newest release ("latest" dist-tag) of every pinned real CLI
(test-fixtures/real/pins.json), installs it into the real-CLI cache next to the pinned one, runs the
real-CLI tier against it (offline, against the local mock servers) and prints one row per CLI and
one line per scenario. Not part of \`pnpm test\`.

  --only a,b   only these CLIs (repeatable; default: every pinned CLI)
  --json       one JSON document on stdout instead of the table
  --no-build   do not run \`pnpm build\` first (the real tier drives the built bins)

Exit 0 when every CLI that ran passed every scenario, 1 otherwise (2: bad arguments).
`;

const VERSION = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function parse(v) {
  const m = VERSION.exec(v);
  if (!m) throw new Error(`not a version: ${JSON.stringify(v)}`);
  return { nums: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split('.') : [] };
}

function comparePre(a, b) {
  if (a.length === 0 && b.length === 0) return 0;
  if (a.length === 0) return 1; // a release comes after its pre-releases
  if (b.length === 0) return -1;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] === undefined) return -1;
    if (b[i] === undefined) return 1;
    const na = /^\d+$/.test(a[i]);
    const nb = /^\d+$/.test(b[i]);
    if (na && nb && Number(a[i]) !== Number(b[i])) return Number(a[i]) < Number(b[i]) ? -1 : 1;
    if (na !== nb) return na ? -1 : 1;
    if (!na && a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

/** Semver order of two versions: -1, 0 or 1. Throws on what is not a version. */
export function compareVersions(a, b) {
  const pa = parse(a);
  const pb = parse(b);
  for (let i = 0; i < 3; i++) if (pa.nums[i] !== pb.nums[i]) return pa.nums[i] < pb.nums[i] ? -1 : 1;
  return Math.sign(comparePre(pa.pre, pb.pre));
}

/**
 * Why a release's `engines` refuse this Node, or undefined: only a plain `>=X[.Y[.Z]]` lower bound is
 * read (Qwen Code 0.21+ wants `>=22.0.0`); anything else never skips, the run itself decides.
 */
export function enginesRefuse(engines, nodeVersion) {
  const range = typeof engines?.node === 'string' ? engines.node.trim() : '';
  const m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range);
  if (!m) return undefined;
  const want = [m[1], m[2] ?? '0', m[3] ?? '0'].join('.');
  return compareVersions(nodeVersion, want) < 0 ? `needs node ${range} (this is ${nodeVersion})` : undefined;
}

/** How the newest release stands to the pin: 'newer' | 'same' | 'older'. */
export function relation(pinned, latest) {
  const c = compareVersions(latest, pinned);
  return c > 0 ? 'newer' : c < 0 ? 'older' : 'same';
}

/** Parse the command line against the pinned ids. */
export function parseArgs(argv, pinnedIds) {
  const only = [];
  const opts = { json: false, build: true, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--only') {
      const v = argv[++i];
      if (!v || v.startsWith('--')) throw new UsageError('--only needs a value (e.g. --only claude,codex)');
      only.push(...v.split(','));
    } else if (a.startsWith('--only=')) only.push(...a.slice('--only='.length).split(','));
    else if (a === '--json') opts.json = true;
    else if (a === '--no-build') opts.build = false;
    else if (a === '--help' || a === '-h') opts.help = true;
    else throw new UsageError(`unknown argument ${a}`);
  }
  const ids = only.map((s) => s.trim()).filter(Boolean);
  for (const id of ids) if (!pinnedIds.includes(id)) throw new UsageError(`unknown CLI "${id}" (pinned: ${pinnedIds.join(', ')})`);
  return { ids: ids.length > 0 ? [...new Set(ids)] : [...pinnedIds], ...opts };
}

/**
 * The real-tier files of one CLI: its own (named after it: `claude-*.test.ts`, `codex.test.ts`),
 * run whole, and the shared ones (named after no CLI) that launch it with `realCliPath('<id>')`,
 * where only the tests whose name carries the CLI's name are its scenarios.
 * @param {string} id
 * @param {{name: string, content: string}[]} files
 * @param {string[]} ids every CLI id
 */
export function selectFiles(id, files, ids) {
  const ownerOf = (name) => ids.find((other) => name === `${other}.test.ts` || name.startsWith(`${other}-`));
  const sorted = [...files].sort((a, b) => a.name.localeCompare(b.name));
  return {
    own: sorted.filter((f) => ownerOf(f.name) === id).map((f) => f.name),
    shared: sorted.filter((f) => ownerOf(f.name) === undefined && f.content.includes(`realCliPath('${id}')`)).map((f) => f.name),
  };
}

/** The vitest `-t` pattern that picks a CLI's tests out of the shared files: its id as a word, any case. */
export function namePattern(id) {
  const letters = [...id].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return `\\b${letters.join('')}\\b`;
}

/** The first non-blank line of a text, trimmed ('' when none). */
export function firstLine(text) {
  return (
    (text ?? '')
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? ''
  );
}

function fileOf(path, dir) {
  return path.startsWith(`${dir}/`) ? path.slice(dir.length + 1) : path;
}

/**
 * Scenarios out of vitest's JSON report: one per test that ran (`describe › test`), a file that did
 * not load or whose hooks failed as one failed scenario; tests left out by `-t` are only counted (`skipped`).
 * @param {any} report the parsed report, or undefined when vitest wrote none
 * @param {string} dir the real tier's folder, stripped from file paths
 */
export function scenariosFromReport(report, dir) {
  if (!report) return { scenarios: [{ file: '(vitest)', name: '(no report: vitest did not finish)', status: 'failed' }], skipped: 0 };
  const scenarios = [];
  let skipped = 0;
  for (const suite of report.testResults ?? []) {
    const file = fileOf(suite.name, dir);
    const tests = suite.assertionResults ?? [];
    if (tests.length === 0 && suite.status === 'failed') {
      scenarios.push({ file, name: '(the file did not load)', status: 'failed', failure: firstLine(suite.message) });
      continue;
    }
    for (const t of tests) {
      if (t.status !== 'passed' && t.status !== 'failed') {
        skipped++;
        continue;
      }
      const s = { file, name: [...(t.ancestorTitles ?? []), t.title].join(' › '), status: t.status };
      if (typeof t.duration === 'number') s.durationMs = Math.round(t.duration);
      if (t.status === 'failed') s.failure = firstLine((t.failureMessages ?? []).join('\n'));
      scenarios.push(s);
    }
    // a hook (beforeAll/afterAll) failed: vitest fails the file but may fail none of its tests
    if (suite.status === 'failed' && !tests.some((t) => t.status === 'failed')) {
      scenarios.push({ file, name: '(the file failed outside its tests)', status: 'failed', failure: firstLine(suite.message) });
    }
  }
  return { scenarios, skipped };
}

/** 'pass' | 'fail' | 'skip' | 'error' for one CLI's row. */
export function rowStatus(row) {
  if (row.error) return 'error';
  if (row.skip) return 'skip';
  const ran = row.scenarios ?? [];
  return ran.length > 0 && ran.every((s) => s.status === 'passed') ? 'pass' : 'fail';
}

/** 0 when every CLI that ran passed and at least one ran, else 1. */
export function exitCode(rows) {
  const statuses = rows.map(rowStatus);
  return statuses.includes('pass') && statuses.every((s) => s === 'pass' || s === 'skip') ? 0 : 1;
}

function counts(row) {
  const passed = row.scenarios.filter((s) => s.status === 'passed').length;
  return { passed, failed: row.scenarios.length - passed, notSelected: row.skipped ?? 0 };
}

function resultText(row) {
  const status = rowStatus(row);
  if (status === 'error') return `ERROR ${row.error}`;
  if (status === 'skip') return `SKIP ${row.skip}`;
  const c = counts(row);
  const extra = c.notSelected ? `, ${c.notSelected} not selected` : '';
  return status === 'pass' ? `PASS ${c.passed}/${row.scenarios.length}${extra}` : `FAIL ${c.passed}/${row.scenarios.length} passed${extra}`;
}

function latestText(row) {
  if (!row.latest) return '?';
  const r = relation(row.pinned, row.latest);
  return `${row.latest} (${r === 'same' ? '= pin' : r})`;
}

/** The human table: a header, one row per CLI, its scenarios under it, a summary line. */
export function renderTable(rows) {
  const cells = rows.map((r) => [r.id, r.pinned, latestText(r), resultText(r)]);
  const head = ['provider', 'pinned', 'latest', 'result'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c) => c.map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i]))).join('  ');
  const out = [line(head)];
  rows.forEach((row, i) => {
    out.push(line(cells[i]));
    for (const s of row.scenarios) {
      out.push(`  ${s.status === 'passed' ? '✓' : '✗'} ${s.file} › ${s.name}`);
      if (s.failure) out.push(`      ${s.failure}`);
    }
  });
  const statuses = rows.map(rowStatus);
  const ran = statuses.filter((s) => s !== 'skip').length;
  const skipped = statuses.length - ran;
  out.push('', `${statuses.filter((s) => s === 'pass').length} of ${ran} CLIs passed on their newest release${skipped ? ` (${skipped} skipped)` : ''}`);
  return out.join('\n');
}

/** The same facts for programs, as one JSON document. */
export function renderJson(rows) {
  const providers = rows.map((row) => {
    const status = rowStatus(row);
    const base = {
      id: row.id,
      package: row.package,
      pinned: row.pinned,
      latest: row.latest ?? null,
      relation: row.latest ? relation(row.pinned, row.latest) : null,
      status,
    };
    if (status === 'error' || status === 'skip') return { ...base, reason: row.error ?? row.skip, scenarios: [] };
    return { ...base, ...counts(row), scenarios: row.scenarios };
  });
  return `${JSON.stringify({ ok: exitCode(rows) === 0, providers }, null, 2)}\n`;
}
