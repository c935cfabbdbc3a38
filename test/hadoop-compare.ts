/**
 * What the Hadoop tests compare between engines: a dataset's parts as text, the first line
 * where two parts differ, and the data counters of a job's one-line summary.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** The records of a dataset, part by part, as text (the parts' names and layout included). */
export function dataset(d: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(d, { recursive: true, encoding: 'utf8' })
      .filter((f) => /(^|\/)part-\d{5}\.gz$/.test(f))
      .sort()
      .map((f) => [f, gunzipSync(readFileSync(join(d, f))).toString()]),
  );
}

/** '' when two parts' texts are equal, else their first differing line, around the first differing character. */
export function firstDifference(a: string, b: string, names = ['local', 'hadoop']): string {
  const [la, lb] = [a.split('\n'), b.split('\n')];
  const at = la.findIndex((l, i) => l !== lb[i]);
  if (at < 0 && la.length === lb.length) return '';
  const [x, y] = [la[at] ?? '', lb[at] ?? ''];
  let c = 0;
  while (c < x.length && x[c] === y[c]) c++;
  const around = (t: string) => `${t.slice(0, 120)} ... [${c}] ${JSON.stringify(t.slice(Math.max(0, c - 80), c + 80))} (${t.length} chars)`;
  return `line ${at + 1}:\n  ${names[0]}  ${around(x)}\n  ${names[1]} ${around(y)}`;
}

/**
 * The counters of a job's one-line summary, without the local runner's own (its spills and
 * runs) and, with `dataOnly`, without those that follow how the map tasks were planned, which
 * differ between engines by design: a combiner's groups (Hadoop cuts a text input into
 * mapreduce.job.maps splits where the local runner makes one) and an import's map input
 * records and splits (the local runner cuts a large archive into several map tasks; Hadoop
 * runs one per manifest line).
 */
export function counters(stderr: string, job: string, command = job, dataOnly = false): Record<string, number> {
  const line = stderr.split('\n').find((l) => l.startsWith(`nwax ${command}: ${job}: `)) ?? '';
  const counts = line
    .slice(line.indexOf('; ') + 2)
    .split(', ')
    .map((c) => /^(.*) (\d+)$/.exec(c))
    .filter((m) => m !== null);
  const planned = (k: string) =>
    /^(shuffled runs|runs merged)/.test(k) ||
    (dataOnly && (k.startsWith('combine') || (job === 'import' && (k === 'map input records' || k === 'archive splits past the first'))));
  return Object.fromEntries(counts.filter((m) => !planned(m![1])).map((m) => [m![1], Number(m![2])]));
}
