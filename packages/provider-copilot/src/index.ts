/**
 * @umbel/provider-copilot — umbel's provider for GitHub Copilot CLI (`copilot`, verified on
 * 1.0.102), written on `@umbel/provider` only: its CLI's facts, its per-worker hooks plugin and its
 * session-events reader.
 */
export { COPILOT_VERIFIED_VERSIONS, type CopilotSettings, copilot, createCopilot } from './provider.js';
export {
  activityOf,
  COPILOT_API_BILLING_ENV,
  COPILOT_CHILD_MARKERS,
  COPILOT_DIALOGS,
  COPILOT_ENDPOINT_ENV,
  COPILOT_HOOK_EVENTS,
  COPILOT_INHERIT_ENV,
  COPILOT_INPUT_BOX,
  COPILOT_PAYLOAD,
  COPILOT_PERMISSION_MODES,
  COPILOT_PROMPT,
  COPILOT_SET_ENV,
  COPILOT_SIGN_IN,
  COPILOT_SIGN_IN_HINT,
  COPILOT_UNSET_ENV,
  copilotBilling,
  PERMISSION_PROMPT,
  TRUST_TEXT,
} from './facts.js';
export { copilotHome, eventsPath, HOOK_TIMEOUT_SEC, hooksJson, installPluginDir, PLUGIN_NAME, pluginJson, withTranscriptPath } from './plugin-dir.js';
export { type CopilotEvent, type CopilotTurn, findCopilotTurn, parseEvents, readCopilotMessages, readCopilotTurn, usageOf } from './events.js';
export { classifyCopilotTool, COPILOT_TOOLS } from './tools.js';

/** Version of this package. */
export const VERSION = '0.1.0';
