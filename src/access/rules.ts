/**
 * The decision of a set of access rules for one capture (a URL at a timestamp, for a user
 * class), as pywb's AccessChecker makes it: the rule of the longest SURT prefix of the URL's
 * key wins (an exact `###` rule before any prefix, `*,` last); at one key a rule for the
 * user's class comes before a rule for everyone; a rule whose date condition (before, after,
 * newer, older) does not hold for the capture is passed over; no rule: the default. An embargo
 * then withholds captures newer than it, unless the rule was `allow_ignore_embargo` (or the
 * capture is excluded anyway).
 *
 * One difference from pywb, on purpose: where a dated rule does not hold, pywb answers the
 * default access, nwax goes on to the next rule (the documented `allow before ...` over a
 * `block` at the same key then blocks the later captures whatever the default). The two agree
 * wherever the default is `block`, as in pywb's own tests.
 *
 * Lookup is a binary search in the keys, sorted, then a walk up from the greatest key not
 * after the URL's to its longest prefix among them (each key knows its longest prefix key):
 * every prefix of a key that lies between them shares that prefix, so the walk finds the
 * longest. A million rules: one search of 20 steps and a few steps up.
 */
import { type Access, type AccessRule, EXACT_SUFFIX, type Interval } from './aclj.js';
import { cutoff, padDown, padUp, timestampOf } from './dates.js';
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
  /** Captures newer than now less this are withheld unless a rule says allow_ignore_embargo (nwax.access.embargo). */
  embargo?: Interval;
  /** What the embargo does to them (nwax.access.embargo.access). */
  embargoAccess?: Verdict;
  /** The clock (tests set it). */
  now?: () => Date;
}

/**
 * Rules of one kind (prefix or exact) grouped by key: the keys sorted and unique, each with the
 * range of its rules in `rules` (most precedent first) and the group of its longest proper
 * prefix among the keys (-1: none). Parallel arrays, not an object a key: a million rules are a
 * million keys, not a million more objects and arrays.
 */
interface Groups {
  keys: string[];
  start: Uint32Array;
  end: Uint32Array;
  parent: Int32Array;
  rules: AccessRule[];
}

/** One group of rules at one key: `rules[start, end)`. */
interface Group {
  rules: readonly AccessRule[];
  start: number;
  end: number;
}

function isDated(r: AccessRule): boolean {
  return !!(r.before || r.after || r.newer || r.older);
}

/** At one key: dated rules before undated ones (a dated exception over its general rule), then in file order. */
function byPrecedence(a: AccessRule, b: AccessRule): number {
  return (isDated(a) ? 0 : 1) - (isDated(b) ? 0 : 1) || (a.file === b.file ? (a.line ?? 0) - (b.line ?? 0) : 0);
}

/** The rules sorted by `key`, stably, and cheaply where they come sorted (pywb keeps its files reverse-sorted). */
function sortedBy(rules: AccessRule[], key: (r: AccessRule) => string): AccessRule[] {
  const cmp = (a: AccessRule, b: AccessRule) => {
    const x = key(a);
    const y = key(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };
  let asc = true;
  let desc = true;
  for (let i = 1; i < rules.length && (asc || desc); i++) {
    const c = cmp(rules[i - 1], rules[i]);
    if (c > 0) asc = false;
    if (c < 0) desc = false;
  }
  if (asc) return rules;
  if (desc) return rules.reverse();
  return rules.sort(cmp);
}

function grouped(all: AccessRule[], key: (r: AccessRule) => string): Groups {
  const rules = sortedBy(all, key);
  const keys: string[] = [];
  const bounds: number[] = [];
  for (let i = 0; i < rules.length; i++) {
    const k = key(rules[i]);
    if (keys.length === 0 || keys[keys.length - 1] !== k) {
      keys.push(k);
      bounds.push(i);
    }
  }
  bounds.push(rules.length);
  const g: Groups = { keys, start: new Uint32Array(keys.length), end: new Uint32Array(keys.length), parent: new Int32Array(keys.length), rules };
  // Each key's longest prefix among the keys: the stack holds the chain of prefixes of the last key.
  const stack: number[] = [];
  for (let i = 0; i < keys.length; i++) {
    g.start[i] = bounds[i];
    g.end[i] = bounds[i + 1];
    if (g.end[i] - g.start[i] > 1) {
      const sorted = rules.slice(g.start[i], g.end[i]).sort(byPrecedence);
      for (let j = 0; j < sorted.length; j++) rules[g.start[i] + j] = sorted[j];
    }
    while (stack.length && !keys[i].startsWith(keys[stack[stack.length - 1]])) stack.pop();
    g.parent[i] = stack.length ? stack[stack.length - 1] : -1;
    stack.push(i);
  }
  return g;
}

/** The index of the greatest key not after `key` (-1: none). */
function floor(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length - 1;
  let at = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid] <= key) {
      at = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return at;
}

