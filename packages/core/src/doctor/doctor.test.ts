import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createMockProvider } from '../testing/index.js';
import { billingDetail, billingOf, endpointsOf } from './billing.js';
import { compareVersions, parseVersion, probeVersion, probeVersionIn, versionStanding } from './version.js';

describe('versionStanding', () => {
  const verified = ['2.1.300', '2.1.328'];
  it.each([
    ['2.1.328 (Claude Code)', 'verified'],
    ['codex-cli 2.1.330', 'newer'],
    ['2.10.0', 'newer'],
    ['2.1.310', 'between'],
    ['2.1.9', 'older'],
    ['2.1.328-beta.1', 'between'],
    ['Claude Code', 'unparseable'],
  ])('%s is %s', (line, standing) => {
    expect(versionStanding(line, verified).standing).toBe(standing);
  });
  it('without a verified list there is nothing to compare with', () => {
    expect(versionStanding('1.0.0', []).standing).toBe('no-list');
  });
  it('compares numerically, a pre-release before its release', () => {
    expect(compareVersions('0.10.0', '0.9.9')).toBe(1);
    expect(compareVersions('1.0.0-rc.1', '1.0.0')).toBe(-1);
    expect(compareVersions('1.0.0', '1.0.0')).toBe(0);
    expect(parseVersion('gemini 0.61.0\n')).toBe('0.61.0');
  });
});

describe('billing and endpoint', () => {
  const claude = { apiEnv: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'], endpointEnv: ['ANTHROPIC_BASE_URL'] };
  it("by the provider's facts: api only for a variable the worker gets; one the caller set but never passed is named", () => {
    expect(billingOf({ HOME: '/h', CLAUDE_CODE_OAUTH_TOKEN: 't' }, claude)).toEqual({ billing: 'subscription' });
    expect(billingOf({ ANTHROPIC_AUTH_TOKEN: 'k' }, claude)).toEqual({ billing: 'api', variable: 'ANTHROPIC_AUTH_TOKEN' });
    expect(billingOf({ ANTHROPIC_API_KEY: '' }, claude)).toEqual({ billing: 'subscription' });
    expect(billingOf({}, claude, { ANTHROPIC_API_KEY: 'sk' })).toEqual({ billing: 'subscription', withheld: 'ANTHROPIC_API_KEY' });
    // a name outside the facts is not the provider's billing switch
    expect(billingOf({ OPENAI_API_KEY: 'k' }, claude)).toEqual({ billing: 'subscription' });
  });
  it('a provider that declares its billing unknowable before its CLI starts (opencode: its stored logins decide) is unknown, with its reason', () => {
    const base = createMockProvider();
    const unsure = { ...base, billing: { apiEnv: ['PAID_KEY'], unknowableBeforeStart: 'its stored logins decide' } };
    expect(billingDetail(unsure, {}, {})).toBe('unknown: its stored logins decide');
    expect(billingDetail(unsure, { PAID_KEY: 'k' }, {})).toMatch(/^api: PAID_KEY would be passed/);
    // what its detection says at runtime does not decide doctor's line: the declared fact does
    const unseen = { ...base, billing: { apiEnv: ['PAID_KEY'] }, doDetectBilling: () => ({ billing: 'unknown', evidence: 'banner not seen yet' }) as const };
    expect(billingDetail(unseen, {}, { PAID_KEY: 'k' })).toMatch(/^subscription: .*\(PAID_KEY is set in your environment but never inherited/);
  });

  it('without facts: the name rule (a key or token variable the worker gets)', () => {
    expect(billingOf({ GEMINI_API_KEY: 'k' })).toEqual({ billing: 'api', variable: 'GEMINI_API_KEY' });
    expect(billingOf({ OPENAI_API_KEY: '' })).toEqual({ billing: 'subscription' });
  });
  it('endpoints without credentials or query; by the facts when the provider names its variables', () => {
    expect(endpointsOf({ OPENAI_BASE_URL: 'https://u:p@gw.example/v1?key=s', PATH: '/bin' })).toEqual([
      { variable: 'OPENAI_BASE_URL', url: 'https://gw.example/v1' },
    ]);
    expect(endpointsOf({ GOOGLE_GEMINI_BASE_URL: 'not a url' })).toEqual([{ variable: 'GOOGLE_GEMINI_BASE_URL', url: '(not a URL)' }]);
    expect(endpointsOf({ OPENAI_BASE_URL: 'https://gw.example/v1', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/' }, claude)).toEqual([
      { variable: 'ANTHROPIC_BASE_URL', url: 'http://127.0.0.1:9/' },
    ]);
  });
});

describe('probeVersionIn', () => {
  it('waits 20 s by default, as doctor does: a Node CLI takes seconds (gemini 0.61: 3.5 s of CPU idle), more on a loaded machine', async () => {
    // `umbel providers` had 5 s and reported the real opencode's version missing on a loaded CI box
    const root = await mkdtemp(join(tmpdir(), 'umbel-probe-'));
    const cli = join(root, 'cli');
    await writeFile(cli, '#!/bin/sh\nwhile [ ! -e "$GO" ]; do sleep 0.02; done\necho 9.9.9\n');
    await chmod(cli, 0o755);
    const env = { PATH: process.env.PATH, GO: join(root, 'go') };
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const answered = probeVersion(cli, env);
      const late = probeVersion(cli, { ...env, GO: join(root, 'never') });
      vi.advanceTimersByTime(19_999);
      await writeFile(env.GO, '');
      expect(await answered).toEqual({ version: '9.9.9' });
      vi.advanceTimersByTime(1);
      expect(await late).toEqual({ versionError: '`--version` did not answer within 20000 ms' });
    } finally {
      vi.useRealTimers();
      await rm(root, { recursive: true, force: true });
    }
  });

  it('runs `--version` with a temp dir of its own and removes it (opencode leaves $TMPDIR/opencode behind)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'umbel-probe-'));
    try {
      const userTemp = join(root, 'tmp');
      await import('node:fs/promises').then((fs) => fs.mkdir(userTemp));
      const cli = join(root, 'cli');
      await writeFile(cli, '#!/bin/sh\nmkdir -p "$TMPDIR/opencode" && touch "$TMPDIR/opencode/lock"\necho 1.18.33\n');
      await chmod(cli, 0o755);
      expect(await probeVersionIn(userTemp, cli, { PATH: process.env.PATH, TMPDIR: userTemp })).toEqual({ version: '1.18.33' });
      expect(await readdir(userTemp)).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
