/** One entry of a ZIP, extracted by yauzl's own streaming reader (not nwax's by-offset one). */
import yauzl from 'yauzl';

export function zipEntry(zipPath: string, name: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    yauzl.open(zipPath, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      zip.on('entry', (e: yauzl.Entry) => {
        if (e.fileName !== name) return zip.readEntry();
        zip.openReadStream(e, (err2, stream) => {
          if (err2) return reject(err2);
          const parts: Buffer[] = [];
          stream.on('data', (c: Buffer) => parts.push(c));
          stream.on('end', () => {
            zip.close();
            resolve(Buffer.concat(parts));
          });
        });
      });
      zip.on('end', () => reject(new Error(`${name}: not in ${zipPath}`)));
      zip.readEntry();
    });
  });
}
