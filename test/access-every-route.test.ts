/**
 * The issue's collection tried on every route, as every user class and through a front: a
 * blocked page, a taken-down page, a staff-only page, a reading-room page, one version captured
 * in 2009 and 2020 whose 2009 capture is withheld, and an embargoed page, served by a real
 * `nwax serve` (search workers, replay, /cdx) as the public, as staff (a trusted proxy's
 * header), from the reading room (its address) and through a shard front with its own rules.
 * Every answer of every route is read for the marks of what the class may not see: the page's
 * path, its title, its sentence, the withheld capture's date. The probes are listed by route,
 * and the test fails when the service has a route they do not try (routes.ts ROUTES): a new
 * route is a route nobody has checked for leaks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { indexedCollection, nwaxAsync, serveCli, tempDir } from './helpers.js';
import { zipEntry } from './zip-entry.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';
import { ROUTES } from '../src/serve/routes.js';
import { timestampOf } from '../src/access/dates.js';
import sharp from 'sharp';

const html = (title: string, body: string) => `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

/** Captured an hour ago: inside the embargo. */
const RECENT = timestampOf(new Date(Date.now() - 3600_000));

/** One page each: its URL, its one word, the marks of it in an answer (path, title, sentence). */
const PAGE = {
  home: { path: 'index.html', word: 'harbour', title: 'Harbour home', text: 'harbour master writes' },
  history: { path: 'history.html', word: 'heron', title: 'Heron history', text: 'heron colony counted' },
  staff: { path: 'staff.html', word: 'okapi', title: 'Okapi ledger', text: 'okapi ledger for staff' },
  room: { path: 'room.html', word: 'walrus', title: 'Walrus deposit', text: 'walrus deposit in the reading room' },
  blocked: { path: 'blocked.html', word: 'xylophone', title: 'Xylophone notes', text: 'xylophone tuning blocked' },
  takedown: { path: 'takedown.html', word: 'quokka', title: 'Quokka sighting', text: 'quokka sighting taken down' },
  fresh: { path: 'fresh.html', word: 'aardvark', title: 'Aardvark today', text: 'aardvark fresh news' },
} as const;
type PageName = keyof typeof PAGE;
const url = (p: PageName) => `http://site.example/${PAGE[p].path}`;
const HISTORY_2009 = '20090615000000';
const HISTORY_2020 = '20200615000000';

const RULES = [
  'example,site)/takedown.html - {"access": "exclude"}',
  'example,site)/staff.html - {"access": "exclude"}',
  'example,site)/staff.html - {"access": "allow", "user": "staff"}',
  'example,site)/room.html - {"access": "block"}',
  'example,site)/room.html - {"access": "allow", "user": "reading-room"}',
  'example,site)/history.html - {"access": "exclude", "before": "20150101000000"}',
  'example,site)/blocked.html - {"access": "block"}',
  '',
].join('\n');

/** What each class may see (everything else is withheld from it). */
const SEES: Record<string, PageName[]> = {
  public: ['home', 'history'],
  staff: ['home', 'history', 'staff'],
  'reading-room': ['home', 'history', 'room'],
};

let n = 0;
function capture(u: string, date: string, body: string) {
  const b = Buffer.from(body);
  return {
    type: 'response',
    url: u,
    date,
    body: b,
    id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    status: 200,
    statusline: 'HTTP/1.1 200 OK',
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(b.length) },
  };
}
/** An image everyone may see, shown only by the blocked page. */
const PICTURE = 'http://site.example/pic.png';
function image(u: string, date: string, body: Buffer) {
  return { ...capture(u, date, ''), body, headers: { 'Content-Type': 'image/png', 'Content-Length': String(body.length) } };
}
const page = (p: PageName) => html(PAGE[p].title, `<p>${PAGE[p].text}</p>`);

/** One answer of a route: what was asked, its status, its body with the headers that name a capture. */
interface Answer {
  asked: string;
  status: number;
  body: string;
}

