#!/usr/bin/env node
const { main } = await import('@umbel/cli/main');
process.exit(await main(process.argv.slice(2)));
