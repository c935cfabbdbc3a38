/**
 * The texts of an index set's documents, for snippets and the ranking's look at a page's head:
 * from the segment's parse_text by key (schema 4, which stores no text: segment-texts.ts finds
 * the segment), or from each row (schemas 2 and 3). A text that cannot be read (its segment
 * gone, its block damaged) costs the hit its snippet, never the query.
 */
import type Database from 'better-sqlite3';
import type { SegmentTexts } from '../segment/segment-texts.js';
import { SNIPPET_READS, snippetOf, snippetOfHead, snippetOfPassage, type Snippet } from './snippet.js';
import { passageIn } from './proximity.js';

/** Characters of a text read for its snippet first (a long page's snippet is nearly always near its top). */
const SNIPPET_HEAD = 8192;

/** Where a version's text is: its segment and key. */
export interface TextRef {
  segment: string | null;
  url: string;
  digest: string;
}

/**
 * The passage a snippet shows: the token where the ranking found the text's closest window of
 * the query's words, or (where its twin could not say where) those words' terms, to find it by.
 * Either way only in the text's first PASSAGE_TERMS terms and PASSAGE_SEARCH characters (4096
 * and 24K: 96% of the passage queries' passages on the bench corpus, 84% in the first 8K
 * characters): a deeper one would cost a long read of the text, and the snippet starts at the
 * first match instead.
 */
export type Passage = number | readonly (readonly string[])[] | undefined;

/** Characters of a text that its passage is looked for in. */
const PASSAGE_SEARCH = SNIPPET_HEAD * 3;

/**
 * Terms of a text that its passage is looked for in: as many as the first PASSAGE_SEARCH
 * characters hold in most texts (96% of the passage queries' passages lie within both), told
 * from the passage's number alone, so a deeper one costs no read and no count of the terms
 * before it (at a million documents most pages' closest windows of a query of title words lay
 * past it: a search of 24K characters for nothing).
 */
const PASSAGE_TERMS = 4096;

/** The passage where it lies within PASSAGE_TERMS, else undefined (a snippet of the first match). */
function within(passage: number | undefined): number | undefined {
  return passage !== undefined && passage < PASSAGE_TERMS ? passage : undefined;
}

export class SetTexts {
  /**
   * `stmt`: the set's statements (prepared once); `segments`: the reader of segment texts and
   * the places this set's segments may be, or undefined where each row holds its text.
   */
  constructor(
    private readonly stmt: (sql: string) => Database.Statement,
    private readonly segments: { store: SegmentTexts; near: string[] } | undefined,
  ) {}

  /** Whether the texts are read from the segments (schema 4, whose URLs are found by their hash). */
  get inSegments(): boolean {
    return this.segments !== undefined;
  }

  /**
   * A hit's stored text (for its snippet; '' when `text` is false) and language, in one read:
   * both lie at the end of its row, past the text's overflow pages.
   */
  textAndLang(id: number, text = true): { text: string; lang: string } {
    if (this.segments) {
      const r = this.refAndLang(id);
      if (r === undefined) return { text: '', lang: '' };
      return { text: text ? this.segmentText(r) : '', lang: r.lang ?? '' };
    }
    const r = this.stmt(text ? 'SELECT text, lang FROM docs WHERE id = ?' : "SELECT '' AS text, lang FROM docs WHERE id = ?").get(id) as
      | { text: string | null; lang: string }
      | undefined;
    return { text: r?.text ?? '', lang: r?.lang ?? '' };
  }

  /**
   * A version's text as a JSON string (its bytes), for a writer of JSON that copies it: from its
   * segment as stored there; undefined where it cannot be read. `known`: its row's segment, URL
   * and digest, where the caller has read them.
   */
  textJson(id: number, known?: TextRef): Buffer | undefined {
    if (!this.segments) {
      const { text } = this.textAndLang(id);
      return Buffer.from(JSON.stringify(text));
    }
    const r = known ?? this.refAndLang(id);
    if (r === undefined) return undefined;
    const { store, near } = this.segments;
    try {
      const json = store.textJson(r.segment ?? '', r.url, r.digest, near);
      // A value that is not a string (not a text this reader knows) is no text.
      return json?.[0] === 0x22 ? json : undefined;
    } catch {
      return undefined; // a damaged block, as for segmentText
    }
  }

