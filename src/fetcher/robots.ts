/**
 * robots.txt, fetched once per host (scheme + authority) and cached for the fetch, parsed
 * with robots-parser. Rules are read for http.agent.name, then each of http.robots.agents.
 * Nutch's outcomes: a 2xx file is obeyed; a 4xx (no file) allows everything; a 5xx or a failed
 * fetch defers the whole host (its URLs are retried in a later round, none fetched now).
 */
import { createRequire } from 'node:module';

// robots-parser is CommonJS whose typings declare no callable default.
const robotsParser = createRequire(import.meta.url)('robots-parser') as (
  url: string,
  text: string,
) => {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
};
import { interceptors, request, type Dispatcher } from 'undici';

/** `fetchedNow`: robots.txt was requested for this check (a request to the host like any other). */
export type RobotsVerdict = ({ allowed: true; crawlDelay?: number } | { allowed: false; reason: 'robots_denied' | 'robots_deferred'; detail: string }) & {
  fetchedNow?: boolean;
};

interface HostRules {
  isAllowed(url: string): boolean;
  crawlDelay?: number;
  deferred?: string;
}

export interface RobotsOptions {
  agents: string[];
  userAgent: string;
  timeout: number;
  dispatcher: Dispatcher;
  /** Called for each robots.txt request (the fetcher counts and logs them). */
  onFetch?: (url: string, status: number | string) => void;
}

export class RobotsCache {
  private readonly hosts = new Map<string, Promise<HostRules>>();
  /** robots.txt is often redirected (http to https, a www host): followed, as Nutch does. */
  private readonly redirecting: Dispatcher;

  constructor(private readonly o: RobotsOptions) {
    this.redirecting = o.dispatcher.compose(interceptors.redirect({ maxRedirections: 5 }));
  }

  private async load(origin: string): Promise<HostRules> {
    const url = `${origin}/robots.txt`;
    let status: number;
    let text = '';
    try {
      const res = await request(url, {
        headers: { 'user-agent': this.o.userAgent, accept: 'text/plain,*/*;q=0.5' },
        headersTimeout: this.o.timeout,
        bodyTimeout: this.o.timeout,
        dispatcher: this.redirecting,
      });
      status = res.statusCode;
      if (status >= 200 && status < 300) {
        // A robots.txt past 500 KiB is cut there (as Google does).
        const chunks: Buffer[] = [];
        let n = 0;
        for await (const c of res.body as AsyncIterable<Buffer>) {
          chunks.push(c);
          n += c.length;
          if (n > 512 * 1024) break;
        }
        res.body.destroy();
        text = Buffer.concat(chunks).toString('utf8');
      } else await res.body.dump();
    } catch (err) {
      const code = (err as { code?: string }).code ?? (err as Error).message;
      this.o.onFetch?.(url, code);
      return { isAllowed: () => false, deferred: `robots.txt could not be fetched (${code})` };
    }
    this.o.onFetch?.(url, status);
    if (status >= 500) return { isAllowed: () => false, deferred: `robots.txt answered HTTP ${status}` };
    if (status < 200 || status >= 300) return { isAllowed: () => true };
    const robots = robotsParser(url, text);
    const agents = this.o.agents;
    return {
      isAllowed: (u) => agents.every((a) => robots.isAllowed(u, a) !== false),
      crawlDelay: agents.map((a) => robots.getCrawlDelay(a)).find((d) => d !== undefined),
    };
  }

  async check(url: string): Promise<RobotsVerdict> {
    const origin = new URL(url).origin;
    let p = this.hosts.get(origin);
    const fetchedNow = !p;
    if (!p) this.hosts.set(origin, (p = this.load(origin)));
    const rules = await p;
    if (rules.deferred) return { allowed: false, reason: 'robots_deferred', detail: rules.deferred, fetchedNow };
    if (!rules.isAllowed(url)) return { allowed: false, reason: 'robots_denied', detail: 'disallowed by robots.txt', fetchedNow };
    return { allowed: true, crawlDelay: rules.crawlDelay, fetchedNow };
  }
}
