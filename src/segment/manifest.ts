/**
 * The import manifest: one archive per line, `<path or http(s) URL> [<collection>]`; blank
 * lines and `#` comments are skipped (as NutchWAX's manifests).
 */
export interface ManifestEntry {
  location: string;
  collection: string;
}

export function parseManifestLine(line: string): ManifestEntry | undefined {
  const t = line.trim();
  if (t === '' || t.startsWith('#')) return undefined;
  const [location, collection = ''] = t.split(/\s+/, 2);
  return { location, collection };
}
