/** Small shared helpers (internal). */
import { AbortedError } from '../contract/errors.js';

/** Sleep, rejecting with AbortedError when the signal fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The last `n` non-empty-trailing lines of a screen. */
export function tailLines(text: string, n: number): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  return lines.slice(-n).join('\n');
}

/** Keep the end of a long text, marking the cut. */
export function tailText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `…${text.slice(text.length - maxChars + 1)}`;
}

/** Run `fn` over items with at most `limit` in flight. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  });
  await Promise.all(workers);
  return out;
}

/** `70000` → `1m10s`, `1500` → `1.5s`, `5400000` → `1h30m`: exact enough to read back. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10}s`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n}${unit}`);
  }
  return parts.slice(0, 2).join('');
}

/** setTimeout caps a delay at 2^31-1 ms (~24.8 days) and fires at once beyond it; this re-arms until `ms` passed. */
export function longTimeout(fn: () => void, ms: number): () => void {
  const MAX = 2 ** 31 - 1;
  const until = Date.now() + Math.max(0, ms);
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = until - Date.now();
    timer = setTimeout(left > MAX ? arm : fn, Math.min(Math.max(0, left), MAX));
  };
  arm();
  return () => clearTimeout(timer);
}

/** The last `n` lines that are not blank, with trailing blank lines dropped (evidence of what a CLI showed). */
export function lastNonBlankLines(text: string, n: number): string {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-n)
    .join('\n');
}
