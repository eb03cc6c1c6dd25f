#!/usr/bin/env node
// The bin of @umbel/cli: it runs the command and exits with its code.
await import('@umbel/cli/bin');
