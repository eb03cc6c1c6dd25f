/**
 * The conformance suite must FAIL a broken provider: a child vitest runs it on the mock provider
 * and on four sabotaged copies of it (__fixtures__/sabotaged-providers.ts), all replaying the same
 * recording, on the mock provider given no recording and on one given an incomplete recording, and
 * this test reads which tests failed (and that none was skipped).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Result = { status: string; title: string; ancestorTitles: string[]; failureMessages: string[] };
const here = import.meta.dirname;
let results: Map<string, Result[]>;
let scratch: string;

/** The child's environment: ours without the markers of this vitest run. */
function childEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^VITEST|^TINYPOOL/.test(e[0])));
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'umbel-sabotage-'));
  const out = join(scratch, 'report.json');
  const cli = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
  const config = join(here, '__fixtures__', 'vitest.sabotage.config.ts');
  await new Promise<void>((resolve) => {
    // the child exits 1 (some suites fail: that is the point); the report says which
    execFile(process.execPath, [cli, 'run', '--config', config, '--reporter=json', `--outputFile=${out}`], { cwd: here, env: childEnv() }, () => resolve());
  });
  const report = JSON.parse(await readFile(out, 'utf8')) as { testResults: { assertionResults: Result[] }[] };
  results = new Map();
  for (const result of report.testResults.flatMap((f) => f.assertionResults)) {
    const suite = result.ancestorTitles[0]?.replace('provider conformance: ', '') ?? '';
    results.set(suite, [...(results.get(suite) ?? []), result]);
  }
}, 300_000);
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const failed = (suite: string) => (results.get(suite) ?? []).filter((r) => r.status === 'failed').map((r) => r.title);
const FAILS = {
  ready: 'spawn reaches ready on its recorded startup (answering its dialogs), with no env value on the launch argv',
  answer: 'send → prompt accepted → stop → the answer, read from the transcript (not from the stop hook), with neutral usage',
  permission: 'a permission request is needs-input (126)',
  apiError: 'an API error is provider-error (122)',
  launch: 'builds a launch without env values on argv or in its files, with hooks wired to the sink',
  recording:
    'behaviour: replays a recording of the real CLI (spawn → ready → send → answer; permission → needs-input; API error → provider-error; sign-in → 126)',
};
const messagesOf = (suite: string, title: string) =>
  (results.get(suite) ?? [])
    .filter((r) => r.title === title)
    .flatMap((r) => r.failureMessages)
    .join('\n');

describe('the conformance suite fails a sabotaged provider (and passes the real mock)', () => {
  it('passes the mock provider itself: every test runs, none fails, none is skipped', () => {
    const control = results.get('control') ?? [];
    expect(control.length).toBeGreaterThanOrEqual(12);
    expect(control.filter((r) => r.status !== 'passed').map((r) => `${r.status}: ${r.title}`)).toEqual([]);
  });

  it('fails a provider that never becomes ready', () => {
    expect(failed('never-ready')).toEqual(expect.arrayContaining([FAILS.ready, FAILS.answer, FAILS.permission, FAILS.apiError]));
  });

  it('fails a provider that never parses an event (no transcript location, no needs-input)', () => {
    expect(failed('never-parses')).toEqual(expect.arrayContaining([FAILS.answer, FAILS.permission]));
  });

  it('fails a provider that never reads an answer (the stop payload is no substitute)', () => {
    expect(failed('never-reads')).toEqual(expect.arrayContaining([FAILS.answer]));
  });

  it('a recording without a sign-in screen (`signIn: {none}`): passes the mock, fails a provider that sees one on a recorded screen', () => {
    const control = results.get('control-no-sign-in') ?? [];
    expect(control.filter((r) => r.status !== 'passed').map((r) => `${r.status}: ${r.title}`)).toEqual([]);
    expect(control.map((r) => r.title)).toContain('has no sign-in screen (mock-cli needs no account): none of its recorded screens is taken for one');
    expect(failed('false-sign-in')).toEqual(['has no sign-in screen (mock-cli needs no account): none of its recorded screens is taken for one']);
  });

  it('fails a provider whose launch puts a secret on argv, in the shape and the behaviour tests', () => {
    expect(failed('secret-on-argv')).toEqual(expect.arrayContaining([FAILS.launch, FAILS.ready]));
  });

  it('fails a provider given no recording (a working one): one failing test, never a skip, saying what to pass and how to record it', () => {
    expect(failed('no-recording')).toEqual([FAILS.recording]);
    const message = messagesOf('no-recording', FAILS.recording);
    expect(message).toContain('testProvider({ provider: no-recording }) was given no `recording`');
    expect(message).toContain('ProviderRecording');
    expect(message).toContain('examples/umbel-provider-echo/scripts/record-conformance.mjs');
    expect(message).toContain('test-fixtures/real/record-conformance.mjs');
    expect(message).toContain('docs/providers/authoring.md, section 6');
  });

  it('fails a provider given an incomplete recording, naming what is missing', () => {
    expect(failed('incomplete-recording')).toEqual([FAILS.recording]);
    const message = messagesOf('incomplete-recording', FAILS.recording);
    expect(message).toContain('recording.permission: missing');
    expect(message).toContain('recording.signIn.screen: not a string');
  });

  it('skips nothing, in any suite (a skipped test hides a failure)', () => {
    const all = [...results.values()].flat();
    expect(all.length).toBeGreaterThan(0);
    expect(all.filter((r) => r.status !== 'passed' && r.status !== 'failed').map((r) => `${r.status}: ${r.ancestorTitles[0]} › ${r.title}`)).toEqual([]);
  });
});
