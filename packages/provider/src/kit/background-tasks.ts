/** The background work a CLI lists in a hook payload (Claude Code's Stop `background_tasks`), read by its field names. Pure. */
import type { ProviderV1BackgroundTask } from '../spec.js';
import { asRecord, stringField } from './json.js';

/** Where each listed task says what it is. */
export interface BackgroundTaskFacts {
  /** The field holding the task's id (a task without one is skipped). */
  readonly id: string;
  /** The field holding its kind, and the kind when it has none. */
  readonly kind: string;
  readonly defaultKind: string;
  /** The field holding its state, and the value that means it still runs. */
  readonly running: { readonly field: string; readonly value: string };
}

/** The tasks of a list (anything not a list counts as none); undefined when it holds none. */
export function backgroundTasks(value: unknown, facts: BackgroundTaskFacts): ProviderV1BackgroundTask[] | undefined {
  const tasks = (Array.isArray(value) ? value : []).flatMap((item: unknown) => {
    const task = asRecord(item);
    const id = stringField(task, facts.id);
    const running = stringField(task, facts.running.field) === facts.running.value;
    return id === undefined ? [] : [{ kind: stringField(task, facts.kind) ?? facts.defaultKind, id, running }];
  });
  return tasks.length > 0 ? tasks : undefined;
}
