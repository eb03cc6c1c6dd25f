/** Exit codes of thrown errors: core's one table (`errorExitCode`). */
import { errorExitCode, UmbelError, UmbelErrorCode } from '@umbel/core';

/** Exit code for an error (usage 2, dead 125, not signed in 126, aborted 130, anything else 1). */
export const exitCodeOfError: (error: unknown) => number = errorExitCode;

/** `{code, message}` of any thrown value. */
export function describeError(error: unknown): { code: string; message: string } {
  if (UmbelError.isInstance(error)) return { code: error.code, message: error.message };
  return { code: UmbelErrorCode.Internal, message: error instanceof Error ? error.message : String(error) };
}
