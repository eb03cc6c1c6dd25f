// The logic of `pnpm test:latest` (scripts/lib/latest.mjs): version order, argument parsing, which
// real-tier files and tests belong to a CLI, reading vitest's JSON report, the table, the JSON and
// the exit code. The script itself (npm, installs, the real tier) is exercised by running it.
import { describe, expect, it } from 'vitest';
import {
  compareVersions,
  enginesRefuse,
  exitCode,
  namePattern,
  parseArgs,
  relation,
  renderJson,
  renderTable,
  rowStatus,
  scenariosFromReport,
  selectFiles,
  UsageError,
  // @ts-expect-error -- plain ESM script module without type declarations
} from '../../scripts/lib/latest.mjs';

const IDS = ['claude', 'codex', 'gemini', 'opencode'];

describe('compareVersions', () => {
  it('orders by number, not by text, and a pre-release before its release', () => {
    expect(compareVersions('2.1.332', '2.1.328')).toBe(1);
    expect(compareVersions('0.171.0', '0.169.0')).toBe(1);
    expect(compareVersions('0.9.0', '0.10.0')).toBe(-1);
    expect(compareVersions('1.18.33', '1.18.33')).toBe(0);
    expect(compareVersions('1.0.0-rc.1', '1.0.0')).toBe(-1);
    expect(compareVersions('1.0.0', '1.0.0-rc.1')).toBe(1);
    expect(compareVersions('1.0.0-rc.2', '1.0.0-rc.10')).toBe(-1);
    expect(compareVersions('1.0.0-alpha', '1.0.0-beta')).toBe(-1);
    expect(compareVersions('1.0.0-1', '1.0.0-alpha')).toBe(-1); // numeric identifiers sort first
    expect(compareVersions('1.0.0-alpha', '1.0.0-alpha.1')).toBe(-1);
  });

  it('rejects what is not a version', () => {
    expect(() => compareVersions('latest', '1.0.0')).toThrow(/not a version: "latest"/);
  });

  it('names the relation of latest to the pin', () => {
    expect(relation('2.1.328', '2.1.332')).toBe('newer');
    expect(relation('0.61.0', '0.61.0')).toBe('same');
    expect(relation('0.61.0', '0.60.1')).toBe('older');
  });
});

describe('parseArgs', () => {
  it('defaults to every pinned CLI, a table and a build', () => {
    expect(parseArgs([], IDS)).toEqual({ ids: IDS, json: false, build: true, help: false });
  });

  it('takes --only as a comma list, repeated or with =, without duplicates', () => {
    expect(parseArgs(['--only', 'codex,claude', '--only=codex', '--json', '--no-build'], IDS)).toEqual({
      ids: ['codex', 'claude'],
      json: true,
      build: false,
      help: false,
    });
  });

  it('refuses unknown CLIs and arguments with a usage error', () => {
    expect(() => parseArgs(['--only', 'claud'], IDS)).toThrow(UsageError);
    expect(() => parseArgs(['--only', 'claud'], IDS)).toThrow(/unknown CLI "claud" \(pinned: claude, codex, gemini, opencode\)/);
    expect(() => parseArgs(['--only'], IDS)).toThrow(/--only needs a value/);
    expect(() => parseArgs(['--fast'], IDS)).toThrow(/unknown argument --fast/);
  });

  it('answers --help', () => {
    expect(parseArgs(['-h'], IDS).help).toBe(true);
  });
});

describe('selectFiles', () => {
  const files = [
    { name: 'claude-p.test.ts', content: "realCliPath('claude')" },
    { name: 'claude-verbs.test.ts', content: 'runClaudeTier()' },
    { name: 'codex.test.ts', content: "realCliPath('codex')" },
    { name: 'mcp-add.test.ts', content: "realCliPath('claude') realCliPath('codex') realCliPath('gemini')" },
    { name: 'mcp-providers.test.ts', content: "realCliPath('codex'); realCliPath('gemini')" },
  ];

  it('gives a CLI its own files (named after it) and the shared files that launch it', () => {
    expect(selectFiles('claude', files, IDS)).toEqual({ own: ['claude-p.test.ts', 'claude-verbs.test.ts'], shared: ['mcp-add.test.ts'] });
    expect(selectFiles('codex', files, IDS)).toEqual({ own: ['codex.test.ts'], shared: ['mcp-add.test.ts', 'mcp-providers.test.ts'] });
    expect(selectFiles('opencode', files, IDS)).toEqual({ own: [], shared: [] });
  });

  it('matches a CLI named in a shared test title as a word, in either case', () => {
    const re = new RegExp(namePattern('codex'));
    expect(re.test('the MCP face > codex 0.171.0: spawn')).toBe(true);
    expect(re.test("docs/mcp.md's commands > Codex 0.171.0: the documented")).toBe(true);
    expect(re.test('gemini 0.61.0: spawn')).toBe(false);
    expect(re.test('codexes')).toBe(false);
  });
});

