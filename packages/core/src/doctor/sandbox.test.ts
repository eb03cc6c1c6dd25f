/** doctor's sandbox line: srt runs a command confined on this machine, or the report says why not and how to get it. */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostFacts, probeSandbox } from '../sandbox/availability.js';
import { sandboxCheck } from './sandbox.js';

describe('doctor: sandbox', () => {
  it('works here (bubblewrap and socat installed: .ci/run)', async () => {
    if (process.platform !== 'linux') return;
    expect(await sandboxCheck({ PATH: process.env.PATH, HOME: process.env.HOME })).toEqual({ available: true });
  });

  it('without bubblewrap on the PATH: not available, the reason and the install hint', async () => {
    if (process.platform !== 'linux') return;
    const report = await sandboxCheck({ PATH: '/nonexistent-bin', HOME: process.env.HOME });
    expect(report.available).toBe(false);
    expect(report.detail).toContain('bwrap');
    expect(report.hint).toContain('apt-get install bubblewrap socat');
  });

  it("srt's TMPDIR is the probe's private dir: the socket srt leaves behind on exit goes with it, never into /tmp", async () => {
    if (process.platform !== 'linux') return;
    const dir = await mkdtemp(join(tmpdir(), 'umbel-probe-'));
    try {
      // A stand-in for srt that records the TMPDIR it was started with.
      const fakeSrt = join(dir, 'fake-srt.mjs');
      await writeFile(fakeSrt, "import { writeFileSync } from 'node:fs'; writeFileSync(process.argv[3] + '.tmpdir', process.env.TMPDIR ?? '');\n");
      const settings = join(dir, 'probe', 'settings.json');
      await mkdir(dirname(settings));
      await expect(
        probeSandbox({ PATH: process.env.PATH, HOME: process.env.HOME }, settings, { ...hostFacts(), srtCli: () => fakeSrt }),
      ).resolves.toBeUndefined();
      expect(await readFile(`${settings}.tmpdir`, 'utf8')).toBe(dirname(settings));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
