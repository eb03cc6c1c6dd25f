import { describe, expect, it } from 'vitest';
import { buildSandboxPolicy, hostOfUrl, isLoopbackHost, type SandboxPolicyInput, srtSettings } from './policy.js';

const base: SandboxPolicyInput = {
  userHome: '/home/u',
  stateRoot: '/home/u/.local/state/umbel',
  cwd: '/home/u/project',
  providerDir: '/home/u/.local/state/umbel/workers/w1/provider',
  eventsDir: '/home/u/.local/state/umbel/workers/w1/events',
  tempDir: '/home/u/.local/state/umbel/workers/w1/tmp',
  hooksDir: '/home/u/.local/state/umbel/hooks',
  sharedDir: '/home/u/.local/state/umbel/providers/claude',
  facts: { hosts: ['api.anthropic.com'], writePaths: [{ path: '~/.claude', env: 'CLAUDE_CONFIG_DIR' }, { path: '~/.claude.json' }] },
  endpointEnv: ['ANTHROPIC_BASE_URL'],
  env: {},
  widen: { write: [], read: [], allow: [] },
};

describe('buildSandboxPolicy', () => {
  it('writes only the cwd, the worker dirs, the shared dir and the CLI’s own paths', () => {
    const policy = buildSandboxPolicy(base);
    expect(policy.write).toEqual([
      '/home/u/project',
      '/home/u/.local/state/umbel/workers/w1/provider',
      '/home/u/.local/state/umbel/workers/w1/events',
      '/home/u/.local/state/umbel/workers/w1/tmp',
      '/home/u/.local/state/umbel/providers/claude',
      '/home/u/.claude',
      '/home/u/.claude.json',
    ]);
    expect(policy.write).not.toContain('/home/u');
    // the worker's meta is umbel's: its dir is read, never written
    expect(policy.write).not.toContain('/home/u/.local/state/umbel/workers/w1');
  });

  it('a variable that moves the CLI’s config dir moves the write path', () => {
    const policy = buildSandboxPolicy({ ...base, env: { CLAUDE_CONFIG_DIR: '/srv/claude-config' } });
    expect(policy.write).toContain('/srv/claude-config');
    expect(policy.write).not.toContain('/home/u/.claude');
  });

  it('denies the secrets, the shell histories and the whole state root, re-allowing only the worker’s own parts', () => {
    const policy = buildSandboxPolicy(base);
    for (const secret of ['.ssh', '.aws', '.gnupg', '.config/gcloud', '.kube', '.docker/config.json', '.netrc', '.npmrc', '.bash_history', '.zsh_history'])
      expect(policy.denyRead).toContain(`/home/u/${secret}`);
    expect(policy.denyRead).toContain(base.stateRoot);
    // only the hook sink's dir is re-allowed: the worker's write paths in the root are mounted writable
    // after the denies (srt), and re-allowing their read would mount them read-only (hooks could not land)
    expect(policy.allowRead).toEqual([base.hooksDir]);
  });

  it('a worktree cwd under the state root is writable (and so seen), never re-allowed read-only', () => {
    const cwd = '/home/u/.local/state/umbel/worktrees/w1';
    const policy = buildSandboxPolicy({ ...base, cwd });
    expect(policy.write).toContain(cwd);
    expect(policy.allowRead).not.toContain(cwd);
  });

  it('network: the provider’s hosts plus the custom base URL’s host (never its credentials or path)', () => {
    const policy = buildSandboxPolicy({ ...base, env: { ANTHROPIC_BASE_URL: 'http://user:secret@127.0.0.1:8123/v1?key=k' } });
    expect(policy.network).toEqual(['api.anthropic.com', '127.0.0.1:8123']);
    expect(JSON.stringify(srtSettings(policy))).not.toContain('secret');
  });

  it('without facts: no network and only the worker’s own writes', () => {
    const policy = buildSandboxPolicy({ ...base, facts: undefined, endpointEnv: [] });
    expect(policy.network).toEqual([]);
    expect(policy.write).toHaveLength(5);
  });

  it('widenings are applied and recorded (~ expanded)', () => {
    const policy = buildSandboxPolicy({ ...base, widen: { write: ['~/out', '/data'], read: ['~/.npmrc'], allow: ['registry.npmjs.org'] } });
    expect(policy.write).toEqual(expect.arrayContaining(['/home/u/out', '/data']));
    expect(policy.allowRead).toContain('/home/u/.npmrc');
    expect(policy.network).toContain('registry.npmjs.org');
    expect(policy.widened).toEqual({ write: ['/home/u/out', '/data'], read: ['/home/u/.npmrc'], allow: ['registry.npmjs.org'] });
  });

  it('srtSettings carries the policy in the library’s shape', () => {
    const settings = srtSettings(buildSandboxPolicy(base)) as {
      network: { allowedDomains: string[] };
      filesystem: { allowWrite: string[]; denyRead: string[] };
    };
    expect(settings.network.allowedDomains).toEqual(['api.anthropic.com']);
    expect(settings.filesystem.allowWrite).toContain('/home/u/project');
    expect(settings.filesystem.denyRead).toContain('/home/u/.ssh');
  });
});

describe('hostOfUrl', () => {
  it('is the host and port of a URL, undefined otherwise', () => {
    expect(hostOfUrl('https://api.example.com/v1')).toBe('api.example.com');
    expect(hostOfUrl('not a url')).toBeUndefined();
  });
});

describe('isLoopbackHost', () => {
  it('knows the loopback names and addresses, with or without a port', () => {
    for (const host of ['localhost', 'localhost:8080', 'api.localhost', '127.0.0.1', '127.0.0.1:41234', '127.1.2.3:80', '[::1]', '[::1]:9000', '::1'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['api.anthropic.com', '*.example.com', '10.0.0.1:80', '128.0.0.1', 'localhost.example.com', 'notlocalhost'])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});
