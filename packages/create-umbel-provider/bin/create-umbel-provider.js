#!/usr/bin/env node
// npm create umbel-provider@latest NAME: generates an umbel provider package in ./NAME.
import { runCli } from '../dist/index.js';

const result = await runCli(process.argv.slice(2), process.cwd());
process.stdout.write(result.stdout);
process.stderr.write(result.stderr);
process.exitCode = result.code;
