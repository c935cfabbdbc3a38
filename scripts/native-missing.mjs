// Run by `npm install` when the native sort and merge (binding.gyp, native/) did not build: nwax
// works without them, on the JavaScript sort and merge, about twice as slow on large sorts.
process.stderr.write(
  'nwax: the native sort and merge did not build (node-gyp needs python3, make and a C compiler);\n' +
    'nwax: the JavaScript sort and merge will be used. `npm run install` tries again.\n',
);
