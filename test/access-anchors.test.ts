/**
 * Words a withheld page gave away: the anchor text of a blocked page's link stays in the index
 * row of the page it links to (the LinkDb gives every page its inlinks' anchors). Under rules
 * that block the linking page, a query of a word found only in that anchor must not find the
 * page linked to, nor count it, for any class the rules withhold the linking page from; a class
 * that may see it (staff) still finds it; a page linked to by a page shown keeps its anchors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nwax, nwaxAsync, serveCli, tempDir } from './helpers.js';
import { Searcher } from '../src/search/searcher.js';
import { accessSettings } from '../src/access/policy.js';
import { Configuration } from '../src/conf/config.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';

let n = 0;
/** A page captured on 2020-01-01, as a WARC response record of make-fixtures.mjs. */
function page(url: string, title: string, body: string) {
  const html = `<!DOCTYPE html><html><head><title>${title}</title></head><body>${body}</body></html>`;
  const headers = { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(Buffer.byteLength(html)) };
  return { type: 'response', url, date: '20200101000000', body: html, id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, status: 200, headers };
}

type Answer = { total: number; hits: { url: string }[] };
const urls = (a: Answer) => a.hits.map((h) => h.url).sort();

const TARGET = 'http://t.example/target.html';
const LEAK = 'http://blocked.example/leak.html';
const FRIEND = 'http://open.example/friend.html';
const REPORT = 'http://t.example/report.html';

