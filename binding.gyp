{
  "variables": {"libdeflate%": "<!(node scripts/native-libdeflate.mjs)"},
  "targets": [
    {
      "target_name": "nwax_native",
      "sources": ["native/addon.c", "native/line-sort.c", "native/line-merge.c", "native/line-gather.c", "native/record-add.c", "native/cdx-keys.c", "native/long-sum.c", "native/html-extract.c", "native/html-binding.c", "native/utf8-decode.c", "native/eld-score.c", "native/json-string.c", "native/inlink-anchors.c", "native/fts-segment.c"],
      "cflags": ["-O3", "-std=c11", "-Wall", "-Wextra"],
      "xcode_settings": {"OTHER_CFLAGS": ["-O3", "-std=c11"]},
      "conditions": [["libdeflate==1", {"sources": ["native/gunzip-members.c"], "defines": ["NWAX_LIBDEFLATE"], "libraries": ["-ldeflate"]}]]
    },
    {
      "target_name": "nwax_rank",
      "sources": ["native/fts-rank.c"],
      "include_dirs": ["<!(node -p \"require('path').join(require('path').dirname(require.resolve('better-sqlite3/package.json')), 'deps', 'sqlite3')\")"],
      "cflags": ["-O3", "-std=c11", "-Wall", "-Wextra"],
      "xcode_settings": {"OTHER_CFLAGS": ["-O3", "-std=c11"]}
    }
  ]
}
