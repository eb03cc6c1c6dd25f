// Types of umbel-helpers.mjs (plain ESM), for the TypeScript tests that import it.
import type { ChildProcess } from 'node:child_process';

export interface RunResult {
  code: number;
  signal: string | null;
  stdout: string;
  stderr: string;
}
export type UmbelRun = (args: string[], options?: { input?: string; env?: Record<string, string | undefined>; cwd?: string }) => Promise<RunResult>;
export type UmbelStart = (args: string[], options?: { env?: Record<string, string | undefined>; cwd?: string }) => Started;
export interface Started {
  child: ChildProcess;
  done: Promise<RunResult>;
}
export interface ProcessInfo {
  pid: number;
  args: string;
  cwd?: string;
  why: string;
}

export const REPO_ROOT: string;
export const BUILD_ROOT: string;
export const UMBEL_BIN: string;
export const UMBEL_MCP_BIN: string;

export function assertBuilt(extra?: string[]): void;
export function testEnv(vars: { home: string; umbelHome?: string } & Record<string, string | undefined>): Record<string, string>;
export function startProcess(file: string, args: string[], options?: { cwd?: string; env?: Record<string, string>; input?: string }): Started;
export function runCommand(file: string, args: string[], options: { cwd?: string; env: Record<string, string>; input?: string }): Promise<RunResult>;
export function umbelRunner(base: { cwd: string; env: Record<string, string> }): { run: UmbelRun; start: UmbelStart };
export function purgeWorkers(run: (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>, opts?: { attempts?: number }): Promise<void>;
export function cleanUp(steps: {
  disconnect?: Array<{ close(): Promise<unknown> } | undefined>;
  workers?: Array<((args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>) | undefined>;
  verify?: Array<() => Promise<unknown>>;
  reap?: Array<string | undefined>;
  close?: Array<{ close(): Promise<unknown> } | undefined>;
  remove?: Array<string | undefined>;
}): Promise<void>;
export function processesOf(match: { argsIncludes?: string[]; cwd?: string; envIncludes?: string[] }): ProcessInfo[];
export function workerProcesses(umbelHome: string, name: string): ProcessInfo[];
export function environOf(pid: number): Record<string, string>;
export function snapshotTree(dir: string): Promise<Map<string, string>>;
export function copilotMockEnv(baseUrl: string): Record<string, string>;
export const COPILOT_BYOK_FLAGS: string[];
export function codexMockConfig(options: { baseUrl: string; envKey: string; topLines?: string[]; providerLines?: string[]; tail?: string[] }): string;
export function runGeminiPrint(options: {
  bin: string;
  prompt: string;
  cwd: string;
  home: string;
  apiKey: string;
  baseUrl: string;
  settings?: Record<string, unknown>;
  env?: Record<string, string>;
}): Promise<RunResult>;
export function connectUmbelMcp(options: { env: Record<string, string>; cwd: string; onStderr?: (text: string) => void }): Promise<any>;
export function readJsonl(path: string): any[];
export function userPrompts(entries: any[]): string[];
export function until(check: () => boolean | Promise<boolean>, what: string, ms?: number, explain?: () => string | Promise<string>): Promise<void>;
export function eventually<T>(probe: () => T, opts?: { timeoutMs?: number; intervalMs?: number }): Promise<T>;
export function teardownsDone(umbelHome: string, opts?: { timeoutMs?: number }): Promise<void>;
export function reapProcesses(marker: string, opts?: { graceMs?: number }): Promise<ProcessInfo[]>;
