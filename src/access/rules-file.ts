/**
 * Editing a rules file as `wb-manager acl` does: a rule added replaces the one of the same key
 * and user (its access changes), a rule removed is found by key and user, and the file is
 * written back whole in pywb's order (reverse-sorted), so pywb can binary-search it. The new
 * file is written aside and renamed over the old: a reader (a service reloading) sees the old
 * file or the new, never half of one. A file with a line that does not parse is not edited.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { formatRule, parseAclj, sortLines, type AccessRule } from './aclj.js';
import { InputError, NwaxError } from '../util/errors.js';

/**
 * The rules of a file; a line that does not parse is an error naming it. A file that does not
 * exist has none where `created` (add makes it), and is an error otherwise.
 */
export function readRulesFile(path: string, created = false): AccessRule[] {
  if (!existsSync(path)) {
    if (created) return [];
    throw new InputError(`${path}: no such file`);
  }
  const { rules, errors } = parseAclj(readFileSync(path, 'utf8'), path);
  if (errors.length)
    throw new NwaxError('NWAX_FORMAT', `${path}: line ${errors[0].line}: ${errors[0].message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`);
  return rules;
}

function writeRules(path: string, rules: AccessRule[]): void {
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, rules.length ? `${sortLines(rules.map(formatRule)).join('\n')}\n` : '');
  renameSync(aside, path);
}

const same = (a: AccessRule, key: string, user: string | undefined) => a.key === key && (a.user ?? '') === (user ?? '');

/** Adds `rule` (replacing the rule of its key and user); returns the rule it replaced, if any. */
export function addRule(path: string, rule: AccessRule): AccessRule | undefined {
  const rules = readRulesFile(path, true);
  const i = rules.findIndex((r) => same(r, rule.key, rule.user));
  const old = i >= 0 ? rules[i] : undefined;
  if (i >= 0) rules.splice(i, 1);
  rules.push(rule);
  writeRules(path, rules);
  return old;
}

/** Adds many rules at once (an imported list), each replacing the rule of its key and user; the file is written once. */
export function addRules(path: string, added: readonly AccessRule[]): { added: number; replaced: number } {
  const byKey = new Map<string, AccessRule>();
  const id = (r: AccessRule) => `${r.key}\u0000${r.user ?? ''}`;
  for (const r of readRulesFile(path, true)) byKey.set(id(r), r);
  let replaced = 0;
  for (const r of added) {
    if (byKey.has(id(r))) replaced++;
    byKey.set(id(r), r);
  }
  writeRules(path, [...byKey.values()]);
  return { added: added.length - replaced, replaced };
}

/** Removes the rule of `key` and `user`; returns it, or undefined where there was none. */
export function removeRule(path: string, key: string, user: string | undefined): AccessRule | undefined {
  const rules = readRulesFile(path);
  const i = rules.findIndex((r) => same(r, key, user));
  if (i < 0) return undefined;
  const [old] = rules.splice(i, 1);
  writeRules(path, rules);
  return old;
}
