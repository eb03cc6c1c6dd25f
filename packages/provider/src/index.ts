/**
 * `@umbel/provider`: the versioned provider specification (`ProviderV1` and the one
 * `'umbel-provider-v1'` literal), the errors a provider throws, and the provider kit
 * (`defineProvider(facts)` and the helpers every provider's launch needs). It knows nothing of the
 * engine: a provider package, ours or a third party's, depends on this package alone.
 */
export * from './spec.js';
export * from './errors.js';
export * from './fs-atomic.js';
export * from './kit/index.js';
export * from './shape.js';
