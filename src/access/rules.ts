/**
 * The decision of a set of access rules for one capture (a URL at a timestamp, for a user
 * class), as pywb's AccessChecker makes it (pywb/warcserver/access_checker.py):
 * - the rules are visited as in pywb's reverse-sorted file: the exact rule of the URL's key
 *   (`###`), then the rules whose key is a prefix of it, longest first, `*,` last; at one key
 *   in the reverse order of their lines (rule-table.ts);
 * - the public takes the first rule of the first key that has one without a user; a user class
 *   takes the first rule for it at that key, else the last rule for everyone there (pywb keeps
 *   the last one it saw before the key changes); rules for other users are passed over;
 * - a rule whose date condition (before, after, newer or older: the first of them it has, as
 *   pywb checks one) does not hold for the capture gives the default access, as no rule would;
 * - then the embargo withholds captures it covers unless the access was `exclude` or
 *   `allow_ignore_embargo`.
 *
 * Lookup is a binary search in the keys, sorted, then a walk up from the greatest key not
 * after the URL's to its longest prefix among them (each key knows its longest prefix key):
 * every prefix of a key that lies between them shares that prefix, so the walk finds the
 * longest. A million rules: one search of 20 steps and a few steps up.
 */
import { type Access, type AccessRule, EXACT_SUFFIX, type Interval } from './aclj.js';
import { isDated, RuleGroups } from './rule-table.js';
import { cutoff, type Embargo, padDown, padUp, timestampOf } from './dates.js';
import { surt } from '../cdx/surt.js';

/** What a capture gets: served, blocked (451, with a notice) or excluded (404, as if never archived). */
export type Verdict = 'allow' | 'block' | 'exclude';

export interface Decision {
  access: Verdict;
  /** The rule that decided; undefined where the default did. */
  rule?: AccessRule;
  /** The embargo withheld a capture its rule (or the default) allowed. */
  embargoed?: boolean;
}

export interface RulesOptions {
  /** What no rule decides (nwax.access.default). */
  defaultAccess: Verdict;
  /** The captures withheld unless a rule says allow_ignore_embargo (nwax.access.embargo): newer or older than an interval, after or before a timestamp. */
  embargo?: Embargo;
  /** What the embargo does to them (nwax.access.embargo.access). */
  embargoAccess?: Verdict;
  /** The clock (tests set it). */
  now?: () => Date;
}

/** A rule found: rule `i` of group `g` of `groups`. */
interface Found {
  groups: RuleGroups;
  g: number;
  i: number;
}

export class AccessRules {
  private readonly prefix: RuleGroups;
  private readonly exact: RuleGroups;
  /** The user classes the rules name. */
  readonly users: readonly string[];
  readonly size: number;
  private readonly now: () => Date;
  /** The cutoffs of the intervals, and when they were computed (ms; again after a minute). */
  private cutoffs = { at: -Infinity, values: new Map<Interval, string>() };
  /** Whether decisions move with the clock (an embargo, or newer/older rules). */
  private readonly relative: boolean;

  constructor(
    rules: readonly AccessRule[],
    readonly options: RulesOptions,
  ) {
    this.size = rules.length;
    this.now = options.now ?? (() => new Date());
    const prefix: AccessRule[] = [];
    const exact: AccessRule[] = [];
    const users = new Set<string>();
    for (const r of rules) {
      if (r.user) users.add(r.user);
      if (r.key.endsWith(EXACT_SUFFIX)) exact.push(r);
      else prefix.push(r);
    }
    // `*,` matches every URL: the empty prefix, the ancestor of every key. The informative url is kept whole.
    this.prefix = new RuleGroups(
      prefix,
      (r) => (r.key === '*,' ? '' : r.key),
      '',
      (r) => r.url !== undefined,
    );
    this.exact = new RuleGroups(
      exact,
      (r) => r.key.slice(0, -EXACT_SUFFIX.length),
      EXACT_SUFFIX,
      (r) => r.url !== undefined,
    );
    this.users = [...users].sort();
    const e = options.embargo;
    this.relative = (!!e && ('newer' in e || 'older' in e)) || rules.some((r) => r.newer || r.older);
  }

  /**
   * What decisions made now stay valid for: '' where they never change, else the current hour
   * (an embargo or a newer/older rule moves with the clock; what was decided for whole sets of
   * documents is decided again each hour).
   */
  epoch(): string {
    return this.relative ? timestampOf(this.now()).slice(0, 10) : '';
  }

  /** The key rules are matched with: the URL's SURT key (scheme, `www.`, case, default ports, query order canonicalized). */
  keyOf(url: string): string {
    return surt(url);
  }

  /** The groups of rules that may decide for `key`, most specific first: [rules, group]. */
  private *chain(key: string): Generator<[RuleGroups, number]> {
    const e = this.exact;
    const x = e.keys.floor(key);
    if (x >= 0 && e.keys.key(x) === key) yield [e, x];
    const p = this.prefix;
    // Up from the greatest key not after this one to the longest that is a prefix of it (see the top).
    let at = p.keys.floor(key);
    while (at >= 0 && !p.keys.prefixOf(at, key)) at = p.parent[at];
    for (; at >= 0; at = p.parent[at]) yield [p, at];
  }

  /** The cutoff timestamp of an interval, now (computed again after a minute: a million decisions read no clock). */
  private cutoffOf(iv: Interval): string {
    const ms = this.options.now ? this.now().getTime() : Date.now();
    if (ms - this.cutoffs.at >= 60_000 || ms < this.cutoffs.at) this.cutoffs = { at: ms, values: new Map() };
    let c = this.cutoffs.values.get(iv);
    if (c === undefined) this.cutoffs.values.set(iv, (c = cutoff(iv, new Date(ms))));
    return c;
  }

