/**
 * Access rules as pywb reads them: its documented .aclj examples (docs/manual/access-control.rst)
 * and the cases of its own tests (tests/test_acl.py), decided by nwax's reader; files edited by
 * `nwax acl` and read back; a bad line named.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAclj, sourceOf } from '../src/access/aclj.js';
import { AccessRules, type RulesOptions, type Verdict } from '../src/access/rules.js';
import { parseEmbargo } from '../src/access/dates.js';
import { AccessPolicy, type AccessSettings } from '../src/access/policy.js';
import { nwax, tempDir } from './helpers.js';
import { pipeline, workedExample } from './example-pipeline.js';

function rulesOf(text: string, opts: Partial<RulesOptions> = {}): AccessRules {
  const { rules, errors } = parseAclj(text, 'test.aclj');
  expect(errors).toEqual([]);
  return new AccessRules(rules, { defaultAccess: 'allow', ...opts });
}

const at = (iso: string) => () => new Date(iso);

/** A service's access settings over `files`, with no proxies or reading room. */
function policySettings(files: string[], defaultAccess: Verdict): AccessSettings {
  return { files, defaultAccess, embargoAccess: 'exclude', userHeader: 'x', trustedProxies: [], readingRoom: [], readingRoomUser: 'r' };
}

describe('access rules', () => {
  it("decides pywb's documented example: the longest prefix wins, allow within exclude within block", () => {
    const r = rulesOf(`org,httpbin)/anything/something - {"access": "allow", "url": "http://httpbin.org/anything/something"}
org,httpbin)/anything - {"access": "exclude", "url": "http://httpbin.org/anything"}
org,httpbin)/ - {"access": "block", "url": "httpbin.org/"}
com, - {"access": "allow", "url": "com,"}
`);
    expect(r.decide('http://httpbin.org/anything/something', '20200101000000').access).toBe('allow');
    expect(r.decide('http://httpbin.org/', '20200101000000').access).toBe('block');
    expect(r.decide('http://httpbin.org/anything', '20200101000000').access).toBe('exclude');
    expect(r.decide('http://httpbin.org/anything/else', '20200101000000').access).toBe('exclude');
    // The rule that decided, with where it was read.
    expect(sourceOf(r.decide('https://www.httpbin.org/robots.txt', '2020').rule!)).toBe('test.aclj:3');
    expect(r.decide('http://example.net/', '2020').rule).toBeUndefined();
  });

  it("decides pywb's test rules whatever their order in the file: exact (###) before prefix, users, *, last", () => {
    const lines = [
      'org,iana)/about - {"access": "block"}',
      'org,iana)/about - {"access": "allow", "user": "staff"}',
      'org,iana)/_css/2013.1/fonts/opensans-semibold.ttf - {"access": "allow"}',
      'org,iana)/_css - {"access": "exclude"}',
      'org,iana)/### - {"access": "allow"}',
      'org,iana)/ - {"access": "exclude"}',
      'com,example)/?example=3 - {"access": "block", "user": "staff"}',
      'com,example)/?example=3 - {"access": "exclude", "user": "staff2"}',
      'com,example)/ - {"access": "allow"}',
    ];
    // Shuffled: nwax sorts when it loads.
    const r = rulesOf(`${[...lines].reverse().join('\n')}\n`, { defaultAccess: 'block' });
    const d = (url: string, user?: string) => r.decide(url, '20140126200624', user).access;
    expect(d('http://www.iana.org/domains/root')).toBe('exclude');
    expect(d('http://www.iana.org/')).toBe('allow');
    expect(d('http://www.iana.org/about/')).toBe('block');
    expect(d('http://www.iana.org/about/', 'staff')).toBe('allow');
    expect(d('http://www.iana.org/_css/2013.1/fonts/opensans-semibold.ttf')).toBe('allow');
    expect(d('http://www.iana.org/_css/2013.1/screen.css')).toBe('exclude');
    expect(d('http://example.com/?example=3', 'staff')).toBe('block');
    expect(d('http://example.com/?example=3', 'staff2')).toBe('exclude');
    expect(d('http://example.com/?example=3')).toBe('allow');
    expect(d('http://httpbin.org/anything/resource.json')).toBe('block');
    // `*,` for one user: every URL no longer rule decides.
    const all = rulesOf('*, - {"access": "allow", "user": "staff"}\n', { defaultAccess: 'block' });
    expect(all.decide('http://example.com/', '2020').access).toBe('block');
    expect(all.decide('http://example.com/', '2020', 'staff').access).toBe('allow');
  });

  it("decides as pywb's checker over its sample rule files together (pywb-acl-dir, default block): one key's lines in reverse order", () => {
    // Lines of pywb's sample_archive/access/{pywb,before,newer}.aclj, shuffled: at org,iana)/ the
    // undated exclude sorts first in reverse and decides, whatever the dated allows there.
    const lines = [
      'org,iana)/about - {"access": "block"}',
      'org,iana)/_css/2013.1/fonts/opensans-semibold.ttf - {"access": "allow"}',
      'org,iana)/_css - {"access": "exclude"}',
      'org,example)/?example=1 - {"access": "block"}',
      'org,iana)/ - {"access": "exclude"}',
      'org,iana)/domains/arpa - {"access": "allow", "url": "http://www.iana.org/domains/arpa", "before": "20140127"}',
      'org,iana)/domains - {"access": "block", "url": "http://www.iana.org/domains"}',
      'org,iana)/ - {"access": "allow", "url": "http://www.iana.org/", "before": "20140126"}',
      'org,iana)/ - {"access": "allow", "url": "http://www.iana.org/", "newer": {"years": 1, "months": 6}}',
    ];
    const r = rulesOf(`${[lines[3], lines[7], lines[0], lines[8], lines[5], lines[1], lines[4], lines[2], lines[6]].join('\n')}\n`, {
      defaultAccess: 'block',
      now: at('2026-06-15T12:00:00Z'),
    });
    const d = (url: string, ts: string, user?: string) => r.decide(url, ts, user).access;
    expect(d('https://www.iana.org/any/other', '20140127171238')).toBe('exclude');
    expect(d('https://www.iana.org/any/other', '20140126200624')).toBe('exclude');
    expect(d('https://www.iana.org/any/other', '20260101000000')).toBe('exclude');
    expect(d('http://www.iana.org/domains/arpa', '20140126201248')).toBe('allow');
    expect(d('http://www.iana.org/domains/arpa', '20140128000000')).toBe('block');
    expect(d('http://www.iana.org/domains/root', '20140126201248')).toBe('block');
    expect(d('http://example.org/?example=1', '20140126201248')).toBe('block');
    // A user class with no rule of its own at a key takes the last rule for everyone there (pywb
    // keeps the last it saw before the key changes); the public, the first.
    const u = rulesOf('com,example)/ - {"access": "allow"}\ncom,example)/ - {"access": "block"}\ncom,example)/ - {"access": "exclude", "user": "staff2"}\n');
    expect(u.decide('http://example.com/', '2020').access).toBe('block');
    expect(u.decide('http://example.com/', '2020', 'staff').access).toBe('allow');
    expect(u.decide('http://example.com/', '2020', 'staff2').access).toBe('exclude');
  });

  it("pads before/after as pywb does (20140126 is that day's last second); a dated rule that does not hold gives the default, as pywb's", () => {
    const before = rulesOf(
      `org,iana)/domains/arpa - {"access": "allow", "before": "20140127"}
org,iana)/domains - {"access": "block"}
org,iana)/ - {"access": "allow", "before": "20140126"}
`,
      { defaultAccess: 'block' },
    );
    expect(before.decide('http://www.iana.org/', '20140127171238').access).toBe('block');
    expect(before.decide('http://www.iana.org/', '20140126200624').access).toBe('allow');
    expect(before.decide('http://www.iana.org/domains', '20140126200825').access).toBe('block');
    expect(before.decide('http://www.iana.org/domains/arpa', '20140126201248').access).toBe('allow');
    const after = rulesOf('org,iana)/ - {"access": "allow", "after": "20140126"}\n', { defaultAccess: 'block' });
    expect(after.decide('http://www.iana.org/', '20140126200624').access).toBe('block');
    expect(after.decide('http://www.iana.org/', '20140127171238').access).toBe('allow');
    // Two rules at one key: pywb takes the first line of its reverse-sorted file, and
    // ` - {"access": "block"}` sorts after ` - {"access": "allow", "before": ...}`, so it comes
    // first and decides every capture; the dated allow is never reached, in either order in the file.
    for (const text of [
      'com,example)/restricted - {"access": "allow", "before": "20101201"}\ncom,example)/restricted - {"access": "block"}\n',
      'com,example)/restricted - {"access": "block"}\ncom,example)/restricted - {"access": "allow", "before": "20101201"}\n',
    ]) {
      const both = rulesOf(text);
      expect(both.decide('https://example.com/restricted/a', '20101130120000').access).toBe('block');
      expect(both.decide('https://example.com/restricted/a', '20101202000000').access).toBe('block');
    }
    // pywb's documented way: the dated allow alone, over a default of block.
    const documented = rulesOf('com,example)/restricted - {"access": "allow", "before": "20101201"}\n', { defaultAccess: 'block' });
    expect(documented.decide('https://example.com/restricted/a', '20101130120000').access).toBe('allow');
    expect(documented.decide('https://example.com/restricted/a', '20101202000000').access).toBe('block');
    // A rule with both before and after: pywb checks the first it has (before) only.
    const twice = rulesOf('com,example)/x - {"access": "exclude", "before": "2012", "after": "2011"}\n');
    expect(twice.decide('https://example.com/x', '20100101000000').access).toBe('exclude');
  });

  it('takes newer/older intervals and the embargo from the clock, and allow_ignore_embargo lifts the embargo', () => {
    const now = at('2026-06-15T12:00:00Z');
    const r = rulesOf(
      `com,example)/old - {"access": "exclude", "older": {"years": 1}}
com,example)/open - {"access": "allow_ignore_embargo"}
`,
      { embargo: { newer: { months: 6 } }, now },
    );
    const newer = rulesOf('com,example)/new - {"access": "allow", "newer": {"years": 1, "months": 6}}\n', { defaultAccess: 'block', now });
    expect(newer.decide('http://example.com/new', '20250101000000').access).toBe('allow');
    expect(newer.decide('http://example.com/new', '20241214000000').access).toBe('block');
    expect(r.decide('http://example.com/old', '20250614000000').access).toBe('exclude');
    expect(r.decide('http://example.com/old', '20250616000000').access).toBe('allow');
    // The embargo: six months back from 2026-06-15 is 2025-12-15 12:00.
    // Excluded (404) by default, as pywb's embargo; blocked (451) where nwax.access.embargo.access says so.
    expect(r.decide('http://example.com/page', '20260101000000')).toMatchObject({ access: 'exclude', embargoed: true });
    const blocking = rulesOf('', { embargo: { newer: { months: 6 } }, embargoAccess: 'block', now });
    expect(blocking.decide('http://example.com/page', '20260101000000')).toMatchObject({ access: 'block', embargoed: true });
    expect(r.decide('http://example.com/page', '20251214000000').access).toBe('allow');
    expect(r.decide('http://example.com/open', '20260601000000').access).toBe('allow');
    // Months subtracted as relativedelta does: 31 August less six months is the last of February.
    const feb = rulesOf('', { embargo: { newer: { months: 6 } }, now: at('2026-08-31T00:00:00Z') });
    expect(feb.decide('http://example.com/', '20260228000001').access).toBe('exclude');
    expect(feb.decide('http://example.com/', '20260227235959').access).toBe('allow');
  });

  it("holds pywb's four kinds of embargo (test_embargo.py): before and after a timestamp, older and newer than an interval", () => {
    const now = at('2026-06-15T12:00:00Z');
    const kind = (text: string) => rulesOf('', { embargo: parseEmbargo(text), now });
    const d = (r: AccessRules, ts: string) => r.decide('http://www.iana.org/domains/reserved', ts).access;
    // pywb's config_test_access.yaml: before and after '2014012700', older and newer 1 year 6 months.
    expect(d(kind('before:2014012700'), '20140126201054')).toBe('exclude');
    expect(d(kind('before:2014012700'), '20140127171251')).toBe('allow');
    expect(d(kind('after:2014012700'), '20140126201054')).toBe('allow');
    expect(d(kind('after:2014012700'), '20140127171251')).toBe('exclude');
    expect(d(kind('older:P1Y6M'), '20140126201054')).toBe('exclude');
    expect(d(kind('older:P1Y6M'), '20260101000000')).toBe('allow');
    expect(d(kind('newer:P1Y6M'), '20140126201054')).toBe('allow');
    expect(d(kind('P1Y6M'), '20260101000000')).toBe('exclude');
    expect(kind('older:P1Y6M').embargoCutoff()).toBeUndefined();
    // An exclude rule stays an exclude; allow_ignore_embargo lifts any kind.
    const lifted = rulesOf('org,iana)/ - {"access": "allow_ignore_embargo"}\n', { embargo: parseEmbargo('before:2015'), now });
    expect(d(lifted, '20140126201054')).toBe('allow');
    for (const bad of ['before:last year', 'older:', 'P', 'sometime:P1Y', 'after:20140127x']) expect(() => parseEmbargo(bad), bad).toThrow();
    expect(parseEmbargo('')).toBeUndefined();
  });

  it('matches the canonical form of a URL: scheme, www., case, default ports, query order, percent-encoding', () => {
    const r = rulesOf('com,example)/private - {"access": "exclude"}\ncom,example)/a?a=1&b=2### - {"access": "block"}\n');
    for (const url of [
      'http://example.com/private',
      'https://example.com/private/x',
      'http://www.example.com/private',
      'HTTP://WWW.EXAMPLE.COM/Private',
      'http://example.com:80/private',
      'https://example.com:443/private',
      'http://example.com./private',
      'http://user:pw@example.com/private#top',
      'http://example.com/%70rivate',
      'http://www2.example.com/private',
    ])
      expect(r.decide(url, '2020').access, url).toBe('exclude');
    expect(r.decide('http://example.com/a?b=2&a=1', '2020').access).toBe('block');
    expect(r.decide('http://example.com/a?a=1&b=2&c=3', '2020').access).toBe('allow');
    expect(r.decide('http://example.com:8080/private', '2020').access).toBe('allow');
    expect(r.decide('http://notexample.com/private', '2020').access).toBe('allow');
  });

  it('names the file and line of a rule that does not parse', () => {
    const { rules, errors } = parseAclj(
      'com,example)/ - {"access": "allow"}\ncom,x)/ - {"access": "deny"}\nnot a rule\ncom,y)/ - {"access": "allow", "before": "last year"}\n',
      'rules.aclj',
    );
    expect(rules).toHaveLength(1);
    expect(errors.map((e) => `${e.file}:${e.line}: ${e.message}`)).toEqual([
      'rules.aclj:2: "access" must be one of allow, block, exclude, allow_ignore_embargo, not "deny"',
      'rules.aclj:3: not `SURT - {json}`',
      'rules.aclj:4: "before" must be a timestamp of 4 to 14 digits, not "last year"',
    ]);
  });

  it('nwax acl add, remove, list and check edit and read a file pywb reads (reverse-sorted), and refuse a broken one', async () => {
    const dir = tempDir();
    const file = join(dir, 'access-rules.aclj');
    expect((await nwax(['acl', 'add', file, 'http://httpbin.org/anything/something', 'allow'])).code).toBe(0);
    expect((await nwax(['acl', 'add', file, 'http://httpbin.org/anything', 'exclude'])).code).toBe(0);
    expect((await nwax(['acl', 'add', file, 'com,', 'allow'])).code).toBe(0);
    expect((await nwax(['acl', 'add', file, 'http://httpbin.org/', 'allow', '--exact', '--user', 'staff'])).code).toBe(0);
    const changed = await nwax(['acl', 'add', file, 'http://httpbin.org/anything', 'block']);
    expect(changed.stderr).toContain('changed org,httpbin)/anything - {"access": "exclude"');
    expect(readFileSync(file, 'utf8')).toBe(
      [
        'org,httpbin)/anything/something - {"access": "allow", "url": "http://httpbin.org/anything/something"}',
        'org,httpbin)/anything - {"access": "block", "url": "http://httpbin.org/anything"}',
        'org,httpbin)/### - {"access": "allow", "url": "http://httpbin.org/", "user": "staff"}',
        'com, - {"access": "allow"}',
        '',
      ].join('\n'),
    );
    const check = await nwax(['acl', 'check', file, 'https://www.httpbin.org/anything/x', '--json']);
    expect(check.code).toBe(1);
    expect(JSON.parse(check.stdout)).toMatchObject({ key: 'org,httpbin)/anything/x', access: 'block', rule: { source: `${file}:2` } });
    const staff = await nwax(['acl', 'check', file, 'http://httpbin.org/', '--user', 'staff']);
    expect(staff.code).toBe(0);
    expect(staff.stdout).toContain(': allow, by org,httpbin)/### - {"access": "allow", "url": "http://httpbin.org/", "user": "staff"}');
    expect((await nwax(['acl', 'remove', file, 'http://httpbin.org/anything'])).code).toBe(0);
    expect((await nwax(['acl', 'list', file])).stdout.split('\n').filter(Boolean)).toHaveLength(3);
    const missing = await nwax(['acl', 'remove', file, 'http://httpbin.org/nothing']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no rule for org,httpbin)/nothing');
    writeFileSync(file, `${readFileSync(file, 'utf8')}com,bad)/ - {"access": "maybe"}\n`);
    const broken = await nwax(['acl', 'add', file, 'http://a.example/', 'block']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toBe(`nwax acl add: ${file}: line 4: "access" must be one of allow, block, exclude, allow_ignore_embargo, not "maybe"\n`);
    expect(broken.stderr).not.toMatch(/\n\s+at /);
  });

  it('the worked example after add-dates: a version shows only the dates the rules allow, and date: finds no other', async () => {
    const dir = tempDir();
    const { manifest, dups } = await workedExample(dir);
    const crawl = join(dir, 'crawl');
    await pipeline(crawl, manifest, { exclusions: dups, dates: dups });
    const rules = join(dir, 'rules.aclj');
    // The page's captures up to the 4th of October allowed; the later ones excluded.
    writeFileSync(rules, 'org,example)/index.html - {"access": "exclude", "after": "20071004"}\n');
    const search = async (q: string) => {
      const r = await nwax(['search', '--json', '-dir', crawl, '-D', `nwax.access.rules=${rules}`, q]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { total: number; hits: { dates: string[] }[] };
    };
    const all = await search('url:http://example.org/index.html');
    expect(all.total).toBe(2);
    // ABC123 (captured the 1st, 2nd, 5th and 6th) keeps its first two dates; DEF456 both.
    expect(all.hits.map((h) => h.dates.join(' ')).sort()).toEqual(['20071001120000 20071002120000', '20071003120000 20071004120000']);
    expect((await search('date:20071005')).total).toBe(0);
    expect((await search('date:20071002')).total).toBe(1);
  }, 60_000);
});

describe('rules that cannot do what they say', () => {
  it('nwax acl validate names keys that never match and rules that never decide; a clean file passes', async () => {
    const dir = tempDir();
    const bad = join(dir, 'bad.aclj');
    writeFileSync(
      bad,
      [
        'com,example)/ - {"access": "block"}',
        'com,example)/ - {"access": "allow"}',
        'http://example.com/x - {"access": "exclude"}',
        'com,Example)/Private - {"access": "exclude"}',
        'example.com/a - {"access": "exclude"}',
        'com.example)/ - {"access": "exclude"}',
        'org,iana)/ - {"access": "exclude"}',
        'org,iana)/ - {"access": "exclude"}',
        'com,example)/ - {"access": "allow", "user": "staff"}',
        'org,x)/ - {"access": "deny"}',
        '',
      ].join('\n'),
    );
    const r = await nwax(['acl', 'validate', bad]);
    expect(r.code).toBe(1);
    const found = r.stdout.trim().split('\n');
    // The line that does not parse, as the service names it; then what the service would take silently.
    expect(found[0]).toBe(`${bad}: line 10: "access" must be one of allow, block, exclude, allow_ignore_embargo, not "deny"`);
    expect(
      found
        .slice(1)
        .map((l) => Number(l.slice(bad.length + 1).split(':')[0]))
        .sort((a, b) => a - b),
    ).toEqual([2, 3, 4, 5, 6, 8]);
    expect(r.stdout).toContain(`${bad}:3: http://example.com/x: a URL where a SURT key belongs: it never matches (the key of that URL is com,example)/x)`);
    expect(r.stdout).toContain(`${bad}:4: com,Example)/Private: uppercase`);
    expect(r.stdout).toContain(`${bad}:2: com,example)/: never decides for the public: ${bad}:1 comes first`);
    expect(r.stdout).toContain(`${bad}:8: org,iana)/: the same rule as ${bad}:7`);
    expect(r.stderr).toContain('1 file, 9 rules, 7 findings');
    const good = join(dir, 'good.aclj');
    writeFileSync(
      good,
      'org,iana)/about - {"access": "block"}\norg,iana)/about - {"access": "allow", "user": "staff"}\n*, - {"access": "allow"}\norg,iana)/### - {"access": "allow"}\n',
    );
    const ok = await nwax(['acl', 'validate', good]);
    expect([ok.code, ok.stdout]).toEqual([0, '']);
  });

  it('reads a directory of rule files as pywb does (its .aclj files together), and sees a change to one of them', () => {
    const dir = tempDir();
    const acl = join(dir, 'access');
    mkdirSync(acl);
    writeFileSync(join(acl, 'pywb.aclj'), 'org,iana)/about - {"access": "block"}\norg,iana)/ - {"access": "exclude"}\n');
    writeFileSync(join(acl, 'before.aclj'), 'org,iana)/domains - {"access": "block"}\norg,iana)/ - {"access": "allow", "before": "20140126"}\n');
    writeFileSync(join(acl, 'notes.txt'), 'not rules\n');
    const settings = policySettings([acl], 'block');
    const policy = new AccessPolicy({ ...settings });
    expect(policy.rules.size).toBe(4);
    expect(policy.decide('http://www.iana.org/x', '20140101000000').access).toBe('exclude');
    expect(policy.decide('http://www.iana.org/domains/y', '20140101000000').access).toBe('block');
    writeFileSync(join(acl, 'before.aclj'), 'org,iana)/domains - {"access": "allow"}\n');
    expect(policy.reload().changed).toBe(true);
    expect(policy.decide('http://www.iana.org/domains/y', '20140101000000').access).toBe('allow');
    // An empty folder is no rules, refused as an empty file is.
    const none = join(dir, 'none');
    mkdirSync(none);
    expect(() => new AccessPolicy({ ...settings, files: [none] })).toThrow(/no rules/);
  });

  it('an emptied rules file is refused at start and keeps the rules before it at a reload, unless empty is said to mean none', async () => {
    const dir = tempDir();
    const file = join(dir, 'rules.aclj');
    writeFileSync(file, '');
    const refused = await nwax(['search', '-D', `nwax.access.rules=${file}`, '-dir', dir, 'anything']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${file}: no rules (0 bytes); set nwax.access.rules.empty=true`);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    const settings = policySettings([file], 'allow');
    expect(new AccessPolicy({ ...settings, emptyOk: true }).rules.size).toBe(0);
    writeFileSync(file, 'com,example)/private - {"access": "exclude"}\n');
    const logged: string[] = [];
    const policy = new AccessPolicy({ ...settings }, (l) => logged.push(l));
    expect(policy.decide('http://example.com/private', '2020').access).toBe('exclude');
    // Emptied, as a failed copy leaves it (its size and time change): the rule stays in force.
    writeFileSync(file, '\n\n');
    const r = policy.reload();
    expect(r.changed).toBe(false);
    expect(r.errors[0]).toContain('no rules (2 bytes)');
    expect(logged.join('\n')).toContain('the rules loaded before stay in force');
    expect(policy.decide('http://example.com/private', '2020').access).toBe('exclude');
  });
});

describe('nwax acl importtxt', () => {
  it("turns an exclusion list (URLs, SURT prefixes, OpenWayback's http://( form) into rules, replacing those of the same key", async () => {
    const dir = tempDir();
    const list = join(dir, 'exclusions.txt');
    const file = join(dir, 'rules.aclj');
    writeFileSync(list, '# takedowns 2009\nhttp://example.com/private/\n\nhttp://(org,example,)/secret\nhttp://(net,example,\ncom,foo)/bar\r\n');
    const first = await nwax(['acl', 'importtxt', file, list]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('5 rules added and 0 replaced');
    const rules = parseAclj(readFileSync(file, 'utf8'), file);
    expect(rules.errors).toEqual([]);
    expect(rules.rules.map((r) => `${r.key} ${r.access}`)).toEqual([
      'org,example)/secret exclude',
      'net,example, exclude',
      'net,example) exclude',
      'com,foo)/bar exclude',
      'com,example)/private exclude',
    ]);
    const decide = (url: string) => new AccessRules(parseAclj(readFileSync(file, 'utf8'), file).rules, { defaultAccess: 'allow' }).decide(url, '2020').access;
    // OpenWayback's host prefix: the host and every host under it.
    expect(decide('http://example.net/')).toBe('exclude');
    expect(decide('http://www.sub.example.net/x')).toBe('exclude');
    expect(decide('http://notexample.net/')).toBe('allow');
    expect(decide('https://www.example.com/private/a.html')).toBe('exclude');
    const again = await nwax(['acl', 'importtxt', file, list, 'block']);
    expect(again.stderr).toContain('0 rules added and 5 replaced');
    expect(decide('http://example.org/secret')).toBe('block');
    const bad = await nwax(['acl', 'importtxt', file, list, 'deny']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"access" must be one of allow, block, exclude, allow_ignore_embargo, not "deny"');
    // A list that is not one (binary bytes, a host that is no host) or holds none: refused by
    // line, nothing written; hosts of one label and IP addresses are hosts.
    const before = readFileSync(file, 'utf8');
    writeFileSync(join(dir, 'garbage.txt'), Buffer.from([0x68, 0x74, 0x74, 0x70, 0x0a, 0xff, 0xfe, 0x00, 0x41, 0x0a]));
    const garbage = await nwax(['acl', 'importtxt', file, join(dir, 'garbage.txt')]);
    expect([garbage.code, garbage.stderr.trim()]).toEqual([
      1,
      `nwax acl importtxt: ${join(dir, 'garbage.txt')}: line 2: not a URL or SURT prefix (control characters, spaces or bytes that are not UTF-8); nothing imported`,
    ]);
    writeFileSync(join(dir, 'host.txt'), 'http://exa mple.com/\n');
    expect((await nwax(['acl', 'importtxt', file, join(dir, 'host.txt')])).stderr).toContain('line 1: not a URL or SURT prefix');
    writeFileSync(join(dir, 'empty.txt'), '# nothing yet\n\n');
    const empty = await nwax(['acl', 'importtxt', join(dir, 'new.aclj'), join(dir, 'empty.txt')]);
    expect([empty.code, empty.stderr]).toEqual([
      1,
      `nwax acl importtxt: ${join(dir, 'empty.txt')}: no URL or SURT prefix in it; ${join(dir, 'new.aclj')} left as it was\n`,
    ]);
    expect(existsSync(join(dir, 'new.aclj'))).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(before);
    writeFileSync(join(dir, 'hosts.txt'), 'http://localhost:8080/\nhttp://127.0.0.1/p\n[::1]/x\n');
    const hosts = await nwax(['acl', 'importtxt', join(dir, 'hosts.aclj'), join(dir, 'hosts.txt')]);
    expect(hosts.code, hosts.stderr).toBe(0);
    expect((await nwax(['acl', 'validate', join(dir, 'hosts.aclj')])).code).toBe(0);
    const missing = await nwax(['acl', 'importtxt', file, join(dir, 'nope.txt')]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('nope.txt');
    expect(missing.stderr).not.toMatch(/\n\s+at /);
  });
});
