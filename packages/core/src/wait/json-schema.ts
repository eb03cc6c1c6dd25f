/**
 * The guardrail's JSON Schema side: load a schema file once (a clear usage error when it cannot be
 * read or used), validate answers with ajv (or a validator the embedder supplies), and find the
 * JSON in an answer.
 */
import { readStateFile } from '../engine/state-file.js';
import { createRequire } from 'node:module';
import { resolve as resolvePath } from 'node:path';
import { UmbelError, UmbelErrorCode, UsageError } from '../contract/errors.js';
import type { JsonSchemaValidator } from '../contract/umbel.js';

/** The default JSON Schema validator (ajv, all errors). */
export const ajvValidator: JsonSchemaValidator = (schema, value) => {
  // ajv is loaded on first use (it is CommonJS, so require() works synchronously).
  const require = createRequire(import.meta.url);
  const { Ajv } = require('ajv') as typeof import('ajv');
  const { Ajv2020 } = require('ajv/dist/2020') as typeof import('ajv/dist/2020');
  const draft = typeof schema === 'object' && schema !== null ? String((schema as { $schema?: unknown }).$schema ?? '') : '';
  const ajv = /2020-12|2019-09/.test(draft) ? new Ajv2020({ allErrors: true, strict: false }) : new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(schema as object);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
};

/** Extract a JSON value from an answer: the whole text, or the first fenced block. */
export function extractJson(answer: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const candidates = [answer.trim()];
  const fence = /```(?:json|JSON)?\s*\n([\s\S]*?)\n?```/.exec(answer);
  if (fence?.[1] !== undefined) candidates.push(fence[1].trim());
  for (const text of candidates) {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch {
      // try the next candidate
    }
  }
  return { ok: false, error: 'the answer is not JSON (neither the whole answer nor a ```json fenced block parses)' };
}

/** Read, parse and compile-check the schema file of `--schema`. */
export async function loadJsonSchema(file: string, validate: JsonSchemaValidator): Promise<unknown> {
  const path = resolvePath(file);
  const invalid = (why: string) => new UsageError(`--schema ${file}: ${why}`, { code: UmbelErrorCode.CheckInvalid });
  let text: string;
  try {
    text = await readStateFile(path);
  } catch (error) {
    throw invalid(`cannot read ${path}${UmbelError.isInstance(error) ? ` (${error.message})` : ''}`);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw invalid(`not valid JSON (${(error as Error).message})`);
  }
  try {
    validate(schema, null);
  } catch (error) {
    throw invalid(`not a usable JSON Schema (${(error as Error).message})`);
  }
  return schema;
}
