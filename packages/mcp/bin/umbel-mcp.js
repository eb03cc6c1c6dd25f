#!/usr/bin/env node
await import('../dist/bin.js');
