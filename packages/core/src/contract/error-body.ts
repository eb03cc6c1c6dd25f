/**
 * The one body of an error on every face: CLI `--json` and text, MCP tool errors, the RPC wire,
 * workflow results and `umbel -p`'s error result. A face renders or translates the body; it never
 * builds one itself (a repository test checks this).
 */
import { ProviderErrorCode, UmbelError, type UmbelErrorJSON } from '@umbel/provider';

/** An error as every face shows it: `{code, name, message, hint?}` and the error's facts. */
export type ErrorBody = UmbelErrorJSON;

/** The body of any thrown value: a typed error's JSON, or `UMBEL_INTERNAL` with the message of anything else (a bug). */
export function errorBody(error: unknown): ErrorBody {
  if (UmbelError.isInstance(error)) return error.toJSON();
  return { code: ProviderErrorCode.Internal, name: 'Error', message: error instanceof Error ? error.message : String(error) };
}
