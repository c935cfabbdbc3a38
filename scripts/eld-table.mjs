// Writes the installed eld's database as the binary table the language detector reads into
// the addon (dist/analysis/eld-table.bin; src/analysis/eld-scorer.ts says why). Run by
// `npm run build`; without it, or for another eld, the detector reads eld's own files.
import { ELD_TABLE_FILE, writeEldTable } from '../dist/analysis/eld-scorer.js';
import { eldPackageDir } from '../dist/analysis/language.js';

try {
  if (!writeEldTable(eldPackageDir(), ELD_TABLE_FILE))
    console.warn("nwax: eld's database is not of the shape nwax knows; the detector will read eld's own files");
} catch (err) {
  // The build stands without the table: the detector reads eld's files, or says eld is missing.
  console.warn(`nwax: no table of eld's database written (${err.message})`);
}
