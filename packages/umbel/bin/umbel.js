#!/usr/bin/env node
// The bin of @umbel/cli: it runs the command and exits with its code. CommonJS (./package.json):
// a command's start never sets up node's ESM loader.
require('@umbel/cli/bin');
