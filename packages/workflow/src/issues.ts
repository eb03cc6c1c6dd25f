/**
 * Validation problems, located in the workflow file (`file:line:col: what is wrong`), collected
 * from every check and thrown once as a single `WorkflowInvalidError`.
 */
import { WorkflowInvalidError } from '@umbel/core';
import { isMap, isPair, isScalar, isSeq, type LineCounter, type Node, type Pair, type parseDocument, type YAMLMap } from 'yaml';

/** A path into the workflow document (`['steps', 1, 'prompt']`). */
export type SpecPath = readonly (string | number)[];

/** One validation problem, located in the file. */
export interface WorkflowIssue {
  readonly path: string;
  readonly line: number;
  readonly col: number;
  readonly message: string;
}

/** Where to point inside the node at a path: its key, or the nth occurrence of a text in it. */
export interface LocateOptions {
  readonly key?: boolean;
  readonly needle?: string;
  readonly occurrence?: number;
}

/** Line and column (1-based) of a path in the document; the closest existing node when the path is missing. */
export type Locate = (path: SpecPath, options?: LocateOptions) => { line: number; col: number };

/** Problems listed in the error message; the error's `issues` hold them all. */
export const MAX_LISTED_ISSUES = 100;
/** Problems located to the exact text inside a prompt; later ones point at the prompt (bounds the work on hostile files). */
const MAX_NEEDLE_SEARCHES = 200;

/** Collects issues and throws them as one WorkflowInvalidError. */
export class IssueList {
  readonly issues: WorkflowIssue[] = [];
  readonly locate: Locate;
  private readonly file: string | undefined;
  private needleSearches = 0;
  constructor(file: string | undefined, locate: Locate) {
    this.file = file;
    this.locate = locate;
  }

  /** Add an issue at `path`. */
  add(path: SpecPath, message: string, options?: LocateOptions): void {
    let at = options;
    if (at?.needle !== undefined && ++this.needleSearches > MAX_NEEDLE_SEARCHES) at = { ...at, needle: undefined };
    const { line, col } = this.locate(path, at);
    this.issues.push({ path: path.map((p) => String(p)).join('.'), line, col, message });
  }

  /** Throw when there is any issue: the message lists them in file order (the first 100), `issues` has them all. */
  throwIfAny(): void {
    if (this.issues.length === 0) return;
    const sorted = [...this.issues].sort((a, b) => a.line - b.line || a.col - b.col);
    const where = this.file ?? 'workflow';
    const located = sorted.map((i) => `${where}:${i.line}:${i.col}: ${i.message}`);
    const head = sorted.length === 1 ? 'invalid workflow' : `invalid workflow (${sorted.length} problems)`;
    const listed = located.slice(0, MAX_LISTED_ISSUES);
    if (located.length > listed.length) listed.push(`… and ${located.length - listed.length} more problems`);
    throw new WorkflowInvalidError(
      `${head}: ${listed.join('\n')}`,
      sorted.map((i, n) => ({ path: i.path, message: located[n] as string })),
    );
  }
}

/** The pair of `map` whose key is `key` (indexed once per map, so many lookups stay linear). */
function pairOf(index: WeakMap<YAMLMap, Map<string, Pair>>, map: YAMLMap, key: string): Pair | undefined {
  let byKey = index.get(map);
  if (!byKey) {
    byKey = new Map();
    for (const p of map.items) if (isPair(p) && isScalar(p.key) && !byKey.has(String(p.key.value))) byKey.set(String(p.key.value), p);
    index.set(map, byKey);
  }
  return byKey.get(key);
}

/** A `Locate` over a parsed document. */
export function makeLocator(doc: ReturnType<typeof parseDocument>, text: string, lineCounter: LineCounter): Locate {
  const index = new WeakMap<YAMLMap, Map<string, Pair>>();
  return (path, options = {}) => {
    let node: unknown = doc.contents;
    let offset = (doc.contents as Node | null)?.range?.[0] ?? 0;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i];
      if (isMap(node)) {
        const pair = pairOf(index, node, String(seg));
        if (!pair) break;
        const keyNode = pair.key as Node;
        if (i === path.length - 1 && options.key) {
          offset = keyNode.range?.[0] ?? offset;
          node = undefined;
          break;
        }
        const value = pair.value as Node | null;
        if (value?.range && !(isScalar(value) && value.value === null && value.range[0] === value.range[1])) {
          node = value;
          offset = value.range[0];
        } else {
          node = undefined;
          offset = keyNode.range?.[0] ?? offset;
          break;
        }
      } else if (isSeq(node)) {
        const item = node.items[Number(seg)] as Node | undefined;
        if (!item?.range) break;
        node = item;
        offset = item.range[0];
      } else {
        break;
      }
    }
    if (options.needle && node && (node as Node).range) {
      const range = (node as Node).range as [number, number, number];
      const source = text.slice(range[0], range[1]);
      let at = -1;
      for (let n = 0; n <= (options.occurrence ?? 0); n++) {
        at = source.indexOf(options.needle, at + 1);
        if (at === -1) break;
      }
      if (at !== -1) offset = range[0] + at;
    }
    return lineCounter.linePos(offset);
  };
}
