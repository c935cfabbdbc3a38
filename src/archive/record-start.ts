/**
 * Where a record starts: a `WARC/x.y` version line, or an ARC header line that parses. Used to
 * tell whether a length that lies has run into the next record, and to find the next record
 * after damage when nothing (no gzip member) marks where it begins.
 */
import { looksLikeArcHeader } from './arc-header.js';
import type { ArchiveFormat } from './record.js';

const WARC_LINE = /^WARC\/\d+\.\d+\r?\n/;
const WARC_TAG = Buffer.from('WARC/');
/** Schemes an ARC header line starts with in practice (crawlers' URLs and the filedesc). */
const ARC_SCHEME = /(?:https?|ftp|dns|filedesc|mailto|rtsp|mms|whois):/gi;
const ARC_LINE_START = /^(?:https?|ftp|dns|filedesc|mailto|rtsp|mms|whois):/i;

/** Whether a WARC version line starts at `at` (the view must hold the line). */
export function warcLineAt(view: Buffer, at: number): boolean {
  return WARC_LINE.test(view.toString('latin1', at, at + 16));
}

/**
 * Whether a whole ARC header line (with its newline) starts at `at`, with one of the schemes
 * crawlers write (a stricter test than the reader's own, which takes any scheme: this one
 * decides where records begin inside other bytes).
 */
export function arcLineAt(view: Buffer, at: number): boolean {
  if (!ARC_LINE_START.test(view.toString('latin1', at, at + 12))) return false;
  const eol = view.indexOf(10, at);
  if (eol < 0 || eol - at > 8192) return false;
  return looksLikeArcHeader(view.toString('latin1', at, eol).replace(/\r$/, ''));
}

/** Whether a record of `format` (either where unknown) starts at `at`. */
export function recordAt(view: Buffer, at: number, format: ArchiveFormat | undefined): boolean {
  if (format !== 'arc' && warcLineAt(view, at)) return true;
  return format !== 'warc' && arcLineAt(view, at);
}

/**
 * The first place at or after `from` where a record starts, wherever it is on its line
 * (garbage without a newline may stand right before it); -1 if none in the view.
 */
export function findRecordStart(view: Buffer, from: number, format: ArchiveFormat | undefined): number {
  let best = -1;
  if (format !== 'arc') {
    for (let i = view.indexOf(WARC_TAG, from); i >= 0; i = view.indexOf(WARC_TAG, i + 1)) {
      if (warcLineAt(view, i)) {
        best = i;
        break;
      }
    }
  }
  if (format !== 'warc') {
    const text = view.toString('latin1', from, best >= 0 ? best : view.length);
    ARC_SCHEME.lastIndex = 0;
    for (let m = ARC_SCHEME.exec(text); m; m = ARC_SCHEME.exec(text)) {
      if (arcLineAt(view, from + m.index)) return from + m.index;
    }
  }
  return best;
}