const report = {
  testResults: [
    {
      name: '/repo/tests/real/codex.test.ts',
      status: 'failed',
      message: '',
      assertionResults: [
        { ancestorTitles: ['umbel on codex'], title: 'answers', status: 'passed', duration: 1200 },
        {
          ancestorTitles: ['umbel on codex'],
          title: 'permission is needs-input',
          status: 'failed',
          duration: 3000,
          failureMessages: ['AssertionError: expected 0 to be 126\n    at codex.test.ts:150:5'],
        },
        { ancestorTitles: ['umbel on codex'], title: 'filtered out', status: 'skipped' },
      ],
    },
    { name: '/repo/tests/real/mcp-providers.test.ts', status: 'failed', message: 'Error: Cannot find module x\n  at y', assertionResults: [] },
  ],
};

describe('scenariosFromReport', () => {
  it('gives one scenario per test, the first line of its failure, and a load error as a failed scenario', () => {
    expect(scenariosFromReport(report, '/repo/tests/real')).toEqual({
      scenarios: [
        { file: 'codex.test.ts', name: 'umbel on codex › answers', status: 'passed', durationMs: 1200 },
        {
          file: 'codex.test.ts',
          name: 'umbel on codex › permission is needs-input',
          status: 'failed',
          durationMs: 3000,
          failure: 'AssertionError: expected 0 to be 126',
        },
        { file: 'mcp-providers.test.ts', name: '(the file did not load)', status: 'failed', failure: 'Error: Cannot find module x' },
      ],
      skipped: 1,
    });
  });

  it('fails a file whose hooks failed while its tests were left out (vitest marks them skipped)', () => {
    const hookFailed = {
      testResults: [
        {
          name: '/repo/tests/real/gemini.test.ts',
          status: 'failed',
          message: 'Error: The real gemini CLI is not installed\n  at beforeAll',
          assertionResults: [{ ancestorTitles: ['real gemini'], title: 'answers', status: 'skipped' }],
        },
      ],
    };
    expect(scenariosFromReport(hookFailed, '/repo/tests/real')).toEqual({
      scenarios: [
        { file: 'gemini.test.ts', name: '(the file failed outside its tests)', status: 'failed', failure: 'Error: The real gemini CLI is not installed' },
      ],
      skipped: 1,
    });
  });

  it('fails a run whose report is missing', () => {
    expect(scenariosFromReport(undefined, '/repo/tests/real')).toEqual({
      scenarios: [{ file: '(vitest)', name: '(no report: vitest did not finish)', status: 'failed' }],
      skipped: 0,
    });
  });
});

const rows = [
  {
    id: 'claude',
    package: '@anthropic-ai/claude-code',
    pinned: '2.1.328',
    latest: '2.1.332',
    scenarios: [{ file: 'claude-p.test.ts', name: 'real claude -p › is the pinned version', status: 'passed', durationMs: 900 }],
    skipped: 0,
  },
  {
    id: 'codex',
    package: '@openai/codex',
    pinned: '0.169.0',
    latest: '0.171.0',
    scenarios: scenariosFromReport(report, '/repo/tests/real').scenarios,
    skipped: 1,
  },
  { id: 'opencode', package: 'opencode-ai', pinned: '1.18.33', latest: '1.18.33', skip: 'no opencode provider on this branch', scenarios: [], skipped: 0 },
  { id: 'gemini', package: '@google/gemini-cli', pinned: '0.61.0', error: 'npm view failed: ETIMEDOUT', scenarios: [], skipped: 0 },
];