/** The URL a request names, as an answer may repeat it (a query, a "not captured" page): not a leak by itself. */
function echoOf(path: string): string[] {
  const m = /http:\/\/site\.example\/[a-z]+\.html/.exec(decodeURIComponent(path));
  return m ? [m[0], encodeURIComponent(m[0])] : [];
}

/** Where a class asks: the service (and its replay), the headers that make the class. */
interface Asker {
  base: string;
  replay?: string;
  headers: Record<string, string>;
  /** The stored copies' set names, as this service names them. */
  sets: string[];
}

async function get(a: Asker, path: string, init: RequestInit = {}, base = a.base): Promise<Answer> {
  const res = await fetch(`${base}${path}`, { redirect: 'manual', ...init, headers: { ...a.headers, ...(init.headers as Record<string, string>) } });
  const capture = res.headers.get('x-archive-capture') ?? '';
  return { asked: path, status: res.status, body: `${capture}\n${await res.text()}` };
}

const WORDS = Object.values(PAGE).map((p) => p.word);
const searchProbe = (path: string) => async (a: Asker) => {
  const out: Answer[] = [];
  for (const q of [...WORDS, 'site:site.example', 'type:text/html', 'type:image', `url:${url('blocked')}`, 'date:2009'])
    out.push(await get(a, `${path}?facets=1&hitsPerPage=50&hitsPerSite=0&query=${encodeURIComponent(q)}`));
  out.push(await get(a, `${path}?query=type:text/html&sort=date&hitsPerPage=50`));
  return out;
};

/** The shard exchange, asked as a front asks it (its key), for the class: its counts say which pages hold each word. */
const shardProbe = (path: string, key: string) => async (a: Asker) => {
  const out: Answer[] = [];
  for (const p of Object.keys(PAGE) as PageName[]) {
    const r = await get(a, `${path}?query=${PAGE[p].word}&cap=100`, { headers: { 'x-nwax-shard-key': key } });
    // A count or a candidate of a word shows the page that holds it: written as that page's marks.
    let shown = false;
    if (r.status === 200) {
      const body = JSON.parse(r.body.slice(r.body.indexOf('\n') + 1)) as { counted?: number } | { url: string }[] | null;
      shown = Array.isArray(body) ? body.length > 0 : (body?.counted ?? 0) > 0;
    }
    out.push({ ...r, body: shown ? `${PAGE[p].path} ${PAGE[p].title}` : r.body.replaceAll(PAGE[p].word, '') });
  }
  return out;
};

