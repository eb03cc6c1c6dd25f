/**
 * The ledger's memory, one per engine (`EngineContext.ledger`): what it read of each worker's files
 * and what it made of them. Nothing of it lives in a module, so two engines in one process never
 * share a read, and an engine that is dropped takes its caches with it.
 */
import { createEventStore, type EventDirRead, type EventStore } from './event-store.js';
import type { LedgerEvent, StampedEvent, WorkerView } from './ledger-types.js';
import type { WorkerMeta } from '../contract/schemas.js';

/** What a meta.json says, checked: the meta, or why it cannot be used (with its raw fields for display). */
export type MetaRead = { meta: WorkerMeta } | { corrupt: string; raw?: Record<string, unknown> };

/** One event file as the ledger typed it: the payload it was typed from, the event or the problem. */
export interface TypedEvent {
  readonly payload: unknown;
  readonly event?: LedgerEvent;
  readonly problem?: string;
}

/** Typed events, per provider object (or none) and file. */
export type TypedEvents = WeakMap<object, Map<string, TypedEvent>>;

/** The lifecycle events derived from each view (a view never changes, so neither do they). */
export type Lifecycles = WeakMap<WorkerView, readonly StampedEvent[]>;

/** One engine's ledger memory. */
export interface LedgerCache {
  /** The event dirs, each file read once. */
  readonly events: EventStore;
  /** The last check of each meta.json, by its text (a worker's meta changes rarely; it is read on every look). */
  readonly metas: Map<string, { readonly text: string; readonly name: string; readonly read: MetaRead }>;
  readonly typed: TypedEvents;
  /** The last view of each worker, with the reads it was built from. */
  readonly views: Map<string, { readonly read: MetaRead | undefined; readonly events: EventDirRead; readonly view: WorkerView }>;
  readonly lifecycles: Lifecycles;
}

/** An empty ledger memory. */
export function createLedgerCache(): LedgerCache {
  return { events: createEventStore(), metas: new Map(), typed: new WeakMap(), views: new Map(), lifecycles: new WeakMap() };
}
