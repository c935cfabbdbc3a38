/**
 * merge: several main indexes into one (documents merged in key order, `URL digest`, as the
 * index job writes each part, and renumbered, so a merged index is the index one reduce would
 * have made and ranks as the parts did, word-search.ts; documents marked deleted by dedup left
 * out), or with `parallel` one parallel set (a main
 * index and its dates index, joined by document number) flattened into one main index with
 * every date inside. Written aside and renamed into place.
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { openIndex, TEXT_IN_SEGMENTS } from './schema.js';
import { SegmentTexts, textRoots } from '../segment/segment-texts.js';
import { IndexWriter, type IndexDocument, type IndexWriterOptions } from './index-writer.js';
import { NwaxError } from '../util/errors.js';
import { sweepDead } from '../util/litter.js';
import { captureFieldsOf, datesOf, mergeDates, type CaptureFields } from './document.js';

interface DocRow extends CaptureFields {
  id: number;
  url: string;
  digest: string;
  date: string;
  dates: string;
  title: string;
  inlinks: number;
  boost: number;
  /** Stored in indexes before schema 4; since, read from the segment. */
  text?: string | null;
  anchors: string | null;
  lang: string | null;
  deleted: number;
  /** The index it came from (not a column). */
  from: string;
}

export interface MergeResult {
  documents: number;
  leftOut: number;
}

/**
 * The documents of every input, each input in its own order, merged by key (`URL digest`; a
 * key in several inputs comes from each, the first input's first). Inputs are few (parts of
 * one index): the least of their heads is found by a scan.
 */
function* byKey(inputs: Iterator<DocRow>[]): Generator<DocRow> {
  const heads = inputs.map((it) => it.next());
  const key = (r: DocRow) => `${r.url} ${r.digest}`;
  for (;;) {
    let at = -1;
    for (let i = 0; i < heads.length; i++) if (!heads[i].done && (at < 0 || key(heads[i].value) < key(heads[at].value))) at = i;
    if (at < 0) return;
    yield heads[at].value;
    heads[at] = inputs[at].next();
  }
}

export function mergeIndexes(out: string, inputs: string[], parallel: boolean, writer: IndexWriterOptions = {}): MergeResult {
  if (inputs.length === 0) throw new NwaxError('NWAX_USAGE', 'merge: no input indexes', 2);
  mkdirSync(dirname(out), { recursive: true });
  sweepDead(dirname(resolve(out)), `.${basename(out)}.tmp-`);
  const tmp = join(dirname(out), `.${basename(out)}.tmp-${process.pid}`);
  rmSync(tmp, { force: true });
  const result: MergeResult = { documents: 0, leftOut: 0 };
  const opened = inputs.map((p) => ({ path: p, ...openIndex(p) }));
  // Cursors still open when an error stops the merge: ended before their databases close.
  const reading: Iterator<DocRow>[] = [];
  try {
    const mains = parallel ? [opened[0]] : opened;
    if (parallel) {
      if (opened[0].info.kind !== 'main') throw new NwaxError('NWAX_USAGE', `merge -p: ${inputs[0]} must be the set's main index`, 2);
      for (const o of opened.slice(1)) {
        if (o.info.docCount !== opened[0].info.docCount) {
          throw new NwaxError('NWAX_FORMAT', `${o.path} holds ${o.info.docCount} documents, ${opened[0].path} ${opened[0].info.docCount}: not a parallel set`);
        }
      }
    } else {
      for (const o of opened)
        if (o.info.kind !== 'main')
          throw new NwaxError('NWAX_USAGE', `merge: ${o.path} is a ${o.info.kind} index; give main indexes (or -p for a parallel set)`, 2);
    }
    // The dates of the parallel parts, by document number.
    const extra = new Map<number, string[]>();
    for (const o of parallel ? opened.slice(1) : []) {
      for (const r of o.db.prepare('SELECT id, dates FROM dates').iterate() as Iterable<{ id: number; dates: string }>) {
        extra.set(r.id, [...(extra.get(r.id) ?? []), ...datesOf(r.dates)]);
      }
    }
    const w = new IndexWriter(tmp, writer);
    // The texts of schema 4 inputs are indexed again from their segments, read in key order: each
    // block of parse_text inflated once.
    const texts = new SegmentTexts();
    const nearOf = new Map(mains.map((m) => [m.path, textRoots(m.path, m.info.segmentRoots)]));
    for (const m of mains) w.addSegmentRoots(m.info.segmentRoots);
    const textOf = (r: DocRow): string => {
      if (r.text !== undefined) return r.text ?? '';
      const near = nearOf.get(r.from)!;
      const seg = r.segment;
      if (seg !== '' && texts.where(seg, near) === undefined) {
        throw new NwaxError(
          'NWAX_INPUT',
          `${r.from}: the texts of its documents are in segment ${seg}, found neither where the index was made nor beside it (looked in ${near.join(', ')}); merge the indexes where their segments are`,
        );
      }
      return texts.text(seg, r.url, r.digest, near) ?? '';
    };
    const rows = (m: (typeof mains)[number]) => {
      const it = m.db.prepare('SELECT * FROM docs ORDER BY id').iterate() as Iterator<DocRow>;
      reading.push(it);
      const withText = m.info.version < TEXT_IN_SEGMENTS;
      return {
        next: () => {
          const n = it.next();
          if (n.done) return n;
          n.value.from = m.path;
          if (!withText) n.value.text = undefined;
          return n;
        },
      };
    };
    for (const r of byKey(mains.map(rows))) {
      if (r.deleted) {
        result.leftOut++;
        continue;
      }
      const dates = mergeDates(datesOf(r.dates), extra.get(r.id) ?? []);
      const doc: IndexDocument = {
        url: r.url,
        digest: r.digest,
        date: r.date,
        dates,
        ...captureFieldsOf(r),
        title: r.title,
        text: textOf(r),
        anchors: r.anchors ? r.anchors.split('\n') : [],
        inlinks: r.inlinks,
        boost: r.boost,
        lang: r.lang ?? '',
      };
      w.add(doc);
      result.documents++;
    }
    w.close();
    renameSync(tmp, out);
    return result;
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  } finally {
    for (const it of reading) it.return?.();
    for (const o of opened) o.db.close();
  }
}
