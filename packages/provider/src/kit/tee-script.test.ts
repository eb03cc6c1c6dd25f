import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { teeScript } from './tee-script.js';

const dir = await mkdtemp(join(tmpdir(), 'umbel-tee-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A hook sink that records its argument and stdin. */
async function sink(): Promise<string> {
  const path = join(dir, 'sink one');
  await writeFile(path, `#!/bin/sh\nprintf '%s:' "$1" >> ${JSON.stringify(join(dir, 'got'))}\ncat >> ${JSON.stringify(join(dir, 'got'))}\n`);
  await chmod(path, 0o700);
  return path;
}

const run = (script: string, input: string) => execFileSync('/bin/sh', ['-c', script], { input, encoding: 'utf8' });

describe('teeScript', () => {
  it("hands the input to the sink as a kind event, then the user's command gets the same input and its output is the script's", async () => {
    const path = await sink();
    const out = run(teeScript(path, 'statusline', "sed 's/^/mine: /'"), '{"a":1}');
    expect(out).toBe('mine: {"a":1}\n');
    expect(await readFile(join(dir, 'got'), 'utf8')).toBe('statusline:{"a":1}\n');
  });

  it('without a user command it prints nothing and only delivers', async () => {
    const path = await sink();
    expect(run(teeScript(path, 'statusline'), 'x')).toBe('');
    expect((await readFile(join(dir, 'got'), 'utf8')).endsWith('statusline:x\n')).toBe(true);
  });
});
