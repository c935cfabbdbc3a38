/**
 * htmlparser2's Parser as an event source for HtmlExtractor: the reference the scanner
 * (html-scanner.ts) is checked against, document by document, by test/html-scanner.test.ts
 * and `npm run bench -- html`. Not used by import or the crawler.
 */
import { Parser } from 'htmlparser2';
import type { HtmlHandler } from './html-scanner.js';
import type { EventSource } from './html.js';

export function htmlparser2Source(h: HtmlHandler): EventSource {
  return new Parser(
    {
      onopentag: (name, attrs) => h.onOpen(name, attrs),
      onclosetag: (name) => h.onClose(name),
      ontext: (t) => h.onText(t, 0, t.length),
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
}
