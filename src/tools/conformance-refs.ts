/**
 * Reading the reference indexes of the conformance fixtures: which tool made each file, in
 * which format and mode, and its lines as field maps keyed by the field names below.
 */
import { readFileSync } from 'node:fs';

export type Field = 'urlkey' | 'timestamp' | 'url' | 'mime' | 'status' | 'digest' | 'redirect' | 'meta' | 'length' | 'offset' | 'filename';

export const FIELDS: readonly Field[] = ['urlkey', 'timestamp', 'url', 'mime', 'status', 'digest', 'redirect', 'meta', 'length', 'offset', 'filename'];

export interface RefKind {
  /** Short code as in PROVENANCE.md (J, Jj, W, Wc, Wa, C, Cc, Ca, IA, IAa, G, OW, JT). */
  code: string;
  tool: string;
  format: 'cdx11' | 'cdxj';
  allRecords: boolean;
}

const SUFFIXES: Array<[string, RefKind]> = [
  ['.jwarc.cdx', { code: 'J', tool: 'jwarc', format: 'cdx11', allRecords: false }],
  ['.jwarc.cdxj', { code: 'Jj', tool: 'jwarc', format: 'cdxj', allRecords: false }],
  ['.warcio-js.cdxj', { code: 'W', tool: 'warcio.js', format: 'cdxj', allRecords: false }],
  ['.warcio-js.cdx', { code: 'Wc', tool: 'warcio.js', format: 'cdx11', allRecords: false }],
  ['.warcio-js-all.cdxj', { code: 'Wa', tool: 'warcio.js', format: 'cdxj', allRecords: true }],
  ['.cdxj-indexer.cdxj', { code: 'C', tool: 'cdxj-indexer', format: 'cdxj', allRecords: false }],
  ['.cdxj-indexer.cdx', { code: 'Cc', tool: 'cdxj-indexer', format: 'cdx11', allRecords: false }],
  ['.cdxj-indexer-all.cdxj', { code: 'Ca', tool: 'cdxj-indexer', format: 'cdxj', allRecords: true }],
  ['.cdx-writer.cdx', { code: 'IA', tool: 'CDX-Writer', format: 'cdx11', allRecords: false }],
  ['.cdx-writer-all.cdx', { code: 'IAa', tool: 'CDX-Writer', format: 'cdx11', allRecords: true }],
  ['.wget.cdx', { code: 'G', tool: 'wget', format: 'cdx11', allRecords: false }],
  ['.openwayback-cdx-indexer.cdx', { code: 'OW', tool: 'OpenWayback', format: 'cdx11', allRecords: false }],
  ['.jwattools.cdx', { code: 'JT', tool: 'JWAT-Tools', format: 'cdx11', allRecords: false }],
];

export function refKind(refPath: string, archive: string): RefKind | undefined {
  const suffix = refPath.slice(archive.length);
  return SUFFIXES.find(([s]) => s === suffix)?.[1];
}

const LETTERS: Record<string, Field | undefined> = {
  N: 'urlkey',
  b: 'timestamp',
  a: 'url',
  m: 'mime',
  s: 'status',
  k: 'digest',
  r: 'redirect',
  M: 'meta',
  S: 'length',
  V: 'offset',
  g: 'filename',
};
const DEFAULT_LEGEND = 'N b a m s k r M S V g'.split(' ');
const JSON_KEYS: Record<string, Field> = {
  url: 'url',
  mime: 'mime',
  status: 'status',
  digest: 'digest',
  length: 'length',
  offset: 'offset',
  filename: 'filename',
  redirect: 'redirect',
  robotflags: 'meta',
};

export type Line = Partial<Record<Field, string>> & { raw: string };

/** Lines of a CDX (legend from its header line, else CDX11) or CDXJ text. */
export function parseIndex(text: string, format: 'cdx11' | 'cdxj'): Line[] {
  const out: Line[] = [];
  let legend = DEFAULT_LEGEND;
  for (const raw of text.split('\n')) {
    if (raw === '') continue;
    if (raw.startsWith(' CDX ')) {
      legend = raw.slice(5).trim().split(/\s+/);
      continue;
    }
    if (raw.startsWith('!')) continue;
    if (format === 'cdxj') {
      const brace = raw.indexOf('{');
      const [urlkey, timestamp] = raw
        .slice(0, brace < 0 ? raw.length : brace)
        .trim()
        .split(' ');
      const line: Line = { raw, urlkey, timestamp };
      if (brace >= 0) {
        try {
          const obj = JSON.parse(raw.slice(brace)) as Record<string, unknown>;
          for (const [k, v] of Object.entries(obj)) {
            const f = JSON_KEYS[k];
            if (f) line[f] = String(v);
          }
        } catch {
          /* a broken JSON tail stays a line with key and timestamp only */
        }
      }
      out.push(line);
    } else {
      const parts = raw.split(' ');
      const line: Line = { raw };
      legend.forEach((letter, i) => {
        const f = LETTERS[letter];
        // wget's legend names `a` twice (key and URL): the first is the key.
        if (f && parts[i] !== undefined && line[f] === undefined) line[letter === 'a' && i === 0 ? 'urlkey' : f] = parts[i];
      });
      out.push(line);
    }
  }
  return out;
}

export interface ManifestRow {
  file: string;
  references: string[];
}

export function readManifest(path: string): ManifestRow[] {
  const rows = readFileSync(path, 'utf8').split('\n').slice(1).filter(Boolean);
  return rows.map((r) => {
    const cols = r.split('\t');
    return { file: cols[0], references: (cols[7] ?? '').split(' ').filter(Boolean) };
  });
}

/** One place where nwax's CDX and a reference indexer's differ, and the rule that explains it (conformance-rules.ts), if one does. */
export interface Difference {
  file: string;
  ref: RefKind;
  field: Field | 'line';
  ours: string | undefined;
  theirs: string | undefined;
  oursLine?: Line;
  theirsLine?: Line;
  reason: string | undefined;
  /** The reference tool exited non-zero: its output stops where it failed. */
  refFailed: boolean;
  /** The reference has lines with more fields than its legend (a space inside a field). */
  refMalformed: boolean;
}
