/**
 * Configuration: `conf/nwax-default.json` holds every property with its default and a
 * one-line description; `conf/nwax-site.json` overrides it; `-D name=value` overrides both.
 * The conf directory is the package's own `conf/`, or `$NWAX_CONF_DIR` when set (a site keeps
 * its nwax-site.json outside the install).
 */
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NwaxError } from '../util/errors.js';

export type PropertyValue = string | number | boolean;

export interface PropertyDefinition {
  value: PropertyValue;
  description: string;
  example?: string;
}

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function defaultConfDir(): string {
  return process.env.NWAX_CONF_DIR ?? join(packageRoot, 'conf');
}

function readJson(path: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new NwaxError('NWAX_CONF', `${path}: not valid JSON (${(err as Error).message})`);
  }
}

export class Configuration {
  readonly definitions: Record<string, PropertyDefinition>;
  private readonly values = new Map<string, PropertyValue>();

  constructor(definitions: Record<string, PropertyDefinition>) {
    this.definitions = definitions;
    for (const [name, def] of Object.entries(definitions)) this.values.set(name, def.value);
  }

  /** Defaults, then the site file (both from `confDir`), then `-D` overrides. */
  static load(overrides: readonly string[] = [], confDir = defaultConfDir()): Configuration {
    const defaultsPath = join(confDir, 'nwax-default.json');
    const defaults = existsSync(defaultsPath)
      ? (readJson(defaultsPath) as Record<string, PropertyDefinition>)
      : (readJson(join(packageRoot, 'conf', 'nwax-default.json')) as Record<string, PropertyDefinition>);
    const conf = new Configuration(defaults);
    const sitePath = join(confDir, 'nwax-site.json');
    if (existsSync(sitePath)) {
      for (const [name, value] of Object.entries(readJson(sitePath))) {
        // A site file may hold plain values or {value: ...} objects like the defaults.
        const v = value !== null && typeof value === 'object' ? (value as PropertyDefinition).value : value;
        conf.set(name, v as PropertyValue, sitePath);
      }
    }
    for (const o of overrides) {
      const eq = o.indexOf('=');
      if (eq <= 0) throw new NwaxError('NWAX_CONF', `-D ${o}: expected name=value`);
      conf.set(o.slice(0, eq), o.slice(eq + 1), '-D');
    }
    return conf;
  }

  set(name: string, value: PropertyValue, origin = 'code'): void {
    const def = this.definitions[name];
    if (!def) throw new NwaxError('NWAX_CONF', `${origin}: unknown property ${name} (see conf/nwax-default.json)`);
    if (typeof def.value === 'number' && typeof value === 'string') {
      const n = Number(value);
      if (!Number.isFinite(n)) throw new NwaxError('NWAX_CONF', `${origin}: ${name} must be a number, got "${value}"`);
      value = n;
    } else if (typeof def.value === 'boolean' && typeof value === 'string') {
      if (value !== 'true' && value !== 'false') {
        throw new NwaxError('NWAX_CONF', `${origin}: ${name} must be true or false, got "${value}"`);
      }
      value = value === 'true';
    }
    this.values.set(name, value);
  }

  get(name: string): PropertyValue {
    if (!this.values.has(name)) throw new NwaxError('NWAX_CONF', `unknown property ${name}`);
    return this.values.get(name)!;
  }

  getString(name: string): string {
    return String(this.get(name));
  }

  getNumber(name: string): number {
    const v = this.get(name);
    const n = typeof v === 'number' ? v : Number(v);
    if (!Number.isFinite(n)) throw new NwaxError('NWAX_CONF', `${name} must be a number, got "${v}"`);
    return n;
  }

  /** A whole number from `min` to `max` (a gzip level, say); a clear error naming the property otherwise. */
  getInteger(name: string, min: number, max: number): number {
    const n = this.getNumber(name);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new NwaxError('NWAX_CONF', `${name} must be a whole number from ${min} to ${max}, got "${this.get(name)}"`);
    return n;
  }

  getBoolean(name: string): boolean {
    const v = this.get(name);
    return v === true || v === 'true';
  }

  /** A size such as `256M` in bytes; `min` where a smaller one means nothing (a block of 0 bytes). */
  getBytes(name: string, min = 0): number {
    const n = parseByteSize(this.getString(name), name);
    if (n < min) throw new NwaxError('NWAX_CONF', `${name} must be at least ${min} bytes, got "${this.get(name)}"`);
    return n;
  }
}

export function parseByteSize(text: string, what = 'size'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$/i.exec(text);
  if (!m) throw new NwaxError('NWAX_CONF', `${what}: "${text}" is not a size (e.g. 512K, 256M, 2G)`);
  const mult = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 }[m[2].toLowerCase() as '' | 'k' | 'm' | 'g' | 't'];
  return Math.floor(Number(m[1]) * mult);
}
