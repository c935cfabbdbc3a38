/**
 * pywb's access rule files (`.aclj`, docs/manual/access-control.rst): one rule a line,
 * `SURT-PREFIX - {"access": ..., "url": ..., "user": ..., "before"/"after": TIMESTAMP,
 * "newer"/"older": {"years", "months", "weeks", "days"}}`, a key ending in `###` matching that
 * URL exactly, `*,` matching every URL. pywb keeps the lines in reverse order and binary-searches
 * them; nwax reads them in any order and sorts them when loaded (rules.ts), and writes them
 * back in pywb's order, so one file serves both.
 */
import { surt } from '../cdx/surt.js';

/** What a rule does (pywb's four access types). */
export type Access = 'allow' | 'block' | 'exclude' | 'allow_ignore_embargo';

export const ACCESS_TYPES: readonly Access[] = ['allow', 'block', 'exclude', 'allow_ignore_embargo'];

/** pywb's relative interval: a capture newer or older than now less this. */
export interface Interval {
  years?: number;
  months?: number;
  weeks?: number;
  days?: number;
}

export interface AccessRule {
  /** The SURT prefix (`com,example)/a`), `*,` for every URL; an exact rule's ends in `###`. */
  key: string;
  access: Access;
  /** The URL the key was made from, as pywb records it (kept where the reader asks for it). */
  url?: string;
  /** The user class the rule is for; everyone's when absent. */
  user?: string;
  /** Captures before (or after) this timestamp only, padded as pywb pads it (20140126 = its last second). */
  before?: string;
  after?: string;
  /** Captures newer (or older) than now less this interval only. */
  newer?: Interval;
  older?: Interval;
  /** Where it was read: the file and its line (1-based). */
  file?: string;
  line?: number;
  /**
   * Its line after the key, as read (` - {"access": ...}`): what orders the rules of one key, as
   * pywb's reverse-sorted file does (ruleTail gives it for a rule made in code).
   */
  tail?: string;
}

/** A rule's line after its key, as read or as nwax writes it. */
export function ruleTail(r: AccessRule): string {
  return r.tail ?? formatRule(r).slice(r.key.length);
}

/** Where a rule was read, `file:line`, or '' for a rule made in code. */
export function sourceOf(r: AccessRule): string {
  return r.file ? `${r.file}:${r.line}` : '';
}

/** The suffix of a key that matches its URL exactly, not as a prefix. */
export const EXACT_SUFFIX = '###';

/** A line that is not a rule: where, and what is wrong. */
export interface RuleError {
  file: string;
  line: number;
  message: string;
}

const TIMESTAMP = /^\d{4,14}$/;
const SURT_LIKE = /^(\*,|[a-z0-9-]+,[^\s]*)$/i;

function interval(v: unknown, what: string): Interval {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`"${what}" must be an object of years, months, weeks and days`);
  const out: Interval = {};
  for (const [k, n] of Object.entries(v)) {
    if (k !== 'years' && k !== 'months' && k !== 'weeks' && k !== 'days') throw new Error(`"${what}" has "${k}"; only years, months, weeks and days`);
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new Error(`"${what}.${k}" must be a whole number of 0 or more`);
    out[k] = n;
  }
  if (Object.keys(out).length === 0) throw new Error(`"${what}" names no years, months, weeks or days`);
  return out;
}

/** The commonest line, `KEY - {"access": "TYPE"}`: read without JSON.parse (a million rules load in half the time). */
const PLAIN = /^(\S+) \S+ \{"access": ?"(allow|block|exclude|allow_ignore_embargo)"\}\s*$/;

/** One line of a rules file as a rule (its `url` left out unless `keepUrl`); throws with what is wrong. */
export function parseRule(line: string, keepUrl = true): AccessRule {
  const plain = PLAIN.exec(line);
  if (plain) return { key: plain[1], access: plain[2] as Access, tail: line.slice(plain[1].length).trimEnd() };
  const m = /^(\S+) (\S+) (\{.*)$/.exec(line);
  if (!m) throw new Error('not `SURT - {json}`');
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(m[3]) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`bad JSON (${(err as Error).message})`);
  }
  const access = json.access;
  if (typeof access !== 'string' || !ACCESS_TYPES.includes(access as Access))
    throw new Error(`"access" must be one of ${ACCESS_TYPES.join(', ')}, not ${JSON.stringify(access)}`);
  const rule: AccessRule = { key: m[1], access: access as Access, tail: line.slice(m[1].length).trimEnd() };
  if (keepUrl && typeof json.url === 'string') rule.url = json.url;
  if (json.user !== undefined) {
    if (typeof json.user !== 'string' || !json.user) throw new Error('"user" must be a non-empty string');
    rule.user = json.user;
  }
  for (const f of ['before', 'after'] as const) {
    if (json[f] === undefined) continue;
    const ts = String(json[f]);
    if (!TIMESTAMP.test(ts)) throw new Error(`"${f}" must be a timestamp of 4 to 14 digits, not ${JSON.stringify(json[f])}`);
    rule[f] = ts;
  }
  for (const f of ['newer', 'older'] as const) if (json[f] !== undefined) rule[f] = interval(json[f], f);
  return rule;
}

