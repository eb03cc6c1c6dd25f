/** Compiling a CLI's screen tables into the ProviderV1 screen members. Pure. */
import type { HookEvent, ProviderV1AccountScreen, ProviderV1StartupState } from '../spec.js';
import type { DialogFact, FatalFact, InputBoxFacts, InputBoxTable, ScreenFacts } from './facts.js';
import { findLine, type Matcher, matchedText, matches, trimBox } from './matchers.js';

/** The fatal message on the screen, or undefined. */
export function fatalOf(facts: readonly FatalFact[], screen: string): string | undefined {
  for (const fact of facts) {
    const line = findLine(screen, fact.match);
    if (line === undefined) continue;
    if (typeof fact.message === 'function') return fact.message(line.trim());
    return fact.message ?? matchedText(fact.match, line).trim();
  }
  return undefined;
}

/** The sign-in line on the screen (trimmed of box borders), or undefined. */
export function signInOf(markers: readonly Matcher[], screen: string): string | undefined {
  for (const marker of markers) {
    const line = findLine(screen, marker);
    if (line !== undefined) return trimBox(line);
  }
  return undefined;
}

/** The first account dialog on the screen, with its line (trimmed of box borders), or undefined. */
export function accountScreenOf(facts: NonNullable<ScreenFacts['account']>, screen: string): ProviderV1AccountScreen | undefined {
  for (const fact of facts) {
    const line = findLine(screen, fact.match);
    if (line === undefined) continue;
    const message = fact.message ? fact.message(trimBox(line)) : trimBox(line);
    return { kind: fact.kind, message, ...(fact.answer ? { answer: fact.answer } : {}) };
  }
  return undefined;
}

function isEmptyText(facts: InputBoxTable, text: string): boolean {
  return text === '' || (facts.empty ?? []).some((e) => (typeof e === 'string' ? e === text : matches(e, text)));
}

/**
 * The text in the input box: `''` when it is empty (or shows a placeholder), undefined when no box
 * is drawn. The box nearest the bottom of the screen counts (history above may echo prompts).
 */
export function readInputBox(facts: InputBoxFacts, screen: string): string | undefined {
  if ('read' in facts) return facts.read(screen);
  const lines = screen.split('\n');
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const first = facts.start.exec(lines[i] ?? '');
    if (!first) continue;
    if (facts.above !== undefined && (i === 0 || !matches(facts.above, lines[i - 1] ?? ''))) continue;
    const end = facts.end === undefined ? lines.length : lines.findIndex((line, j) => j > i && matches(facts.end as Matcher, line));
    if (end === -1) continue;
    const body = [(first[1] ?? '').trimEnd(), ...lines.slice(i + 1, end).map((line) => line.trim())];
    const text = body.join('\n').trim();
    return isEmptyText(facts, text) ? '' : text;
  }
  return undefined;
}

function dialogApplies(dialog: DialogFact, envNames: readonly string[]): boolean {
  if (dialog.ifEnv && !dialog.ifEnv.some((name) => envNames.includes(name))) return false;
  if (dialog.unlessEnv?.some((name) => envNames.includes(name))) return false;
  return true;
}

/** Classify a startup screen: fatal, sign-in, dialogs, ready, else starting. */
export function classifyStartup(
  facts: ScreenFacts,
  input: { readonly screen: string; readonly events: readonly HookEvent[]; readonly envNames?: readonly string[] },
): ProviderV1StartupState {
  const { screen } = input;
  const envNames = input.envNames ?? [];
  const fatal = fatalOf(facts.fatal ?? [], screen);
  if (fatal !== undefined) return { state: 'fatal', message: fatal };
  const signIn = signInOf(facts.signIn ?? [], screen);
  if (signIn !== undefined) return { state: 'sign-in', line: signIn };
  const dialog = (facts.dialogs ?? []).find((d) => dialogApplies(d, envNames) && matches(d.match, screen));
  if (dialog) return { state: 'dialog', id: dialog.id, keys: dialog.keys };
  const { hook, inputBox, screen: looks } = facts.ready;
  if (hook !== undefined && !input.events.some((e) => e.kind === hook)) return { state: 'starting' };
  if (inputBox && (!facts.inputBox || readInputBox(facts.inputBox, screen) === undefined)) return { state: 'starting' };
  if (looks !== undefined && !matches(looks, screen)) return { state: 'starting' };
  return { state: 'ready' };
}
