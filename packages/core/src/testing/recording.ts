/**
 * What a provider records from its real CLI for the conformance suite to replay: per scenario, the
 * startup and the turn as steps — screens, hook payloads (in the order the CLI wrote them) and
 * transcript text. `{{cwd}}` and `{{transcript}}` in any text stand for the worker's directory and
 * the transcript file of the replay (test-fixtures/real/record-conformance.mjs writes them).
 */

/** One step of a replay, applied in order. */
export interface RecordedStep {
  /** The pane shows this from now on. */
  readonly screen?: string;
  /** Deliver this payload as a hook event of `kind`, through the real hook sink. */
  readonly hook?: { readonly kind: string; readonly payload: unknown };
  /** Append this to the transcript file. */
  readonly transcript?: string;
  /** Wait until these keys were pressed, in order (a dialog being answered). */
  readonly keys?: readonly string[];
}

/** One recorded scenario: a worker started, and one prompt submitted to it. */
export interface RecordedScenario {
  readonly startup: readonly RecordedStep[];
  /** The prompt as sent (a submitted text that differs plays nothing). */
  readonly prompt: string;
  readonly turn: readonly RecordedStep[];
  /** What umbel reported when it was recorded. */
  readonly outcome: { readonly reason: string; readonly answer?: string; readonly tool?: string; readonly message?: string };
}

/** A provider's recorded fixtures, as `testProvider({ recording })` takes them. */
export interface ProviderRecording {
  /** The CLI and version recorded (`@openai/codex@0.169.0`). */
  readonly cli: string;
  /** A prompt answered from the transcript. */
  readonly answer: RecordedScenario;
  /** A prompt that makes the CLI ask for a permission. */
  readonly permission: RecordedScenario;
  /** A prompt whose model request fails. */
  readonly apiError: RecordedScenario;
  /**
   * The screen of a CLI that is not signed in. A CLI that has no sign-in screen at all says why in
   * `none` (`{ screen: '', none: 'opencode starts on its free models without any account' }`): the
   * suite then checks that none of the recorded screens is taken for one.
   */
  readonly signIn: { readonly screen: string; readonly none?: string };
}

/** Fill the placeholders of a recorded text. */
export function fillRecorded(text: string, values: { readonly cwd: string; readonly transcript: string }): string {
  return text.split('{{transcript}}').join(values.transcript).split('{{cwd}}').join(values.cwd);
}

/** Fill the placeholders in every string of a recorded payload. */
export function fillPayload(payload: unknown, values: { readonly cwd: string; readonly transcript: string }): unknown {
  return JSON.parse(fillRecorded(JSON.stringify(payload ?? null), values));
}
