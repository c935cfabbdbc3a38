/**
 * The conformance suite: for every fixture archive with reference indexes (in
 * $NWAX_CONFORMANCE_DIR, default ../shared/fixtures), index it with nwax in the reference's
 * format and mode, line the two up by record offset and compare field by field. Every
 * difference must match one of the explained reasons of conformance-rules.ts (each one
 * written up in docs/conformance.md); any other fails the suite.
 *
 *   node dist/tools/conformance.js [--table FILE] [--verbose]
 */
import { existsSync, writeFileSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cdxEntries } from '../cdx/indexer.js';
import { formatEntry } from '../cdx/cdx-format.js';
import { FIELDS, parseIndex, readManifest, refKind, type Difference, type Line, type RefKind } from './conformance-refs.js';
import { explain } from './conformance-rules.js';

export interface RefResult {
  file: string;
  refFile: string;
  ref: RefKind;
  lines: number;
  differences: Difference[];
}

export function conformanceDir(): string {
  return resolve(process.env.NWAX_CONFORMANCE_DIR ?? join(process.cwd(), '..', 'shared', 'fixtures'));
}

async function indexWith(path: string, kind: RefKind): Promise<Line[]> {
  const run = await cdxEntries(path, { allRecords: kind.allRecords, onIssue: () => {} });
  const lines: string[] = [];
  for await (const e of run.entries) lines.push(formatEntry(e, kind.format));
  return parseIndex(lines.join('\n'), kind.format);
}

/** Pairs lines by offset (and order among lines of one offset). */
function align(ours: Line[], theirs: Line[]): Array<[Line | undefined, Line | undefined]> {
  const key = (l: Line, n: number) => `${l.offset ?? '?'}#${n}`;
  const index = (ls: Line[]) => {
    const seen = new Map<string, number>();
    const m = new Map<string, Line>();
    for (const l of ls) {
      const n = seen.get(l.offset ?? '?') ?? 0;
      seen.set(l.offset ?? '?', n + 1);
      m.set(key(l, n), l);
    }
    return m;
  };
  const a = index(ours);
  const b = index(theirs);
  const pairs: Array<[Line | undefined, Line | undefined]> = [];
  for (const [k, l] of b) pairs.push([a.get(k), l]);
  for (const [k, l] of a) if (!b.has(k)) pairs.push([l, undefined]);
  return pairs;
}

const failedRuns = new Map<string, Set<string>>();

function refFailedRun(dir: string, refFile: string): boolean {
  if (!failedRuns.has(dir)) {
    const set = new Set<string>();
    const path = join(dir, 'reference-runs.tsv');
    if (existsSync(path)) {
      for (const row of readFileSync(path, 'utf8').split('\n').slice(1)) {
        const [output, , exit] = row.split('\t');
        if (output && exit !== '0') set.add(output);
      }
    }
    failedRuns.set(dir, set);
  }
  return failedRuns.get(dir)!.has(refFile);
}

export async function compareReference(dir: string, file: string, refFile: string): Promise<RefResult | undefined> {
  const kind = refKind(refFile, file);
  if (!kind) return undefined;
  const refFailed = refFailedRun(dir, refFile);
  const refText = readFileSync(join(dir, refFile), 'utf8');
  const theirs = parseIndex(refText, kind.format);
  const refMalformed = kind.format === 'cdx11' && refText.split('\n').some((l) => l && !l.startsWith(' CDX') && l.split(' ').length > 11);
  const ours = await indexWith(join(dir, file), kind);
  const differences: Difference[] = [];
  for (const [o, t] of align(ours, theirs)) {
    if (!o || !t) {
      const d: Difference = {
        file,
        ref: kind,
        field: 'line',
        ours: o?.raw,
        theirs: t?.raw,
        oursLine: o,
        theirsLine: t,
        reason: undefined,
        refFailed,
        refMalformed,
      };
      d.reason = explain(d);
      differences.push(d);
      continue;
    }
    for (const f of FIELDS) {
      if (t[f] === undefined && kind.format === 'cdx11') continue; // field not in the reference's legend
      let ov = o[f];
      let tv = t[f];
      if (f === 'digest') {
        ov = ov?.replace(/^sha1:/i, '');
        tv = tv?.replace(/^sha1:/i, '');
      }
      // CDXJ leaves out empty fields where CDX writes `-`.
      if (kind.format === 'cdxj' && (ov ?? '-') === (tv ?? '-')) continue;
      if (ov === tv) continue;
      const d: Difference = { file, ref: kind, field: f, ours: ov, theirs: tv, oursLine: o, theirsLine: t, reason: undefined, refFailed, refMalformed };
      d.reason = explain(d);
      differences.push(d);
    }
  }
  return { file, refFile, ref: kind, lines: theirs.length, differences };
}

