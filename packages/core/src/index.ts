export * from './errors.js';
export * from './schemas.js';
export * from './provider.js';
export * from './substrate.js';
export type * from './umbel.js';