describe("a blocked page's anchor text", () => {
  const dir = tempDir();
  const crawl = join(dir, 'crawl');
  const rules = join(dir, 'rules.aclj');
  let srv: { url: string; close(): Promise<void> };
  const ask = async (query: string, headers: Record<string, string> = {}) =>
    (await (await fetch(`${srv.url}/api/search?query=${encodeURIComponent(query)}`, { headers })).json()) as Answer;

  beforeAll(async () => {
    const warc = join(dir, 'links.warc.gz');
    await writeWarc(warc, [
      // The blocked page: the only holder of "quetzal" (in its link's anchor) and of "marimba" (in its text and its anchor).
      page(LEAK, 'Leaked list', `<p>marimba notes</p><a href="${TARGET}">quetzal marimba report</a>`),
      // A blocked page the index does not hold (noindex), as a page of another shard's index: its anchor is in the LinkDb only.
      page('http://hidden.example/noindex.html', 'Unlisted', `<meta name="robots" content="noindex"><p>unlisted</p><a href="${REPORT}">jaguar dossier</a>`),
      // A page shown that links to the same page: its anchor stays.
      page(FRIEND, 'Friendly list', `<p>friend page</p><a href="${TARGET}">ocelot report</a>`),
      page(TARGET, 'Target page', '<p>plain words of the target</p>'),
      // Another page holding "report" in its text, and one the blocked page does not link to.
      page(REPORT, 'Yearly report', '<p>the report of the year</p>'),
    ]);
    writeFileSync(join(dir, 'manifest'), `${warc} web\n`);
    const seg = join(crawl, 'segments', '20200102000000');
    for (const step of [
      ['import', join(dir, 'manifest'), seg],
      ['invertlinks', join(crawl, 'linkdb'), seg],
      ['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg],
    ])
      expect((await nwaxAsync(step)).code).toBe(0);
    writeFileSync(
      rules,
      'example,blocked)/ - {"access": "block"}\nexample,blocked)/ - {"access": "allow", "user": "staff"}\nexample,hidden)/ - {"access": "block"}\n',
    );
    const props = {
      'nwax.access.rules': rules,
      'nwax.access.user.header': 'X-Nwax-User',
      'nwax.access.trusted.proxies': '127.0.0.1',
      'nwax.serve.threads': '1',
    };
    srv = await serveCli(['-dir', crawl, '--port', '0', ...Object.entries(props).flatMap(([k, v]) => ['-D', `${k}=${v}`])]);
  }, 60_000);
  afterAll(() => srv?.close());

  it('is matched without rules: the page linked to is found by it (and the linking page, whose text holds it)', async () => {
    const open = JSON.parse((await nwax(['search', '--json', '-dir', crawl, 'quetzal'])).stdout) as Answer;
    expect(urls(open)).toEqual([LEAK, TARGET]);
  });

  it('finds nothing for the public, whose rules block the linking page; the staff still find it', async () => {
    expect(await ask('quetzal')).toMatchObject({ total: 0, hits: [] });
    // A word the blocked page holds in its text and its anchor: neither it nor the page linked to.
    expect(urls(await ask('marimba'))).toEqual([]);
    expect(urls(await ask('quetzal', { 'X-Nwax-User': 'staff' }))).toEqual([LEAK, TARGET]);
    expect(urls(await ask('marimba', { 'X-Nwax-User': 'staff' }))).toEqual([LEAK, TARGET]);
    // Excluding the word does not leave the page out either (its absence would tell the word).
    expect(urls(await ask('target -quetzal'))).toEqual([TARGET]);
    // Nor do the answers that list every match: by date, facets, the CSV of a query's hits.
    const byDate = async (headers: Record<string, string> = {}) =>
      urls((await (await fetch(`${srv.url}/api/search?query=quetzal&sort=date`, { headers })).json()) as Answer);
    expect(await byDate()).toEqual([]);
    expect(await byDate({ 'X-Nwax-User': 'staff' })).toEqual([LEAK, TARGET]);
    expect(((await (await fetch(`${srv.url}/api/search?query=marimba&facets=1`)).json()) as { facets?: { site: unknown[] } }).facets?.site ?? []).toEqual([]);
    const csv = (await (await fetch(`${srv.url}/export/csv?query=quetzal`)).text()).trim().split('\n');
    expect(csv).toHaveLength(1);
    expect((await (await fetch(`${srv.url}/export/csv?query=quetzal`, { headers: { 'X-Nwax-User': 'staff' } })).text()).trim().split('\n')).toHaveLength(3);
  });

  it('leaves the anchors other pages gave: the page is found by its other inlink, its own words and its title', async () => {
    // Matched without any of its anchors (FTS5 keeps them in one column): "ocelot" is lost too,
    // which is the price of not indexing it again; its title and text still find it.
    expect(urls(await ask('target'))).toEqual([TARGET]);
    expect(urls(await ask('plain words'))).toEqual([TARGET]);
    expect(urls(await ask('ocelot'))).toEqual([FRIEND]);
    expect(urls(await ask('ocelot', { 'X-Nwax-User': 'staff' }))).toEqual([FRIEND, TARGET]);
    // "report": the friend's link text and the report's own; the target held it only in anchors.
    expect(urls(await ask('report'))).toEqual([FRIEND, REPORT]);
    expect(urls(await ask('report', { 'X-Nwax-User': 'staff' }))).toEqual([LEAK, FRIEND, REPORT, TARGET]);
  });

  it('of a blocked page the index does not hold (known from the LinkDb) is not matched either', async () => {
    const open = JSON.parse((await nwax(['search', '--json', '-dir', crawl, 'jaguar'])).stdout) as Answer;
    expect(urls(open)).toEqual([REPORT]);
    expect(urls(await ask('jaguar'))).toEqual([]);
    expect(urls(await ask('dossier'))).toEqual([]);
    // Its own words still find it.
    expect(urls(await ask('yearly report'))).toEqual([REPORT]);
  });

  it('is not counted in the statistics the shard exchange gives, nor in the CLI', async () => {
    const cli = JSON.parse((await nwax(['search', '--json', '-dir', crawl, '-D', `nwax.access.rules=${rules}`, 'quetzal'])).stdout) as Answer;
    expect(cli.total).toBe(0);
    const conf = Configuration.load([`nwax.access.rules=${rules}`]);
    const s = new Searcher(crawl, () => {}, accessSettings(conf));
    try {
      const pub = s.view().shardStats('quetzal', 1000, false)!;
      expect(pub.hits['"quetzal"']).toBe(0);
      expect(pub.counted).toBe(0);
      const staff = s.view('staff').shardStats('quetzal', 1000, false)!;
      expect(staff.hits['"quetzal"']).toBe(2);
      // The public's tokens leave out the blocked page's and the target's anchors.
      expect(pub.tokens).toBeLessThan(staff.tokens);
    } finally {
      s.close();
    }
  });

  it("closes when a withheld page's links cannot be read: no document is matched by its anchors", async () => {
    // The segment's crawl_parse moved away: where the links came from is not known.
    const copy = join(dir, 'copy');
    mkdirSync(copy);
    const seg = join(crawl, 'segments', '20200102000000');
    const { renameSync } = await import('node:fs');
    const publicFinds = (query: string, log: string[]) => {
      const s = new Searcher(crawl, (m) => log.push(m), accessSettings(Configuration.load([`nwax.access.rules=${rules}`])));
      try {
        return s
          .view()
          .search(query)
          .hits.map((h) => h.url);
      } finally {
        s.close();
      }
    };
    // The LinkDb moved away: the index's anchors can come from anywhere.
    renameSync(join(crawl, 'linkdb'), join(copy, 'linkdb'));
    try {
      const log: string[] = [];
      expect(publicFinds('ocelot', log)).toEqual([FRIEND]);
      expect(log.join('\n')).toMatch(/no LinkDb beside the index .* no anchor text is matched for the public/);
    } finally {
      renameSync(join(copy, 'linkdb'), join(crawl, 'linkdb'));
    }
    // A LinkDb part damaged (gzip that does not inflate): closed, and the searcher answers on.
    const { readdirSync, readFileSync } = await import('node:fs');
    const part = join(crawl, 'linkdb', readdirSync(join(crawl, 'linkdb')).find((f) => f.startsWith('part-'))!);
    const good = readFileSync(part);
    writeFileSync(part, Buffer.concat([good.subarray(0, 12), Buffer.alloc(64, 0x5a)]));
    try {
      const log: string[] = [];
      expect(publicFinds('ocelot', log)).toEqual([FRIEND]);
      expect(log.join('\n')).toMatch(/the anchors' sources cannot be read .*: no anchor text is matched for the public/);
    } finally {
      writeFileSync(part, good);
    }
    renameSync(join(seg, 'crawl_parse'), join(copy, 'crawl_parse'));
    try {
      const lines: string[] = [];
      const conf = Configuration.load([`nwax.access.rules=${rules}`]);
      const s = new Searcher(crawl, (m) => lines.push(m), accessSettings(conf));
      try {
        expect(s.view().search('quetzal').total).toBe(0);
        // The anchor of the page shown is not matched either (closed): only the friend's own text; the title still is.
        expect(
          s
            .view()
            .search('ocelot')
            .hits.map((h) => h.url),
        ).toEqual([FRIEND]);
        expect(
          s
            .view()
            .search('target')
            .hits.map((h) => h.url),
        ).toEqual([TARGET]);
        expect(lines.join('\n')).toMatch(/not in segment 20200102000000's crawl_parse: no anchor text is matched for the public/);
      } finally {
        s.close();
      }
    } finally {
      renameSync(join(copy, 'crawl_parse'), join(seg, 'crawl_parse'));
    }
  });
});

describe("a blocked page's anchor text through a shard front", () => {
  const dir = tempDir();
  const rules = join(dir, 'rules.aclj');
  const servers: { url: string; close(): Promise<void> }[] = [];
  let front: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    // Backend a holds the blocked page; backend b the page it links to, and the crawl's LinkDb
    // (inverted from both segments, as a crawl's is), but not the blocked page.
    const segs: string[] = [];
    for (const [name, pages] of [
      ['a', [page(LEAK, 'Leaked list', `<p>marimba notes</p><a href="${TARGET}">quetzal marimba report</a>`)]],
      ['b', [page(TARGET, 'Target page', '<p>plain words of the target</p>')]],
    ] as const) {
      const warc = join(dir, `${name}.warc.gz`);
      await writeWarc(warc, pages);
      writeFileSync(join(dir, `${name}.manifest`), `${warc} web\n`);
      const seg = join(dir, name, 'segments', '20200102000000');
      expect((await nwaxAsync(['import', join(dir, `${name}.manifest`), seg])).code).toBe(0);
      segs.push(seg);
    }
    for (const [i, name] of ['a', 'b'].entries()) {
      const crawl = join(dir, name);
      expect((await nwaxAsync(['invertlinks', join(crawl, 'linkdb'), ...(name === 'b' ? segs : [segs[i]])])).code).toBe(0);
      expect((await nwaxAsync(['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), segs[i]])).code).toBe(0);
    }
    writeFileSync(rules, 'example,blocked)/ - {"access": "block"}\nexample,blocked)/ - {"access": "allow", "user": "staff"}\n');
    const props = ['-D', `nwax.access.rules=${rules}`, '-D', 'nwax.access.user.header=X-Nwax-User', '-D', 'nwax.access.trusted.proxies=127.0.0.1'];
    for (const name of ['a', 'b']) servers.push(await serveCli(['-dir', join(dir, name), '--port', '0', '-D', 'nwax.serve.threads=1', ...props]));
    front = await serveCli(['--port', '0', '--shards', servers.map((s) => s.url).join(','), ...props]);
  }, 90_000);
  afterAll(async () => {
    await front?.close();
    for (const s of servers) await s.close();
  });

  it('finds nothing by it for the public, though the blocked page is in another backend; the staff find both', async () => {
    const ask = async (query: string, headers: Record<string, string> = {}) =>
      ((await (await fetch(`${front.url}/api/search?query=${encodeURIComponent(query)}`, { headers })).json()) as { hits: { url: string }[] }).hits
        .map((h) => h.url)
        .sort();
    // Without rules, backend b finds the page by the anchor alone.
    expect(urls(JSON.parse((await nwax(['search', '--json', '-dir', join(dir, 'b'), 'quetzal'])).stdout) as Answer)).toEqual([TARGET]);
    expect(await ask('quetzal')).toEqual([]);
    expect(await ask('target')).toEqual([TARGET]);
    expect(await ask('quetzal', { 'X-Nwax-User': 'staff' })).toEqual([LEAK, TARGET]);
  });
});
