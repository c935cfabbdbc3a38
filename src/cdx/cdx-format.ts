/**
 * CDX line formats: CDX11 (` CDX N b a m s k r M S V g`, IA / pywb), CDX9
 * (` CDX N b a m s k r V g`) and CDXJ (`urlkey timestamp {json}`, pywb / cdxj-indexer).
 */
import type { CdxEntry } from './cdx-entry.js';

export type CdxFormat = 'cdx11' | 'cdx9' | 'cdxj';

export const CDX11_HEADER = ' CDX N b a m s k r M S V g';
export const CDX9_HEADER = ' CDX N b a m s k r V g';

export function headerLine(format: CdxFormat): string | undefined {
  return format === 'cdx11' ? CDX11_HEADER : format === 'cdx9' ? CDX9_HEADER : undefined;
}

/** JSON as Python's json.dumps writes it (", " and ": ", non-ASCII as \uXXXX), as cdxj-indexer. */
function pyJson(obj: Record<string, string>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(obj)) parts.push(`${asciiJson(k)}: ${asciiJson(v)}`);
  return `{${parts.join(', ')}}`;
}

function asciiJson(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function formatEntry(e: CdxEntry, format: CdxFormat): string {
  if (format === 'cdxj') {
    const o: Record<string, string> = { url: e.url };
    if (e.mime !== '-') o.mime = e.mime;
    if (e.status !== '-') o.status = e.status;
    if (e.digest !== '-') o.digest = e.digest.includes(':') ? e.digest : `sha1:${e.digest}`;
    if (e.redirect !== '-') o.redirect = e.redirect;
    if (e.meta !== '-') o.robotflags = e.meta;
    o.length = String(e.length);
    o.offset = String(e.offset);
    o.filename = e.filename;
    return `${e.urlkey} ${e.timestamp} ${pyJson(o)}`;
  }
  const digest = e.digest.includes(':') ? e.digest.slice(e.digest.indexOf(':') + 1) : e.digest;
  if (format === 'cdx9') {
    return [e.urlkey, e.timestamp, e.url, e.mime, e.status, digest, e.redirect, e.offset, e.filename].join(' ');
  }
  return [e.urlkey, e.timestamp, e.url, e.mime, e.status, digest, e.redirect, e.meta, e.length, e.offset, e.filename].join(' ');
}
