/**
 * The stderr of a task that failed on a YARN cluster, for nwax's own error message. Hadoop's
 * client says only that the streaming subprocess "failed with code 1"; what nwax's task said
 * (the file, the line, what was wrong) is in the container's stderr log on the node that ran
 * it. This reads it as the JobHistory web UI's "logs" link does: the JobHistoryServer's REST
 * API names the failed attempt's node and container
 * (/ws/v1/history/mapreduce/jobs/JOB/tasks/TASK/attempts), and the NodeManager serves the log
 * (/node/containerlogs/CONTAINER/USER/stderr; where logs are aggregated it redirects to the
 * log server, which serves the same page). Local mode (LocalJobRunner) needs none of this: its
 * tasks write to the client's own stderr.
 */
import { siteProperty } from './hadoop-install.js';

/** A failed attempt's log as read, or why it could not be. */
export interface TaskLog {
  attempt: string;
  node?: string;
  lines?: string[];
  unavailable?: string;
}

/** The job id and the failed attempts (in the order reported) in the client's output. */
export function failedAttempts(report: string): { job?: string; attempts: string[]; tracking?: string } {
  const job = /Running job: (job_\d+_\d+)/.exec(report)?.[1];
  const tracking = /The url to track the job: (\S+)/.exec(report)?.[1];
  const attempts = [...report.matchAll(/Task Id : (attempt_\d+_\d+_[mr]_\d+_\d+), Status : FAILED/g)].map((m) => m[1]);
  return { job, attempts, tracking };
}

/** Lines a JVM or Hadoop writes into every container's stderr, which say nothing of the task. */
const NOISE =
  /^(OpenJDK .*warning:|Java HotSpot.*warning:|It's highly recommended that you fix the library|log4j:WARN|SLF4J:|\d\d\/\d\d\/\d\d \d\d:\d\d:\d\d (INFO|WARN) )/;

function unescapeHtml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

async function getText(url: string, accept: string): Promise<string> {
  const res = await fetch(url, { headers: { accept }, redirect: 'follow', signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.text();
}

interface Attempt {
  id: string;
  nodeHttpAddress?: string;
  assignedContainerId?: string;
}

/** The history server's address (mapreduce.jobhistory.webapp.address; 0.0.0.0 is this host). */
function historyAddress(env: NodeJS.ProcessEnv): string {
  const addr = siteProperty('mapred-site.xml', ['mapreduce.jobhistory.webapp.address'], env) || '0.0.0.0:19888';
  return addr.replace(/^0\.0\.0\.0:/, 'localhost:');
}

/**
 * The first `max` lines of the failed attempt's stderr (JVM notices left out). The history
 * server learns of a failed job a few seconds after the client does: asked again for up to
 * `waitMs`.
 */
export async function readTaskLog(job: string, attempt: string, opts: { env?: NodeJS.ProcessEnv; max?: number; waitMs?: number } = {}): Promise<TaskLog> {
  const env = opts.env ?? process.env;
  const task = attempt.replace(/^attempt_/, 'task_').replace(/_\d+$/, '');
  const url = `http://${historyAddress(env)}/ws/v1/history/mapreduce/jobs/${job}/tasks/${task}/attempts`;
  const until = Date.now() + (opts.waitMs ?? 20_000);
  let found: Attempt | undefined;
  let why = '';
  for (;;) {
    try {
      const body = JSON.parse(await getText(url, 'application/json')) as { taskAttempts?: { taskAttempt?: Attempt[] } };
      found = body.taskAttempts?.taskAttempt?.find((a) => a.id === attempt);
      if (found) break;
      why = `the history server does not list ${attempt}`;
    } catch (err) {
      why = `the history server at ${historyAddress(env)} did not answer (${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message})`;
    }
    if (Date.now() >= until) return { attempt, unavailable: why };
    await new Promise((r) => setTimeout(r, 1000));
  }
  if (!found.nodeHttpAddress || !found.assignedContainerId) return { attempt, unavailable: 'the history server names no container for it' };
  const user = env.HADOOP_USER_NAME || env.USER || env.LOGNAME || 'root';
  const logUrl = `http://${found.nodeHttpAddress}/node/containerlogs/${found.assignedContainerId}/${user}/stderr/?start=0`;
  try {
    const page = await getText(logUrl, 'text/html');
    const pre = /<pre>([\s\S]*?)<\/pre>/.exec(page);
    if (!pre)
      return {
        attempt,
        node: found.nodeHttpAddress,
        unavailable: `${logUrl} shows no log (${page
          .replace(/<[^>]+>/g, ' ')
          .replace(/\s+/g, ' ')
          .slice(0, 200)})`,
      };
    const lines = unescapeHtml(pre[1])
      .split('\n')
      .filter((l) => l.trim() && !NOISE.test(l));
    return { attempt, node: found.nodeHttpAddress, lines: lines.slice(0, opts.max ?? 20) };
  } catch (err) {
    return { attempt, node: found.nodeHttpAddress, unavailable: `${logUrl}: ${(err as Error).message}` };
  }
}

/** The text added to a failed job's message: the last failed attempt's own words. */
export async function failedTaskReport(report: string, opts: { env?: NodeJS.ProcessEnv; waitMs?: number } = {}): Promise<string> {
  const { job, attempts, tracking } = failedAttempts(report);
  if (!job || job.startsWith('job_local') || attempts.length === 0) return '';
  const attempt = attempts[attempts.length - 1];
  const log = await readTaskLog(job, attempt, opts);
  if (log.lines?.length)
    return `\n${attempts.length} task attempt${attempts.length === 1 ? '' : 's'} failed; ${attempt}${log.node ? ` on ${log.node}` : ''} wrote:\n${log.lines.map((l) => `  ${l}`).join('\n')}`;
  if (log.lines) return `\n${attempt}${log.node ? ` on ${log.node}` : ''} failed and wrote nothing on stderr`;
  return `\n${attempt} failed; its log could not be read: ${log.unavailable}${tracking ? ` (the job: ${tracking})` : ''}`;
}
