#!/usr/bin/env bash
# The main job on the bundled example data: the CDX session of an archivist, on
# fixtures/example/dedup-example.warc.gz (one page captured on ten days of October 2007, five
# distinct versions; written by warcio.js, see scripts/make-fixtures.mjs).
# Import, the index jobs and search join this session as their issues land.
set -euo pipefail
cd "$(dirname "$0")/.."
nwax() { node bin/run.js "$@"; }
out=${NWAX_EXAMPLE_OUT:-$(mktemp -d)}
archive=fixtures/example/dedup-example.warc.gz

echo "== nwax cdx $archive"
nwax cdx -o "$out/example.cdx" "$archive"
cat "$out/example.cdx"

echo; echo "== nwax cdx --format cdxj (first line)"
nwax cdx --format cdxj "$archive" 2>/dev/null | head -1

echo; echo "== nwax dedup-cdx: every capture of a URL+digest after the first (these are not imported)"
nwax dedup-cdx "$out/example.cdx" | tee "$out/example.dup"

echo; echo "== nwax revisits: WARC revisit captures (none in this archive)"
nwax revisits "$out/example.cdx" | tee -a "$out/example.dup"

echo; echo "== nwax sort-cdx: byte order, as LC_ALL=C sort"
nwax sort-cdx "$out/example.cdx" | head -4

versions=$(awk 'NR > 1 { print $6 }' "$out/example.cdx" | sort -u | wc -l)
echo; echo "== $(($(wc -l < "$out/example.cdx") - 1)) captures, $versions versions, $(wc -l < "$out/example.dup") duplicates; files in $out"
