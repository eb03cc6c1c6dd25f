/**
 * How a worker bills, as data: the value a CLI's config (or screen) names its auth by (an auth
 * type, a login mode) and the billing of each. Pure.
 */
import type { ProviderV1Billing, ProviderV1BillingReport } from '../spec.js';

/** Where the value is read and what each one bills. */
export interface NamedBillingFacts {
  /** Where the value was read, for the evidence (`security.auth.selectedType`). */
  readonly source: string;
  /** The billing of each value named here. */
  readonly billing: Readonly<Record<string, ProviderV1Billing>>;
  /** The billing of any other value. */
  readonly otherwise: ProviderV1Billing;
}

/** The billing `value` names (its evidence `<source> "<value>"`); no value (none, empty, not a string): unknown. */
export function namedBilling(value: unknown, facts: NamedBillingFacts): ProviderV1BillingReport {
  if (typeof value !== 'string' || value === '') return { billing: 'unknown', evidence: `no ${facts.source}` };
  const billing = Object.hasOwn(facts.billing, value) ? (facts.billing[value] as ProviderV1Billing) : facts.otherwise;
  return { billing, evidence: `${facts.source} "${value}"` };
}