  /**
   * A hit's snippet and language. From its segment: the snippet of the text's first kilobytes
   * where they hold it (snippetOfHead), else of the whole text; from its row (schema 3), the
   * whole text as stored.
   */
  snippetAndLang(id: number, highlight: string[], near?: Passage): { snippet: Snippet; lang: string } {
    if (this.segments) {
      const r = this.refAndLang(id);
      if (r === undefined) return { snippet: snippetOf('', highlight), lang: '' };
      // Each head read once, and kept for what follows: a read inflates the text's blocks again.
      const twin = Array.isArray(near);
      // Where the ranking's twin gave no place, the passage is looked for in the text's head.
      let head = this.segmentHead(r, twin ? PASSAGE_SEARCH : SNIPPET_HEAD);
      const passage = within(twin ? (head ? passageIn(head.text, near as readonly (readonly string[])[]) : undefined) : (near as number | undefined));
      if (passage !== undefined && head) {
        // The passage the ranking found closest, from a longer head where the first ends before it.
        let at = snippetOfPassage(head.text, highlight, passage, head.whole);
        if (!at && !head.whole && head.text.length < PASSAGE_SEARCH) {
          head = this.segmentHead(r, PASSAGE_SEARCH) ?? head;
          at = snippetOfPassage(head.text, highlight, passage, head.whole);
        }
        if (at) return { snippet: at, lang: r.lang ?? '' };
      }
      // Longer heads where the first does not hold the snippet, at most as far as a snippet can
      // look (SNIPPET_READS), not a long page's whole.
      for (const more of [SNIPPET_HEAD * 8, SNIPPET_READS]) {
        if (!head || head.whole) break;
        const quick = snippetOfHead(head.text, highlight);
        if (quick) return { snippet: quick, lang: r.lang ?? '' };
        if (more > head.text.length) head = this.segmentHead(r, more);
      }
      return { snippet: snippetOf(head?.text ?? '', highlight), lang: r.lang ?? '' };
    }
    const { text, lang } = this.textAndLang(id);
    const head = text.slice(0, PASSAGE_SEARCH);
    const passage = within(Array.isArray(near) ? passageIn(head, near) : (near as number | undefined));
    const at = passage !== undefined && snippetOfPassage(head, highlight, passage, head.length === text.length);
    return { snippet: at || snippetOf(text, highlight), lang };
  }

  /** The first characters of the stored text of a document (the ranking's exact feature). */
  head(id: number, chars = 1000): string {
    if (this.segments) {
      const r = this.stmt('SELECT segment, url, digest FROM docs WHERE id = ?').get(id) as TextRef | undefined;
      return r === undefined ? '' : (this.segmentHead(r, chars)?.text.slice(0, chars) ?? '');
    }
    return (this.stmt('SELECT substr(text, 1, ?) AS t FROM docs WHERE id = ?').get(chars, id) as { t: string | null } | undefined)?.t ?? '';
  }

  private refAndLang(id: number): (TextRef & { lang: string }) | undefined {
    return this.stmt('SELECT segment, url, digest, lang FROM docs WHERE id = ?').get(id) as (TextRef & { lang: string }) | undefined;
  }

  /** At least the first `chars` characters of a version's text from its segment; undefined where it is not found or its block is damaged. */
  private segmentHead(r: TextRef, chars: number): { text: string; whole: boolean } | undefined {
    const { store, near } = this.segments!;
    try {
      return store.head(r.segment ?? '', r.url, r.digest, chars, near);
    } catch {
      return undefined; // a damaged block: the hit without its snippet, the query goes on
    }
  }

  /** A version's text from its segment ('' where the segment is not beside the index, nor where the searcher looks). */
  private segmentText(r: TextRef): string {
    const { store, near } = this.segments!;
    try {
      return store.text(r.segment ?? '', r.url, r.digest, near) ?? '';
    } catch {
      // A damaged block of parse_text: the hit is shown without its snippet, the query goes on.
      return '';
    }
  }
}
