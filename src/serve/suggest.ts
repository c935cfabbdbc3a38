/**
 * Search-as-you-type: MiniSearch over the site names and the titles of the best pages
 * (highest boost first, at most `titles` of them), built once when the service starts. Bounded
 * in memory by design: this is what MiniSearch is kept for (docs/decisions.md, "The first choices"), prefix and fuzzy matching.
 * Titles and what is typed are cut by the index's analyzer, so a prefix in any script (`résu`,
 * `東`, `서울`) finds what the search would.
 */
import MiniSearch from 'minisearch';
import { terms } from '../analysis/analyzer.js';
import type { CollectionView } from '../search/collection-view.js';

export interface Suggestion {
  text: string;
  kind: 'site' | 'title';
}

export class Suggester {
  private readonly index = new MiniSearch<{ id: number; text: string; kind: string }>({
    fields: ['text'],
    storeFields: ['text', 'kind'],
    tokenize: terms,
    processTerm: (t) => t,
  });

  /** `view`: the public's (suggestions are the same for every class, so they show what the public may see). */
  constructor(view: CollectionView, titles: number) {
    let id = 0;
    const seen = new Set<string>();
    for (const { text, kind } of view.suggestionSource(titles)) {
      const key = `${kind} ${text.toLowerCase()}`;
      if (!text || seen.has(key)) continue;
      seen.add(key);
      this.index.add({ id: id++, text, kind });
    }
  }

  suggest(prefix: string, limit = 10): Suggestion[] {
    if (!prefix.trim()) return [];
    return this.index
      .search(prefix, { prefix: true, fuzzy: 0.2 })
      .slice(0, limit)
      .map((r) => ({ text: r.text as string, kind: r.kind as 'site' | 'title' }));
  }
}
