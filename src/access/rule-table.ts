/**
 * Access rules held compactly (rules.ts decides with them): the keys sorted and unique in one
 * string with offsets, and per rule a byte of access and its file and line in typed arrays. Only
 * the few rules with a user or a date condition (and `*,`) are kept as objects. A million
 * rules are then a few dozen megabytes in a handful of objects, which a garbage collector marks
 * in no time, where an object per rule and per key held 280 MB and slowed every thread that
 * holds them (the service's and each search worker's).
 */
import { ACCESS_TYPES, type Access, type AccessRule, ruleTail } from './aclj.js';

/** Keys sorted and unique, in one string with offsets. */
export class KeyTable {
  private readonly text: string;
  private readonly at: Uint32Array;

  constructor(sortedUnique: readonly string[]) {
    this.text = sortedUnique.join('');
    this.at = new Uint32Array(sortedUnique.length + 1);
    let n = 0;
    sortedUnique.forEach((k, i) => {
      this.at[i] = n;
      n += k.length;
    });
    this.at[sortedUnique.length] = n;
  }

  get length(): number {
    return this.at.length - 1;
  }

  key(i: number): string {
    return this.text.slice(this.at[i], this.at[i + 1]);
  }

  /** Whether key `i` is a prefix of `s`. */
  prefixOf(i: number, s: string): boolean {
    const len = this.at[i + 1] - this.at[i];
    return len <= s.length && this.text.startsWith(s.slice(0, len), this.at[i]);
  }

  /** The index of the greatest key not after `k` (-1: none). */
  floor(k: string): number {
    let lo = 0;
    let hi = this.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.key(mid) <= k) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /** Whether a key that starts with `prefix` passes `test`. */
  someStartingWith(prefix: string, test: (k: string) => boolean): boolean {
    // The first key not before the prefix: one past the greatest before it.
    let i = this.floor(prefix);
    if (i < 0 || this.key(i) !== prefix) i++;
    for (; i < this.length; i++) {
      const k = this.key(i);
      if (!k.startsWith(prefix)) return false;
      if (test(k)) return true;
    }
    return false;
  }
}

export function isDated(r: AccessRule): boolean {
  return !!(r.before || r.after || r.newer || r.older);
}

/**
 * At one key, pywb's order: its files are sorted in reverse, whole lines compared, so the rules
 * of one key come in the reverse order of the rest of their lines (`{"access": "exclude"}`
 * before `{"access": "allow", "before": ...}`); equal lines in file order.
 */
function byPrecedence(a: AccessRule, b: AccessRule): number {
  const x = ruleTail(a);
  const y = ruleTail(b);
  return x < y ? 1 : x > y ? -1 : a.file === b.file ? (a.line ?? 0) - (b.line ?? 0) : 0;
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

/**
 * Rules of one kind (prefix or exact) grouped by the key they match on: for each key, the range
 * `[start, end)` of its rules (most precedent first) and the key of its longest proper prefix
 * among the keys (-1: none).
 */
export class RuleGroups {
  readonly keys: KeyTable;
  readonly start: Uint32Array;
  readonly end: Uint32Array;
  readonly parent: Int32Array;
  private readonly access: Uint8Array;
  private readonly line: Uint32Array;
  private readonly file: Uint16Array;
  private readonly files: string[] = [];
  /** The rules with a user, a date condition or an unusual key, whole, by index. */
  private readonly whole = new Map<number, AccessRule>();

  /**
   * `matchKey`: the key a rule matches on, which with `suffix` is the rule's key (`###` for the
   * exact rules); a rule whose key is not, or that `keepWhole` names, is kept whole.
   */
  constructor(
    rules: AccessRule[],
    matchKey: (r: AccessRule) => string,
    private readonly suffix: string,
    keepWhole: (r: AccessRule) => boolean,
  ) {
    const sorted = sortedBy(rules, matchKey);
    const keys: string[] = [];
    const bounds: number[] = [];
    for (let i = 0; i < sorted.length; i++) {
      const k = matchKey(sorted[i]);
      if (keys.length === 0 || keys[keys.length - 1] !== k) {
        keys.push(k);
        bounds.push(i);
      }
    }
    bounds.push(sorted.length);
    this.start = new Uint32Array(keys.length);
    this.end = new Uint32Array(keys.length);
    this.parent = new Int32Array(keys.length);
    this.access = new Uint8Array(sorted.length);
    this.line = new Uint32Array(sorted.length);
    this.file = new Uint16Array(sorted.length);
    const fileIds = new Map<string, number>();
    // Each key's longest prefix among the keys: the stack holds the chain of prefixes of the last key.
    const stack: number[] = [];
    for (let g = 0; g < keys.length; g++) {
      this.start[g] = bounds[g];
      this.end[g] = bounds[g + 1];
      const group = sorted.slice(bounds[g], bounds[g + 1]);
      if (group.length > 1) group.sort(byPrecedence);
      group.forEach((r, j) => {
        const i = bounds[g] + j;
        this.access[i] = ACCESS_TYPES.indexOf(r.access);
        this.line[i] = r.line ?? 0;
        const f = r.file ?? '';
        let id = fileIds.get(f);
        if (id === undefined) {
          fileIds.set(f, (id = this.files.length));
          this.files.push(f);
        }
        this.file[i] = id;
        if (r.user || isDated(r) || keepWhole(r) || matchKey(r) + suffix !== r.key) this.whole.set(i, r);
      });
      while (stack.length && !keys[g].startsWith(keys[stack[stack.length - 1]])) stack.pop();
      this.parent[g] = stack.length ? stack[stack.length - 1] : -1;
      stack.push(g);
    }
    this.keys = new KeyTable(keys);
  }

  /** Rule `i`'s access. */
  accessOf(i: number): Access {
    return ACCESS_TYPES[this.access[i]];
  }

  /** Rule `i` where it has a user or a date condition (or its key is not the one it matches on), else undefined. */
  conditions(i: number): AccessRule | undefined {
    return this.whole.get(i);
  }

  /** Rule `i` as read, its key that of group `g` (a decision reports it). */
  rule(g: number, i: number): AccessRule {
    const whole = this.whole.get(i);
    if (whole) return whole;
    const f = this.files[this.file[i]];
    return { key: this.keys.key(g) + this.suffix, access: this.accessOf(i), ...(f ? { file: f, line: this.line[i] } : {}) };
  }

  /** Whether any rule has a date condition in the range. */
  anyDated(start: number, end: number): boolean {
    for (let i = start; i < end; i++) {
      const r = this.whole.get(i);
      if (r && isDated(r)) return true;
    }
    return false;
  }
}
