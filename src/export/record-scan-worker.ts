/** Worker thread of an export's ScanPool: scans the records it is handed and hands their bytes back. */
import { parentPort } from 'node:worker_threads';
import { memorySource } from './record-bytes.js';
import { scanRecord, type ScanOptions } from './record-scan.js';

export interface ScanRequest extends ScanOptions {
  id: number;
  bytes: Uint8Array;
}

export type ScanReply = { id: number; bytes: Uint8Array } & ({ scan: Awaited<ReturnType<typeof scanRecord>> } | { error: string });

parentPort!.on('message', async (m: ScanRequest) => {
  const bytes = Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength);
  let reply: ScanReply;
  try {
    reply = { id: m.id, bytes: m.bytes, scan: await scanRecord(() => memorySource('record', bytes), m) };
  } catch (err) {
    reply = { id: m.id, bytes: m.bytes, error: (err as Error).message };
  }
  parentPort!.postMessage(reply, [m.bytes.buffer as ArrayBuffer]);
});
