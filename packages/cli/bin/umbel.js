#!/usr/bin/env node
// CommonJS (./package.json): a command's start never sets up node's ESM loader.
require('../dist/cli.cjs');
