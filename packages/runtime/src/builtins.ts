/** The providers umbel ships with, and the packages they come from. */
import { createRequire } from 'node:module';
import type { ProviderV1 } from '@umbel/core';
import { claude } from '@umbel/provider-claude';
import { codex } from '@umbel/provider-codex';
import { gemini } from '@umbel/provider-gemini';
import { opencode } from '@umbel/provider-opencode';
import type { LoadedProvider } from './loaded.js';

const require = createRequire(import.meta.url);

function builtIn(provider: ProviderV1, packageName: string): LoadedProvider {
  const { version } = require(`${packageName}/package.json`) as { version: string };
  return { provider, source: 'built-in', packageName, packageVersion: version };
}

/** claude, codex, gemini and opencode, in that order. */
export function builtInProviders(): LoadedProvider[] {
  return [
    builtIn(claude, '@umbel/provider-claude'),
    builtIn(codex, '@umbel/provider-codex'),
    builtIn(gemini, '@umbel/provider-gemini'),
    builtIn(opencode, '@umbel/provider-opencode'),
  ];
}
