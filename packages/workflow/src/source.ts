/**
 * The workflow file as YAML, with bounds for hostile input: at most 1 MiB of text (read without
 * ever holding more), at most 100 alias expansions (an alias bomb is refused, not expanded), and at
 * most 256 levels of nesting (checked before the parser's recursive part runs). Every refusal is a `WorkflowInvalidError`.
 */
import { open } from 'node:fs/promises';
import { UsageError, WorkflowInvalidError } from '@umbel/core';
import { Composer, type CST, isAlias, isMap, isPair, isScalar, isSeq, LineCounter, type Node, Parser, type parseDocument, YAMLParseError } from 'yaml';

/** A document as the yaml package's `parseDocument` returns it. */
type YamlDocument = ReturnType<typeof parseDocument>;

/** Largest workflow file: 1 MiB. */
export const MAX_WORKFLOW_BYTES = 1024 * 1024;
/**
 * Deepest nesting of collections in a workflow file: far past any workflow, far below where the
 * `yaml` package's composer runs out of stack (it recurses; 1,000 levels overflowed it cold, and
 * repeated overflows in one process aborted node).
 */
export const MAX_YAML_DEPTH = 256;
/** Most alias expansions in a workflow file (the `yaml` package's `maxAliasCount`). */
export const MAX_ALIAS_EXPANSIONS = 100;
const LIMIT = `a workflow file is at most 1 MiB (${MAX_WORKFLOW_BYTES} bytes)`;

/**
 * Read a workflow file (a regular file, a pipe such as `<(…)`, anything `open` can read), never
 * more than the limit plus one byte.
 * @throws UsageError when it cannot be read; WorkflowInvalidError when it is larger than 1 MiB.
 */
export async function readWorkflowFile(path: string): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    const handle = await open(path, 'r');
    try {
      while (total <= MAX_WORKFLOW_BYTES) {
        const buffer = Buffer.allocUnsafe(Math.min(64 * 1024, MAX_WORKFLOW_BYTES + 1 - total));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        chunks.push(buffer.subarray(0, bytesRead));
        total += bytesRead;
      }
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new UsageError(`cannot read workflow file ${path}: ${(error as Error).message}`);
  }
  if (total > MAX_WORKFLOW_BYTES) throw tooLarge(`${path} is more than 1 MiB`);
  return Buffer.concat(chunks, total).toString('utf8');
}

function tooLarge(what: string): WorkflowInvalidError {
  return new WorkflowInvalidError(`invalid workflow: ${what}; ${LIMIT}`, [{ path: '', message: `${what}; ${LIMIT}` }]);
}

/** A parsed YAML document, its plain value, and what locates a place in it. */
export interface YamlSource {
  readonly doc: YamlDocument;
  readonly lineCounter: LineCounter;
  readonly value: unknown;
}

/**
 * Parse `text` as one YAML document and convert it to plain values.
 * @throws WorkflowInvalidError for a file over 1 MiB, a syntax error, or aliases that expand
 *   too often (or before their anchor).
 */
export function loadYaml(text: string, where: string): YamlSource {
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_WORKFLOW_BYTES) throw tooLarge(`${where} is ${bytes} bytes`);
  const lineCounter = new LineCounter();
  const tokens = [...new Parser(lineCounter.addNewLine).parse(text)];
  const deep = tooDeepAt(tokens);
  if (deep !== undefined) {
    const pos = lineCounter.linePos(deep);
    const message = `${where}:${pos.line}:${pos.col}: the YAML is nested more than ${MAX_YAML_DEPTH} levels deep`;
    throw new WorkflowInvalidError(`invalid workflow: not valid YAML: ${message}`, [{ path: '', message }]);
  }
  const doc = composeOne(tokens, text.length);
  const errors = [...syntaxErrors(doc.errors), ...(doc.errors.length === 0 ? duplicateKeys(doc) : [])];
  if (errors.length > 0) {
    const lines = errors.map((e) => {
      const pos = lineCounter.linePos(e.at);
      return `${where}:${pos.line}:${pos.col}: ${e.message}`;
    });
    throw new WorkflowInvalidError(
      `invalid workflow: not valid YAML: ${lines.join('\n')}`,
      lines.map((message) => ({ path: '', message })),
    );
  }
  try {
    return { doc, lineCounter, value: doc.toJS({ maxAliasCount: MAX_ALIAS_EXPANSIONS }) };
  } catch (error) {
    throw aliasError(doc, lineCounter, where, error);
  }
}

/** The yaml package's words for a second document (parseDocument's). */
const MULTIPLE_DOCS = 'Source contains multiple documents; please use YAML.parseAllDocuments()';

