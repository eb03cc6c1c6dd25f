// The fake `gemini`'s local telemetry, like the real 0.61.0 writes it with settings
// `telemetry: {enabled: true, target: "local", outfile, logPrompts: false}` (ACCOUNT-FACTS.md §3.2):
// OpenTelemetry log records appended to `outfile`, each pretty-printed JSON (2-space indent), with
// the attributes the real one gives `gemini_cli.api_request`, `gemini_cli.api_error` (status_code, the
// API's JSON body as `error`) and `gemini_cli.api_response` of each main-model attempt. The real one
// writes them in batches about 5 s apart; the fake at once. No spans or metrics.
import { appendFileSync } from 'node:fs';

/**
 * A writer `(eventName, attributes) => void` for the settings' local telemetry, or undefined when it
 * is off (anything but an enabled local target with an outfile).
 */
export function telemetryWriter(settings, sessionId) {
  const t = settings?.telemetry;
  if (!t || t.enabled !== true || typeof t.outfile !== 'string' || (t.target !== undefined && t.target !== 'local')) return undefined;
  let turn = -1;
  return (name, attributes) => {
    if (name === 'gemini_cli.user_prompt') turn += 1;
    const now = Date.now();
    const record = {
      hrTime: [Math.floor(now / 1000), (now % 1000) * 1e6],
      instrumentationScope: { name: 'gemini-cli' },
      attributes: {
        'session.id': sessionId,
        interactive: true,
        'event.name': name,
        'event.timestamp': new Date(now).toISOString(),
        prompt_id: `${sessionId}########${Math.max(turn, 0)}`,
        ...attributes,
      },
    };
    try {
      appendFileSync(t.outfile, `${JSON.stringify(record, null, 2)}\n`);
    } catch {
      // like the real one: telemetry never fails a turn
    }
  };
}
