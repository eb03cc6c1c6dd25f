/**
 * Prompt templating — exactly four forms and nothing more:
 * `{{ steps.ID.output }}` (the step's accepted answer), `{{ steps.ID.outputs.KEY }}`,
 * `{{ vars.K }}` and `{{ env.X }}`. Whitespace inside the braces is optional. Substitution is a
 * single pass: text inserted from an answer is never expanded again.
 */

/** One template reference found in a text. */
export type TemplateRef =
  | { readonly kind: 'output'; readonly step: string; readonly raw: string; readonly index: number }
  | { readonly kind: 'outputs'; readonly step: string; readonly key: string; readonly raw: string; readonly index: number }
  | { readonly kind: 'vars'; readonly name: string; readonly raw: string; readonly index: number }
  | { readonly kind: 'env'; readonly name: string; readonly raw: string; readonly index: number };

/** A `{{ … }}` that is not one of the four forms. */
export interface TemplateSyntaxProblem {
  readonly raw: string;
  readonly index: number;
  readonly message: string;
}

const OPEN_RE = /\{\{([\s\S]*?)\}\}/g;
const FORMS: readonly [RegExp, (m: RegExpExecArray) => Omit<TemplateRef, 'raw' | 'index'>][] = [
  [/^steps\.([A-Za-z0-9_][A-Za-z0-9_-]*)\.output$/, (m) => ({ kind: 'output', step: m[1] as string })],
  [/^steps\.([A-Za-z0-9_][A-Za-z0-9_-]*)\.outputs\.([A-Za-z_][A-Za-z0-9_-]*)$/, (m) => ({ kind: 'outputs', step: m[1] as string, key: m[2] as string })],
  [/^vars\.([A-Za-z_][A-Za-z0-9_-]*)$/, (m) => ({ kind: 'vars', name: m[1] as string })],
  [/^env\.([A-Za-z_][A-Za-z0-9_]*)$/, (m) => ({ kind: 'env', name: m[1] as string })],
];

/** The accepted forms, for error messages. */
export const TEMPLATE_FORMS = '{{ steps.ID.output }}, {{ steps.ID.outputs.KEY }}, {{ vars.K }} or {{ env.X }}';

/** Find every template reference in `text`, and every `{{ … }}` that is not a valid one. */
export function scanTemplates(text: string): { refs: TemplateRef[]; problems: TemplateSyntaxProblem[] } {
  const refs: TemplateRef[] = [];
  const problems: TemplateSyntaxProblem[] = [];
  let lastEnd = 0;
  for (const match of text.matchAll(OPEN_RE)) {
    const raw = match[0];
    const index = match.index ?? 0;
    const inner = (match[1] ?? '').trim();
    lastEnd = index + raw.length;
    let found = false;
    for (const [re, make] of FORMS) {
      const m = re.exec(inner);
      if (m) {
        refs.push({ ...make(m), raw, index } as TemplateRef);
        found = true;
        break;
      }
    }
    if (!found) problems.push({ raw, index, message: `'${raw}' is not a template; use ${TEMPLATE_FORMS}` });
  }
  const open = text.indexOf('{{', lastEnd);
  if (open !== -1) problems.push({ raw: '{{', index: open, message: `'{{' is never closed with '}}'; templates are ${TEMPLATE_FORMS}` });
  return { refs, problems };
}

/** Values available to a prompt. */
export interface TemplateContext {
  readonly steps: Readonly<Record<string, { readonly output?: string; readonly outputs?: Readonly<Record<string, string>> }>>;
  readonly vars: Readonly<Record<string, string>>;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Substitute every reference in `text`. Returns the rendered text, or the first reference that
 * has no value (validation makes that impossible for a validated workflow; kept as a guard).
 */
export function renderTemplate(text: string, context: TemplateContext): { ok: true; text: string } | { ok: false; missing: string } {
  let missing: string | undefined;
  const rendered = text.replace(OPEN_RE, (raw) => {
    const { refs } = scanTemplates(raw);
    const ref = refs[0];
    let value: string | undefined;
    if (ref?.kind === 'output') value = context.steps[ref.step]?.output;
    else if (ref?.kind === 'outputs') value = context.steps[ref.step]?.outputs?.[ref.key];
    else if (ref?.kind === 'vars') value = context.vars[ref.name];
    else if (ref?.kind === 'env') value = context.env[ref.name];
    if (value === undefined) {
      missing ??= raw;
      return raw;
    }
    return value;
  });
  return missing === undefined ? { ok: true, text: rendered } : { ok: false, missing };
}
