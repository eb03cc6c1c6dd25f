import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claude } from './provider.js';
import { withoutHistory, withoutProject } from './scratch.js';

const FOLDER = '/tmp/umbel-doctor-abc/work';
const SID = '2b1d24f8-952c-4424-829d-ec3fad93089d';

describe('forgetting a doctor scratch session in Claude’s own state', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'umbel-claude-scratch-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('drops only the folder’s project entry, and leaves a file without one as it is', () => {
    const state = { hasCompletedOnboarding: true, projects: { '/srv/mine': { hasTrustDialogAccepted: true }, [FOLDER]: { hasTrustDialogAccepted: true } } };
    expect(JSON.parse(withoutProject(JSON.stringify(state), FOLDER) as string)).toEqual({
      hasCompletedOnboarding: true,
      projects: { '/srv/mine': { hasTrustDialogAccepted: true } },
    });
    expect(withoutProject(JSON.stringify({ projects: { '/srv/mine': {} } }), FOLDER)).toBeUndefined();
    expect(withoutProject('not json', FOLDER)).toBeUndefined();
  });

  it('drops the history lines of the folder or the session, keeping every other line byte for byte', () => {
    const mine = '{"display":"mine","project":"/srv/mine","sessionId":"u1"}';
    const text = [
      mine,
      JSON.stringify({ display: 'pong', project: FOLDER, sessionId: SID }),
      JSON.stringify({ display: 'x', project: '/y', sessionId: SID }),
      '',
    ].join('\n');
    expect(withoutHistory(text, FOLDER, [SID])).toBe(`${mine}\n`);
    expect(withoutHistory(`${mine}\n`, FOLDER, [SID])).toBeUndefined();
  });

  it('doForgetScratch cleans CLAUDE_CONFIG_DIR: the entry, the history, the session dir and telemetry; the file mode stays', async () => {
    const config = join(root, 'config');
    await mkdir(join(config, 'session-env', SID), { recursive: true });
    await mkdir(join(config, 'telemetry'), { recursive: true });
    await writeFile(join(config, 'telemetry', `1p_failed_events.${SID}.x.json`), '{}');
    await writeFile(join(config, 'telemetry', '1p_failed_events.other.json'), '{}');
    await writeFile(join(config, '.claude.json'), JSON.stringify({ projects: { [FOLDER]: {}, '/srv/mine': {} } }), { mode: 0o600 });
    await writeFile(join(config, 'history.jsonl'), `${JSON.stringify({ display: 'pong', project: FOLDER, sessionId: SID })}\n`);
    await claude.doForgetScratch?.({ folder: FOLDER, sessionIds: [SID], env: { CLAUDE_CONFIG_DIR: config, HOME: root } });
    expect(JSON.parse(await readFile(join(config, '.claude.json'), 'utf8'))).toEqual({ projects: { '/srv/mine': {} } });
    expect((await stat(join(config, '.claude.json'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(config, 'history.jsonl'), 'utf8')).toBe('');
    expect(await readdir(join(config, 'session-env'))).toEqual([]);
    expect(await readdir(join(config, 'telemetry'))).toEqual(['1p_failed_events.other.json']);
  });

  it('without CLAUDE_CONFIG_DIR: ~/.claude.json and ~/.claude; a missing state is nothing to do', async () => {
    await writeFile(join(root, '.claude.json'), JSON.stringify({ projects: { [FOLDER]: {} } }));
    await mkdir(join(root, '.claude'));
    await writeFile(join(root, '.claude', 'history.jsonl'), `${JSON.stringify({ display: 'pong', project: FOLDER, sessionId: SID })}\n`);
    await claude.doForgetScratch?.({ folder: FOLDER, sessionIds: [SID], env: { HOME: root } });
    expect(JSON.parse(await readFile(join(root, '.claude.json'), 'utf8'))).toEqual({ projects: {} });
    expect(await readFile(join(root, '.claude', 'history.jsonl'), 'utf8')).toBe('');
    await expect(claude.doForgetScratch?.({ folder: FOLDER, sessionIds: [], env: {} })).resolves.toBeUndefined();
  });
});
