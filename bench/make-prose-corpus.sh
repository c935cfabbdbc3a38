#!/usr/bin/env bash
# make-prose-corpus.sh: a benchmark archive of prose, not API documentation: manuals in English
# as Debian ships them (the PostgreSQL 15 manual, the Debian Administrator's Handbook, the
# installation guide, debian-reference, debian-policy, developers-reference, the Debian FAQ,
# maint-guide: about 1,500 pages of sentences written by people), served from 127.0.0.1 and
# crawled by GNU wget into one WARC, as ../shared/corpus/make-bench-corpus.sh does. The
# relevance bench's second corpus.
#
# With NWAX_PROSE_LANG=ko, the Korean translations instead (the handbook's ko-KR and the
# installation guide's ko: about 210 pages of Korean prose, for the Korean analysis's figures).
#
# Usage: bench/make-prose-corpus.sh [OUTDIR]     (default /tmp/nwax-prose, or /tmp/nwax-prose-ko)
#   env NWAX_PROSE_PORT   port of the local server (default 18092)
#   env NWAX_PROSE_LANG   en (default) or ko
#
# Output in OUTDIR: prose.warc.gz, urls.txt, prose.done. The packages are fetched with
# apt-get download (no install) and unpacked inside OUTDIR; nothing enters the repository.
set -euo pipefail
LANGUAGE=${NWAX_PROSE_LANG:-en}
case $LANGUAGE in
  en) OUT=${1:-/tmp/nwax-prose}
      PACKAGES="postgresql-doc-15 installation-guide-amd64 debian-handbook debian-reference-common debian-reference-en debian-policy developers-reference debian-faq maint-guide" ;;
  ko) OUT=${1:-/tmp/nwax-prose-ko}
      PACKAGES="installation-guide-amd64 debian-handbook" ;;
  *) echo "NWAX_PROSE_LANG=$LANGUAGE: en or ko" >&2; exit 2 ;;
esac
PORT=${NWAX_PROSE_PORT:-18092}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
. "$(dirname "$0")/crawl-local.sh"
corpus_built "$OUT" prose && exit 0
# (Word splitting wanted: one package a word.)
# shellcheck disable=SC2086
unpack_debs "$OUT" $PACKAGES

# The pages of each manual in the language (in English: the handbook's en-US, the others'
# .en.html or untranslated pages), their paths under root/usr/share, sorted.
(
  cd "$OUT/root/usr/share"
  if [ "$LANGUAGE" = ko ]; then
    find doc/debian-handbook/html/ko-KR -type f -name '*.html'
    find doc/installation-guide-amd64/ko -type f -name '*.html'
    exit 0
  fi
  find doc/postgresql-doc-15/html -type f -name '*.html'
  find doc/installation-guide-amd64/en -type f -name '*.html'
  find doc/debian-handbook/html/en-US -type f -name '*.html'
  find debian-reference -type f -name '*.en.html'
  find doc/debian-policy -type f -name '*.html'
  find developers-reference -type f -name '*.html'
  find doc/debian/FAQ -type f -name '*.en.html'
  find doc/maint-guide/html -type f -name '*.en.html'
) | LC_ALL=C sort > "$OUT/files.txt"
B="http://127.0.0.1:$PORT"
sed "s|^|$B/|" "$OUT/files.txt" > "$OUT/urls.txt"

crawl_local "$OUT/root/usr/share" "$PORT" "$OUT/urls.txt" "$OUT" prose || { echo "(set NWAX_PROSE_PORT for another port)" >&2; exit 1; }
echo "$(wc -l < "$OUT/urls.txt") pages, $(stat -c %s "$OUT/prose.warc.gz") bytes, $(date -u +%FT%TZ)" > "$OUT/prose.done"
cat "$OUT/prose.done"
