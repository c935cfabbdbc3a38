# crawl-local.sh: sourced by the corpus scripts (make-multilingual-corpus.sh,
# make-prose-corpus.sh).

# corpus_built OUT NAME: says so and succeeds where OUT/NAME.warc.gz was made (OUT/NAME.done).
corpus_built() {
  local out=$1 name=$2
  [ -f "$out/$name.done" ] && [ -s "$out/$name.warc.gz" ] || return 1
  echo "corpus already built: $out/$name.warc.gz"
  cat "$out/$name.done"
}

# unpack_debs OUT PACKAGE...: Debian's packages fetched into OUT/debs (apt-get download: no
# install) unless there, and unpacked into OUT/root; wget checked for, as crawl_local needs it.
unpack_debs() {
  local out=$1
  shift
  command -v wget >/dev/null || { echo "wget is needed (apt-get install wget)" >&2; return 1; }
  mkdir -p "$out/debs" "$out/root"
  (cd "$out/debs" && for p in "$@"; do ls "${p}"_*.deb >/dev/null 2>&1 || apt-get download -qq "$p"; done)
  for d in "$out"/debs/*.deb; do dpkg-deb -x "$d" "$out/root"; done
}

# crawl_local ROOT PORT URLS OUT NAME: serves folder ROOT on
# 127.0.0.1:PORT (python3 -m http.server), crawls the URLs listed in file URLS with GNU wget into
# OUT/NAME.warc.gz (its log in OUT/wget.log), and stops the server. A port in use, or wget
# failing other than on a missing page (its exit 8), is an error.
crawl_local() {
  local root=$1 port=$2 urls=$3 out=$4 name=$5
  if (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "port $port on 127.0.0.1 is in use" >&2; return 1; fi
  ( cd "$root" && exec python3 -m http.server --bind 127.0.0.1 "$port" ) > "$out/server.log" 2>&1 &
  local server=$!
  local spool
  spool=$(mktemp -d "/tmp/nwax-$name-spool.XXXXXX")
  for _ in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  rm -f "$out/$name.warc.gz"
  local rc=0
  ( cd "$spool" && wget --input-file="$urls" --delete-after --no-verbose --directory-prefix="$spool/m" \
      --warc-file="$out/$name" ) > "$out/wget.log" 2>&1 || rc=$?
  kill "$server" 2>/dev/null || true
  rm -rf "$spool"
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 8 ]; then echo "wget failed ($rc); see $out/wget.log" >&2; return 1; fi
}
