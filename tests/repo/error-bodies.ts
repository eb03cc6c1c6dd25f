/**
 * One error body for every face: core's `errorBody` (packages/core/src/contract/error-body.ts) over
 * `UmbelError.toJSON()` (packages/provider/src/errors.ts). A face that builds a body itself — calls
 * `toJSON()`, writes the internal code, reads a fact through a cast, copies an error's code and
 * message into an object — drifts from the others; this finds it.
 */

/** The two files that own the body. */
export const BODY_OWNERS: readonly string[] = ['packages/provider/src/errors.ts', 'packages/core/src/contract/error-body.ts'];

const RULES: readonly { readonly what: string; readonly pattern: RegExp }[] = [
  { what: 'calls toJSON() (use errorBody)', pattern: /\.toJSON\(\)/ },
  { what: "writes the internal code itself (errorBody's for a bug)", pattern: /['"`]UMBEL_INTERNAL['"`]/ },
  { what: 'reads an error fact through a cast (the body carries it)', pattern: /\b(?:error|err|e) as \{ *(?:readonly +)?(?:paneTail|issues)\??:/ },
  { what: "copies an error's code and message into a body", pattern: /code: *(error|err|e)\.code\b[^;]{0,120}message: *\1\.message\b/ },
];

/** Every hand-built error body in `files` (non-test sources), as `path:line: what`. */
export function findHandBuiltErrorBodies(files: readonly { readonly path: string; readonly text: string }[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    if (BODY_OWNERS.includes(file.path) || /\.test\.ts$/.test(file.path)) continue;
    const lines = file.text.split('\n');
    for (const [i, line] of lines.entries()) {
      for (const rule of RULES) if (rule.pattern.test(line)) found.push(`${file.path}:${i + 1}: ${rule.what}`);
    }
  }
  return found;
}
