/** `umbel doctor`: the core `doctor` report as a checklist (or one JSON object); exit 0 when every provider passes, 1 otherwise. */
import type { DoctorCheck, DoctorReport, Umbel } from '@umbel/core';
import { type Args, envFromArgs, str } from './args.js';
import type { CliIo } from './io.js';
import { printJson } from './output.js';

const MARK: Readonly<Record<DoctorCheck['status'], string>> = { pass: '✓', fail: '✗', skip: '–' };

/** `--provider` values (repeatable, or comma-separated). */
function providerList(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const list = (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(',')).map((v) => v.trim());
  return list.filter((v) => v !== '');
}

/** Run the checks and print them. */
export async function runDoctor(args: Args, io: CliIo, engine: Umbel, signal: AbortSignal): Promise<number> {
  const providers = providerList(args.provider);
  const env = envFromArgs(args.env);
  const startupTimeout = str(args.startupTimeout);
  const report = await engine.doctor(
    {
      ...(providers ? { providers } : {}),
      ...(args.turn === true ? { turn: true } : {}),
      ...(env ? { env } : {}),
      ...(startupTimeout !== undefined ? { startupTimeout } : {}),
    },
    { signal },
  );
  if (args.json === true) printJson(io.stdout, report);
  else io.stdout.write(doctorText(report));
  return report.ok ? 0 : 1;
}

/** The report as text: a header per provider, then one line per check and a fix line per failure. */
export function doctorText(report: DoctorReport): string {
  const width = Math.max(0, ...report.providers.flatMap((p) => p.checks.map((c) => c.title.length)));
  const blocks = report.providers.map((p) => {
    const lines = [`${p.ok ? '✓' : '✗'} ${p.provider} (${p.displayName})`];
    for (const c of p.checks) {
      // a detail of several lines (a screen's last lines) stays under its column
      const detail = (c.detail ?? '').replaceAll('\n', `\n${' '.repeat(width + 6)}`);
      lines.push(`  ${MARK[c.status]} ${c.title.padEnd(width)}  ${detail}`.trimEnd());
      if (c.status === 'fail' && c.hint) lines.push(`    ${''.padEnd(width)}  fix: ${c.hint}`);
    }
    return lines.join('\n');
  });
  for (const u of report.unloaded ?? []) blocks.push(`✗ ${u.package} could not be loaded: ${u.reason}`);
  const sb = report.sandbox;
  if (sb)
    blocks.push(
      sb.available ? '✓ sandbox: --sandbox works here' : `– sandbox: --sandbox cannot be had here: ${sb.detail ?? ''}${sb.hint ? `\n    fix: ${sb.hint}` : ''}`,
    );
  const passed = report.providers.filter((p) => p.ok).length;
  const summary = report.providers.length === 0 ? 'no provider checked' : `${passed} of ${report.providers.length} provider(s) pass`;
  return `${blocks.join('\n\n')}\n\n${summary}${report.turn ? '' : ' (no model call made; --turn runs one tiny turn)'}\n`;
}
