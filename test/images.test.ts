/**
 * Images as images, on a real `nwax serve` over the bird collection (bird-images.ts): an image
 * is found by the alt text and the words around it on the pages that show it, and by the anchors
 * that link to it; /thumb/SET/DOC serves a thumbnail decoded and scaled by sharp, or a placeholder
 * where the image cannot be decoded; the pages that show an image are named with it, and a page
 * the rules block neither gives the image its words nor is named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { serveCli, tempDir } from './helpers.js';
import { BROKEN, GARDEN, HERON, ROBIN, RULES, SECRET, birdCollection } from './bird-images.js';

interface JsonHit {
  url: string;
  mime: string;
  set: string;
  doc: number;
}

describe('images found by the words of the pages that show them, and shown as thumbnails', () => {
  const dir = tempDir();
  let open: { url: string; close(): Promise<void> };
  let ruled: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    const crawl = await birdCollection(dir);
    const rules = join(dir, 'access.aclj');
    writeFileSync(rules, RULES);
    const args = ['-dir', crawl, '--port', '0', '-D', 'nwax.serve.threads=1', '-D', 'nwax.serve.reload.interval=0'];
    [open, ruled] = await Promise.all([serveCli(args), serveCli([...args, '-D', `nwax.access.rules=${rules}`])]);
  }, 120_000);
  afterAll(async () => {
    await open?.close();
    await ruled?.close();
  });

  const hits = async (base: string, query: string): Promise<JsonHit[]> => {
    const res = await fetch(`${base}/api/search?hitsPerSite=0&query=${encodeURIComponent(query)}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { hits: JsonHit[] }).hits;
  };

  it('finds an image by its alt text, by the words around it, and by the anchor that links to it', async () => {
    // Words found only on the garden page, never in the images' URLs.
    expect((await hits(open.url, 'european type:image')).map((h) => h.url)).toEqual([ROBIN]);
    expect((await hits(open.url, 'fence pond type:image')).map((h) => h.url)).toEqual([ROBIN]);
    for (const base of [open.url, ruled.url]) {
      expect((await hits(base, 'grey heron dawn type:image')).map((h) => h.url)).toEqual([HERON]);
      expect((await hits(base, 'diving type:image')).map((h) => h.url)).toEqual([BROKEN]);
      // Ten words each side: the filler between the images keeps each one's words its own.
      expect((await hits(base, 'fence diving type:image')).map((h) => h.url)).toEqual([]);
    }
  });

  it("gives a blocked page's words to no one who may not see it", async () => {
    // Without rules the secret page's alt text finds the robin it shows; under them, nothing.
    expect((await hits(open.url, 'classified ornithology')).map((h) => h.url)).toEqual([ROBIN]);
    expect(await hits(ruled.url, 'classified ornithology')).toEqual([]);
    // A page a withheld page gives words to is matched without any anchor text for that class
    // (anchor-sources.ts: closed, where the words of each source are not told apart): the robin
    // is still there, found by its URL, not by the garden's words.
    expect(await hits(ruled.url, 'european type:image')).toEqual([]);
    expect((await hits(ruled.url, 'robin type:image')).map((h) => h.url)).toEqual([ROBIN]);
  });

  it('shows every image of a type:image query as a thumbnail in a grid, with the pages that show it, never a blocked one', async () => {
    for (const [base, secret] of [
      [open.url, true],
      [ruled.url, false],
    ] as const) {
      const page = await (await fetch(`${base}/search?query=${encodeURIComponent('type:image')}&hitsPerSite=0`)).text();
      expect(page).toContain('<ol class="images"');
      expect(page.match(/<img src="\/thumb\/[^"]+\/\d+"/g)).toHaveLength(3);
      expect(page).toContain('Shown on <a href="/search?query=url%3Ahttp%3A%2F%2Fbirds.example%2Fgarden.html');
      expect(page).toContain('>Garden birds</a>');
      expect(page.includes('Secret aviary')).toBe(secret);
      expect(page.includes(encodeURIComponent(SECRET))).toBe(secret);
    }
  });

  it('serves a thumbnail scaled to fit the square, a placeholder for what cannot be decoded, and 451 for a blocked capture', async () => {
    const all = await hits(open.url, `site:birds.example`);
    const of = (url: string) => all.find((h) => h.url === url)!;
    const thumb = (h: JsonHit, base = open.url) => fetch(`${base}/thumb/${encodeURIComponent(h.set)}/${h.doc}`);

    for (const [url, width, height] of [
      [ROBIN, 200, 150],
      [HERON, 67, 200],
    ] as const) {
      const res = await thumb(of(url));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/webp');
      expect(res.headers.get('x-nwax-thumbnail')).toBeNull();
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['webp', width, height]);
    }

    const broken = await thumb(of(BROKEN));
    expect(broken.status).toBe(200);
    expect(broken.headers.get('content-type')).toBe('image/svg+xml');
    expect(broken.headers.get('x-nwax-thumbnail')).toMatch(/^placeholder: cannot be decoded/);
    expect(await broken.text()).toContain('no preview');

    const page = await thumb(of(GARDEN));
    expect(page.headers.get('x-nwax-thumbnail')).toBe('placeholder: not an image (text/html)');

    // The blocked page as the rules' public asks for it.
    const secret = of(SECRET);
    expect((await thumb(secret, ruled.url)).status).toBe(451);
    expect((await fetch(`${ruled.url}/thumb/${encodeURIComponent(secret.set)}/999999`)).status).toBe(404);
  });
});
