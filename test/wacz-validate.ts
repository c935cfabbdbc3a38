/**
 * py-wacz's `wacz validate` rules for a WACZ 1.1.1 package (wacz/validate.py), read with yauzl,
 * not with nwax's own reader: the required contents (datapackage.json, a WARC under archive/,
 * an index under indexes/, pages/pages.jsonl); datapackage.json a data package
 * (frictionless: a profile, resources each with a name of its pattern and a path); every other
 * file listed there by its folder and name, with its SHA-256; datapackage-digest.json's hash of
 * datapackage.json. The problems found, none for a valid package.
 */
import { createHash } from 'node:crypto';
import yauzl from 'yauzl';

/** Every file of a zip (a WACZ package), by name, read with yauzl. */
export function entries(path: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    const out = new Map<string, Buffer>();
    yauzl.open(path, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      zip.on('entry', (e: yauzl.Entry) => {
        if (e.fileName.endsWith('/')) return zip.readEntry();
        zip.openReadStream(e, (err2, stream) => {
          if (err2) return reject(err2);
          const parts: Buffer[] = [];
          stream.on('data', (c: Buffer) => parts.push(c));
          stream.on('end', () => {
            out.set(e.fileName, Buffer.concat(parts));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.readEntry();
    });
  });
}

export async function waczProblems(path: string): Promise<string[]> {
  const files = await entries(path);
  const problems: string[] = [];
  const names = [...files.keys()];
  if (!files.has('datapackage.json')) return ['datapackage.json is missing'];
  if (!names.some((n) => /^archive\/[^/]+\.warc(\.gz)?$/.test(n))) problems.push('no archive/*.warc or archive/*.warc.gz');
  if (!names.some((n) => /^indexes\/index\.(cdx|cdx\.gz|idx)$/.test(n))) problems.push('no indexes/index.cdx, index.cdx.gz or index.idx');
  if (!files.has('pages/pages.jsonl')) problems.push('no pages/pages.jsonl');
  const dp = JSON.parse(files.get('datapackage.json')!.toString('utf8')) as {
    profile?: string;
    wacz_version?: string;
    resources?: { name?: string; path?: string; hash?: string; bytes?: number }[];
  };
  if (dp.wacz_version !== '1.1.1') problems.push(`wacz_version ${dp.wacz_version}, not 1.1.1`);
  if (dp.profile !== 'data-package') problems.push(`profile ${dp.profile}, not data-package`);
  const resources = dp.resources ?? [];
  if (resources.length === 0) problems.push('no resources');
  for (const r of resources) {
    // Frictionless's data-resource name pattern.
    if (!r.name || !/^([-a-z0-9._/])+$/.test(r.name)) problems.push(`resource name ${JSON.stringify(r.name)} is not a data resource name`);
    if (!r.path) problems.push(`resource ${r.name} has no path`);
  }
  const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
  for (const [name, bytes] of files) {
    if (name === 'datapackage.json' || name === 'datapackage-digest.json') continue;
    // py-wacz matches a file by its last two path parts.
    const key = name.split('/').slice(-2).join('/');
    const r = resources.find((x) => x.path === key);
    if (!r) problems.push(`${name} is not listed in datapackage.json`);
    else if (r.hash !== sha(bytes)) problems.push(`${name}: hash ${sha(bytes)}, datapackage.json says ${r.hash}`);
    else if (r.bytes !== undefined && r.bytes !== bytes.length) problems.push(`${name}: ${bytes.length} bytes, datapackage.json says ${r.bytes}`);
  }
  const digest = files.get('datapackage-digest.json');
  if (digest) {
    const said = (JSON.parse(digest.toString('utf8')) as { hash?: string }).hash;
    if (said !== sha(files.get('datapackage.json')!)) problems.push('datapackage.json hash mismatch to datapackage-digest.json');
  }
  return problems;
}
