/**
 * The explained differences between nwax and each reference indexer. Each rule has the id of
 * its section in docs/conformance.md, which says what the tools do and why nwax does what it
 * does. A rule names the tool(s), the field and the shape of the difference, so that it cannot
 * hide an unrelated bug; a difference no rule claims fails the conformance suite.
 */
import { base32 } from '../archive/digest.js';
import type { Difference } from './conformance-refs.js';

export interface Rule {
  id: string;
  matches(d: Difference): boolean;
}

const isArc = (d: Difference) => /\.arc(\.gz)?$/.test(d.file);
const tool = (d: Difference, ...names: string[]) => names.includes(d.ref.tool);
const empty = (v: string | undefined) => v === undefined || v === '-' || v === '';
const lineOf = (d: Difference) => d.oursLine ?? d.theirsLine;
const oursOnly = (d: Difference) => d.field === 'line' && d.ours !== undefined && d.theirs === undefined;
const theirsOnly = (d: Difference) => d.field === 'line' && d.ours === undefined && d.theirs !== undefined;

/** Archives damaged on purpose, or with records whose lengths lie. */
const DAMAGED = new Set([
  'made-here/dupes-corrupt-member-at-1858.warc.gz',
  'made-here/dupes-truncated-at-8000.warc.gz',
  'made-here/example-truncated-at-4000.warc',
  'warcio/example-trunc.warc',
  'warcio-js/example-bad-length.warc',
  'pywb/example.warc',
  'pywb/bad.arc',
  'webarchive-commons/link-extraction-test.warc',
  'warcio/example-wrong-chunks.warc.gz',
  'cdx-writer/negative_content_length.arc.gz',
  'warcio/example-space-in-url.arc',
  'pywb/missing-status-text.warc',
  'pywb/example-extra.warc',
]);
/** Whole WARC gzipped as one member: no record can be reached by offset. */
const SINGLE_MEMBER = new Set(['pywb/example-bad.warc.gz.bad', 'warcio/example-bad-non-chunked.warc.gz']);

