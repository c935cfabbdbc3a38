// Asked by binding.gyp: `1` where a C compiler here builds and links against libdeflate
// (Debian's libdeflate-dev), else `0`. With it the addon inflates the jobs' gzip members by
// libdeflate (native/gunzip-members.c); without it node:zlib does, as before, and install
// says how to get it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'nwax-libdeflate-'));
try {
  const src = join(dir, 'probe.c');
  writeFileSync(src, '#include <libdeflate.h>\nint main(void) { return libdeflate_alloc_decompressor() == 0; }\n');
  const cc = process.env.CC || 'cc';
  const r = spawnSync(cc, [src, '-ldeflate', '-o', join(dir, 'probe')], { stdio: 'ignore' });
  const found = r.status === 0;
  if (!found)
    process.stderr.write(
      'nwax: libdeflate not found (apt-get install libdeflate-dev, then `npm run install`): gzip is inflated by node:zlib, about 4x slower\n',
    );
  process.stdout.write(found ? '1' : '0');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
