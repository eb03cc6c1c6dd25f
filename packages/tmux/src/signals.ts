import { constants } from 'node:os';

const byNumber = new Map<number, string>();
for (const [name, number] of Object.entries(constants.signals)) {
  if (!byNumber.has(number)) byNumber.set(number, name);
}

/**
 * Normalise a signal as tmux or a shell prints it (`15`, `term`, `TERM`, `SIGTERM`) to the `SIGTERM`
 * form, using this platform's signal table for numbers. Returns undefined for an empty or unknown value.
 */
export function normalizeSignal(raw: string | number | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n > 0 ? (byNumber.get(n) ?? `SIG${n}`) : undefined;
  }
  const upper = text.toUpperCase();
  const name = upper.startsWith('SIG') ? upper : `SIG${upper}`;
  return /^SIG[A-Z0-9+-]+$/.test(name) ? name : undefined;
}
