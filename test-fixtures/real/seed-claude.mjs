// Seed a Claude Code config dir for the real-CLI tier (claude-code.md §2.2), and the env a test
// passes to the real binary (§2.4, §8). Dependency-free Node ESM.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** A fixed, obviously fake API key for the local mock (never a real secret). */
export const MOCK_API_KEY = 'sk-ant-api03-umbel-mock-0000-abcdefghij0123456789';

/** Far-future timestamp (2100-01-01) that suppresses the auto-mode classifier billing notice for good (§2.2, §6.3). */
const FAR_FUTURE_MS = 4102444800000;

/** The part of an API key Claude Code stores as approved: its last 20 characters (the whole key when shorter). */
export function approvedKeySuffix(apiKey) {
  return apiKey.length > 20 ? apiKey.slice(-20) : apiKey;
}

/**
 * Write the minimal `<configDir>/.claude.json` that reaches the input prompt offline (§2.2):
 * onboarding done, `apiKey` approved (by its last 20 chars), the auto-mode notices acknowledged,
 * and workspace trust ONLY for `trustedDirs` (an ancestor covers its subdirectories).
 * The real-CLI tests deliberately leave the workspace untrusted so umbel's dialog handling runs.
 * Existing keys in the file are kept (the seed keys win).
 * @param {{configDir: string, apiKey?: string, trustedDirs?: string[]}} opts
 * @returns {string} path of the written .claude.json
 */
export function seedClaudeConfig({ configDir, apiKey = MOCK_API_KEY, trustedDirs = [] }) {
  if (!configDir) throw new TypeError('seedClaudeConfig: configDir is required');
  mkdirSync(configDir, { recursive: true });
  const file = join(configDir, '.claude.json');
  let existing = {};
  if (existsSync(file)) {
    try {
      existing = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      existing = {};
    }
  }
  const projects = { ...(existing.projects ?? {}) };
  for (const dir of trustedDirs) projects[resolve(dir)] = { ...(projects[resolve(dir)] ?? {}), hasTrustDialogAccepted: true };
  const approved = new Set(existing.customApiKeyResponses?.approved ?? []);
  if (apiKey) approved.add(approvedKeySuffix(apiKey));
  const seed = {
    ...existing,
    hasCompletedOnboarding: true,
    customApiKeyResponses: { approved: [...approved], rejected: existing.customApiKeyResponses?.rejected ?? [] },
    projects,
    hasSeenAutoDefaultNotice: true,
    autoModeClassifierBillingNoticeAcknowledgedAt: FAR_FUTURE_MS,
  };
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(seed, null, 2)}\n`);
  renameSync(tmp, file);
  return file;
}

/**
 * The Claude-specific env a test passes to the real binary (add HOME, PATH, TERM, LANG yourself,
 * and launch with a cleared env, e.g. `env -i`, so no CLAUDE_CODE_CHILD_SESSION leaks in, §8):
 *
 * - ANTHROPIC_BASE_URL = the mock; CLAUDE_CONFIG_DIR = the seeded dir; ANTHROPIC_API_KEY = `apiKey`.
 * - DISABLE_AUTOUPDATER=1: no `npm view`/`npm install -g` behind the test's back.
 * - CLAUDE_CODE_MAX_RETRIES=1 (default): a failing API ends a turn in ~1 s instead of ~3 min, while
 *   `FAIL <status> x1` still recovers on Claude's single retry.
 * - CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC is NOT set by default: it also drops the title
 *   side-request and `HEAD /api/hello`, and makes auto mode (the TUI default) show the blocking
 *   "Auto mode can't check actions in this session" dialog instead of calling the classifier (§6.3),
 *   i.e. the CLI would behave unlike a user's. Pass `nonessentialTraffic: false` to set it anyway.
 *
 * @param {{configDir: string, baseUrl: string, apiKey?: string, maxRetries?: number, nonessentialTraffic?: boolean}} opts
 * @returns {Record<string, string>}
 */
export function claudeEnv({ configDir, baseUrl, apiKey = MOCK_API_KEY, maxRetries = 1, nonessentialTraffic = true }) {
  if (!configDir || !baseUrl) throw new TypeError('claudeEnv: configDir and baseUrl are required');
  const env = {
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: apiKey,
    CLAUDE_CONFIG_DIR: configDir,
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_MAX_RETRIES: String(maxRetries),
  };
  if (!nonessentialTraffic) env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = '1';
  return env;
}
