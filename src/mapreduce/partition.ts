/** Which reduce a key goes to: Hadoop's HashPartitioner, over a key as a string or as bytes. */

/**
 * Hadoop's HashPartitioner over a Text key, so a key lands in the same partition locally and on
 * a cluster: Text.hashCode() is WritableComparator.hashBytes (h = 1; h = 31*h + signed byte
 * over the UTF-8 bytes), then (h & Integer.MAX_VALUE) % numReduces.
 */
export function hashPartition(key: string, numReduces: number): number {
  let h = 1;
  // ASCII keys (nearly all) are their own UTF-8 bytes: no Buffer per key.
  let i = 0;
  for (; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c > 127) break;
    h = (Math.imul(31, h) + c) | 0;
  }
  if (i < key.length) {
    const bytes = Buffer.from(key.slice(i), 'utf8');
    for (let j = 0; j < bytes.length; j++) h = (Math.imul(31, h) + ((bytes[j] << 24) >> 24)) | 0;
  }
  return (h & 0x7fffffff) % numReduces;
}

/** hashPartition of a key given as its UTF-8 bytes `key[from, to)`. */
export function hashPartitionBytes(key: Uint8Array, from: number, to: number, numReduces: number): number {
  let h = 1;
  for (let i = from; i < to; i++) h = (Math.imul(31, h) + ((key[i] << 24) >> 24)) | 0;
  return (h & 0x7fffffff) % numReduces;
}
