import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Configuration, parseByteSize } from '../src/conf/config.js';
import { ROOT, nwax, tempDir } from './helpers.js';

describe('configuration', () => {
  const defaults = JSON.parse(readFileSync(join(ROOT, 'conf', 'nwax-default.json'), 'utf8')) as Record<string, { value: unknown; description: string }>;

  it('documents every property with a default and a description', () => {
    for (const [name, def] of Object.entries(defaults)) {
      expect(def.value, name).not.toBeUndefined();
      expect(def.description.length, name).toBeGreaterThan(20);
    }
  });

  it('takes defaults, then the site file, then -D', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'conf'));
    writeFileSync(join(dir, 'conf', 'nwax-default.json'), JSON.stringify(defaults));
    writeFileSync(join(dir, 'conf', 'nwax-site.json'), JSON.stringify({ 'nwax.sort.memory': '1G', 'nwax.jobs': 2 }));
    const c = Configuration.load(['nwax.jobs=3'], join(dir, 'conf'));
    expect(c.getString('nwax.sort.memory')).toBe('1G');
    expect(c.getNumber('nwax.jobs')).toBe(3);
    expect(c.getString('nwax.cdx.format')).toBe('cdx11');
    expect(() => Configuration.load(['nwax.jobs=many'], join(dir, 'conf'))).toThrow(/nwax.jobs must be a number/);
    expect(() => Configuration.load(['novalue'], join(dir, 'conf'))).toThrow(/expected name=value/);
    const shown = await nwax(['conf', 'nwax.jobs'], { env: { NWAX_CONF_DIR: join(dir, 'conf') } });
    expect(shown.stdout).toContain('nwax.jobs = 2 (default 1)');
  });

  it('reads sizes', () => {
    expect(parseByteSize('256M')).toBe(256 << 20);
    expect(parseByteSize('1.5G')).toBe(1.5 * 1024 ** 3);
    expect(parseByteSize('512')).toBe(512);
    expect(() => parseByteSize('lots')).toThrow(/not a size/);
  });
});

describe('a bad value', () => {
  it('of nwax.local.pipeline.reduces is named, with nothing written', async () => {
    const dir = tempDir();
    const r = await nwax(['updatedb', '-D', 'nwax.local.pipeline.reduces=-1', join(dir, 'db'), join(dir, 'no-segment')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('nwax.local.pipeline.reduces must be 0 (one per thread) or a positive whole number, got -1');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, 'db'))).toBe(false);
  });

  it('of a gzip level is named, with nothing written (zlib would have thrown its own range error)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'manifest'), 'no-archive.warc.gz c\n');
    for (const [name, v] of [
      ['nwax.segment.text.gzip.level', '12'],
      ['nwax.recordfile.gzip.level', '2.5'],
    ]) {
      const r = await nwax(['import', '-D', `${name}=${v}`, join(dir, 'manifest'), join(dir, 'seg')]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${name} must be a whole number from 0 to 9, got "${v}"`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(join(dir, 'seg'))).toBe(false);
    }
    expect(Configuration.load(['nwax.segment.text.gzip.level=9']).getInteger('nwax.segment.text.gzip.level', 0, 9)).toBe(9);
  });
});

describe('docs/configuration.md', () => {
  it('lists every property with its default', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
    const defaults = JSON.parse(readFileSync(join(ROOT, 'conf', 'nwax-default.json'), 'utf8')) as Record<string, { value: unknown }>;
    for (const [name, def] of Object.entries(defaults)) expect(doc).toContain(`| \`${name}\` | \`${String(def.value)}\` |`);
  });
});
