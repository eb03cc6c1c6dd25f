import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { baseEnv, filesUnder, makeRig, tempDir, until, type Rig } from './__fixtures__/harness.js';

const run = promisify(execFile);
const rigs: Rig[] = [];
const dirs: string[] = [];
afterEach(async () => {
  delete process.env['UMBEL_TEST_WITHHELD_CANARY'];
  for (const rig of rigs.splice(0)) await rig.cleanup();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Every process's argv, via `ps`. */
async function psArgs(): Promise<string> {
  const { stdout } = await run('ps', ['-eww', '-o', 'args='], { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** The environ of every process whose argv mentions the socket (the tmux server and clients). */
async function tmuxEnvirons(socket: string): Promise<{ pid: number; environ: string }[]> {
  const out: { pid: number; environ: string }[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8');
      if (!cmdline.includes(socket)) continue;
      out.push({ pid: Number(name), environ: await readFile(`/proc/${name}/environ`, 'utf8') });
    } catch {
      /* gone */
    }
  }
  return out;
}

describe('secrecy of the worker environment', () => {
  it('the passed value reaches the worker byte-exact; neither canary is on any argv, in tmux env, or on disk', async () => {
    const token = randomBytes(8).toString('hex');
    const passedMark = `pass-canary-${token}`;
    const withheldMark = `withheld-canary-${token}`;
    const exotic = (mark: string) => `${mark} it's "q" $(touch /tmp/umbel-pwned-${token}) \`id\` \${HOME} \\ \\n\nline2\n日本語 🚀 é\t;end;`;
    const passed = exotic(passedMark);
    const withheld = exotic(withheldMark);
    // The withheld canary lives only in umbel's own (process) environment.
    process.env['UMBEL_TEST_WITHHELD_CANARY'] = withheld;
    const r = await makeRig({ env: baseEnv({ LC_UMBEL_PROBE: 'client-only' }) });
    rigs.push(r);
    const scratch = await tempDir('umbel-secrecy-');
    dirs.push(scratch);
    const out = join(scratch, 'env.json');
    const events = join(r.home, 'events');
    await mkdir(events);

    // Sample every process's argv from before the launch until after the worker has reported (how
    // many samples fit in between is the machine's business: on a loaded one a `ps` takes longer).
    const leaks: string[] = [];
    let samples = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const args = await psArgs();
        samples += 1;
        if (args.includes(passedMark)) leaks.push('passed canary on an argv');
        if (args.includes(withheldMark)) leaks.push('withheld canary on an argv');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();

    try {
      await until(() => samples > 0);
      await r.substrate.launch({
        session: 'umbel-secret',
        cwd: r.home,
        argv: [process.execPath, '-e', 'require("fs").writeFileSync(process.argv[1], JSON.stringify(process.env)); setInterval(() => {}, 1000)', out],
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: r.home, UMBEL_TEST_PASSED_CANARY: passed, UMBEL_TEST_EMPTY: '' },
        exitRecordDir: events,
      });
      const seen = await until(async () => {
        const text = await readFile(out, 'utf8').catch(() => '');
        return text ? (JSON.parse(text) as Record<string, string>) : undefined;
      });
      // While the session lives: the tmux server/clients' environment and tmux's own env tables.
      for (const { pid, environ } of await tmuxEnvirons(r.substrate.socket)) {
        expect(environ.includes(passedMark), `passed canary in environ of ${pid}`).toBe(false);
        expect(environ.includes(withheldMark), `withheld canary in environ of ${pid}`).toBe(false);
      }
      const tmuxEnv = r.tmux('show-environment', '-g').stdout + r.tmux('show-environment', '-t', '=umbel-secret').stdout;
      expect(tmuxEnv).toContain('PATH=');
      expect(tmuxEnv).not.toContain(passedMark);
      expect(tmuxEnv).not.toContain(withheldMark);
      expect(r.tmux('list-buffers').stdout).toBe('');

      // The worker: the passed value byte-exact, the empty one present, nothing inherited.
      expect(seen['UMBEL_TEST_PASSED_CANARY']).toBe(passed);
      expect(seen['UMBEL_TEST_EMPTY']).toBe('');
      expect(seen).not.toHaveProperty('UMBEL_TEST_WITHHELD_CANARY');
      expect(seen).not.toHaveProperty('LC_UMBEL_PROBE');
      expect(seen).not.toHaveProperty('TMUX_TMPDIR');
      // Passed names, the terminal variables tmux sets, and what a shell derives itself (bash as sh).
      const allowed = new Set([
        'PATH',
        'HOME',
        'UMBEL_TEST_PASSED_CANARY',
        'UMBEL_TEST_EMPTY',
        'UMBEL_TMUX_SESSION',
        'TERM',
        'TERM_PROGRAM',
        'TERM_PROGRAM_VERSION',
        'COLORTERM',
        'TMUX',
        'TMUX_PANE',
        'PWD',
        'OLDPWD',
        'SHLVL',
        '_',
      ]);
      expect(Object.keys(seen).filter((name) => !allowed.has(name))).toEqual([]);
      expect(seen['TMUX']).toBeTruthy();
      // The substrate's own mark (for kill and processTree), handed over like the rest.
      // Named by the server's socket path, as tmux gives it to the pane in $TMUX, and the session.
      expect(seen['UMBEL_TMUX_SESSION']).toBe(`${seen['TMUX']?.split(',')[0]}/umbel-secret`);
      const reported = samples;
      await until(() => samples > reported + 1); // a whole sample taken after the report
    } finally {
      sampling = false;
      await sampler;
    }
    expect(leaks).toEqual([]);

    // Nothing under the state root holds either canary (launch.sh, exit records, …).
    await r.substrate.kill('umbel-secret');
    const files = await filesUnder(r.home);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const content = await readFile(file, 'utf8');
      expect(content.includes(passedMark), file).toBe(false);
      expect(content.includes(withheldMark), file).toBe(false);
    }
    // The $(…) in the values was never executed.
    await expect(readFile(`/tmp/umbel-pwned-${token}`)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