/** Whether a key of a sorted list starts with `prefix` and passes `test`. */
function someStartingWith(sorted: readonly string[], prefix: string, test: (k: string) => boolean): boolean {
  // The first key not before the prefix: one past the greatest before it.
  let i = floor(sorted, prefix);
  if (i < 0 || sorted[i] !== prefix) i++;
  for (; i < sorted.length && sorted[i].startsWith(prefix); i++) if (test(sorted[i])) return true;
  return false;
}

export class AccessRules {
  private readonly prefix: Groups;
  private readonly exact: Groups;
  private readonly any: AccessRule[];
  /** The user classes the rules name. */
  readonly users: readonly string[];
  readonly size: number;
  private readonly now: () => Date;
  /** The cutoffs of the intervals, and when they were computed (ms; again after a minute). */
  private cutoffs = { at: -Infinity, values: new Map<Interval, string>() };

  constructor(
    rules: readonly AccessRule[],
    readonly options: RulesOptions,
  ) {
    this.size = rules.length;
    this.now = options.now ?? (() => new Date());
    const prefix: AccessRule[] = [];
    const exact: AccessRule[] = [];
    const any: AccessRule[] = [];
    const users = new Set<string>();
    for (const r of rules) {
      if (r.user) users.add(r.user);
      if (r.key === '*,') any.push(r);
      else if (r.key.endsWith(EXACT_SUFFIX)) exact.push(r);
      else prefix.push(r);
    }
    this.prefix = grouped(prefix, (r) => r.key);
    this.exact = grouped(exact, (r) => r.key.slice(0, -EXACT_SUFFIX.length));
    this.any = any.sort(byPrecedence);
    this.users = [...users].sort();
    this.relative = !!options.embargo || rules.some((r) => r.newer || r.older);
  }

  /** Whether decisions move with the clock (an embargo, or newer/older rules). */
  private readonly relative: boolean;

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

  /** The groups of rules that may decide for `key`, most specific first. */
  private *chain(key: string): Generator<Group> {
    const e = this.exact;
    const x = floor(e.keys, key);
    if (x >= 0 && e.keys[x] === key) yield { rules: e.rules, start: e.start[x], end: e.end[x] };
    const p = this.prefix;
    // Up from the greatest key not after this one to the longest that is a prefix of it (see the top).
    let at = floor(p.keys, key);
    while (at >= 0 && !key.startsWith(p.keys[at])) at = p.parent[at];
    for (; at >= 0; at = p.parent[at]) yield { rules: p.rules, start: p.start[at], end: p.end[at] };
    if (this.any.length) yield { rules: this.any, start: 0, end: this.any.length };
  }

  /** The cutoff timestamp of an interval, now (computed again after a minute: a million decisions read no clock). */
  private cutoffOf(iv: Interval): string {
    const ms = this.options.now ? this.now().getTime() : Date.now();
    if (ms - this.cutoffs.at >= 60_000 || ms < this.cutoffs.at) this.cutoffs = { at: ms, values: new Map() };
    let c = this.cutoffs.values.get(iv);
    if (c === undefined) this.cutoffs.values.set(iv, (c = cutoff(iv, new Date(ms))));
    return c;
  }