/**
 * A rules file's text as rules (blank lines and `#` comments skipped) and the lines that are
 * not; `keepUrl` false leaves each rule's informative `url` out (a service holding a million
 * rules has no use for it).
 */
export function parseAclj(text: string, file: string, keepUrl = true): { rules: AccessRule[]; errors: RuleError[] } {
  const rules: AccessRule[] = [];
  const errors: RuleError[] = [];
  let n = 0;
  for (let at = 0; at < text.length; ) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const line = text.charCodeAt(end - 1) === 13 ? text.slice(at, end - 1) : text.slice(at, end);
    at = end + 1;
    n++;
    if (!line.trim() || line.startsWith('#')) continue;
    try {
      const rule = parseRule(line, keepUrl);
      rule.file = file;
      rule.line = n;
      rules.push(rule);
    } catch (err) {
      errors.push({ file, line: n, message: (err as Error).message });
    }
  }
  return { rules, errors };
}

/** A rule as its line, fields in pywb's order. */
export function formatRule(r: AccessRule): string {
  const json: Record<string, unknown> = { access: r.access };
  if (r.url !== undefined) json.url = r.url;
  if (r.user !== undefined) json.user = r.user;
  for (const f of ['before', 'after', 'newer', 'older'] as const) if (r[f] !== undefined) json[f] = r[f];
  return `${r.key} - ${JSON.stringify(json).replace(/":/g, '": ').replace(/,"/g, ', "')}`;
}

/** Lines in pywb's order: reverse, so that a longer key comes before its prefixes. */
export function sortLines(lines: string[]): string[] {
  return [...lines].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
}

/**
 * The rule key of a URL or a SURT prefix, as `wb-manager acl` makes it: a SURT (or `*,`) is
 * kept as given, a URL canonicalized to its SURT key; `exact` adds the exact-match suffix.
 */
export function ruleKey(urlOrSurt: string, exact = false): string {
  const key = SURT_LIKE.test(urlOrSurt) && !urlOrSurt.includes('://') ? urlOrSurt : surt(urlOrSurt.includes('://') ? urlOrSurt : `http://${urlOrSurt}`);
  return exact ? `${key}${EXACT_SUFFIX}` : key;
}

/**
 * The rule keys of one line of an exclusion list, as OpenWayback and pywb's `acl importtxt`
 * read them: a URL or SURT prefix a line (blank lines and `#` comments none). OpenWayback's own
 * SURT form, `http://(org,example,)/path`, is read too; its host prefix `http://(org,example,`
 * meant the host and every host under it, so it gives both keys (`org,example)`, `org,example,`).
 */
export function exclusionKeys(line: string): string[] {
  const t = line.trim();
  if (!t || t.startsWith('#')) return [];
  // Control characters, spaces, bytes that were not UTF-8: not a list of URLs (a binary file, a
  // file in another encoding), refused rather than made into rules that match nothing.
  if (/[\u0000-\u001f\u007f\ufffd\s]/u.test(t)) throw new Error('control characters, spaces or bytes that are not UTF-8');
  const wayback = /^[a-z]+:\/\/\((.*)$/i.exec(t);
  if (!wayback) {
    if (SURT_LIKE.test(t) && !t.includes('://')) return [ruleKey(t)];
    let host: string;
    try {
      host = new URL(t.includes('://') ? t : `http://${t}`).hostname;
    } catch {
      throw new Error('not a URL');
    }
    if (!/^[a-z0-9-]+(\.[a-z0-9-]+)*\.?$/i.test(host) && !/^\[[0-9a-f:.]+\]$/i.test(host)) throw new Error(`not a host name: ${JSON.stringify(host)}`);
    return [ruleKey(t)];
  }
  const k = wayback[1].toLowerCase().replace(/,\)/, ')');
  if (k.includes(')')) return [k];
  const host = k.replace(/,$/, '');
  return [`${host})`, `${host},`];
}
