/**
 * ARC (v1 and v2) header lines. Real files bend the format: URLs and mime types with raw
 * spaces, the date and the IP transposed, dates of 10 to 18 digits; these are read the way
 * IA's CDX-Writer reads them (see docs/conformance.md).
 */
import { arcDateTo14 } from './dates.js';

export interface ArcHeader {
  url: string;
  ip: string;
  date: string | undefined;
  rawDate: string;
  mime: string;
  length: number;
  /** v2 fields where present. */
  resultCode?: string;
  checksum?: string;
  location?: string;
}

const IP_LIKE = /^(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|None|-)$/;
const DATE_LIKE = /^\d{8,}/;

/** Parses one header line (without its newline). Throws a string naming what is wrong. */
export function parseArcHeader(line: string): ArcHeader {
  const f = line.split(' ').filter((x, i, a) => x !== '' || (i > 0 && i < a.length - 1));
  if (f.length < 5) throw `ARC header line has ${f.length} fields, expected 5 or 10`;
  const lengthText = f[f.length - 1];
  if (!/^-?\d+$/.test(lengthText)) throw `ARC header length "${lengthText.slice(0, 40)}" is not a number`;
  const length = Number(lengthText);
  if (length < 0) throw `ARC header length ${length} is negative`;
  // Above 2^53 a number is rounded: no file is that long, and the digits are printed as read.
  if (!Number.isSafeInteger(length)) throw `ARC header length ${lengthText.slice(0, 40)} is larger than any file`;

  // v2: URL IP date mime result-code checksum location offset filename length
  if (f.length === 10 && IP_LIKE.test(f[1]) && /^(\d{3}|-)$/.test(f[4])) {
    return {
      url: f[0],
      ip: f[1],
      rawDate: f[2],
      date: arcDateTo14(f[2]),
      mime: f[3],
      length,
      resultCode: f[4],
      checksum: f[5],
      location: f[6],
    };
  }
  // Transposed: URL date IP mime length.
  if (f.length === 5 && !IP_LIKE.test(f[1]) && DATE_LIKE.test(f[1]) && IP_LIKE.test(f[2])) {
    return { url: f[0], ip: f[2], rawDate: f[1], date: arcDateTo14(f[1]), mime: f[3], length };
  }
  // v1, possibly with spaces in the URL (before the IP) or in the mime type (after the date).
  let ipIdx = 1;
  if (!(IP_LIKE.test(f[1]) && f.length >= 5)) {
    ipIdx = -1;
    for (let i = 1; i + 2 < f.length; i++) {
      if (IP_LIKE.test(f[i]) && DATE_LIKE.test(f[i + 1])) {
        ipIdx = i;
        break;
      }
    }
    if (ipIdx < 0) throw 'ARC header line has no IP address and date where expected';
  } else if (!DATE_LIKE.test(f[2]) && f.length > 5) {
    for (let i = 2; i + 2 < f.length; i++) {
      if (IP_LIKE.test(f[i]) && DATE_LIKE.test(f[i + 1])) {
        ipIdx = i;
        break;
      }
    }
  }
  const url = f.slice(0, ipIdx).join('%20');
  const mime = f.slice(ipIdx + 2, f.length - 1).join(' ') || '-';
  return { url, ip: f[ipIdx], rawDate: f[ipIdx + 1], date: arcDateTo14(f[ipIdx + 1]), mime, length };
}

/** Whether a line looks like an ARC header line (to find the next record after damage). */
export function looksLikeArcHeader(line: string): boolean {
  if (!/^[a-z][a-z0-9+.-]*:\S*/i.test(line) || line.length > 8192) return false;
  try {
    parseArcHeader(line);
    return true;
  } catch {
    return false;
  }
}
