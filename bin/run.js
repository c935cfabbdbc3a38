#!/usr/bin/env node
// nwax command line. Commands are thin and import their modules lazily, so `nwax --help` is instant.
import { execute } from '@oclif/core';

// Nutch users type long options with one dash (`-list`, `-topN`, `-dir`); oclif wants two.
// Single-letter options (-D, -o, -e) and values after `--` are left as they are.
const args = process.argv.slice(2);
const end = args.indexOf('--');
const nutchStyle = (a, i) => (end < 0 || i < end) && /^-[a-zA-Z][a-zA-Z]+$/.test(a) ? `-${a}` : a;

await execute({ dir: import.meta.url, args: args.map(nutchStyle) });
