/**
 * What `nwax acl validate` finds in rule files besides lines that do not parse: keys that can
 * never match a capture (nwax and pywb match a URL's canonical SURT key, lowercase, its host's
 * labels reversed and joined by commas: `com,example)/path`), and rules that never decide,
 * because another of the same key and user class comes first in pywb's order (rule-table.ts).
 * A rules file accepted silently with such a rule withholds less than its author meant.
 */
import { EXACT_SUFFIX, ruleKey, ruleTail, sourceOf, type AccessRule } from './aclj.js';

export interface Finding {
  /** `file:line` of the rule. */
  where: string;
  message: string;
}

/** Why a key can never match a URL's key, or undefined where it can. */
export function unmatchableKey(key: string): string | undefined {
  const k = key.endsWith(EXACT_SUFFIX) ? key.slice(0, -EXACT_SUFFIX.length) : key;
  if (k === '*,') return undefined;
  if (k.includes('://') || /^(https?|ftp):/i.test(k)) return `a URL where a SURT key belongs: it never matches (the key of that URL is ${safeKey(k)})`;
  if (/[A-Z]/.test(k)) return `uppercase: keys are lowercase (a URL's key is), so it never matches; ${k.toLowerCase()} does`;
  // The host part: up to `)` (a whole key is one where there is none: `com,exam` is a prefix of hosts).
  const host = k.includes(')') ? k.slice(0, k.indexOf(')')) : k;
  if (!k.includes(')') && (k.includes('/') || k.includes('.')))
    return `not a SURT key (com,example)/path): it never matches (the key of that URL is ${safeKey(k)})`;
  if (host.includes('.')) return "a dot in the host part: SURT joins a host's labels with commas, so it never matches";
  // Labels and commas, a port, or an IPv6 address (SURT keeps it as written: `::1)/`).
  if (!/^[a-z0-9-]*(,[a-z0-9-]*)*(:\d*)?$/.test(host) && !/^[0-9a-f:]+$/.test(host)) return 'not a SURT key (com,example)/path): it never matches';
  return undefined;
}

function safeKey(urlish: string): string {
  try {
    return ruleKey(urlish.includes('://') ? urlish : `http://${urlish}`);
  } catch {
    return '?';
  }
}

/** Keys that never match, and rules that another of their key and user class always comes before. */
export function validateRules(rules: readonly AccessRule[]): Finding[] {
  const findings: Finding[] = [];
  for (const r of rules) {
    const why = unmatchableKey(r.key);
    if (why) findings.push({ where: sourceOf(r), message: `${r.key}: ${why}` });
  }
  // By key and user, in pywb's order at one key (the reverse order of the rest of their lines).
  const groups = new Map<string, AccessRule[]>();
  for (const r of rules) {
    const id = `${r.key}\u0000${r.user ?? ''}`;
    const g = groups.get(id);
    if (g) g.push(r);
    else groups.set(id, [r]);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    group.sort((a, b) => (ruleTail(a) < ruleTail(b) ? 1 : ruleTail(a) > ruleTail(b) ? -1 : 0));
    const [first] = group;
    const who = first.user ? `user ${first.user}` : 'the public';
    for (const r of group.slice(1)) {
      const message =
        ruleTail(r) === ruleTail(first)
          ? `${r.key}: the same rule as ${sourceOf(first)}`
          : `${r.key}: never decides for ${who}: ${sourceOf(first)} comes first at this key in pywb's order (the reverse order of the lines)${
              !first.user && r === group[group.length - 1] ? '; a user class with no rule of its own here takes this one' : ''
            }`;
      findings.push({ where: sourceOf(r), message });
    }
  }
  return findings;
}
