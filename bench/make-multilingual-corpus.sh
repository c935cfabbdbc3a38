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
if [ -f "$OUT/multilingual.done" ] && [ -s "$OUT/multilingual.warc.gz" ]; then
  echo "corpus already built: $OUT/multilingual.warc.gz"; cat "$OUT/multilingual.done"; exit 0
fi
command -v wget >/dev/null || { echo "wget is needed (apt-get install wget)" >&2; exit 1; }

mkdir -p "$OUT/debs" "$OUT/root"
(cd "$OUT/debs" && for l in $LANGS; do ls libreoffice-help-"$l"_*.deb >/dev/null 2>&1 || apt-get download -qq "libreoffice-help-$l"; done)
for d in "$OUT"/debs/*.deb; do dpkg-deb -x "$d" "$OUT/root"; done
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

if (echo > "/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then echo "port $PORT on 127.0.0.1 is in use; set NWAX_ML_PORT" >&2; exit 1; fi
( cd "$HELP" && exec python3 -m http.server --bind 127.0.0.1 "$PORT" ) > "$OUT/server.log" 2>&1 &
SERVER=$!
SPOOL=$(mktemp -d /tmp/nwax-ml-spool.XXXXXX)
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$SPOOL"' EXIT
for _ in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
rm -f "$OUT/multilingual.warc.gz"
set +e
( cd "$SPOOL" && wget --input-file="$OUT/urls.txt" --delete-after --no-verbose --directory-prefix="$SPOOL/m" \
    --warc-file="$OUT/multilingual" ) > "$OUT/wget.log" 2>&1
rc=$?
set -e
if [ "$rc" -ne 0 ] && [ "$rc" -ne 8 ]; then echo "wget failed ($rc); see $OUT/wget.log" >&2; exit 1; fi
echo "$(wc -l < "$OUT/pages.tsv") pages, $(stat -c %s "$OUT/multilingual.warc.gz") bytes, $(date -u +%FT%TZ)" > "$OUT/multilingual.done"
cat "$OUT/multilingual.done"
