/**
 * `@umbel/core/provider-kit`: the provider kit, kept here for packages written against
 * `@umbel/core` before the kit moved into `@umbel/provider` (its home now; new code imports it
 * from there).
 */
export * from '@umbel/provider';
