// The smoke tier (`pnpm smoke`, scripts/smoke.mjs): only its refusal and its table are tested here —
// running it makes real model requests, which no test ever does (docs/testing.md, tier 4).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM script module without type declarations
import { exitCode, refusal, renderTable } from '../../scripts/lib/smoke.mjs';

const root = join(import.meta.dirname, '..', '..');

/** The script with exactly `env` (PATH kept so node runs): exit code and output. */
function smoke(env: Record<string, string>) {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'smoke.mjs')], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('pnpm smoke refuses to run', () => {
  it('without UMBEL_SMOKE=1: exit 2, says how to run it, runs nothing', () => {
    expect(refusal({ UMBEL_SMOKE: '0' })).toMatch(/UMBEL_SMOKE=1/);
    for (const env of [{}, { UMBEL_SMOKE: '0' }, { UMBEL_SMOKE: 'yes' }] as Record<string, string>[]) {
      const r = smoke(env);
      expect(r.code, JSON.stringify(env)).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/refused: .*real model requests.*UMBEL_SMOKE=1 pnpm smoke/);
    }
  });

  it('in CI, even with UMBEL_SMOKE=1', () => {
    for (const name of ['CI', 'GITHUB_ACTIONS']) {
      const r = smoke({ UMBEL_SMOKE: '1', [name]: 'true' });
      expect(r.code, name).toBe(2);
      expect(r.stderr).toContain(`never runs in CI (${name} is set)`);
    }
    expect(refusal({ UMBEL_SMOKE: '1', CI: 'false' })).toBeUndefined();
    expect(refusal({ UMBEL_SMOKE: '1' })).toBeUndefined();
  });
});

describe('the table', () => {
  const rows = [
    {
      provider: 'claude',
      version: '2.1.332',
      faces: {
        verbs: { ok: true, ms: 12_345 },
        print: { ok: true, ms: 9_000 },
        mcp: { ok: false, ms: 4_000, detail: 'umbel_wait: timeout' },
        yaml: { ok: true, ms: 15_050 },
      },
    },
    { provider: 'codex', faces: { verbs: { ok: true, ms: 800 }, print: { ok: true, ms: 700 }, mcp: { ok: true, ms: 900 }, yaml: { ok: true, ms: 1_000 } } },
  ];

  it('one row per CLI with its version, one aligned column per face, then each failure with its reason', () => {
    expect(renderTable(rows)).toBe(
      [
        'CLI             spawn/send/wait/read/kill  -p      MCP     YAML',
        '--------------  -------------------------  ------  ------  -------',
        'claude 2.1.332  ✓ 12.3s                    ✓ 9.0s  ✗ 4.0s  ✓ 15.1s',
        'codex           ✓ 0.8s                     ✓ 0.7s  ✓ 0.9s  ✓ 1.0s',
        '',
        'claude MCP: umbel_wait: timeout',
        '',
      ].join('\n'),
    );
  });

  it('says when no CLI was found; the exit code is 0 only when every face of at least one CLI passed', () => {
    expect(renderTable([])).toContain('no installed CLI found');
    expect(exitCode([])).toBe(1);
    expect(exitCode(rows)).toBe(1);
    expect(exitCode([rows[1]])).toBe(0);
  });
});
