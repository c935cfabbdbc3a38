#!/usr/bin/env bash
# make-multilingual-corpus.sh: the multilingual benchmark archive. The same LibreOffice 7.4 help
# pages in eleven languages and scripts (Debian's libreoffice-help-XX packages: en-us de vi tr
# ru el hi ko ja zh-cn km), PAGES pages per language (the same pages in each), served from
# 127.0.0.1 and crawled by GNU wget into one WARC, as ../shared/corpus/make-bench-corpus.sh does.
#
# Usage: bench/make-multilingual-corpus.sh [OUTDIR]     (default /tmp/nwax-multilingual)
#   env NWAX_ML_PAGES  pages per language (default 300)
#   env NWAX_ML_PORT   port of the local server (default 18091)
#
# Output in OUTDIR: multilingual.warc.gz, pages.tsv (lang, URL, file), multilingual.done.
# The packages are fetched with apt-get download (no install, no root needed for that step)
# and unpacked inside OUTDIR; nothing enters the repository.
set -euo pipefail
OUT=${1:-/tmp/nwax-multilingual}
PAGES=${NWAX_ML_PAGES:-300}
PORT=${NWAX_ML_PORT:-18091}
LANGS="en-us de vi tr ru el hi ko ja zh-cn km"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
. "$(dirname "$0")/crawl-local.sh"
corpus_built "$OUT" multilingual && exit 0
# shellcheck disable=SC2046
unpack_debs "$OUT" $(for l in $LANGS; do echo "libreoffice-help-$l"; done)
HELP="$OUT/root/usr/share/libreoffice/help"

# The same pages in every language: the help's text/ pages present in all of them, sorted,
# PAGES of them evenly spaced (the help's own directory names: en-US, zh-CN).
dirs=""
for l in $LANGS; do
  case $l in en-us) d=en-US ;; zh-cn) d=zh-CN ;; *) d=$l ;; esac
  dirs="$dirs $d"
done
first=${dirs# }; first=${first%% *}
(cd "$HELP/$first" && find text -name '*.html' | LC_ALL=C sort) > "$OUT/all.txt"
for d in $dirs; do
  (cd "$HELP/$d" && find text -name '*.html' | LC_ALL=C sort) | LC_ALL=C comm -12 "$OUT/all.txt" - > "$OUT/common.txt"
  mv "$OUT/common.txt" "$OUT/all.txt"
done
total=$(wc -l < "$OUT/all.txt")
awk -v n="$PAGES" -v t="$total" 'BEGIN { step = t / n } { if (NR - 1 >= next_at && taken < n) { print; taken++; next_at += step } }' "$OUT/all.txt" > "$OUT/chosen.txt"

B="http://127.0.0.1:$PORT"
: > "$OUT/pages.tsv"; : > "$OUT/urls.txt"
for d in $dirs; do
  while read -r f; do
    printf '%s\t%s\t%s\n' "$d" "$B/$d/$f" "$HELP/$d/$f" >> "$OUT/pages.tsv"
    echo "$B/$d/$f" >> "$OUT/urls.txt"
  done < "$OUT/chosen.txt"
done

crawl_local "$HELP" "$PORT" "$OUT/urls.txt" "$OUT" multilingual || { echo "(set NWAX_ML_PORT for another port)" >&2; exit 1; }
echo "$(wc -l < "$OUT/pages.tsv") pages, $(stat -c %s "$OUT/multilingual.warc.gz") bytes, $(date -u +%FT%TZ)" > "$OUT/multilingual.done"
cat "$OUT/multilingual.done"
