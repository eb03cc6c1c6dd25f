/**
 * Exit code of a thrown error. Core's error → exit-code table is not exported yet, so this mirrors
 * it for the codes a workflow can meet (see the package README: to be replaced by core's table).
 */
import { UmbelError, UmbelErrorCode } from '@umbel/core';

const USAGE_CODES: ReadonlySet<string> = new Set([
  UmbelErrorCode.Usage,
  UmbelErrorCode.InvalidName,
  UmbelErrorCode.InvalidDuration,
  UmbelErrorCode.EnvUnresolved,
  UmbelErrorCode.ProviderUnknown,
  UmbelErrorCode.OptionUnsupported,
  UmbelErrorCode.CwdMissing,
  UmbelErrorCode.TurnNotFound,
  UmbelErrorCode.WorkflowInvalid,
  UmbelErrorCode.CheckInvalid,
]);

/** Exit code for an error: usage 2, dead 125, not signed in 126, aborted 130, anything else 1. */
export function exitCodeOfError(error: unknown): number {
  if (!UmbelError.isInstance(error)) return 1;
  if (USAGE_CODES.has(error.code)) return 2;
  if (error.code === UmbelErrorCode.WorkerDead) return 125;
  if (error.code === UmbelErrorCode.NotSignedIn) return 126;
  if (error.code === UmbelErrorCode.Aborted) return 130;
  return 1;
}

/** `{code, message}` of any thrown value. */
export function describeError(error: unknown): { code: string; message: string } {
  if (UmbelError.isInstance(error)) return { code: error.code, message: error.message };
  return { code: UmbelErrorCode.Internal, message: error instanceof Error ? error.message : String(error) };
}
