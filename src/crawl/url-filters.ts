/**
 * Which URLs a crawl keeps, and in what form (Nutch's URL normalizers and filters): the basic
 * normalization (WHATWG parse: scheme and host lower case, default port, dot segments; the
 * fragment dropped), then the regex normalizer rules of conf/regex-normalize.json, then the
 * rules of conf/regex-urlfilter.txt (first matching `+`/`-` rule decides; none matching
 * rejects). Used by inject, generate, the fetcher (redirect targets) and updatedb (outlinks).
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { Configuration } from '../conf/config.js';
import { NwaxError } from '../util/errors.js';

interface Rule {
  accept: boolean;
  re: RegExp;
}

export class UrlFilters {
  private constructor(
    private readonly normalizers: { re: RegExp; to: string }[],
    private readonly rules: Rule[],
  ) {}

  static fromFiles(filterFile: string, normalizeFile: string): UrlFilters {
    const rules: Rule[] = [];
    readFileSync(filterFile, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const l = line.trim();
        if (l === '' || l.startsWith('#')) return;
        if (l[0] !== '+' && l[0] !== '-') throw new NwaxError('NWAX_CONF', `${filterFile}: line ${i + 1}: a rule starts with + or -`);
        try {
          rules.push({ accept: l[0] === '+', re: new RegExp(l.slice(1)) });
        } catch (err) {
          throw new NwaxError('NWAX_CONF', `${filterFile}: line ${i + 1}: ${(err as Error).message}`);
        }
      });
    let spec: { rules?: { pattern: string; flags?: string; substitution: string }[] };
    try {
      spec = JSON.parse(readFileSync(normalizeFile, 'utf8')) as typeof spec;
    } catch (err) {
      throw new NwaxError('NWAX_CONF', `${normalizeFile}: ${(err as Error).message}`);
    }
    const normalizers = (spec.rules ?? []).map((r, i) => {
      try {
        return { re: new RegExp(r.pattern, `${(r.flags ?? '').replace(/g/g, '')}g`), to: r.substitution };
      } catch (err) {
        throw new NwaxError('NWAX_CONF', `${normalizeFile}: rule ${i + 1}: ${(err as Error).message}`);
      }
    });
    return new UrlFilters(normalizers, rules);
  }

  /** From urlfilter.regex.file and urlnormalizer.regex.file (relative to conf/). */
  static fromConf(conf: Configuration, confDir: string): UrlFilters {
    const at = (p: string) => (isAbsolute(p) ? p : join(confDir, p));
    return UrlFilters.fromFiles(at(conf.getString('urlfilter.regex.file')), at(conf.getString('urlnormalizer.regex.file')));
  }

  /** The normalized URL, or undefined when it is not an http(s) URL or a filter rejects it. */
  apply(raw: string, base?: string): string | undefined {
    let u: URL;
    try {
      u = new URL(raw.trim(), base);
    } catch {
      return undefined;
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    u.hash = '';
    let s = u.href;
    for (const n of this.normalizers) s = s.replace(n.re, n.to);
    for (const r of this.rules) if (r.re.test(s)) return r.accept ? s : undefined;
    return undefined;
  }
}