/** The probes of each route; the test fails when the service has a route without one. */
function probes(key: string): Record<string, (a: Asker) => Promise<Answer[]>> {
  const one = (path: string, init?: RequestInit) => async (a: Asker) => [await get(a, path, init)];
  return {
    '/': one('/'),
    '/healthz': one('/healthz'),
    '/readyz': one('/readyz'),
    '/metrics': one('/metrics'),
    '/opensearch.xml': one('/opensearch.xml'),
    '/nwax.css': one('/nwax.css'),
    '/search': searchProbe('/search'),
    '/api/search': searchProbe('/api/search'),
    '/opensearch': searchProbe('/opensearch'),
    '/cdx': async (a) => {
      const out: Answer[] = [];
      for (const p of Object.keys(PAGE) as PageName[]) out.push(await get(a, `/cdx?url=${encodeURIComponent(url(p))}&output=json`));
      out.push(await get(a, '/cdx?url=site.example&matchType=host'));
      return out;
    },
    '/api/shard/stats': shardProbe('/api/shard/stats', key),
    '/api/shard/candidates': shardProbe('/api/shard/candidates', key),
    '/export/csv': async (a) => {
      const out: Answer[] = [];
      for (const q of [...WORDS, 'site:site.example', 'type:text/html', 'date:2009']) out.push(await get(a, `/export/csv?query=${encodeURIComponent(q)}`));
      return out;
    },
    '/export/wacz': async (a) => {
      const out: Answer[] = [];
      for (const q of ['site:site.example', 'type:text/html', ...WORDS]) {
        const res = await fetch(`${a.base}/export/wacz?query=${encodeURIComponent(q)}`, { headers: a.headers });
        const body = Buffer.from(await res.arrayBuffer());
        // A package's records are gzipped and its lists deflated: what it holds, unpacked, is read.
        out.push({ asked: `/export/wacz?query=${q}`, status: res.status, body: res.status === 200 ? await unpacked(body) : body.toString() });
      }
      return out;
    },
    '/suggest': async (a) => Promise.all(['ha', 'he', 'ok', 'wa', 'xy', 'qu', 'aa', 'site'].map((q) => get(a, `/suggest?q=${q}`))),
    '/stored/': async (a) => {
      const out: Answer[] = [];
      for (const set of a.sets) for (let doc = 0; doc <= 10; doc++) out.push(await get(a, `/stored/${encodeURIComponent(set)}/${doc}`));
      return out;
    },
    '/thumb/': async (a) => {
      // A thumbnail (or its placeholder) is a capture's: as /stored, decided for the class, or a redirect to what it may see.
      const out: Answer[] = [];
      for (const set of a.sets) for (let doc = 0; doc <= 10; doc++) out.push(await get(a, `/thumb/${encodeURIComponent(set)}/${doc}`));
      return out;
    },
    '/compare': async (a) => {
      const out: Answer[] = [];
      for (const p of Object.keys(PAGE) as PageName[]) {
        out.push(await get(a, `/compare?url=${encodeURIComponent(url(p))}`));
        // Any document named as a version of any page: only the class's versions of that page are compared.
        for (const set of a.sets)
          for (let doc = 0; doc <= 10; doc++) out.push(await get(a, `/compare?url=${encodeURIComponent(url(p))}&a=${encodeURIComponent(`${set}/${doc}`)}`));
      }
      return out;
    },
    '/admin/reload': one('/admin/reload', { method: 'POST' }),
    '/replay/': async (a) => {
      if (!a.replay) return [];
      const out: Answer[] = [];
      for (const p of Object.keys(PAGE) as PageName[])
        for (const path of [`/replay/web/2009mp_/${url(p)}`, `/replay/web/2020id_/${url(p)}`, `/replay/web/timemap/json/${url(p)}`, `/replay/web/*/${url(p)}`])
          out.push(await get(a, path, {}, a.replay));
      return out;
    },
  };
}

/** A package's WARC, index and page list as text. */
async function unpacked(wacz: Buffer): Promise<string> {
  const path = join(tempDir(), 'answer.wacz');
  writeFileSync(path, wacz);
  const parts: string[] = [];
  for (const name of ['archive/data.warc.gz', 'indexes/index.cdx', 'indexes/index.cdx.gz', 'pages/pages.jsonl']) {
    const b = await zipEntry(path, name).catch(() => undefined);
    if (b) parts.push(name.endsWith('.gz') ? gunzipSync(b).toString('utf8') : b.toString('utf8'));
  }
  expect(parts.join('\n')).toContain('WARC/1.');
  return parts.join('\n');
}

/** The marks of what `cls` may not see found in the answers: none is the test. */
function leaks(answers: Answer[], cls: string): string[] {
  const hidden = (Object.keys(PAGE) as PageName[]).filter((p) => !SEES[cls].includes(p));
  const found: string[] = [];
  for (const answer of answers) {
    let body = answer.body;
    for (const e of echoOf(answer.asked)) body = body.replaceAll(e, '');
    const a = { ...answer, body };
    for (const p of hidden) for (const mark of [PAGE[p].path, PAGE[p].title, PAGE[p].text]) if (a.body.includes(mark)) found.push(`${a.asked}: ${mark}`);
    // The 2009 capture of the version shown for its 2020 one: neither its date nor its record.
    // (As 14 digits and as a WARC's or pages.jsonl's ISO date.)
    const iso = (ts: string) => `${ts.slice(0, 4)}-${ts.slice(4, 6)}-${ts.slice(6, 8)}T${ts.slice(8, 10)}`;
    if (a.body.includes(HISTORY_2009.slice(0, 8)) || a.body.includes(iso(HISTORY_2009))) found.push(`${a.asked}: the 2009 capture`);
    if (a.body.includes(RECENT.slice(0, 10)) || a.body.includes(iso(RECENT))) found.push(`${a.asked}: the embargoed capture's date`);
  }
  return found;
}

