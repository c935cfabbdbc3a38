/**
 * The service's one stylesheet (static/nwax.css), read once: every page links it, and it is
 * served at STYLESHEET_PATH with a day's caching, so a page costs its HTML alone.
 */
import { readFileSync } from 'node:fs';

export const STYLESHEET_PATH = '/nwax.css';

export const STYLESHEET = readFileSync(new URL('../../static/nwax.css', import.meta.url), 'utf8');
