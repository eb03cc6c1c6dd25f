import { describe, expect, it } from 'vitest';
import { backgroundTasks } from './background-tasks.js';

const FACTS = { id: 'id', kind: 'type', defaultKind: 'task', running: { field: 'status', value: 'running' } };

describe('backgroundTasks', () => {
  it('reads each task: its kind (or the default), its id, whether it still runs', () => {
    const list = [{ id: 'b1', type: 'shell', status: 'running' }, { id: 'a2', status: 'completed' }, { type: 'shell' }, 'x'];
    expect(backgroundTasks(list, FACTS)).toEqual([
      { kind: 'shell', id: 'b1', running: true },
      { kind: 'task', id: 'a2', running: false },
    ]);
  });

  it('is undefined for an empty list, a list of tasks without ids, or no list', () => {
    expect(backgroundTasks([], FACTS)).toBeUndefined();
    expect(backgroundTasks([{ type: 'shell' }], FACTS)).toBeUndefined();
    expect(backgroundTasks({ id: 'b1' }, FACTS)).toBeUndefined();
  });
});
