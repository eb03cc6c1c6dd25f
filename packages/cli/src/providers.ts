/**
 * `umbel providers [--json]` and the provider list of `--help`: both read the providers the
 * runtime loads (the built-ins, the config file's `providers`, `UMBEL_PROVIDERS`), never tmux.
 */
import type { ProviderReport, ProvidersReport } from '@umbel/runtime';
import type { CliIo } from './io.js';
import { printJson } from './output.js';
import type { ProviderHelp } from './parser.js';

const runtime = () => import('@umbel/runtime');

/** The providers for the help text; a package that cannot be loaded leaves the built-ins and says why. */
export async function providerHelp(io: Pick<CliIo, 'env' | 'cwd'>): Promise<ProviderHelp> {
  const { builtInProviders, loadProviders } = await runtime();
  const summaries = (list: readonly { provider: { providerId: string; displayName: string; description?: string } }[]) =>
    list.map(({ provider }) => ({ id: provider.providerId, summary: provider.description ?? provider.displayName }));
  try {
    const loaded = await loadProviders({ env: io.env, cwd: io.cwd });
    const problem = (loaded.failures ?? []).map((f) => f.message).join('\n');
    return { providers: summaries(loaded.providers), ...(problem ? { problem } : {}) };
  } catch (error) {
    return { providers: summaries(builtInProviders()), problem: error instanceof Error ? error.message : String(error) };
  }
}

/** `umbel providers`: exit 0 with the report (a CLI that is not installed is part of the report). */
export async function runProviders(io: CliIo, json: boolean): Promise<number> {
  const { inspectProviders, loadProviders } = await runtime();
  const loaded = await loadProviders({ env: io.env, cwd: io.cwd });
  const report = await inspectProviders(loaded, { env: io.env });
  if (json) printJson(io.stdout, report);
  else io.stdout.write(providersText(report));
  return 0;
}

/** Where a provider comes from, for the text table: its package and version, else its specifier. */
function origin(p: ProviderReport): string {
  if (p.packageName) return `${p.packageName}${p.packageVersion ? ` ${p.packageVersion}` : ''}`;
  return p.specifier ?? '—';
}

function binaryText(binary: ProviderReport['binary']): string {
  switch (binary.status) {
    case 'found':
      return `${binary.path} (${binary.version ?? binary.versionError ?? 'no version'})`;
    case 'not-found':
      return `not found: ${binary.message}${binary.hint ? ` (hint: ${binary.hint})` : ''}`;
    case 'unknown':
      return `unknown: ${binary.message}`;
  }
}

/** The report as aligned text: a header line per provider, then its details indented. */
export function providersText(report: ProvidersReport): string {
  const rows = report.providers.map((p) => [p.id, p.displayName, origin(p), p.source]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const blocks = report.providers.map((p, n) => {
    const header = (rows[n] ?? []).map((cell, i) => (i < 3 ? cell.padEnd(widths[i] ?? 0) : cell)).join('  ');
    const lines = [header];
    if (p.description) lines.push(`  ${p.description}`);
    lines.push(`  binary:   ${binaryText(p.binary)}`);
    lines.push(`  verified: ${p.verifiedVersions.length ? p.verifiedVersions.join(', ') : '—'}`);
    return lines.join('\n');
  });
  for (const f of report.failures ?? []) blocks.push(`${f.message}${f.hint ? `\n  hint: ${f.hint}` : ''}`);
  const config = `config: ${report.config.path}${report.config.exists ? '' : ' (none)'}`;
  return `${blocks.join('\n\n')}\n\n${config}\n`;
}
