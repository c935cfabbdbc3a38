/**
 * An archive on a cluster's file system (`hdfs://namenode/...`, `s3a://`, `viewfs://`, any
 * URL scheme but http(s) and file), read through `hadoop fs -cat URL`: the cluster's own
 * client, with its configuration, credentials and short-circuit reads, streamed. A byte range
 * (import --cdx) reads the stream up to the offset and discards it: `hadoop fs` has no
 * positional read, so such an import reads each archive once, start to end, for the records
 * it wants (WebHDFS's OPEN with offset is the alternative, not built).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { basename } from 'node:path';
import type { ByteRange, ByteSource } from './locations.js';
import { InputError } from '../util/errors.js';
import { sliceStream } from './byte-slice.js';

/** `hadoop`: the command (property nwax.hadoop.command). */
export function openClusterSource(url: string, hadoop = 'hadoop', range?: ByteRange): ByteSource {
  let child: ChildProcessByStdio<null, Readable, Readable> | undefined;
  const name = range ? `${url} at ${range.offset}` : url;
  const chunks = async function* (): AsyncGenerator<Buffer> {
    const cmd = hadoop;
    const proc = spawn(cmd, ['fs', '-cat', url], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let stderr = '';
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (d: string) => (stderr = (stderr + d).slice(-4096)));
    const exited = new Promise<number | null>((resolve, reject) => {
      proc.once('error', (err) =>
        reject(
          new InputError(
            `${url}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? `${cmd} is not on the PATH (it reads archives on the cluster's file system)` : err.message}`,
          ),
        ),
      );
      proc.once('close', (code) => resolve(code));
    });
    exited.catch(() => {});
    const slice = sliceStream(proc.stdout as AsyncIterable<Buffer>, range);
    try {
      yield* slice.chunks;
      if (slice.full()) return;
      const code = await exited;
      if (code !== 0) {
        const why =
          stderr
            .split('\n')
            .map((l) => l.trim())
            .filter(Boolean)
            .pop() ?? `exit status ${code}`;
        throw new InputError(`${url}: ${cmd} fs -cat failed: ${why.replace(/^cat: /, '')}`);
      }
      if (slice.short()) throw new InputError(`${url}: offset ${range!.offset} is past the end of the file`);
    } finally {
      if (proc.exitCode === null) proc.kill();
    }
  };
  return {
    name,
    fileName: basename(url),
    size: range?.length,
    chunks: () => chunks(),
    close() {
      if (child && child.exitCode === null) child.kill();
    },
  };
}
