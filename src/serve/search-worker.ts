/** A search worker of the service: its own Searcher over the crawl directory. */
import { parentPort, workerData } from 'node:worker_threads';
import { Searcher } from '../search/searcher.js';
import type { SearchOptions } from '../search/types.js';
import type { AccessSettings } from '../access/policy.js';

const data = workerData as { dir: string; access?: AccessSettings };
// The rules are read again when the service says so (it has seen them change), between queries.
const searcher = new Searcher(data.dir, undefined, data.access, { rulesAtReload: true });
// The public's view is built before the first query is taken (pool.ts waits for `ready`); where
// that fails, the first query says why.
try {
  searcher.refresh(true);
} catch {
  // Said by the first query.
}
parentPort!.postMessage({ ready: true });

type Message = { id: number; query: string; opts: SearchOptions; user: string | undefined } | { id: number; reload: true };

parentPort!.on('message', (m: Message) => {
  try {
    if ('reload' in m) {
      // Between two queries: the switch to the new sets cannot cut one in half.
      parentPort!.postMessage({ id: m.id, reload: searcher.refresh(true) });
      return;
    }
    parentPort!.postMessage({ id: m.id, result: searcher.view(m.user).search(m.query, m.opts) });
  } catch (err) {
    const e = err as { message: string; code?: unknown; exitCode?: unknown };
    parentPort!.postMessage({
      id: m.id,
      error: { message: e.message, code: typeof e.code === 'string' ? e.code : undefined, exitCode: typeof e.exitCode === 'number' ? e.exitCode : undefined },
    });
  }
});