  private holds(r: AccessRule, ts: string): boolean {
    if (r.before && !(ts < padUp(r.before))) return false;
    if (r.after && !(ts > padUp(r.after))) return false;
    if (r.newer && !(ts > this.cutoffOf(r.newer))) return false;
    if (r.older && !(ts < this.cutoffOf(r.older))) return false;
    return true;
  }

  /** The rule deciding for a key at a timestamp for a user class; undefined: the default. */
  ruleFor(key: string, timestamp: string, user?: string): AccessRule | undefined {
    const ts = padDown(timestamp);
    for (const g of this.chain(key)) {
      if (user)
        for (let i = g.start; i < g.end; i++) {
          const r = g.rules[i];
          if (r.user === user && this.holds(r, ts)) return r;
        }
      for (let i = g.start; i < g.end; i++) {
        const r = g.rules[i];
        if (!r.user && this.holds(r, ts)) return r;
      }
    }
    return undefined;
  }

  /** The decision for a capture of the URL key `key` at `timestamp`, for `user` (none: the public). */
  decideKey(key: string, timestamp: string, user?: string): Decision {
    return this.decideBy(this.ruleFor(key, timestamp, user), timestamp);
  }

  /** The embargo's cutoff now (captures after it are held), or undefined where there is no embargo. */
  embargoCutoff(): string | undefined {
    return this.options.embargo ? this.cutoffOf(this.options.embargo) : undefined;
  }

  /** The decision for a capture at `timestamp` of a URL no rule can decide: the default, and the embargo. */
  decideDefault(timestamp: string): Decision {
    return this.decideBy(undefined, timestamp);
  }

  private decideBy(rule: AccessRule | undefined, timestamp: string): Decision {
    const access: Access = rule?.access ?? this.options.defaultAccess;
    if (access === 'exclude') return { access, ...(rule ? { rule } : {}) };
    if (access !== 'allow_ignore_embargo' && this.options.embargo && padDown(timestamp) > this.cutoffOf(this.options.embargo)) {
      const embargo = this.options.embargoAccess ?? 'block';
      if (embargo !== 'allow') return { access: embargo, embargoed: true, ...(rule ? { rule } : {}) };
    }
    return { access: access === 'allow_ignore_embargo' ? 'allow' : access, ...(rule ? { rule } : {}) };
  }

  /** The decision for a capture of `url` at `timestamp`, for `user`. */
  decide(url: string, timestamp: string, user?: string): Decision {
    return this.decideKey(this.keyOf(url), timestamp, user);
  }

  /** Whether the decisions for `key` can differ by capture date (a dated rule may decide, or an embargo is set). */
  dated(key: string): boolean {
    if (this.options.embargo) return true;
    for (const g of this.chain(key)) for (let i = g.start; i < g.end; i++) if (isDated(g.rules[i])) return true;
    return false;
  }

  /**
   * Whether any rule can decide for a URL of this host (`www.example.com`), so that its
   * documents must be looked at one by one: a rule keyed on the host or under it, on a domain
   * prefix of it (`com,example,`, `com,`), or `*,`. Where none can, every capture of the host
   * gets the default (and the embargo).
   */
  touchesHost(host: string): boolean {
    if (this.any.length) return true;
    const hostKey = surt(`http://${host}/`).replace(/\)\/$/, '');
    const full = `${hostKey})`;
    const withPort = `${hostKey}:`;
    const within = (k: string) => k.startsWith(full) || k.startsWith(withPort) || full.startsWith(k);
    // Keys starting with the host's (a range of each sorted list), then its prefixes (up the chain).
    if (someStartingWith(this.exact.keys, hostKey, within) || someStartingWith(this.prefix.keys, hostKey, within)) return true;
    return !this.chain(full).next().done;
  }
}
