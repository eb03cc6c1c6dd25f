/** The argv (after the bin) of the detached `pool finish` process (print-teardown.ts): its own module, so starting it loads nothing. */
export const FINISH_ARGV = ['pool', 'finish', '--detached'] as const;
