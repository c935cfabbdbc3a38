/**
 * The access policy a service (and `nwax search`) applies: the rule files named by
 * `nwax.access.rules` (a directory: its `.aclj` files, as pywb reads one; decided as rules.ts
 * says), the default, the embargo, and who the client is: a user class from the header `nwax.access.user.header` when the request comes
 * from a trusted proxy (`nwax.access.trusted.proxies`), else the reading room's class when
 * the client's address is in `nwax.access.reading.room`, else the public.
 *
 * Live: reload() reads the files again when one changed. A file that does not parse (or is
 * gone) keeps the rules in force that were (never fail open), and says so until it is fixed.
 * At start there are no rules to keep: a bad file stops the service.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BlockList, isIP } from 'node:net';
import { parseAclj, ruleTail, type AccessRule } from './aclj.js';
import { type Embargo, parseEmbargo } from './dates.js';
import { AccessRules, type Decision, type Verdict } from './rules.js';
import { unmatchableKey } from './validate-rules.js';
import { NwaxError, describeFsError } from '../util/errors.js';
import type { Configuration } from '../conf/config.js';

/** The policy's properties, plain data (a search worker gets a copy). */
export interface AccessSettings {
  files: string[];
  /** A file with no rules means no rules (nwax.access.rules.empty); else it is an error. */
  emptyOk?: boolean;
  defaultAccess: Verdict;
  embargo?: Embargo;
  embargoAccess: Verdict;
  userHeader: string;
  trustedProxies: string[];
  readingRoom: string[];
  readingRoomUser: string;
}

const VERDICTS: readonly Verdict[] = ['allow', 'block', 'exclude'];

function list(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function verdict(conf: Configuration, name: string): Verdict {
  const v = conf.getString(name);
  if (!VERDICTS.includes(v as Verdict)) throw new NwaxError('NWAX_CONF', `${name} must be allow, block or exclude, not ${JSON.stringify(v)}`, 2);
  return v as Verdict;
}

/** The access properties of a configuration, checked. */
export function accessSettings(conf: Configuration): AccessSettings {
  let embargo: Embargo | undefined;
  try {
    embargo = parseEmbargo(conf.getString('nwax.access.embargo'));
  } catch (err) {
    throw new NwaxError('NWAX_CONF', `nwax.access.embargo: ${(err as Error).message}`, 2);
  }
  const s: AccessSettings = {
    files: list(conf.getString('nwax.access.rules')),
    emptyOk: conf.getBoolean('nwax.access.rules.empty'),
    defaultAccess: verdict(conf, 'nwax.access.default'),
    ...(embargo ? { embargo } : {}),
    embargoAccess: verdict(conf, 'nwax.access.embargo.access'),
    userHeader: conf.getString('nwax.access.user.header').toLowerCase(),
    trustedProxies: list(conf.getString('nwax.access.trusted.proxies')),
    readingRoom: list(conf.getString('nwax.access.reading.room')),
    readingRoomUser: conf.getString('nwax.access.reading.room.user'),
  };
  addressList(s.trustedProxies, 'nwax.access.trusted.proxies');
  addressList(s.readingRoom, 'nwax.access.reading.room');
  return s;
}

/** The access settings where the configuration asks for any (rule files, a default other than allow, an embargo); else undefined. */
export function configuredAccess(conf: Configuration): AccessSettings | undefined {
  const s = accessSettings(conf);
  return s.files.length > 0 || s.defaultAccess !== 'allow' || s.embargo !== undefined ? s : undefined;
}

/** CIDR ranges (or single addresses) as a BlockList; throws naming the property on a bad one. */
export function addressList(ranges: string[], property: string): BlockList {
  const bl = new BlockList();
  for (const r of ranges) {
    const [addr, bits] = r.split('/');
    const family = isIP(addr);
    if (!family || (bits !== undefined && !/^\d{1,3}$/.test(bits)))
      throw new NwaxError('NWAX_CONF', `${property}: ${JSON.stringify(r)} is not an address or CIDR range`, 2);
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) bl.addAddress(addr, type);
    else bl.addSubnet(addr, Number(bits), type);
  }
  return bl;
}

