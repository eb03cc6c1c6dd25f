/**
 * Hostile provider modules and config files through the BUILT `umbel` bin (issue 38, item 10): a
 * provider package that calls `process.exit`, never settles or loops forever used to end umbel with
 * 0/7/13 and no message, or hang; a group- or world-writable config file (whose `sshArgs` could run
 * anything) was used. Now such a provider is a package that could not be loaded (umbel goes on without it
 * and `providers` names it and why), and such a config file is exit 2 naming the file. No tmux.
 */
import type { ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelStart } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, testEnv, umbelRunner } from '../../../test-fixtures/real/umbel-helpers.mjs';

let scratch: string;
let project: string;
let start: UmbelStart;
const children: ChildProcess[] = [];

/** `umbel providers` with `env`; a run that hangs is killed in afterAll (the test times out). */
function providers(env: Record<string, string>) {
  const run = start(['providers'], { env });
  children.push(run.child);
  return run.done;
}

async function pkg(name: string, source: string): Promise<void> {
  const dir = join(project, 'node_modules', name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', exports: './index.js' }));
  await writeFile(join(dir, 'index.js'), source);
}

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs', 'packages/runtime/dist/index.js']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-e2e-provider-guard-')));
  project = join(scratch, 'project');
  await pkg('umbel-provider-exits', 'process.exit(7);\n');
  await pkg('umbel-provider-exits-zero', 'process.exit();\n');
  await pkg('umbel-provider-never', 'await new Promise(() => {});\nexport const provider = {};\n');
  await pkg('umbel-provider-never-busy', 'setInterval(() => {}, 1000);\nawait new Promise(() => {});\n');
  await pkg('umbel-provider-loops', 'for (;;) {}\n');
  await pkg('umbel-provider-exits-later', 'await new Promise((r) => setTimeout(r, 10));\nprocess.exit(0);\n');
  ({ start } = umbelRunner({
    cwd: project,
    env: testEnv({ home: join(scratch, 'home'), umbelHome: join(scratch, 'state'), UMBEL_PROVIDER_LOAD_TIMEOUT: '2s' }),
  }));
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('a provider module that would end or hang umbel', () => {
  it.each([
    ['umbel-provider-exits', /umbel-provider-exits.*called process\.exit\(7\) while loading/s],
    ['umbel-provider-exits-zero', /umbel-provider-exits-zero.*called process\.exit\(\) while loading/s],
    ['umbel-provider-exits-later', /umbel-provider-exits-later.*called process\.exit\(0\) while loading/s],
    ['umbel-provider-never', /umbel-provider-never.*its import never settled/s],
    ['umbel-provider-never-busy', /umbel-provider-never-busy.*did not finish loading within 2s/s],
    ['umbel-provider-loops', /umbel-provider-loops.*did not finish loading within 2s/s],
  ])('%s: umbel goes on; `providers` names the package and why it is not loaded', async (name, message) => {
    const result = await providers({ UMBEL_PROVIDERS: name });
    expect(result.stdout).toMatch(message);
    expect(result.stdout).toMatch(/UMBEL_PROVIDERS/);
    expect(result.stdout).toMatch(/^claude /m);
    expect(result.code).toBe(0);
  });
});

describe('a config file others can write is refused, like ssh', () => {
  it.each(['666', '620', '602'])('mode %s: exit 2 naming the file and the chmod fix; 0600 and 0644 are used', async (mode) => {
    const dir = join(scratch, `config-${mode}`);
    await mkdir(dir, { recursive: true });
    const config = join(dir, 'config.json');
    await writeFile(config, JSON.stringify({ hosts: { box: { ssh: 'box', sshArgs: ['-o', 'ProxyCommand=touch /tmp/never'] } } }));
    await chmod(config, Number.parseInt(mode, 8));
    const refused = await providers({ UMBEL_CONFIG: config });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(config);
    expect(refused.stderr).toMatch(/writable by (group|others)/);
    expect(refused.stderr).toContain(`chmod go-w ${config}`);
    for (const ok of [0o600, 0o644]) {
      await chmod(config, ok);
      expect(await providers({ UMBEL_CONFIG: config })).toMatchObject({ code: 0 });
    }
  });

  it('the default config file too', async () => {
    const home = join(scratch, 'home-open');
    await mkdir(join(home, '.config', 'umbel'), { recursive: true });
    const config = join(home, '.config', 'umbel', 'config.json');
    await writeFile(config, '{}');
    await chmod(config, 0o666);
    const refused = await providers({ HOME: home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`chmod go-w ${config}`);
  });
});