export const RULES: Rule[] = [
  // 1. Reading ARC files
  { id: 'warciojs-arc', matches: (d) => tool(d, 'warcio.js') && isArc(d) },
  { id: 'arc-date', matches: (d) => d.field === 'timestamp' && isArc(d) && /^\d{14}$|^-$/.test(d.ours ?? '') },
  {
    id: 'arc-mime',
    matches: (d) => d.field === 'mime' && isArc(d) && d.ours !== 'warc/filedesc' && tool(d, 'cdxj-indexer', 'jwarc', 'CDX-Writer'),
  },
  {
    id: 'arc-filedesc',
    matches: (d) =>
      d.ref.allRecords &&
      isArc(d) &&
      ((lineOf(d)?.urlkey ?? '').startsWith('filedesc:') ||
        (d.oursLine?.url ?? '').startsWith('filedesc:') ||
        (d.theirsLine?.urlkey === '-' && d.oursLine?.urlkey?.startsWith('filedesc:') === true)),
  },
  {
    id: 'arc-header-fields',
    matches: (d) =>
      isArc(d) &&
      ['url', 'urlkey'].includes(d.field) &&
      d.theirs !== undefined &&
      d.ours !== undefined &&
      (/%20|\r|[\x00-\x1f]/.test(d.theirs) || /[^\x00-\x7f]/.test(d.theirs + d.ours) || /%[0-9A-F]{2}/.test(d.ours) || /%[89a-f][0-9a-f]/i.test(d.theirs)),
  },
  {
    id: 'arc-non-http-payload',
    matches: (d) =>
      isArc(d) &&
      ['digest', 'status', 'mime'].includes(d.field) &&
      ['cdx-writer/alexa_short_header.arc.gz', 'pywb/bad.arc', 'cdx-writer/empty_record.arc.gz'].includes(d.file),
  },
  { id: 'arc-length-jwarc', matches: (d) => tool(d, 'jwarc') && isArc(d) && d.field === 'length' && Number(d.theirs) === Number(d.ours) + 1 },
  { id: 'arc-jwarc-fails', matches: (d) => tool(d, 'jwarc') && isArc(d) && (d.refFailed || d.file.includes('blackbook') || d.field === 'line') },

  // 2. URL keys
  { id: 'surt-warciojs', matches: (d) => tool(d, 'warcio.js') && d.field === 'urlkey' },
  { id: 'surt-post-append', matches: (d) => d.field === 'urlkey' && /__wb_(method|post)/.test(d.theirs ?? '') },
  {
    id: 'surt-non-http',
    matches: (d) => d.field === 'urlkey' && /^(metadata|ftp|file|urn|dns|warcinfo):/i.test(lineOf(d)?.url ?? ''),
  },
  { id: 'surt-bad-host', matches: (d) => d.field === 'urlkey' && tool(d, 'jwarc') && /^http:\/\/[^/]*:[^0-9/]/.test(d.ours ?? '') },
  { id: 'wget-cdx', matches: (d) => tool(d, 'wget') },
  { id: 'jwattools-cdx', matches: (d) => tool(d, 'JWAT-Tools') },
  { id: 'openwayback-key', matches: (d) => tool(d, 'OpenWayback') && d.field === 'urlkey' && (d.theirs ?? '').startsWith('metadata)') },

  {
    id: 'url-escaped',
    matches: (d) => (d.field === 'url' || d.field === 'line' || d.field === 'timestamp') && /[ \x00-\x1f]/.test(d.theirsLine?.url ?? d.theirs ?? ''),
  },
  { id: 'url-escaped', matches: (d) => tool(d, 'warcio.js') && /space-in-target-uri|space_in_target_uri/.test(d.file) },
  { id: 'date-truncated', matches: (d) => d.field === 'timestamp' && d.file === 'webarchive-discovery/truncated_datetime.warc' },

  // 3. Digests
  {
    id: 'digest-encoding',
    matches: (d) =>
      d.field === 'digest' &&
      d.theirs !== undefined &&
      ((/^[0-9a-f]{40}$/i.test(d.theirs) && base32(Buffer.from(d.theirs, 'hex')) === d.ours) ||
        (/^[A-Za-z0-9+/_-]{27}=$/.test(d.theirs) && base32(Buffer.from(d.theirs, 'base64')) === d.ours) ||
        (/^[a-z0-9-]+:/.test(d.ours ?? '') && !d.ours!.startsWith('sha1:') && d.ours === `${d.ours!.split(':')[0]}:${d.theirs}`)),
  },
  { id: 'records-all', matches: (d) => d.field === 'digest' && tool(d, 'CDX-Writer') && ['warc/request', 'warc-info'].includes(d.theirsLine?.mime ?? '') },
  {
    id: 'digest-computed',
    matches: (d) =>
      d.field === 'digest' && empty(d.theirs) && /^[A-Z2-7]{32}$/.test(d.ours ?? '') && tool(d, 'warcio.js', 'jwarc', 'cdxj-indexer', 'CDX-Writer'),
  },

  // 4. Length and offset
  {
    id: 'length-uncompressed',
    matches: (d) => tool(d, 'jwarc', 'warcio.js') && d.field === 'length' && !d.file.endsWith('.gz') && Number(d.theirs) - Number(d.ours) === 4,
  },
  { id: 'length-bad-content-length', matches: (d) => DAMAGED.has(d.file) && ['length', 'offset'].includes(d.field) },
  { id: 'single-member-gzip', matches: (d) => SINGLE_MEMBER.has(d.file) },
  {
    id: 'empty-gzip-members',
    matches: (d) => d.file === 'cdx-writer/empty-gzips.warc.gz' && (d.field === 'line' || d.field === 'urlkey' || d.field === 'url'),
  },

  // 5. Status
  { id: 'status-revisit', matches: (d) => d.field === 'status' && lineOf(d)?.mime === 'warc/revisit' && empty(d.theirs) !== empty(d.ours) },
  { id: 'status-resource', matches: (d) => d.field === 'status' && empty(d.ours) && ['200', '226'].includes(d.theirs ?? '') && tool(d, 'jwarc', 'CDX-Writer') },
  { id: 'warciojs-warc-0.17', matches: (d) => d.field === 'status' && tool(d, 'warcio.js') && d.file === 'pywb/missing-status-text.warc' },
  { id: 'status-dns', matches: (d) => d.field === 'status' && tool(d, 'warcio.js') && d.theirs === '' && empty(d.ours) },

  // 6. MIME types
  { id: 'mime-missing', matches: (d) => d.field === 'mime' && d.ours === '-' && ['unk', 'application/octet-stream'].includes(d.theirs ?? '') },
  {
    id: 'mime-params',
    matches: (d) =>
      d.field === 'mime' &&
      d.ours !== undefined &&
      d.theirs !== undefined &&
      (d.theirs.startsWith(`${d.ours};`) || d.theirs.startsWith(`${d.ours}%20`) || d.theirs.startsWith(`${d.ours} `)),
  },
  {
    id: 'mime-all-records',
    matches: (d) =>
      d.field === 'mime' &&
      d.ref.allRecords &&
      ['warc/request', 'warc-info', 'warc/warcinfo', 'application/warc-fields', 'warc/metadata', undefined, '-'].includes(d.theirs),
  },
  { id: 'mime-params', matches: (d) => d.field === 'line' && tool(d, 'warcio.js') && d.refMalformed },
  { id: 'warciojs-warc-0.17', matches: (d) => tool(d, 'warcio.js') && d.file.includes('blackbook-truncated.warc') },

  // 7. Redirect and robot flags
  { id: 'redirect-field', matches: (d) => d.field === 'redirect' && empty(d.theirs) && /^[a-z]+:/i.test(d.ours ?? '') },
  {
    id: 'redirect-field',
    matches: (d) =>
      d.field === 'redirect' &&
      tool(d, 'jwarc') &&
      d.theirs !== undefined &&
      d.ours !== undefined &&
      (d.ours.endsWith(d.theirs.replace(/^\.\.?\//, '')) || new URL(d.theirs, d.oursLine?.url ?? 'http://x/').href === d.ours),
  },
  { id: 'robot-flags', matches: (d) => d.field === 'meta' && empty(d.theirs) && /^[AFI]+$/.test(d.ours ?? '') },
  { id: 'robot-flags-password', matches: (d) => d.field === 'meta' && d.theirs === 'P' && empty(d.ours) },

  // 8. Which records get a line
  { id: 'records-jwarc', matches: (d) => tool(d, 'jwarc') && oursOnly(d) && /^(org,gnu\)|metadata|dns:)/.test(d.oursLine?.urlkey ?? '') },
  { id: 'records-jwarc', matches: (d) => tool(d, 'jwarc') && oursOnly(d) && /"?metadata:|\bmetadata:\/\//.test(d.ours ?? '') },
  {
    id: 'records-jwarc',
    matches: (d) => tool(d, 'jwarc') && oursOnly(d) && ['cdx-writer/missing_content_type.warc.gz', 'cdxj-indexer/missing-http.warc.gz'].includes(d.file),
  },
  { id: 'jwarc-eof-line', matches: (d) => tool(d, 'jwarc') && theirsOnly(d) && d.theirsLine?.length === '0' },
  { id: 'records-cdx-writer', matches: (d) => tool(d, 'CDX-Writer') && oursOnly(d) },
  {
    // Records without a target URI (warcinfo) in all-records mode: each tool keys them its own way.
    id: 'records-all',
    matches: (d) =>
      d.ref.allRecords && ['line', 'digest', 'url', 'timestamp'].includes(d.field) && (d.theirsLine ? empty(d.theirsLine.url) : empty(d.oursLine?.url)),
  },

  {
    id: 'records-all',
    matches: (d) => ['url', 'urlkey'].includes(d.field) && d.ref.allRecords && tool(d, 'CDX-Writer') && (d.theirs ?? '').startsWith('warcinfo:'),
  },
  { id: 'records-jwarc', matches: (d) => tool(d, 'jwarc') && oursOnly(d) && d.file.includes('blackbook-truncated.warc') && d.oursLine?.mime === 'text/anvl' },
  { id: 'jwarc-eof-line', matches: (d) => tool(d, 'jwarc') && oursOnly(d) && d.file.startsWith('pywb/example-url-agnostic-') },

  // 9. Damaged input
  { id: 'damaged-input', matches: (d) => DAMAGED.has(d.file) && d.field === 'line' },
  { id: 'reference-failed', matches: (d) => d.refFailed && (theirsOnly(d) || oursOnly(d)) },
];

export function explain(d: Difference): string | undefined {
  try {
    return RULES.find((r) => r.matches(d))?.id;
  } catch {
    return undefined;
  }
}