export async function runConformance(dir = conformanceDir()): Promise<RefResult[]> {
  const results: RefResult[] = [];
  for (const row of readManifest(join(dir, 'manifest.tsv'))) {
    for (const ref of row.references) {
      const r = await compareReference(dir, row.file, ref);
      if (r) results.push(r);
    }
  }
  return results;
}

/** The Markdown table: one row per fixture, one column per reference kind. */
export function renderTable(results: RefResult[]): string {
  const codes = ['Cc', 'C', 'Ca', 'IA', 'IAa', 'J', 'Jj', 'Wc', 'W', 'Wa', 'G', 'OW', 'JT'];
  const byFile = new Map<string, Map<string, RefResult>>();
  for (const r of results) {
    if (!byFile.has(r.file)) byFile.set(r.file, new Map());
    byFile.get(r.file)!.set(r.ref.code, r);
  }
  const used = codes.filter((c) => results.some((r) => r.ref.code === c));
  const out = [`| fixture | ${used.join(' | ')} |`, `|---|${used.map(() => '---').join('|')}|`];
  for (const [file, refs] of byFile) {
    const cells = used.map((c) => {
      const r = refs.get(c);
      if (!r) return '';
      if (r.differences.length === 0) return '=';
      const byField = new Map<string, Set<string>>();
      for (const d of r.differences) {
        if (!byField.has(d.field)) byField.set(d.field, new Set());
        byField.get(d.field)!.add(d.reason ?? '**?**');
      }
      return [...byField].map(([f, reasons]) => `${f} ${[...reasons].join(',')}`).join('; ');
    });
    out.push(`| ${file} | ${cells.join(' | ')} |`);
  }
  return out.join('\n');
}

const START = '<!-- table:start -->';
const END = '<!-- table:end -->';

/** The document with the text between the table markers replaced. */
export function replaceTable(doc: string, table: string): string {
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error('docs/conformance.md: table markers missing');
  return `${doc.slice(0, a + START.length)}\n${table}\n${doc.slice(b)}`;
}

async function main(): Promise<void> {
  const dir = conformanceDir();
  if (!existsSync(join(dir, 'manifest.tsv'))) {
    const msg = `conformance: no fixtures at ${dir} (set NWAX_CONFORMANCE_DIR)`;
    if (process.env.CI === 'true') {
      console.error(`${msg}; under CI this is a failure`);
      process.exit(1);
    }
    console.log(`${msg}; skipped`);
    return;
  }
  const args = process.argv.slice(2);
  const results = await runConformance(dir);
  const table = renderTable(results);
  const tableArg = args.indexOf('--table');
  if (tableArg >= 0) writeFileSync(args[tableArg + 1], `${table}\n`);
  const unexplained = results.flatMap((r) => r.differences.filter((d) => !d.reason));
  const total = results.reduce((n, r) => n + r.differences.length, 0);
  if (args.includes('--verbose') || unexplained.length > 0) {
    for (const d of unexplained.slice(0, 200)) {
      console.log(`UNEXPLAINED ${d.file} [${d.ref.code}] ${d.field}: ours=${JSON.stringify(d.ours)} theirs=${JSON.stringify(d.theirs)}`);
    }
  }
  if (args.includes('--print')) console.log(table);
  if (args.includes('--update-docs')) {
    const doc = join(process.cwd(), 'docs', 'conformance.md');
    writeFileSync(doc, replaceTable(readFileSync(doc, 'utf8'), table));
    console.log(`conformance: table written to ${doc}`);
  }
  const files = new Set(results.map((r) => r.file)).size;
  console.log(`conformance: ${files} archives, ${results.length} reference indexes, ${total} differing fields, all explained but ${unexplained.length}`);
  const passed = results.filter((r) => r.differences.every((d) => d.reason)).length;
  console.log(`${passed} passed, ${results.length - passed} failed`);
  if (unexplained.length > 0) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    console.error(`conformance: ${(err as Error).message}`);
    process.exit(1);
  });
}
