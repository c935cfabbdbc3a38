/**
 * The times access rules compare captures with, as 14-digit timestamps (string order is time
 * order): a rule's `before`/`after` padded as pywb pads it (warcio's timestamp_to_datetime: a
 * missing part is its largest value, so `20140126` is that day's last second), and the cutoffs
 * of `newer`/`older` intervals and of the embargo (now less years, months, weeks and days, as
 * dateutil's relativedelta subtracts them: the day kept within the month).
 */
import type { Interval } from './aclj.js';

const PAD_UP = '29991231235959';
const PAD_DOWN = '10000101000000';

/** A rule's timestamp padded to 14 digits with the latest value of each missing part. */
export function padUp(ts: string): string {
  return ts + PAD_UP.slice(ts.length);
}

/** A capture's timestamp padded to 14 digits with the earliest value of each missing part. */
export function padDown(ts: string): string {
  return ts.length >= 14 ? ts.slice(0, 14) : ts + PAD_DOWN.slice(ts.length);
}

/** `d` as a 14-digit UTC timestamp. */
export function timestampOf(d: Date): string {
  return d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** `now` less the interval, as a timestamp. */
export function cutoff(iv: Interval, now: Date): string {
  const d = new Date(now.getTime());
  const months = (iv.years ?? 0) * 12 + (iv.months ?? 0);
  if (months) {
    const day = d.getUTCDate();
    d.setUTCDate(1);
    d.setUTCMonth(d.getUTCMonth() - months);
    const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
    d.setUTCDate(Math.min(day, last));
  }
  d.setUTCDate(d.getUTCDate() - (iv.weeks ?? 0) * 7 - (iv.days ?? 0));
  return timestampOf(d);
}

/**
 * An ISO 8601 duration of years, months, weeks and days (`P6M`, `P1Y6M`, `P2W`, `P366D`) as an
 * interval; undefined for an empty string. Throws on anything else.
 */
export function parseDuration(text: string): Interval | undefined {
  const t = text.trim();
  if (!t) return undefined;
  const m = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?$/i.exec(t);
  if (!m || t.length === 1) throw new Error(`${JSON.stringify(text)} is not a duration of years, months, weeks and days such as P6M, P1Y6M or P180D`);
  const iv: Interval = {};
  if (m[1]) iv.years = Number(m[1]);
  if (m[2]) iv.months = Number(m[2]);
  if (m[3]) iv.weeks = Number(m[3]);
  if (m[4]) iv.days = Number(m[4]);
  return iv;
}

/**
 * pywb's embargo, one of its four kinds: captures newer (or older) than now less an interval,
 * or after (or before) a timestamp padded as a rule's is.
 */
export type Embargo = { newer: Interval } | { older: Interval } | { after: string } | { before: string };

/**
 * `nwax.access.embargo`: `P6M` (captures newer than six months, the commonest), or
 * `newer:P6M`, `older:P1Y6M`, `after:2014012700`, `before:20140127` as pywb's `embargo`
 * settings; undefined for an empty string. Throws on anything else.
 */
export function parseEmbargo(text: string): Embargo | undefined {
  const t = text.trim();
  if (!t) return undefined;
  const m = /^(newer|older|after|before):(.*)$/i.exec(t);
  const kind = (m?.[1].toLowerCase() ?? 'newer') as 'newer' | 'older' | 'after' | 'before';
  const value = m ? m[2].trim() : t;
  if (kind === 'after' || kind === 'before') {
    if (!/^\d{4,14}$/.test(value)) throw new Error(`${kind}: ${JSON.stringify(value)} is not a timestamp of 4 to 14 digits`);
    return kind === 'after' ? { after: value } : { before: value };
  }
  const iv = parseDuration(value);
  if (!iv) throw new Error(`${kind}: a duration is missing`);
  return kind === 'newer' ? { newer: iv } : { older: iv };
}
