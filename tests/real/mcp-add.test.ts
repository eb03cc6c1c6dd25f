// Real-CLI tier: the commands docs/mcp.md (and @umbel/mcp's README) give for adding umbel's MCP server, run as written
// against the pinned real `claude`, `codex` and `gemini` — each in a scratch HOME / config dir,
// never the user's — with only the server command swapped for the BUILT bin (`npx -y umbel mcp`
// would fetch from the registry; the package is not published yet). Then each CLI's own `mcp
// list` / `mcp get` must show the server (claude and gemini start it: "Connected"). No network,
// no model service. When a binary or the build is missing this FAILS, it never skips.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins, realCliPath } from '../../test-fixtures/real/clis.mjs';
import { assertBuilt, REPO_ROOT, runCommand } from '../../test-fixtures/real/umbel-helpers.mjs';

type Result = { code: number; stdout: string; stderr: string };

const MCP_BIN = join(REPO_ROOT, 'packages/mcp/dist/bin.js');
let root: string;
let n = 0;

/** The shell lines of the ```sh real blocks of docs/mcp.md and @umbel/mcp's README that start with `<cli> mcp`, comments cut. */
function documented(cli: string): string[] {
  const doc = ['docs/mcp.md', 'packages/mcp/README.md'].map((file) => readFileSync(join(REPO_ROOT, file), 'utf8')).join('\n');
  const blocks = [...doc.matchAll(/^\s*```sh real\n([\s\S]*?)^\s*```/gm)].map((m) => m[1] as string);
  return blocks
    .flatMap((b) => b.split('\n'))
    .map((line) => line.trim())
    .filter((line) => line.startsWith(`${cli} mcp `))
    .map((line) => line.replace(/\s+#\s.*$/, ''));
}

/** The documented line with the server command swapped for the built bin (as argv and as JSON). */
function localServer(line: string): string {
  return line
    .replace('npx -y umbel mcp', `node '${MCP_BIN}'`)
    .replace('"command":"npx","args":["-y","umbel","mcp"]', `"command":"node","args":[${JSON.stringify(MCP_BIN)}]`);
}

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** A scratch user: HOME, the CLI's config dir, a project dir; a clean env (no runner variables). */
function scratchUser(extra: (home: string) => Record<string, string>) {
  const dir = join(root, `user-${++n}`);
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', ...extra(home) };
  /** Run one documented line through sh (so `$HOME` expands as in a user's shell), `cli` swapped for `bin`. */
  const sh = (line: string, cli: string, bin: string): Promise<Result> =>
    runCommand('/bin/sh', ['-c', `${bin} ${localServer(line).slice(cli.length + 1)}`], { cwd: project, env });
  return { home, project, env, sh };
}

beforeAll(() => {
  assertBuilt(['packages/mcp/dist/bin.js']);
  root = realpathSync(mkdtempSync(join(tmpdir(), 'umbel-real-mcp-add-')));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("docs/mcp.md's commands against the real CLIs", () => {
  it(
    `Claude Code ${readPins().claude.version}: every documented \`claude mcp add\` / \`add-json\` works, and \`claude mcp list\` shows umbel Connected`,
    { timeout: 300_000 },
    async () => {
      const claude = shellQuote(realCliPath('claude'));
      const lines = documented('claude');
      const adds = lines.filter((l) => /^claude mcp add(-json)? /.test(l));
      expect(adds.length, 'docs/mcp.md documents claude mcp add').toBeGreaterThanOrEqual(3);
      expect(lines).toContain('claude mcp list');
      for (const add of adds) {
        const user = scratchUser((home) => ({
          CLAUDE_CONFIG_DIR: join(home, '.claude'),
          DISABLE_AUTOUPDATER: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', // nothing listens: no model service is ever reached
        }));
        const added = await user.sh(add, 'claude', claude);
        expect(added.code, `${add}\n${added.stdout}${added.stderr}`).toBe(0);
        const listed = await user.sh('claude mcp list', 'claude', claude);
        expect(listed.stdout, `${add}\n${listed.stderr}`).toContain(`umbel: node ${MCP_BIN} - ✔ Connected`);
        const got = await user.sh('claude mcp get umbel', 'claude', claude);
        if (add.includes('UMBEL_HOME=')) expect(got.stdout, add).toContain(`UMBEL_HOME=${user.home}/.local/state/umbel`);
        if (add.includes('"timeout":600000')) expect(got.stdout, add).toContain('Timeout: 600000ms');
        if (add.includes('-s user')) expect(got.stdout, add).toContain('User config');
      }
      // The pitfall the page warns about: a name after -e is read as one more KEY=VALUE.
      const user = scratchUser((home) => ({
        CLAUDE_CONFIG_DIR: join(home, '.claude'),
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      }));
      const wrong = await user.sh('claude mcp add -s user -e UMBEL_HOME=/x umbel -- npx -y umbel mcp', 'claude', claude);
      expect(wrong.code).not.toBe(0);
      expect(wrong.stdout + wrong.stderr).toContain('Invalid environment variable format: umbel');
    },
  );

  it(
    `Codex ${readPins().codex.version}: the documented \`codex mcp add\` writes the server into CODEX_HOME, \`codex mcp list\` shows it enabled`,
    { timeout: 300_000 },
    async () => {
      const codex = shellQuote(realCliPath('codex'));
      const lines = documented('codex');
      const adds = lines.filter((l) => l.startsWith('codex mcp add '));
      expect(adds.length).toBeGreaterThanOrEqual(1);
      expect(lines).toContain('codex mcp list');
      for (const add of adds) {
        const user = scratchUser((home) => ({ CODEX_HOME: join(home, '.codex') }));
        mkdirSync(join(user.home, '.codex'));
        const added = await user.sh(add, 'codex', codex);
        expect(added.code, `${add}\n${added.stdout}${added.stderr}`).toBe(0);
        const listed = await user.sh('codex mcp list', 'codex', codex);
        expect(listed.stdout, listed.stderr).toMatch(new RegExp(`^umbel\\s+node\\s+${MCP_BIN.replaceAll('/', '\\/')}\\s.*enabled`, 'm'));
        const config = readFileSync(join(user.home, '.codex', 'config.toml'), 'utf8');
        expect(config).toContain('[mcp_servers.umbel]');
        if (add.includes('UMBEL_HOME=')) expect(config).toContain(`UMBEL_HOME = "${user.home}/.local/state/umbel"`);
      }
    },
  );

  it(
    `Gemini CLI ${readPins().gemini.version}: the documented \`gemini mcp add\` works, \`gemini mcp list\` shows umbel Connected (trusted folder)`,
    { timeout: 300_000 },
    async () => {
      const gemini = `${shellQuote(process.execPath)} ${shellQuote(realCliPath('gemini'))}`;
      const lines = documented('gemini');
      const adds = lines.filter((l) => l.startsWith('gemini mcp add '));
      expect(adds.length).toBeGreaterThanOrEqual(1);
      expect(lines).toContain('gemini mcp list');
      for (const add of adds) {
        const user = scratchUser((home) => ({ GEMINI_CLI_HOME: home, GEMINI_API_KEY: 'mock-key', GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9' }));
        const added = await user.sh(add, 'gemini', gemini);
        expect(added.code, `${add}\n${added.stdout}${added.stderr}`).toBe(0);
        const settings = JSON.parse(readFileSync(join(user.home, '.gemini', 'settings.json'), 'utf8'));
        expect(settings.mcpServers.umbel).toMatchObject({ command: 'node', args: [MCP_BIN] });
        if (add.includes('UMBEL_HOME=')) expect(settings.mcpServers.umbel.env).toEqual({ UMBEL_HOME: `${user.home}/.local/state/umbel` });
        // an untrusted folder disables every MCP server (what the page says); a trusted one connects
        const untrusted = await user.sh('gemini mcp list', 'gemini', gemini);
        expect(untrusted.stdout + untrusted.stderr).toContain('Disabled');
        const trusted = await runCommand('/bin/sh', ['-c', `${gemini} mcp list`], {
          cwd: user.project,
          env: { ...user.env, GEMINI_CLI_TRUST_WORKSPACE: 'true' },
        });
        expect(trusted.stdout + trusted.stderr).toContain(`umbel: node ${MCP_BIN} (stdio) - Connected`);
      }
    },
  );
});
