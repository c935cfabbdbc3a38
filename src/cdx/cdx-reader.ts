/**
 * Reading CDX lines of any common form: classic CDX with a ` CDX ...` legend (CDX11 by
 * default, CDX9, wget's, OpenWayback's) and CDXJ (`urlkey timestamp {json}`). Fields by their
 * CDX letters; split(' '), not a CSV parser: CDX has no quoting and URLs may hold `"`.
 */
import { visible } from '../util/errors.js';

/** The fields of a CDX line as written (strings), named as CdxEntry names them. */
export type CdxFields = Record<'urlkey' | 'timestamp' | 'url' | 'mime' | 'status' | 'digest' | 'length' | 'offset' | 'filename', string>;

const CDX11 = 'N b a m s k r M S V g'.split(' ');

export class CdxLineReader {
  private legend: string[] = CDX11;
  private index: Record<string, number> = CdxLineReader.indexOf(CDX11);

  private static indexOf(legend: string[]): Record<string, number> {
    const idx: Record<string, number> = {};
    legend.forEach((l, i) => {
      if (idx[l] === undefined) idx[l] = i;
    });
    return idx;
  }

  /** Parses one line; undefined for header, blank and `!meta` lines (a legend line is taken in). */
  parse(line: string): CdxFields | undefined {
    if (line === '' || line[0] === '!') return undefined;
    if (line.startsWith(' CDX ')) {
      this.legend = line.slice(5).trim().split(/\s+/);
      this.index = CdxLineReader.indexOf(this.legend);
      return undefined;
    }
    const sp1 = line.indexOf(' ');
    const sp2 = sp1 < 0 ? -1 : line.indexOf(' ', sp1 + 1);
    if (sp2 > 0 && line.charCodeAt(sp2 + 1) === 123 /* { */) return parseCdxj(line, sp1, sp2);
    const f = line.split(' ');
    const at = (letter: string) => {
      const i = this.index[letter];
      return i === undefined ? '-' : (f[i] ?? '-');
    };
    return {
      urlkey: at('N'),
      timestamp: at('b'),
      url: at('a'),
      mime: at('m'),
      status: at('s'),
      digest: at('k'),
      length: at('S'),
      offset: at('V'),
      filename: at('g'),
    };
  }
}

function parseCdxj(line: string, sp1: number, sp2: number): CdxFields | undefined {
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(line.slice(sp2 + 1)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const s = (k: string) => (j[k] === undefined || j[k] === null || j[k] === '' ? '-' : String(j[k]));
  return {
    urlkey: line.slice(0, sp1),
    timestamp: line.slice(sp1 + 1, sp2),
    url: s('url'),
    mime: s('mime'),
    status: s('status'),
    digest: s('digest'),
    length: s('length'),
    offset: s('offset'),
    filename: s('filename'),
  };
}

/** A digest as written in CDX (bare) or CDXJ (`sha1:` prefix): the bare value. */
export function bareDigest(d: string): string {
  return d.startsWith('sha1:') || d.startsWith('SHA1:') ? d.slice(5) : d;
}

/** Why a line is not a CDX data line (`urlkey timestamp ...`), or undefined when it is one. */
export function cdxLineProblem(line: string): string | undefined {
  return /^\S+ \d{4,14}(?: |$)/.test(line) ? undefined : `not a CDX line (expected "urlkey timestamp ..."): "${visible(line.slice(0, 60))}"`;
}

/** Whether a line holds all its fields (a CDXJ line its whole JSON): the last line of a cut file may not. */
export function cdxLineComplete(line: string, fields = 11): boolean {
  const a = line.indexOf(' ');
  const b = a < 0 ? -1 : line.indexOf(' ', a + 1);
  if (b > 0 && line.charCodeAt(b + 1) === 123) {
    try {
      JSON.parse(line.slice(b + 1));
      return true;
    } catch {
      return false;
    }
  }
  return line.split(' ').length >= fields;
}
