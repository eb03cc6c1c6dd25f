import { describe, expect, it } from 'vitest';
import { parseWorkflow } from './index.js';

describe("a worker's env in YAML (the shared env schema)", () => {
  it('refuses a value with a NUL byte, naming it; other values pass', () => {
    const text = (value: string) => `workers:\n  w: {provider: mock, env: {X: "${value}"}}\nsteps: [{id: a, worker: w, prompt: hi}]\n`;
    expect(() => parseWorkflow(text('a\\0b'), { file: '/tmp/wf.yaml' })).toThrow(/X.*NUL byte/s);
    expect(parseWorkflow(text('a\\tb'), { file: '/tmp/wf.yaml' }).spec.workers.w?.env).toEqual({ X: 'a\tb' });
  });
});