describe('every route, as every user class and through a front', () => {
  const dir = tempDir();
  const crawl = join(dir, 'crawl');
  const rules = join(dir, 'access.aclj');
  const cdx = join(dir, 'all.cdx');
  const KEY = 'shared-secret-of-the-test';
  const props = ['-D', `nwax.access.rules=${rules}`, '-D', 'nwax.access.embargo=P1D', '-D', `nwax.serve.shard.key=${KEY}`];
  const servers: { url: string; close(): Promise<void>; stderr(): string }[] = [];
  const askers: Record<string, Asker> = {};
  const serve = async (args: string[]) => {
    const s = await serveCli(args);
    servers.push(s);
    return s;
  };
  const replayOf = (s: { stderr(): string }) => /replay at (http:\/\/127\.0\.0\.1:\d+)\/replay\//.exec(s.stderr())?.[1];

  beforeAll(async () => {
    const warc = join(dir, 'collection.warc.gz');
    await writeWarc(warc, [
      capture(url('home'), '20200101000000', html(PAGE.home.title, `<p>${PAGE.home.text}</p><a href="history.html">more</a>`)),
      capture(url('history'), HISTORY_2009, page('history')),
      capture(url('staff'), '20200101000002', page('staff')),
      capture(url('room'), '20200101000003', page('room')),
      // The blocked page shows an image everyone may see: its words (the page's title, its
      // sentence) go with the page, and the page is never named as showing it.
      capture(url('blocked'), '20200101000004', html(PAGE.blocked.title, `<p>${PAGE.blocked.text}</p><img src="pic.png" alt="${PAGE.blocked.title}">`)),
      image(
        PICTURE,
        '20200101000006',
        await sharp({ create: { width: 64, height: 48, channels: 3, background: '#48c' } })
          .png()
          .toBuffer(),
      ),
      capture(url('takedown'), '20200101000005', page('takedown')),
      capture(url('history'), HISTORY_2020, page('history')),
      capture(url('fresh'), RECENT, page('fresh')),
    ]);
    await indexedCollection(warc, crawl, cdx, { links: true });
    writeFileSync(rules, RULES);
    const local = ['-dir', crawl, '--port', '0', '--cdx', cdx, '-D', 'nwax.serve.threads=1', '-D', 'nwax.serve.reload.interval=0', ...props];
    const [srv, room] = await Promise.all([serve(local), serve([...local, '-D', 'nwax.access.reading.room=127.0.0.1/32'])]);
    const front = await serve(['--port', '0', '--shards', srv.url, ...props]);
    const sets = ((await (await fetch(`${srv.url}/readyz`)).json()) as { sets: { name: string }[] }).sets.map((s) => s.name);
    expect(sets.length).toBeGreaterThan(0);
    const staff = { 'X-Pywb-ACL-User': 'staff' };
    askers.public = { base: srv.url, replay: replayOf(srv), headers: {}, sets };
    askers.staff = { base: srv.url, replay: replayOf(srv), headers: staff, sets };
    askers['reading-room'] = { base: room.url, replay: replayOf(room), headers: {}, sets };
    askers['public through a front'] = { base: front.url, headers: {}, sets: sets.map((s) => `0~${s}`) };
    askers['staff through a front'] = { base: front.url, headers: staff, sets: sets.map((s) => `0~${s}`) };
  }, 180_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('has a probe for every route the service answers', () => {
    expect(Object.keys(probes(KEY)).sort()).toEqual([...Object.keys(ROUTES), '/replay/'].sort());
  });

  for (const who of ['public', 'staff', 'reading-room', 'public through a front', 'staff through a front']) {
    const cls = who.replace(' through a front', '');
    it(`${who}: no route answers anything of what the class may not see, and each shows what it may`, async () => {
      const a = askers[who];
      const answers: Answer[] = [];
      for (const [route, probe] of Object.entries(probes(KEY))) {
        const got = await probe(a);
        // A route that answered nothing at all has not been tried.
        if (route !== '/replay/' || a.replay) expect(got.length, route).toBeGreaterThan(0);
        answers.push(...got);
      }
      expect(leaks(answers, cls)).toEqual([]);
      // What the class may see is there: its pages found, the version with its 2020 date alone,
      // and the stored copy of that version its 2020 record.
      for (const p of SEES[cls]) {
        const r = (await (await get(a, `/api/search?query=${PAGE[p].word}`)).body.split('\n').slice(1).join('\n')) as string;
        const hits = (JSON.parse(r) as { hits: { url: string; dates: string[]; set: string; doc: number }[] }).hits;
        expect(
          hits.map((h) => h.url),
          `${who} ${p}`,
        ).toEqual([url(p)]);
        // Its CSV row (a service over its indexes makes one; a front says to ask a backend).
        const csv = await fetch(`${a.base}/export/csv?fields=url,dates&query=${PAGE[p].word}`, { headers: a.headers });
        if (who.includes('front')) expect(csv.status).toBe(400);
        else expect((await csv.text()).trim().split('\n')).toEqual(['url,dates', `${url(p)},${p === 'history' ? HISTORY_2020 : hits[0].dates.join(' ')}`]);
        if (p === 'history') {
          expect(hits[0].dates).toEqual([HISTORY_2020]);
          // Its own record is the 2009 one: the copy is the 2020 capture's bytes, from replay.
          const res = await fetch(`${a.base}/stored/${encodeURIComponent(hits[0].set)}/${hits[0].doc}`, { headers: a.headers, redirect: 'manual' });
          expect(res.status).toBe(302);
          expect(res.headers.get('x-archive-capture')).toBe(`${HISTORY_2020} ${url('history')}`);
          const location = res.headers.get('location')!;
          expect(location).toMatch(new RegExp(`/replay/[^/]+/${HISTORY_2020}id_/${url('history')}$`));
          const copy = await fetch(location, { headers: a.headers });
          expect(copy.status).toBe(200);
          expect(copy.headers.get('memento-datetime')).toBe('Mon, 15 Jun 2020 00:00:00 GMT');
          expect(await copy.text()).toContain(PAGE.history.text);
        }
      }
    });
  }

  it('export-wacz writes, for each class, the captures it may see and no other', async () => {
    const entry = async (wacz: string, names: string[]) => {
      for (const name of names) {
        const b = await zipEntry(wacz, name).catch(() => undefined);
        if (b) return name.endsWith('.gz') ? gunzipSync(b).toString('utf8') : b.toString('utf8');
      }
      return '';
    };
    for (const [cls, user] of [
      ['public', undefined],
      ['staff', 'staff'],
    ] as const) {
      const out = join(dir, `${cls}.wacz`);
      const r = await nwaxAsync(['export-wacz', '-dir', crawl, ...props, ...(user ? ['--user', user] : []), out]);
      expect(r.code, r.stderr).toBe(0);
      const text = [
        await entry(out, ['archive/data.warc.gz']),
        await entry(out, ['indexes/index.cdx', 'indexes/index.cdx.gz', 'indexes/index.cdxj']),
        await entry(out, ['pages/pages.jsonl']),
      ].join('\n');
      expect(text).toContain('WARC/1.');
      expect(leaks([{ asked: `export-wacz ${cls}`, status: 0, body: text }], cls)).toEqual([]);
      for (const p of SEES[cls]) expect(text, `${cls} ${p}`).toContain(PAGE[p].text);
    }
  });
});
