/** The real process as a CliIo. */
import { createDefaultUmbel } from '@umbel/mcp';
import type { CliIo } from './io.js';

async function readAll(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks).toString('utf8');
}

let stdinCache: Promise<string | undefined> | undefined;

/** CliIo over process.stdin/stdout/stderr/env. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    readStdin: () => (stdinCache ??= readAll()),
    env: process.env,
    cwd: process.cwd(),
    createEngine: (env) => createDefaultUmbel(env),
    onSignal(handler) {
      const onInt = () => handler('SIGINT');
      const onTerm = () => handler('SIGTERM');
      process.on('SIGINT', onInt);
      process.on('SIGTERM', onTerm);
      return () => {
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
      };
    },
  };
}
