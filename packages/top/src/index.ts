/**
 * `@umbel/top`: `umbel top`, a live full-screen view of the fleet drawn with ink from the engine's
 * event stream. The CLI loads it on demand (it is not in the `umbel` bin's bundle).
 */
export { runTop, type TopOptions } from './run.js';
export { type Action, answerKeys, handleKey, type KeyInfo } from './keys.js';
export * from './model.js';
export { type Frame, frame } from './view.js';
