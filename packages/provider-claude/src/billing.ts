/**
 * How a Claude Code worker bills (ACCOUNT-FACTS.md §1.1): the banner's label on the ready screen
 * (`Opus 5.5 · API Usage Billing` | `· Claude Max|Pro|Team|Enterprise` | `· Claude API` for
 * CLAUDE_CODE_OAUTH_TOKEN), else the cloud switches in the env. Pure.
 */
import type { ProviderV1BillingInput, ProviderV1BillingReport } from '@umbel/provider';
import { CLAUDE_API_BILLING_ENV } from './facts.js';

/** The banner's second line ends with the billing label after a `·`. */
const BANNER_LABEL = /·\s*(API Usage Billing|Claude API|Claude (?:Max|Pro|Team|Enterprise)\b[^\n│]*?)\s*│?\s*$/m;

/** The cloud switches: Claude Code bills the cloud account (no banner was verified for them). */
const CLOUD_ENV = CLAUDE_API_BILLING_ENV.filter((name) => name.startsWith('CLAUDE_CODE_USE_'));

export function detectClaudeBilling({ screen, envNames }: ProviderV1BillingInput): ProviderV1BillingReport {
  const passed = CLAUDE_API_BILLING_ENV.filter((name) => envNames.includes(name));
  const cloud = CLOUD_ENV.filter((name) => envNames.includes(name));
  if (cloud.length) return { billing: 'api', evidence: `${cloud.join(', ')} set (cloud provider billing)` };
  const label = BANNER_LABEL.exec(screen)?.[1]?.trim();
  const via = passed.length ? ` with ${passed.join(', ')} passed` : '';
  if (label === 'API Usage Billing') return { billing: 'api', evidence: `banner "API Usage Billing"${via}` };
  if (label === 'Claude API') return { billing: 'subscription', evidence: 'banner "Claude API" (CLAUDE_CODE_OAUTH_TOKEN)' };
  if (label) return { billing: 'subscription', evidence: `banner "${label}"` };
  return { billing: 'unknown' };
}
