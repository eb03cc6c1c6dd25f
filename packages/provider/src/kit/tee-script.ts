/**
 * A command the CLI runs with a feed on its stdin (Claude Code's `statusLine`) that umbel takes over
 * while keeping the user's own: a script handing the feed to the hook sink, then to the user's command. Pure.
 */
import { shellQuote } from './shell.js';

/** The `/bin/sh` script: stdin delivered to `sinkPath` as a `kind` event, then piped to `userCommand` (when given), whose output the CLI shows. */
export function teeScript(sinkPath: string, kind: string, userCommand?: string): string {
  return [
    '#!/bin/sh',
    `# umbel: deliver the ${kind} input, then run the user's own ${kind} command with it`,
    'input=$(cat)',
    `printf '%s\n' "$input" | ${shellQuote(sinkPath)} ${kind}`,
    ...(userCommand ? [`printf '%s\n' "$input" | exec /bin/sh -c ${shellQuote(userCommand)}`] : []),
    '',
  ].join('\n');
}