/** Whether an address (IPv4-mapped IPv6 read as IPv4) is in the list. */
export function inList(bl: BlockList, address: string | undefined): boolean {
  if (!address) return false;
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (v4) return bl.check(v4[1], 'ipv4');
  return bl.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/**
 * The rule files named: a file as it is, a directory as the `.aclj` files in it, by name (as
 * pywb reads an `acl_paths` directory); one that cannot be listed as itself (its read fails).
 */
function ruleFiles(paths: string[]): string[] {
  return paths.flatMap((p) => {
    try {
      if (!statSync(p).isDirectory()) return [p];
      const inside = readdirSync(p)
        .filter((n) => n.endsWith('.aclj'))
        .sort()
        .map((n) => join(p, n));
      // An empty folder is no rules, and says so as an empty file does.
      return inside.length ? inside : [p];
    } catch {
      return [p];
    }
  });
}

/** The files' identity (inode, size, change time): a rewritten or replaced file has another. */
function stampOf(paths: string[]): string {
  return ruleFiles(paths)
    .map((f) => {
      try {
        const st = statSync(f);
        return `${st.ino}:${st.size}:${st.mtimeMs}`;
      } catch {
        return 'gone';
      }
    })
    .join(' ');
}

/**
 * The rules of the files, or the lines that are wrong (file and line), files that cannot be
 * read, and files with no rule unless `emptyOk` (an emptied file read as "no rules" would serve
 * every withheld page again: closed when in doubt).
 */
export function readRules(files: string[], keepUrls: boolean, emptyOk = false): { rules: AccessRule[]; errors: string[] } {
  const rules: AccessRule[] = [];
  const errors: string[] = [];
  for (const f of ruleFiles(files)) {
    let text: string;
    try {
      text = statSync(f).isDirectory() ? '' : readFileSync(f, 'utf8');
    } catch (err) {
      errors.push(describeFsError(f, err as NodeJS.ErrnoException));
      continue;
    }
    const r = parseAclj(text, f, keepUrls);
    for (const rule of r.rules) rules.push(rule);
    for (const e of r.errors) errors.push(`${e.file}: line ${e.line}: ${e.message}`);
    if (r.rules.length === 0 && r.errors.length === 0 && !emptyOk)
      errors.push(`${f}: no rules (${text.length} bytes); set nwax.access.rules.empty=true where an empty file means no rules`);
  }
  return { rules, errors };
}

export class AccessPolicy {
  private current: AccessRules;
  private stamp: string;
  /** What is wrong with the files now (their rules then are the last good ones). */
  errors: string[] = [];
  /** Rises by one each time the rules in force change. */
  generation = 1;
  /** When the rules in force were loaded (ms since the epoch). */
  loadedAt = Date.now();
  private readonly trusted: BlockList;
  private readonly room: BlockList;

  private readonly now?: () => Date;
  private readonly keepUrls: boolean;

  /** `now`: the clock (tests set it); `keepUrls`: keep each rule's informative url (for showing rules, not for deciding). */
  constructor(
    readonly settings: AccessSettings,
    private readonly log: (line: string) => void = () => {},
    opts: { now?: () => Date; keepUrls?: boolean } = {},
  ) {
    this.now = opts.now;
    this.keepUrls = opts.keepUrls ?? false;
    this.trusted = addressList(settings.trustedProxies, 'nwax.access.trusted.proxies');
    this.room = addressList(settings.readingRoom, 'nwax.access.reading.room');
    this.stamp = stampOf(settings.files);
    const { rules, errors } = readRules(settings.files, this.keepUrls, settings.emptyOk);
    if (errors.length) throw new NwaxError('NWAX_CONF', `access rules: ${errors.join('; ')}`, 2);
    this.current = this.build(rules);
  }

  /**
   * What the rules in force decide, as a digest: their lines, the default and the embargo. A
   * shard front compares its own with its backends' to know whether their totals and facets
   * count what its rules withhold (serve/shards.ts).
   */
  fingerprint = '';

  private build(rules: AccessRule[]): AccessRules {
    const s = this.settings;
    const h = createHash('sha256').update(JSON.stringify([s.defaultAccess, s.embargo ?? null, s.embargoAccess]));
    for (const r of rules) h.update(`\n${r.key}${ruleTail(r)}`);
    this.fingerprint = h.digest('hex').slice(0, 32);
    const never = rules.filter((r) => unmatchableKey(r.key) !== undefined).length;
    if (never) this.log(`access rules: ${never} rule${never === 1 ? '' : 's'} whose key never matches a URL (nwax acl validate names them)`);
    return new AccessRules(rules, { defaultAccess: s.defaultAccess, embargo: s.embargo, embargoAccess: s.embargoAccess, now: this.now });
  }

  /** The rules in force. */
  get rules(): AccessRules {
    return this.current;
  }

  /** Whether anything can be withheld: rules, a default other than allow, or an embargo. */
  get active(): boolean {
    return this.current.size > 0 || this.settings.defaultAccess !== 'allow' || this.settings.embargo !== undefined;
  }

  /**
   * Reads the files again where one changed: the new rules are in force from now, or, where a
   * file does not parse, the old ones stay (and `errors` says why, logged once).
   */
  reload(): { changed: boolean; errors: string[] } {
    const stamp = stampOf(this.settings.files);
    if (stamp === this.stamp) return { changed: false, errors: this.errors };
    this.stamp = stamp;
    const { rules, errors } = readRules(this.settings.files, this.keepUrls, this.settings.emptyOk);
    if (errors.length) {
      this.errors = errors.map((e) => `${e}; the rules loaded before stay in force`);
      for (const e of this.errors) this.log(`access rules: ${e}`);
      return { changed: false, errors: this.errors };
    }
    this.current = this.build(rules);
    this.errors = [];
    this.generation++;
    this.loadedAt = Date.now();
    this.log(`access rules: ${rules.length} rules from ${this.settings.files.join(', ')} (generation ${this.generation})`);
    return { changed: true, errors: [] };
  }

  /**
   * The user class of a request: the header's, from a trusted proxy (or `vouched` for: a shard
   * front with the shard key, serve/shard-trust.ts); the reading room's, from
   * its addresses; else undefined (the public).
   */
  userOf(headers: Record<string, string | string[] | undefined>, address: string | undefined, vouched = false): string | undefined {
    const h = headers[this.settings.userHeader];
    const value = (Array.isArray(h) ? h[0] : h)?.trim();
    if (value && (vouched || inList(this.trusted, address))) return value;
    if (this.settings.readingRoom.length && inList(this.room, address)) return this.settings.readingRoomUser;
    return undefined;
  }

  decide(url: string, timestamp: string, user?: string): Decision {
    return this.current.decide(url, timestamp, user);
  }
}
