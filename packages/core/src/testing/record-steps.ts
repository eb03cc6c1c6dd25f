/**
 * The pure half of `recordConformance`: what a recording run saw (hook event files, transcript text,
 * the screens umbel's startup looked at) put in the order it happened, as a scenario's steps.
 */
import type { RecordedStep } from './recording.js';

/** One thing seen, with when (wall-clock nanoseconds) and its rank among things of the same instant. */
export interface TimedStep {
  readonly at: bigint;
  /** Same instant: a transcript line (0) before a hook (1) before a screen (2) before its keys (3). */
  readonly rank: number;
  readonly step: RecordedStep;
}

/** A screen umbel's startup handed to the provider, as the observed provider wrote it down. */
export interface ObservedScreen {
  readonly at: string;
  readonly screen: string;
  readonly state: { readonly state: string; readonly keys?: readonly string[] };
}

/** Hook event files (`<ns>-<pid>-<kind>.json`) of the kinds given, with their payloads (umbel's own events left out). */
export function hookSteps(files: ReadonlyArray<{ readonly name: string; readonly text: string }>, kinds: ReadonlySet<string>): TimedStep[] {
  return [...files]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap(({ name, text }) => {
      const m = /^(\d+)-\d+-(.+)\.json$/.exec(name);
      if (!m?.[1] || !m[2] || !kinds.has(m[2])) return [];
      return [{ at: BigInt(m[1]), rank: 1, step: { hook: { kind: m[2], payload: JSON.parse(text) } } }];
    });
}

/** Transcript text as steps, one per line, timed by the line's `at` (a line without one takes the previous time). */
export function transcriptSteps(text: string): TimedStep[] {
  let at = 0n;
  return text
    .split(/(?<=\n)/)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const stamp = Date.parse((JSON.parse(line) as { at?: string }).at ?? '');
      if (Number.isFinite(stamp)) at = BigInt(stamp) * 1_000_000n;
      return { at, rank: 0, step: { transcript: line } };
    });
}

/** The screens umbel's startup looked at: each change once, a dialog followed by the keys that answered it. */
export function screenSteps(observed: readonly ObservedScreen[]): TimedStep[] {
  const items: TimedStep[] = [];
  for (const [i, seen] of observed.entries()) {
    const next = observed[i + 1];
    if (observed[i - 1]?.screen !== seen.screen) items.push({ at: BigInt(seen.at), rank: 2, step: { screen: seen.screen } });
    if (next?.screen !== seen.screen && seen.state.state === 'dialog') items.push({ at: BigInt(seen.at) + 1n, rank: 3, step: { keys: seen.state.keys ?? [] } });
  }
  return items;
}

/** Steps in time order (a transcript line before a hook of the same instant), adjacent transcript lines joined. */
export function orderSteps(items: readonly TimedStep[]): RecordedStep[] {
  const out: RecordedStep[] = [];
  const sorted = [...items].sort((a, b) => (a.at === b.at ? a.rank - b.rank : a.at < b.at ? -1 : 1));
  for (const { step } of sorted) {
    const last = out.at(-1);
    if (step.transcript !== undefined && last?.transcript !== undefined) out[out.length - 1] = { transcript: last.transcript + step.transcript };
    else out.push(step);
  }
  return out;
}

/** The recording with the scratch cwd and the transcript path replaced by `{{cwd}}` and `{{transcript}}`. */
export function withPlaceholders<T>(value: T, paths: { readonly cwd: string; readonly transcript?: string }): T {
  let text = JSON.stringify(value);
  if (paths.transcript) text = text.split(paths.transcript).join('{{transcript}}');
  return JSON.parse(text.split(paths.cwd).join('{{cwd}}')) as T;
}
