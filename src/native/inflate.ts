/**
 * The `inflate` kernel's surface (native/gunzip-members.c): whole gzip members inflated by
 * libdeflate. Undefined where the addon is not built, was built without libdeflate (Debian's
 * libdeflate-dev), or `NWAX_NATIVE` leaves the kernel to JavaScript; util/gunzip-sync.ts then
 * inflates every member by node:zlib (the twin).
 */
import { nativeKernel } from './addon.js';

/** Why gunzipMembers stopped (native/gunzip-members.h). */
export const GUNZIP_ALL_TAKEN = 0;
export const GUNZIP_NO_ROOM = 1;
export const GUNZIP_NOT_INFLATED = 2;

/**
 * Whole gzip members of `input[start, end)` inflated into `out` from its start; returns why it
 * stopped, and sets `counts` to [bytes taken, bytes made, the last member's bytes taken, made].
 */
export const gunzipMembers = nativeKernel('inflate')?.gunzipMembers as
  | ((input: Buffer, start: number, end: number, out: Buffer, counts: Uint32Array) => number)
  | undefined;
