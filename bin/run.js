#!/usr/bin/env node
// nwax command line. Commands are thin and import their modules lazily, so `nwax --help` is instant.

// oclif checks the running Node against its own `engines` with semver, 10-14 ms of every
// command's start (CPU of `nwax conf` 210 -> 200 ms, medians of 25 alternated); nwax's floor
// (package.json's engines) is checked here in two comparisons instead.
process.env.OCLIF_DISABLE_ENGINE_WARNING ??= '1';
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) process.emitWarning(`nwax needs Node 20.19 or later; this is Node ${process.versions.node}`);
const { execute } = await import('@oclif/core');

// Nutch users type long options with one dash (`-list`, `-topN`, `-dir`); oclif wants two.
// Single-letter options (-D, -o, -e) and values after `--` are left as they are.
const args = process.argv.slice(2);
const end = args.indexOf('--');
const nutchStyle = (a, i) => (end < 0 || i < end) && /^-[a-zA-Z][a-zA-Z]+$/.test(a) ? `-${a}` : a;

await execute({ dir: import.meta.url, args: args.map(nutchStyle) });
