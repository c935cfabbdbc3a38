/**
 * A small collection of pages and the images they show, for the image tests (images.test.ts,
 * browser.test.ts): real PNG and JPEG bytes made by sharp, one PNG cut short (it cannot be
 * decoded), a garden page of 2008 that shows two images (alt text, words around them) and links
 * to a third, the third captured in 2010, and a page the rules block that shows one of the
 * images with words of its own. Imported, inverted (invertlinks: the images' words) and indexed
 * under DIR/crawl.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { nwaxAsync } from './helpers.js';
// @ts-expect-error: a plain JavaScript module of the project's own scripts
import { writeWarc } from '../scripts/make-fixtures.mjs';

export const SITE = 'http://birds.example';
export const ROBIN = `${SITE}/img/robin.png`;
export const HERON = `${SITE}/img/heron.jpg`;
export const BROKEN = `${SITE}/img/kingfisher.png`;
export const GARDEN = `${SITE}/garden.html`;
export const SECRET = `${SITE}/secret.html`;
/** The rules: the secret page blocked (its words to the robin withheld with it). */
export const RULES = 'example,birds)/secret.html - {"access": "block"}\n';

/** Words that part the images' surroundings (more than the ten kept each side). */
const FILLER = 'one two three four five six seven eight nine ten eleven twelve';

let n = 500;
function record(url: string, date: string, type: string, body: Buffer) {
  return {
    type: 'response',
    url,
    date,
    body,
    id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    headers: { 'Content-Type': type, 'Content-Length': String(body.length) },
  };
}

const html = (title: string, body: string) =>
  Buffer.from(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`);

/** The collection's records. */
export async function birdRecords() {
  const robin = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 200, g: 60, b: 30 } } })
    .png()
    .toBuffer();
  const heron = await sharp({ create: { width: 300, height: 900, channels: 3, background: { r: 90, g: 100, b: 120 } } })
    .jpeg()
    .toBuffer();
  const kingfisher = (
    await sharp({ create: { width: 400, height: 400, channels: 3, background: { r: 0, g: 90, b: 200 } } })
      .png()
      .toBuffer()
  ).subarray(0, 120);
  return [
    record(
      GARDEN,
      '20080401000000',
      'text/html; charset=utf-8',
      html(
        'Garden birds',
        `<h1>Garden birds</h1><p>We saw a <img src="/img/robin.png" alt="European robin"> perched on the fence by the pond.</p><p>${FILLER}</p>` +
          `<p><a href="/img/heron.jpg">a grey heron at dawn</a></p><p>${FILLER}</p><figure><img src="img/kingfisher.png" alt="kingfisher diving"></figure>`,
      ),
    ),
    record(
      SECRET,
      '20080402000000',
      'text/html; charset=utf-8',
      html('Secret aviary', `<p>Owls only.</p><img src="/img/robin.png" alt="classified ornithology">`),
    ),
    record(ROBIN, '20080401000100', 'image/png', robin),
    record(HERON, '20100501000000', 'image/jpeg', heron),
    record(BROKEN, '20080401000200', 'image/png', kingfisher),
  ];
}

/** The collection imported, inverted and indexed under `dir`/crawl; `extra`: more records in the same archive. */
export async function birdCollection(dir: string, extra: unknown[] = []): Promise<string> {
  const warc = join(dir, 'birds.warc.gz');
  await writeWarc(warc, [...(await birdRecords()), ...extra]);
  writeFileSync(join(dir, 'manifest'), `${warc} web\n`);
  const crawl = join(dir, 'crawl');
  const seg = join(crawl, 'segments', '20100601000000');
  for (const step of [
    ['import', join(dir, 'manifest'), seg],
    ['invertlinks', join(crawl, 'linkdb'), seg],
    ['index', join(crawl, 'indexes'), join(crawl, 'crawldb'), join(crawl, 'linkdb'), seg],
  ]) {
    const r = await nwaxAsync(step);
    if (r.code !== 0) throw new Error(`nwax ${step.join(' ')}: exit ${r.code}: ${r.stderr}`);
  }
  return crawl;
}