describe('rowStatus and exitCode', () => {
  it('passes a CLI only when every scenario passed and at least one ran', () => {
    expect(rows.map(rowStatus)).toEqual(['pass', 'fail', 'skip', 'error']);
    expect(rowStatus({ ...rows[0], scenarios: [] })).toBe('fail');
  });

  it('exits 0 only when every CLI that ran passed and something ran', () => {
    expect(exitCode([rows[0], rows[2]])).toBe(0);
    expect(exitCode(rows)).toBe(1);
    expect(exitCode([rows[0], rows[3]])).toBe(1);
    expect(exitCode([rows[2]])).toBe(1);
  });
});

describe('renderTable', () => {
  it('prints provider, pinned, latest and the result, then each scenario with ✓/✗ and why it failed', () => {
    const out = renderTable(rows);
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^provider\s+pinned\s+latest\s+result$/);
    expect(out).toMatch(/^claude\s+2\.1\.328\s+2\.1\.332 \(newer\)\s+PASS 1\/1$/m);
    expect(out).toMatch(/^codex\s+0\.169\.0\s+0\.171\.0 \(newer\)\s+FAIL 1\/3 passed, 1 not selected$/m);
    expect(out).toMatch(/^opencode\s+1\.18\.33\s+1\.18\.33 \(= pin\)\s+SKIP no opencode provider on this branch$/m);
    expect(out).toMatch(/^gemini\s+0\.61\.0\s+\?\s+ERROR npm view failed: ETIMEDOUT$/m);
    expect(out).toContain('  ✓ claude-p.test.ts › real claude -p › is the pinned version');
    expect(out).toContain('  ✗ codex.test.ts › umbel on codex › permission is needs-input\n      AssertionError: expected 0 to be 126');
    expect(out).toContain('  ✗ mcp-providers.test.ts › (the file did not load)\n      Error: Cannot find module x');
    expect(lines.at(-1)).toBe('1 of 3 CLIs passed on their newest release (1 skipped)');
  });
});

describe('renderJson', () => {
  it('gives programs the same facts: ok, and per CLI the versions, status, reason and scenarios', () => {
    const json = JSON.parse(renderJson(rows));
    expect(json.ok).toBe(false);
    expect(json.providers.map((p: { id: string; status: string }) => [p.id, p.status])).toEqual([
      ['claude', 'pass'],
      ['codex', 'fail'],
      ['opencode', 'skip'],
      ['gemini', 'error'],
    ]);
    expect(json.providers[0]).toEqual({
      id: 'claude',
      package: '@anthropic-ai/claude-code',
      pinned: '2.1.328',
      latest: '2.1.332',
      relation: 'newer',
      status: 'pass',
      passed: 1,
      failed: 0,
      notSelected: 0,
      scenarios: [{ file: 'claude-p.test.ts', name: 'real claude -p › is the pinned version', status: 'passed', durationMs: 900 }],
    });
    expect(json.providers[2].reason).toBe('no opencode provider on this branch');
    expect(json.providers[3]).toMatchObject({ latest: null, relation: null, reason: 'npm view failed: ETIMEDOUT' });
    expect(JSON.parse(renderJson([rows[0]])).ok).toBe(true);
  });
});

describe('enginesRefuse', () => {
  it("says why a release cannot run on this Node: Qwen Code 0.24.4's engines want Node 22", () => {
    expect(enginesRefuse({ node: '>=22.0.0' }, '20.20.2')).toBe('needs node >=22.0.0 (this is 20.20.2)');
    expect(enginesRefuse({ node: '>=20.0.0' }, '20.20.2')).toBeUndefined();
    expect(enginesRefuse({ node: '>=20.19' }, '20.20.2')).toBeUndefined();
    expect(enginesRefuse({ node: '>=20.21.0' }, '20.20.2')).toBe('needs node >=20.21.0 (this is 20.20.2)');
    // ranges it does not read (and none at all) never skip: the run itself decides
    expect(enginesRefuse({ node: '^18 || ^20' }, '20.20.2')).toBeUndefined();
    expect(enginesRefuse(undefined, '20.20.2')).toBeUndefined();
  });
});
