/**
 * The phrases of an FTS5 MATCH text, in the order FTS5 numbers them (the order they are
 * written), each with the columns it is limited to: what the collection's statistics are
 * gathered for (a phrase's document frequency over every index set) and what nwax_bm25's IDF
 * arguments follow. Reads the subset of FTS5's query syntax that query.ts writes: quoted
 * phrases (`"a b"`, a trailing `*` for a prefix), AND, OR, NOT, parentheses, and column
 * filters (`title : ...`, `{title anchors} : ...`) on a phrase or a parenthesized group. A text
 * it cannot read is nwax's own fault (query.ts writes them): a plain Error, an internal error.
 */

export interface FtsPhrase {
  /** The phrase alone as a MATCH text, its column filter included: counted to give its frequency. */
  text: string;
}

type Token = { kind: 'phrase'; text: string } | { kind: 'cols'; cols: string[] } | { kind: 'open' } | { kind: 'close' } | { kind: 'op' };

function tokens(match: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const bad = (what: string) => new Error(`FTS5 query ${JSON.stringify(match)}: ${what} at ${i}`);
  while (i < match.length) {
    const c = match[i];
    if (c === ' ') i++;
    else if (c === '(' || c === ')') {
      out.push({ kind: c === '(' ? 'open' : 'close' });
      i++;
    } else if (c === '"') {
      // A quoted phrase; "" inside is a quote.
      let j = i + 1;
      for (;;) {
        const q = match.indexOf('"', j);
        if (q < 0) throw bad('unterminated phrase');
        if (match[q + 1] === '"') j = q + 2;
        else {
          j = q + 1;
          break;
        }
      }
      let text = match.slice(i, j);
      // A prefix phrase: `"a b" *`.
      const star = /^ *\*/.exec(match.slice(j));
      if (star) {
        text += ' *';
        j += star[0].length;
      }
      out.push({ kind: 'phrase', text });
      i = j;
    } else if (c === '{') {
      const end = match.indexOf('}', i);
      if (end < 0) throw bad('unterminated column set');
      const colon = /^ *:/.exec(match.slice(end + 1));
      if (!colon) throw bad('a column set without a colon');
      out.push({
        kind: 'cols',
        cols: match
          .slice(i + 1, end)
          .split(' ')
          .filter(Boolean),
      });
      i = end + 1 + colon[0].length;
    } else {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(match.slice(i));
      if (!m) throw bad(`unexpected ${JSON.stringify(c)}`);
      i += m[0].length;
      if (m[0] === 'AND' || m[0] === 'OR' || m[0] === 'NOT') {
        out.push({ kind: 'op' });
        continue;
      }
      const colon = /^ *:/.exec(match.slice(i));
      if (!colon) throw bad(`a bare word ${m[0]}`);
      out.push({ kind: 'cols', cols: [m[0]] });
      i += colon[0].length;
    }
  }
  return out;
}

/** The columns both filters allow (undefined: every column). */
function within(outer: string[] | undefined, inner: string[]): string[] {
  return outer ? inner.filter((c) => outer.includes(c)) : inner;
}

export function ftsPhrases(match: string): FtsPhrase[] {
  const toks = tokens(match);
  const out: FtsPhrase[] = [];
  let at = 0;
  // A group's phrases under the column filter in force; returns at its closing parenthesis.
  const group = (cols: string[] | undefined): void => {
    while (at < toks.length) {
      const t = toks[at];
      if (t.kind === 'close') return;
      at++;
      if (t.kind === 'op') continue;
      if (t.kind === 'open') {
        group(cols);
        at++;
        continue;
      }
      if (t.kind === 'phrase') {
        out.push({ text: cols ? `{${cols.join(' ')}} : ${t.text}` : t.text });
        continue;
      }
      // A column filter applies to what follows: one phrase or one group.
      const inner = within(cols, t.cols);
      const next = toks[at++];
      if (next?.kind === 'phrase') out.push({ text: `{${inner.join(' ')}} : ${next.text}` });
      else if (next?.kind === 'open') {
        group(inner);
        at++;
      } else throw new Error(`FTS5 query ${JSON.stringify(match)}: a column filter on nothing`);
    }
  };
  group(undefined);
  return out;
}
