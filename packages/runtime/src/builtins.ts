/** The providers umbel ships with, and the packages they come from. */
import type { ProviderV1 } from '@umbel/core';
import { claude, VERSION as claudeVersion } from '@umbel/provider-claude';
import { codex, VERSION as codexVersion } from '@umbel/provider-codex';
import { gemini, VERSION as geminiVersion } from '@umbel/provider-gemini';
import { copilot, VERSION as copilotVersion } from '@umbel/provider-copilot';
import { opencode, VERSION as opencodeVersion } from '@umbel/provider-opencode';
import { qwen, VERSION as qwenVersion } from '@umbel/provider-qwen';
import type { LoadedProvider } from './loaded.js';

// The versions are the packages' own exports, not read from their package.json at run time: the
// CLI bundles these packages, and a bundle has no package.json of theirs to resolve.
function builtIn(provider: ProviderV1, packageName: string, packageVersion: string): LoadedProvider {
  return { provider, source: 'built-in', packageName, packageVersion };
}

/** claude, codex, gemini, opencode, copilot and qwen, in that order. */
export function builtInProviders(): LoadedProvider[] {
  return [
    builtIn(claude, '@umbel/provider-claude', claudeVersion),
    builtIn(codex, '@umbel/provider-codex', codexVersion),
    builtIn(gemini, '@umbel/provider-gemini', geminiVersion),
    builtIn(opencode, '@umbel/provider-opencode', opencodeVersion),
    builtIn(copilot, '@umbel/provider-copilot', copilotVersion),
    builtIn(qwen, '@umbel/provider-qwen', qwenVersion),
  ];
}
