/**
 * What this machine's Hadoop installation says, for the commands nwax builds for it: where the
 * streaming jar is (a distribution names it with its version: hadoop-streaming-2.6.0.jar) and
 * the cluster's default file system (fs.defaultFS in core-site.xml), so that a path of the
 * cluster given without a scheme is shipped with -files from the cluster, not looked for on
 * this machine (Hadoop's generic options take a path without a scheme as a local one).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** $HADOOP_HOME (or $HADOOP_PREFIX), if set. */
function hadoopHome(env: NodeJS.ProcessEnv): string | undefined {
  return env.HADOOP_HOME || env.HADOOP_PREFIX || undefined;
}

/** The streaming jar: $HADOOP_STREAMING_JAR, else the one under $HADOOP_HOME, versioned or not; undefined when neither says. */
export function streamingJar(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.HADOOP_STREAMING_JAR) return env.HADOOP_STREAMING_JAR;
  const home = hadoopHome(env);
  if (!home) return undefined;
  const lib = join(home, 'share', 'hadoop', 'tools', 'lib');
  let names: string[];
  try {
    names = readdirSync(lib);
  } catch {
    return undefined;
  }
  const jar = names.filter((n) => /^hadoop-streaming(-[\d.]+.*)?\.jar$/.test(n) && !/-(sources|tests?|javadoc)\.jar$/.test(n)).sort()[0];
  return jar ? join(lib, jar) : undefined;
}

/**
 * A property of the cluster's configuration: the first of `names` set in `file` (core-site.xml,
 * mapred-site.xml, ...) in $HADOOP_CONF_DIR or $HADOOP_HOME/etc/hadoop.
 */
export function siteProperty(file: string, names: string[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  const home = hadoopHome(env);
  const dirs = [env.HADOOP_CONF_DIR, home && join(home, 'etc', 'hadoop')].filter((d): d is string => Boolean(d));
  for (const dir of dirs) {
    const site = join(dir, file);
    if (!existsSync(site)) continue;
    const xml = readFileSync(site, 'utf8');
    for (const name of names) {
      const m = new RegExp(`<name>\\s*${name.replace(/\./g, '\\.')}\\s*</name>\\s*<value>\\s*([^<]*?)\\s*</value>`).exec(xml);
      if (m) return m[1];
    }
  }
  return undefined;
}

/** fs.defaultFS (or the older fs.default.name), without a trailing slash. */
export function defaultFs(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return siteProperty('core-site.xml', ['fs.defaultFS', 'fs.default.name'], env)?.replace(/\/+$/, '') || undefined;
}

/**
 * A file to ship with -files: as given when it has a scheme or is on this machine; else a path
 * of the cluster, qualified with its default file system (relative ones under /user/$USER, as
 * HDFS resolves them).
 */
export function shippedPath(path: string, env: NodeJS.ProcessEnv = process.env): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || existsSync(path)) return path;
  const fs = defaultFs(env);
  if (!fs || fs.startsWith('file:')) return path;
  const user = env.HADOOP_USER_NAME || env.USER || env.LOGNAME || 'root';
  return `${fs}${path.startsWith('/') ? path : `/user/${user}/${path}`}`;
}
