// Run by `npm install` when the native addon (binding.gyp, native/) did not build: nwax works
// without it, on the JavaScript sort, merge, HTML scanner and BM25 (js-bm25.ts), about twice as
// slow on large sorts and on import.
process.stderr.write(
  'nwax: the native sort, merge, HTML extractor and ranking extension did not build (node-gyp needs python3, make and a C compiler);\n' +
    'nwax: their JavaScript twins will be used. `npm run install` tries again.\n',
);
