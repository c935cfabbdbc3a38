// Rewrites the property table of docs/configuration.md from conf/nwax-default.json (run after
// adding or changing a property: `node scripts/config-docs.mjs`; a test checks the two agree).
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const defaults = JSON.parse(readFileSync(new URL('conf/nwax-default.json', root), 'utf8'));
const docUrl = new URL('docs/configuration.md', root);
const doc = readFileSync(docUrl, 'utf8').split('\n');
const cell = (s) => String(s).replace(/\|/g, '\\|');
const rows = Object.keys(defaults)
  .sort()
  .map((name) => {
    const p = defaults[name];
    return `| \`${name}\` | \`${cell(p.value)}\` | ${cell(p.description)} | \`${cell(p.example)}\` |`;
  });
const start = doc.findIndex((l) => l.startsWith('| property |'));
let end = start + 2;
while (end < doc.length && doc[end].startsWith('|')) end++;
doc.splice(start + 2, end - start - 2, ...rows);
writeFileSync(docUrl, doc.join('\n'));
