/**
 * Errors and outcomes once. One error body for every face: core's `errorBody` (packages/core/src/contract/error-body.ts) over
 * `UmbelError.toJSON()` (packages/provider/src/errors.ts). A face that builds a body itself — calls
 * `toJSON()`, writes the internal code, reads a fact through a cast, copies an error's code and
 * message into an object — drifts from the others; this finds it. Likewise one outcome constructor
 * (core's `outcomeOf`, packages/core/src/contract/outcome.ts) and one module of exit-code tables
 * (packages/core/src/contract/exit-codes.ts).
 */

/** The two files that own the body. */
export const BODY_OWNERS: readonly string[] = ['packages/provider/src/errors.ts', 'packages/core/src/contract/error-body.ts'];

type Rule = { readonly what: string; readonly pattern: RegExp };

const RULES: readonly Rule[] = [
  { what: 'calls toJSON() (use errorBody)', pattern: /\.toJSON\(\)/ },
  { what: "writes the internal code itself (errorBody's for a bug)", pattern: /['"`]UMBEL_INTERNAL['"`]/ },
  { what: 'reads an error fact through a cast (the body carries it)', pattern: /\b(?:error|err|e) as \{ *(?:readonly +)?(?:paneTail|issues)\??:/ },
  { what: "copies an error's code and message into a body", pattern: /code: *(error|err|e)\.code\b[^;]{0,120}message: *\1\.message\b/ },
];

type SourceFile = { readonly path: string; readonly text: string };

/** Every hand-built error body in `files` (non-test sources), as `path:line: what`. */
export function findHandBuiltErrorBodies(files: readonly SourceFile[]): string[] {
  return findAll(files, BODY_OWNERS, RULES);
}

/** The module of the exit-code tables and the outcome constructor. */
export const OUTCOME_OWNERS: readonly string[] = ['packages/core/src/contract/exit-codes.ts', 'packages/core/src/contract/outcome.ts'];

/**
 * Exit codes an outcome's table gives to what is not an outcome: a fleet event's `ended` (the
 * outcome's code, as the ledger recorded its reason) and a workflow's failure of a step never run.
 */
const NOT_OUTCOMES: readonly string[] = ['packages/core/src/ledger/fleet-events.ts', 'packages/workflow/src/run.ts'];

const OUTCOME_RULES: readonly Rule[] = [
  { what: 'declares an exit-code table (core has them all)', pattern: /\bconst \w*EXIT_CODES?\b *[:=]/ },
  { what: 'sets an exit code from the outcome table itself (use outcomeOf)', pattern: /exitCode: *OUTCOME_EXIT_CODES\b/ },
];

/** Every outcome built by hand and every exit-code table outside core's, as `path:line: what`. */
export function findHandBuiltOutcomes(files: readonly SourceFile[]): string[] {
  return findAll(files, [...OUTCOME_OWNERS, ...NOT_OUTCOMES], OUTCOME_RULES);
}

function findAll(files: readonly SourceFile[], owners: readonly string[], rules: readonly Rule[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    if (owners.includes(file.path) || /\.test\.ts$/.test(file.path)) continue;
    const lines = file.text.split('\n');
    for (const [i, line] of lines.entries()) {
      for (const rule of rules) if (rule.pattern.test(line)) found.push(`${file.path}:${i + 1}: ${rule.what}`);
    }
  }
  return found;
}
