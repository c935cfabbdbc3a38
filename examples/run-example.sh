#!/usr/bin/env bash
# The main job on the bundled example data: an archivist's whole session on
# fixtures/example/dedup-example.warc.gz (one page captured on ten days of October 2007, five
# distinct versions; written by warcio.js, see scripts/make-fixtures.mjs): CDX and the
# duplicate list, import into a segment without the duplicates, updatedb, invertlinks, index,
# add-dates (every capture date back in, without touching the index), and searches.
set -euo pipefail
cd "$(dirname "$0")/.."
nwax() { node bin/run.js "$@"; }
out=${NWAX_EXAMPLE_OUT:-$(mktemp -d)}
archive=fixtures/example/dedup-example.warc.gz
crawl=$out/crawl

echo "== nwax cdx $archive"
nwax cdx -o "$out/example.cdx" "$archive"
cat "$out/example.cdx"

echo; echo "== nwax dedup-cdx: every capture of a URL+digest after the first (these are not imported)"
nwax dedup-cdx "$out/example.cdx" | tee "$out/all.dup"
nwax revisits "$out/example.cdx" >> "$out/all.dup"   # WARC revisit captures (none in this archive)

echo; echo "== nwax import -e all.dup: one document per version"
echo "$PWD/$archive october" > "$out/manifest"
nwax import -e "$out/all.dup" "$out/manifest" "$crawl/segments/20071011000000"
nwax readseg -list "$crawl"/segments/*

echo; echo "== updatedb, invertlinks, index, add-dates"
nwax updatedb "$crawl/crawldb" "$crawl"/segments/*
nwax invertlinks "$crawl/linkdb" "$crawl"/segments/*
nwax index "$crawl/indexes" "$crawl/crawldb" "$crawl/linkdb" "$crawl"/segments/*
# One index part per core (nwax.local.pipeline.reduces): each gets its parallel dates index,
# all in one run over the dates file.
nwax add-dates "$crawl/indexes" "$crawl/indexes" "$crawl/pindexes" "$out/all.dup"
for part in "$crawl"/indexes/part-*; do
  nwax dumpindex -c "$part" "$crawl/pindexes/$(basename "$part")/dates"
done

echo; echo "== nwax search 'url:http://example.org/index.html': the five versions, each with every date it was captured"
nwax search -dir "$crawl" 'url:http://example.org/index.html'

echo; echo "== nwax search 'welcome date:20071005': the version that was online on 5 October"
nwax search -dir "$crawl" 'welcome date:20071005'
echo; echo "files in $out"
