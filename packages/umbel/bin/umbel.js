#!/usr/bin/env node
const { main } = await import('@umbel/cli');
process.exitCode = await main(process.argv.slice(2));
