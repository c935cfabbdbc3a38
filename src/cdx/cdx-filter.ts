/**
 * pywb's CDX filter syntax: `field:regex` (the regex matched from the start of the value, as
 * Python's re.match), `!` before it inverts, `=field:value` is an exact match and
 * `~field:substring` a substring match; without `field:` the whole line is matched. Field
 * names are pywb's, with its aliases (statuscode, mimetype, original).
 *
 * Patterns come from users (the `/cdx` API is public), so they run on RE2's linear-time
 * engine (re2js), never on V8's backtracking one: `(.*.*)*z` costs microseconds per line, not
 * minutes. RE2 has no backreferences or lookaround; a pattern using them is refused with a
 * clear message. A pattern without regex syntax is a plain prefix test.
 */
import { RE2JS } from 're2js';
import type { CdxFields } from './cdx-reader.js';
import { NwaxError } from '../util/errors.js';

/** Longest filter accepted (a pattern is compiled per request). */
export const MAX_FILTER_LENGTH = 1024;

const FIELDS = ['urlkey', 'timestamp', 'url', 'mime', 'status', 'digest', 'length', 'offset', 'filename'] as const;
const ALIASES: Record<string, string> = {
  statuscode: 'status',
  mimetype: 'mime',
  original: 'url',
  urlkey: 'urlkey',
  key: 'urlkey',
  ts: 'timestamp',
  file: 'filename',
  mime: 'mime',
  status: 'status',
  url: 'url',
  digest: 'digest',
  length: 'length',
  offset: 'offset',
  filename: 'filename',
  timestamp: 'timestamp',
};

export class CdxFilter {
  readonly field: keyof CdxFields | '';
  readonly invert: boolean;
  private readonly test: (v: string) => boolean;

  /** The field a name or alias means; an error for names pywb does not know. */
  static fieldName(name: string): keyof CdxFields {
    const f = ALIASES[name.toLowerCase()];
    if (!f) throw new NwaxError('NWAX_QUERY', `unknown CDX field "${name}" (one of ${FIELDS.join(', ')}; statuscode, mimetype and original also work)`, 2);
    return f as keyof CdxFields;
  }

  constructor(readonly spec: string) {
    if (spec.length > MAX_FILTER_LENGTH) {
      throw new NwaxError('NWAX_QUERY', `filter ${JSON.stringify(spec.slice(0, 40))}...: longer than ${MAX_FILTER_LENGTH} characters`, 2);
    }
    let s = spec;
    this.invert = s.startsWith('!');
    if (this.invert) s = s.slice(1);
    let mode: 'regex' | 'exact' | 'contains' = 'regex';
    if (s.startsWith('=')) {
      mode = 'exact';
      s = s.slice(1);
    } else if (s.startsWith('~')) {
      mode = 'contains';
      s = s.slice(1);
    }
    const colon = s.indexOf(':');
    // A name before the colon is a field; a colon further on is part of a whole-line pattern.
    if (colon > 0 && /^[a-z]+$/i.test(s.slice(0, colon))) {
      this.field = CdxFilter.fieldName(s.slice(0, colon));
      s = s.slice(colon + 1);
    } else this.field = '';
    if (mode === 'exact') this.test = (v) => v === s;
    else if (mode === 'contains') this.test = (v) => v.includes(s);
    else if (!/[\\^$.|?*+()[\]{}]/.test(s)) {
      // No regex syntax: re.match of a literal is a prefix test.
      this.test = (v) => v.startsWith(s);
    } else {
      let re: RE2JS;
      try {
        re = RE2JS.compile(s);
      } catch (err) {
        const why = (err as Error).message.replace(/^error parsing regexp: /, '');
        throw new NwaxError(
          'NWAX_QUERY',
          `filter ${spec}: not a pattern the linear-time matcher takes (${why}; backreferences and lookaround are not supported)`,
          2,
        );
      }
      // Anchored at the start only, as re.match: `mime:text/` matches text/html.
      this.test = (v) => re.matcher(v).lookingAt();
    }
  }

  /** Whether a line passes; `line` is the whole line for filters without a field. */
  matches(fields: CdxFields, line: string): boolean {
    const v = this.field === '' ? line : fields[this.field];
    return this.test(v) !== this.invert;
  }
}

/** Whether a line passes every filter. */
export function passesAll(filters: readonly CdxFilter[], fields: CdxFields, line: string): boolean {
  for (const f of filters) if (!f.matches(fields, line)) return false;
  return true;
}
