/**
 * Thumbnails of archived images, for the image grid (`/thumb/SET/DOC`): the capture's payload
 * read from the archive (at most `nwax.serve.thumbnail.bytes`), decoded and scaled to fit a
 * square by sharp (libvips), as WebP. An image that cannot be decoded (truncated, not an image
 * at all, more pixels than MAX_PIXELS, more bytes than the limit) gets a placeholder, which the
 * grid shows in its place, with the reason in a header.
 *
 * Called only with a capture the request's view may see (the route asks the view first), so the
 * cache, shared by every user class, never holds what it was not handed for a class that may
 * see it. Where sharp cannot be loaded (a platform without its prebuilt binaries) there are no
 * thumbnails: the route sends the stored copy for the browser to scale.
 */
import { ArchiveReader } from '../archive/reader.js';
import { openByteRange } from '../archive/byte-source.js';
import type { StoredRef } from '../search/types.js';

/** A thumbnail, or the placeholder shown for an image that has none (`placeholder` says why). */
export interface Thumbnail {
  bytes: Buffer;
  type: string;
  placeholder?: string;
}

/** Pixels an image may have to be decoded (a "decompression bomb" of a few kB says 100k x 100k). */
const MAX_PIXELS = 40_000_000;
/** Thumbnails kept, by bytes. */
const CACHE_BYTES = 32 * 1024 * 1024;
/** Images decoded at the same time: libvips runs each on its own threads. */
const DECODING = 2;

/** The placeholder: a grey box saying there is no preview, the size of a thumbnail's square. */
function placeholderSvg(size: number): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}" role="img" aria-label="no preview">` +
      `<rect width="100%" height="100%" fill="#e8e8e8"/><text x="50%" y="50%" text-anchor="middle" dominant-baseline="middle" font-family="sans-serif" font-size="${Math.round(size / 12)}" fill="#666">no preview</text></svg>`,
  );
}

type Sharp = typeof import('sharp');

let loaded: Promise<Sharp | undefined> | undefined;

/** sharp, or undefined where its binaries cannot be loaded here. */
function sharpModule(): Promise<Sharp | undefined> {
  loaded ??= import('sharp').then(
    (m) => {
      const sharp = (m.default ?? m) as Sharp;
      // Nothing kept by libvips between images: the cache here keeps what is worth keeping.
      sharp.cache(false);
      return sharp;
    },
    () => undefined,
  );
  return loaded;
}

/** Whether thumbnails can be made on this machine. */
export async function thumbnailsAvailable(): Promise<boolean> {
  return (await sharpModule()) !== undefined;
}

export class Thumbnails {
  private readonly cache = new Map<string, Thumbnail>();
  private cached = 0;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  /** `size`: the square a thumbnail fits in (px); `maxBytes`: an image's payload decoded at most. */
  constructor(
    private readonly size: number,
    private readonly maxBytes: number,
  ) {}

  /** The thumbnail of a capture the caller's view may see; undefined where sharp is not available. */
  async of(ref: StoredRef): Promise<Thumbnail | undefined> {
    const sharp = await sharpModule();
    if (!sharp) return undefined;
    const key = `${ref.location}\0${ref.offset}`;
    const hit = this.cache.get(key);
    if (hit) {
      // Most recently used last.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    await this.slot();
    let made: Thumbnail;
    try {
      made = await this.make(sharp, ref);
    } finally {
      this.release();
    }
    this.keep(key, made);
    return made;
  }

  private async make(sharp: Sharp, ref: StoredRef): Promise<Thumbnail> {
    if (!/^image\//i.test(ref.mime)) return this.placeholder(`not an image (${ref.mime || 'no type'})`);
    const payload = await this.payload(ref);
    if (typeof payload === 'string') return this.placeholder(payload);
    try {
      const bytes = await sharp(payload, { limitInputPixels: MAX_PIXELS, failOn: 'truncated', animated: false })
        .rotate()
        .resize({ width: this.size, height: this.size, fit: 'inside', withoutEnlargement: true })
        .webp({ quality: 70 })
        .toBuffer();
      return { bytes, type: 'image/webp' };
    } catch (err) {
      return this.placeholder(`cannot be decoded (${(err as Error).message.split('\n')[0]})`);
    }
  }

  /** The capture's payload, or why it is not read (too large, encoded). */
  private async payload(ref: StoredRef): Promise<Buffer | string> {
    const source = await openByteRange(ref.location, { offset: ref.offset, length: ref.clen }, { timeout: 10_000, retries: 2 });
    try {
      for await (const r of new ArchiveReader(source, { strict: true })) {
        const encoding = r.http?.headers.get('Content-Encoding');
        if (encoding && !/^\s*identity\s*$/i.test(encoding)) return `sent with Content-Encoding ${encoding.trim()}`;
        const chunks: Buffer[] = [];
        let length = 0;
        for await (const chunk of r.payload()) {
          length += chunk.length;
          if (length > this.maxBytes) return `larger than ${this.maxBytes} bytes (nwax.serve.thumbnail.bytes)`;
          chunks.push(Buffer.from(chunk));
        }
        return Buffer.concat(chunks);
      }
      return `no record at offset ${ref.offset}`;
    } finally {
      source.close();
    }
  }

  private placeholder(reason: string): Thumbnail {
    return { bytes: placeholderSvg(this.size), type: 'image/svg+xml', placeholder: reason };
  }

  private keep(key: string, t: Thumbnail): void {
    if (t.bytes.length > CACHE_BYTES / 4) return;
    this.cache.set(key, t);
    this.cached += t.bytes.length;
    for (const [k, old] of this.cache) {
      if (this.cached <= CACHE_BYTES) break;
      this.cache.delete(k);
      this.cached -= old.bytes.length;
    }
  }

  private async slot(): Promise<void> {
    if (this.running < DECODING) {
      this.running++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}
