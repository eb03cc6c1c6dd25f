/**
 * A unified diff of two texts by lines (Myers' O(ND) algorithm), with three lines of context. Pure.
 * Used by `diff --text` to compare two turns' answers.
 */

type Op = { readonly kind: ' ' | '-' | '+'; readonly line: string };

/** The shortest edit script from `a` to `b` (Myers 1986, with the trace kept to walk back). */
function editScript(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  let v: Int32Array = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  outer: for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number));
      let x = down ? (v[offset + k + 1] as number) : (v[offset + k - 1] as number) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) break outer;
    }
  }
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    v = trace[d] as Int32Array;
    const k = x - y;
    const down = k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number));
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[offset + prevK] as number;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      ops.push({ kind: ' ', line: a[x] as string });
    }
    if (d > 0) {
      if (down) ops.push({ kind: '+', line: b[--y] as string });
      else ops.push({ kind: '-', line: a[--x] as string });
    }
  }
  return ops.reverse();
}

function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** A unified diff of `a` → `b` labelled `from`/`to`; '' when the texts are equal. */
export function unifiedDiff(a: string, b: string, labels: { from: string; to: string }, context = 3): string {
  if (a === b) return '';
  const ops = editScript(linesOf(a), linesOf(b));
  const out = [`--- ${labels.from}`, `+++ ${labels.to}`];
  let i = 0;
  // line numbers (1-based) in a and b at op i
  const posA: number[] = [];
  const posB: number[] = [];
  let la = 1;
  let lb = 1;
  for (const op of ops) {
    posA.push(la);
    posB.push(lb);
    if (op.kind !== '+') la++;
    if (op.kind !== '-') lb++;
  }
  while (i < ops.length) {
    while (i < ops.length && ops[i]?.kind === ' ') i++;
    if (i >= ops.length) break;
    const start = Math.max(0, i - context);
    let end = i;
    // extend the hunk while changes are closer than 2×context apart
    for (let j = i; j < ops.length; j++) {
      if (ops[j]?.kind !== ' ') end = j;
      else if (j - end > 2 * context) break;
    }
    const stop = Math.min(ops.length, end + context + 1);
    const hunk = ops.slice(start, stop);
    const countA = hunk.filter((op) => op.kind !== '+').length;
    const countB = hunk.filter((op) => op.kind !== '-').length;
    const fromA = countA === 0 ? (posA[start] as number) - 1 : (posA[start] as number);
    const fromB = countB === 0 ? (posB[start] as number) - 1 : (posB[start] as number);
    out.push(`@@ -${fromA},${countA} +${fromB},${countB} @@`);
    for (const op of hunk) out.push(`${op.kind}${op.line}`);
    i = stop;
  }
  return `${out.join('\n')}\n`;
}