/**
 * The first document of `tokens`, as the yaml package's `parseDocument` composes it, a second one
 * an error. The package's own duplicate-key check compares each key with every earlier one
 * (quadratic in a map's size); duplicateKeys does the same check in one pass.
 */
function composeOne(tokens: readonly CST.Token[], length: number): YamlDocument {
  const composer = new Composer({ prettyErrors: false, uniqueKeys: false, logLevel: 'error' });
  let doc: YamlDocument | undefined;
  for (const next of composer.compose(tokens, true, length)) {
    if (doc) {
      doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', MULTIPLE_DOCS));
      break;
    }
    doc = next as YamlDocument; // (parseDocument types its result the same way)
  }
  return doc as YamlDocument; // compose(…, forceDoc: true) yields one at the least
}

/**
 * Where the first collection nested deeper than {@link MAX_YAML_DEPTH} starts, read from the `yaml`
 * package's syntax tree (which it builds without recursion; this walk has none either).
 */
function tooDeepAt(tokens: readonly CST.Token[]): number | undefined {
  const stack: [CST.Token, number][] = tokens.map((token) => [token, 0]);
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [token, depth] = next;
    if (token.type === 'document' && token.value) stack.push([token.value, depth]);
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection') continue;
    if (depth >= MAX_YAML_DEPTH) return token.offset;
    for (const item of token.items) {
      if ('key' in item && item.key) stack.push([item.key, depth + 1]);
      if (item.value) stack.push([item.value, depth + 1]);
    }
  }
  return undefined;
}

const NESTED_TOO_DEEPLY = 'the YAML is nested too deeply';

/**
 * The yaml package's errors, one line each. A stack overflow is said once, where it was first met:
 * the package reports it at one or at several depths as the stack unwinds (1, 2, 4… errors of one
 * document, differing from one parse to the next).
 */
export function syntaxErrors(errors: readonly { readonly pos: readonly [number, number]; readonly message: string }[]): { at: number; message: string }[] {
  const lines = errors.map((e) => ({
    at: e.pos[0],
    message: /Maximum call stack size exceeded/.test(e.message) ? NESTED_TOO_DEEPLY : (e.message.split('\n')[0] as string),
  }));
  const first = lines.find((e) => e.message === NESTED_TOO_DEEPLY);
  return first ? [first, ...lines.filter((e) => e.message !== NESTED_TOO_DEEPLY)] : lines;
}

/** Every node of the document, depth first, without recursion (the document may nest deeply). */
function* nodesOf(doc: YamlDocument): Generator<Node> {
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isMap(node) || isSeq(node)) {
      yield node;
      for (let i = node.items.length - 1; i >= 0; i--) {
        const item: unknown = node.items[i];
        if (isPair(item)) stack.push(item.value, item.key);
        else stack.push(item);
      }
    } else if (isScalar(node) || isAlias(node)) yield node;
  }
}

/** `Map keys must be unique`, at each repeated key (scalar keys compared by value, as the yaml package does). */
function duplicateKeys(doc: YamlDocument): { at: number; message: string }[] {
  const found: { at: number; message: string }[] = [];
  for (const node of nodesOf(doc)) {
    if (!isMap(node)) continue;
    const seen = new Set<unknown>();
    for (const pair of node.items) {
      if (!isScalar(pair.key)) continue;
      if (seen.has(pair.key.value)) found.push({ at: pair.key.range?.[0] ?? 0, message: 'Map keys must be unique' });
      seen.add(pair.key.value);
    }
  }
  return found;
}

/** The error for a document that cannot be converted: an alias bomb, an alias before its anchor, nesting too deep. */
function aliasError(doc: YamlDocument, lineCounter: LineCounter, where: string, error: unknown): WorkflowInvalidError {
  const message = error instanceof Error ? error.message : String(error);
  const source = /^Unresolved alias.*: (.*)$/.exec(message)?.[1];
  let node: Node | undefined;
  for (const n of nodesOf(doc)) {
    if (!isAlias(n)) continue;
    node ??= n;
    if (n.source === source) {
      node = n;
      break;
    }
    if (source === undefined) break;
  }
  const pos = lineCounter.linePos(node?.range?.[0] ?? 0);
  const what = /Excessive alias count/.test(message)
    ? `the YAML expands its aliases too often (more than ${MAX_ALIAS_EXPANSIONS} times: an alias bomb?); write the repeated values out`
    : source !== undefined
      ? `the alias *${source} comes before its anchor &${source}`
      : error instanceof RangeError
        ? NESTED_TOO_DEEPLY
        : `the YAML cannot be read: ${message}`;
  const line = `${where}:${pos.line}:${pos.col}: ${what}`;
  return new WorkflowInvalidError(`invalid workflow: ${line}`, [{ path: '', message: line }]);
}
