/**
 * The native handle of a node:zlib stream, driven synchronously as zlib.js's own
 * processChunkSync drives it, so that one engine serves many members (reset between them)
 * instead of zlib's *Sync functions building one per call. Internal API: feature-detected,
 * and each user keeps a fallback to the public functions.
 */
import zlib from 'node:zlib';

export interface ZlibHandle {
  writeSync(flush: number, input: Buffer, inOff: number, inLen: number, out: Buffer, outOff: number, outLen: number): void;
  reset(): void;
  close(): void;
  onerror: (message: string, errno: number) => void;
}

export const Z_FINISH = zlib.constants.Z_FINISH;
export const Z_NO_FLUSH = zlib.constants.Z_NO_FLUSH;

// zlib.codes maps names to numbers (and back); it is not in @types/node.
const CODES = Object.fromEntries(
  Object.entries((zlib as unknown as { codes: Record<string, number> }).codes)
    .filter(([, v]) => typeof v === 'number')
    .map(([k, v]) => [v, k]),
);

/** The name of a zlib error number a handle reports (`Z_DATA_ERROR`, `Z_BUF_ERROR`, ...), as node:zlib's errors carry it in `code`. */
export function zlibCode(errno: number): string {
  return CODES[errno] ?? 'Z_ERRNO';
}

/**
 * The handle of a zlib stream object and its write state (after writeSync: bytes of output
 * room left, bytes of input left), or undefined where node:zlib is not built that way.
 */
export function zlibHandle(stream: unknown): { handle: ZlibHandle; state: Uint32Array } | undefined {
  const s = stream as { _handle?: ZlibHandle; _writeState?: Uint32Array };
  const handle = s._handle;
  if (!handle || typeof handle.writeSync !== 'function' || typeof handle.reset !== 'function' || !s._writeState) return undefined;
  return { handle, state: s._writeState };
}
