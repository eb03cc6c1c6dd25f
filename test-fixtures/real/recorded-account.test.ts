/**
 * The account recordings (recorded/account/, written by record-account.mjs from the real CLIs) stay
 * loadable by unit tests: every file is in the index and the index names only files that exist, each
 * names its CLI at a version this repository verified (one of `verified`, kept by each provider's
 * verified list; the pin may have moved on since), and none keeps a machine-specific scratch path or mock port.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLAUDE_VERIFIED_VERSIONS } from '../../packages/provider-claude/src/provider.js';
import { CODEX_VERIFIED_VERSIONS } from '../../packages/provider-codex/src/provider.js';
import { GEMINI_VERIFIED_VERSIONS } from '../../packages/provider-gemini/src/provider.js';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins } from './clis.mjs';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'recorded', 'account');

/** Problems of one recording's text (pure, so the checks can be tried on planted defects). */
/** The CLI versions the account recordings may come from: the providers' own verified lists (recorded before a pin bump stay valid). */
const VERIFIED: Record<string, readonly string[]> = { claude: CLAUDE_VERIFIED_VERSIONS, codex: CODEX_VERIFIED_VERSIONS, gemini: GEMINI_VERIFIED_VERSIONS };

function recordingProblems(name: string, text: string, pins: Record<string, { package: string; version: string }>): string[] {
  const problems: string[] = [];
  let rec: any;
  try {
    rec = JSON.parse(text);
  } catch {
    return [`${name}: not JSON`];
  }
  const pin = pins[rec.cli];
  if (!pin) problems.push(`${name}: unknown cli ${rec.cli}`);
  else if (!(VERIFIED[rec.cli] ?? [pin.version]).some((v) => rec.package === `${pin.package}@${v}`))
    problems.push(`${name}: recorded with ${rec.package}, not a verified ${pin.package} (${(VERIFIED[rec.cli] ?? []).join(', ')})`);
  if (`${rec.case}.json` !== name) problems.push(`${name}: case ${rec.case}`);
  if (/\/tmp\/umbel-acct-/.test(text)) problems.push(`${name}: keeps a scratch path`);
  if (/127\.0\.0\.1:\d{2,5}\b/.test(text)) problems.push(`${name}: keeps a mock port`);
  return problems;
}

describe('recorded/account', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json') && f !== 'index.json');
  const index = JSON.parse(readFileSync(join(DIR, 'index.json'), 'utf8'));

  it('the index lists exactly the recordings there are, with their CLI', () => {
    expect(Object.keys(index).sort()).toEqual(files.sort());
    for (const [file, entry] of Object.entries<any>(index)) expect(file.startsWith(`${entry.cli}-`), file).toBe(true);
  });

  it('every recording names a verified version of its CLI and keeps no scratch path or port', () => {
    const pins = readPins();
    const problems = files.flatMap((f) => recordingProblems(f, readFileSync(join(DIR, f), 'utf8'), pins));
    expect(problems).toEqual([]);
  });

  it('the checks catch planted defects', () => {
    const pins = readPins();
    const good = JSON.stringify({ cli: 'codex', package: `${pins.codex.package}@${pins.codex.version}`, case: 'codex-x' });
    expect(recordingProblems('codex-x.json', good, pins)).toEqual([]);
    expect(recordingProblems('codex-x.json', good.replace(pins.codex.version, '0.0.1'), pins)).toHaveLength(1);
    expect(recordingProblems('codex-x.json', good.replace('}', ',"p":"/tmp/umbel-acct-codex-x-AbC/work"}'), pins)).toHaveLength(1);
    expect(recordingProblems('codex-x.json', good.replace('}', ',"u":"http://127.0.0.1:43123/v1"}'), pins)).toHaveLength(1);
    expect(recordingProblems('codex-y.json', good, pins)).toHaveLength(1);
  });
});
