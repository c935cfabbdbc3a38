/**
 * Korean particles (josa). Korean joins a particle to the noun it follows, without a space:
 * 서식을 (the format, as object), 서식이 (as subject), 서식에서 (in the format). The index cuts
 * Hangul into bigrams (analyzer.ts), so a noun typed bare (서식) is found inside every form of
 * it, and a word typed as a page writes it (서식을) is found as written; but a word typed with
 * another particle than the page joined to it (서식이 where the page has 서식을) was found
 * nowhere (1 hit in 150 such queries on Debian's Korean manuals; `npm run bench -- korean`).
 * The query searches such a word as written or as its noun (query.ts), so a page holding the
 * form typed still comes first. A list of particles, not a dictionary: a noun that merely ends
 * like one (고양이, cat: 고양 + 이) also finds pages holding 고양, after those holding 고양이.
 */

/** Particles as they close a word, longest first (에서는 before 는). */
const PARTICLES = [
  '에서는',
  '으로는',
  '에게서',
  '에서',
  '에게',
  '으로',
  '까지',
  '부터',
  '보다',
  '처럼',
  '에는',
  '로는',
  '과',
  '와',
  '은',
  '는',
  '이',
  '가',
  '을',
  '를',
  '의',
  '에',
  '로',
  '도',
  '만',
];

const HANGUL_WORD = /^[\uac00-\ud7a3]+$/;

/** The noun of a Hangul word that ends in a particle, where two syllables or more remain; else undefined. */
export function particleStem(word: string): string | undefined {
  const w = word.normalize('NFC');
  if (!HANGUL_WORD.test(w)) return undefined;
  const particle = PARTICLES.find((p) => w.endsWith(p) && w.length - p.length >= 2);
  return particle ? w.slice(0, -particle.length) : undefined;
}
