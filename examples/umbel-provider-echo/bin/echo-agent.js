#!/usr/bin/env node
import { main } from '../agent/main.js';

await main(process.argv.slice(2));