  /** Whether a rule's date condition holds for a capture at `ts` (padded): the first of before, after, newer, older it has, as pywb checks one. */
  private holds(r: AccessRule, ts: string): boolean {
    if (r.before) return ts < padUp(r.before);
    if (r.after) return ts > padUp(r.after);
    if (r.newer) return ts > this.cutoffOf(r.newer);
    if (r.older) return ts < this.cutoffOf(r.older);
    return true;
  }

  /**
   * The rule deciding for a key at a timestamp for a user class (none: the public), in pywb's
   * order (see the top); undefined where none does or the one found has a date condition that
   * does not hold (the default decides).
   */
  private find(key: string, timestamp: string, user?: string): Found | undefined {
    for (const [groups, g] of this.chain(key)) {
      let everyone = -1;
      for (let i = groups.start[g]; i < groups.end[g]; i++) {
        const ruleUser = groups.conditions(i)?.user;
        if (ruleUser === user) return this.ifHolds({ groups, g, i }, timestamp);
        if (ruleUser === undefined) everyone = i;
      }
      if (everyone >= 0) return this.ifHolds({ groups, g, i: everyone }, timestamp);
    }
    return undefined;
  }

  private ifHolds(f: Found, timestamp: string): Found | undefined {
    const c = f.groups.conditions(f.i);
    return c && isDated(c) && !this.holds(c, padDown(timestamp)) ? undefined : f;
  }

  /** The rule deciding for a key at a timestamp for a user class; undefined: the default. */
  ruleFor(key: string, timestamp: string, user?: string): AccessRule | undefined {
    const f = this.find(key, timestamp, user);
    return f?.groups.rule(f.g, f.i);
  }

  /** The decision for a capture of the URL key `key` at `timestamp`, for `user` (none: the public), with the rule that made it. */
  decideKey(key: string, timestamp: string, user?: string): Decision {
    const rule = this.ruleFor(key, timestamp, user);
    const access = this.verdictOf(rule?.access, timestamp);
    return { ...access, ...(rule ? { rule } : {}) };
  }

  /** What a capture of the URL key `key` at `timestamp` gets, for `user` (no rule reported: the fast path of views). */
  verdict(key: string, timestamp: string, user?: string): Verdict {
    const f = this.find(key, timestamp, user);
    return this.verdictOf(f?.groups.accessOf(f.i), timestamp).access;
  }

  /** Where the embargo holds the captures after a time (newer, after): that time now; else undefined (none, or it holds the earlier ones). */
  embargoCutoff(): string | undefined {
    const e = this.options.embargo;
    if (!e) return undefined;
    if ('newer' in e) return this.cutoffOf(e.newer);
    if ('after' in e) return padUp(e.after);
    return undefined;
  }

  /** Whether the embargo holds a capture at `timestamp`. */
  private embargoed(timestamp: string): boolean {
    const e = this.options.embargo;
    if (!e) return false;
    const ts = padDown(timestamp);
    if ('newer' in e) return ts > this.cutoffOf(e.newer);
    if ('older' in e) return ts < this.cutoffOf(e.older);
    if ('after' in e) return ts > padUp(e.after);
    return ts < padUp(e.before);
  }

  /** What a capture at `timestamp` of a URL no rule can decide gets: the default, and the embargo. */
  verdictDefault(timestamp: string): Verdict {
    return this.verdictOf(undefined, timestamp).access;
  }

  /** A rule's access (the default's where none), then the embargo. */
  private verdictOf(ruled: Access | undefined, timestamp: string): { access: Verdict; embargoed?: true } {
    const access: Access = ruled ?? this.options.defaultAccess;
    if (access === 'exclude') return { access };
    if (access !== 'allow_ignore_embargo' && this.embargoed(timestamp)) {
      const embargo = this.options.embargoAccess ?? 'exclude';
      if (embargo !== 'allow') return { access: embargo, embargoed: true };
    }
    return { access: access === 'allow_ignore_embargo' ? 'allow' : access };
  }

  /** The decision for a capture of `url` at `timestamp`, for `user`. */
  decide(url: string, timestamp: string, user?: string): Decision {
    return this.decideKey(this.keyOf(url), timestamp, user);
  }

  /** Whether the decisions for `key` can differ by capture date (a dated rule may decide, or an embargo is set). */
  dated(key: string): boolean {
    if (this.options.embargo) return true;
    for (const [groups, g] of this.chain(key)) if (groups.anyDated(groups.start[g], groups.end[g])) return true;
    return false;
  }

  /**
   * Whether any rule can decide for a URL of this host (`www.example.com`), so that its
   * documents must be looked at one by one: a rule keyed on the host or under it, on a domain
   * prefix of it (`com,example,`, `com,`), or `*,`. Where none can, every capture of the host
   * gets the default (and the embargo).
   */
  touchesHost(host: string): boolean {
    const hostKey = surt(`http://${host}/`).replace(/\)\/$/, '');
    const full = `${hostKey})`;
    const withPort = `${hostKey}:`;
    const within = (k: string) => k.startsWith(full) || k.startsWith(withPort) || full.startsWith(k);
    // Keys starting with the host's (a range of each sorted list), then its prefixes (up the chain, `*,` last).
    if (this.exact.keys.someStartingWith(hostKey, within) || this.prefix.keys.someStartingWith(hostKey, within)) return true;
    return !this.chain(full).next().done;
  }
}
