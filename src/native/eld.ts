/**
 * The `eld` kernel's surface (native/eld-score.c): eld's n-gram table copied into the addon
 * once, and a text's language scores counted there. Undefined where the addon is not built or
 * `NWAX_NATIVE` leaves the kernel to JavaScript; src/analysis/eld-scorer.ts then counts them
 * itself (the twin), to the same scores.
 */
import { nativeKernel } from './addon.js';

const kernel = nativeKernel('eld');

/** The table's handle, made from its n-grams (as bytes of eld's dictionary), their weights and offsets. */
export const eldTable = kernel?.eldTable as
  | ((keys: Uint8Array, keyAt: Int32Array, weights: Int32Array, wAt: Int32Array, dict: Uint8Array, languages: number) => unknown)
  | undefined;

/** `text`'s scores, one per language, summed into `scores`; returns the distinct n-grams. */
export const eldScore = kernel?.eldScore as ((table: unknown, text: string, scores: Float64Array) => number) | undefined;
