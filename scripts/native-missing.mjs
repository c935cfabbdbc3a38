// Run by `npm install` when the native addon (binding.gyp, native/) did not build: nwax works
// without it, on the JavaScript sort, merge and HTML scanner, about twice as slow on large sorts
// and on import.
process.stderr.write(
  'nwax: the native sort, merge and HTML extractor did not build (node-gyp needs python3, make and a C compiler);\n' +
    'nwax: their JavaScript twins will be used. `npm run install` tries again.\n',
);
