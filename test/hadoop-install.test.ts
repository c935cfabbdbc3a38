/**
 * nwax and a Hadoop installation (issue: on a real cluster): the streaming jar found where a
 * distribution puts it, versioned name and all; a path of the cluster shipped with -files
 * qualified with fs.defaultFS (Hadoop reads a path without a scheme as a local one); and an
 * empty partition written as an empty gzip member, which Hadoop's GzipCodec reads (a zero-byte
 * .gz failed every map of the next job on YARN); a failed task's report when its log cannot be
 * read (test/hadoop-cluster.test.ts reads one on a cluster).
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultFs, shippedPath, siteProperty, streamingJar } from '../src/mapreduce/hadoop-install.js';
import { failedAttempts, failedTaskReport } from '../src/mapreduce/hadoop-task-log.js';
import { hadoopCommand } from '../src/mapreduce/hadoop.js';
import { RecordFileReader, RecordFileWriter } from '../src/mapreduce/record-file.js';
import { findJob } from '../src/jobs/registry.js';
import { tempDir } from './helpers.js';

/** A distribution's layout: the versioned streaming jar beside its sources and tests, and a core-site.xml. */
function distribution(dir: string, defaultFS?: string): string {
  const home = join(dir, 'hadoop-2.6.0');
  const lib = join(home, 'share', 'hadoop', 'tools', 'lib');
  mkdirSync(lib, { recursive: true });
  for (const n of ['hadoop-streaming-2.6.0-sources.jar', 'hadoop-streaming-2.6.0.jar', 'hadoop-streaming-2.6.0-tests.jar', 'hadoop-archives-2.6.0.jar'])
    writeFileSync(join(lib, n), 'PK');
  mkdirSync(join(home, 'etc', 'hadoop'), { recursive: true });
  if (defaultFS)
    writeFileSync(
      join(home, 'etc', 'hadoop', 'core-site.xml'),
      `<?xml version="1.0"?>\n<configuration>\n  <property><name>hadoop.tmp.dir</name><value>/tmp/x</value></property>\n  <property>\n    <name>fs.defaultFS</name>\n    <value>${defaultFS}/</value>\n  </property>\n</configuration>\n`,
    );
  return home;
}

describe('a Hadoop installation', () => {
  it('gives the versioned streaming jar under $HADOOP_HOME, $HADOOP_STREAMING_JAR first, and the command names it', async () => {
    const home = distribution(tempDir(), 'hdfs://namenode:9000');
    expect(streamingJar({ HADOOP_HOME: home })).toBe(join(home, 'share', 'hadoop', 'tools', 'lib', 'hadoop-streaming-2.6.0.jar'));
    expect(streamingJar({ HADOOP_HOME: home, HADOOP_STREAMING_JAR: '/opt/s.jar' })).toBe('/opt/s.jar');
    expect(streamingJar({})).toBeUndefined();
    const saved = { ...process.env };
    try {
      delete process.env.HADOOP_STREAMING_JAR;
      process.env.HADOOP_HOME = home;
      const cmd = hadoopCommand((await findJob('updatedb'))!, { inputs: ['/in'], output: '/out', numReduces: 2 });
      expect(cmd.slice(0, 3)).toEqual(['hadoop', 'jar', join(home, 'share', 'hadoop', 'tools', 'lib', 'hadoop-streaming-2.6.0.jar')]);
    } finally {
      process.env = saved;
    }
  });

  it('ships a cluster path with the cluster default file system, a local file or a URI as given', () => {
    const dir = tempDir();
    const home = distribution(dir, 'hdfs://namenode:9000');
    const env = { HADOOP_HOME: home, USER: 'me' };
    expect(defaultFs(env)).toBe('hdfs://namenode:9000');
    expect(shippedPath('/user/root/in/all.dup', env)).toBe('hdfs://namenode:9000/user/root/in/all.dup');
    expect(shippedPath('in/all.dup', env)).toBe('hdfs://namenode:9000/user/me/in/all.dup');
    const local = join(dir, 'local.dup');
    writeFileSync(local, '');
    expect(shippedPath(local, env)).toBe(local);
    expect(shippedPath('hdfs://other:8020/x.dup', env)).toBe('hdfs://other:8020/x.dup');
    // HADOOP_CONF_DIR first; a local default file system leaves paths as they are.
    const conf = join(dir, 'conf');
    mkdirSync(conf);
    writeFileSync(join(conf, 'core-site.xml'), '<configuration><property><name>fs.default.name</name><value>file:///</value></property></configuration>');
    expect(shippedPath('/user/root/in/all.dup', { ...env, HADOOP_CONF_DIR: conf })).toBe('/user/root/in/all.dup');
    expect(defaultFs({})).toBeUndefined();
  });
});

describe('an empty partition', () => {
  it('is an empty gzip member: zcat and gunzip read it as empty, and so does nwax', () => {
    const path = join(tempDir(), 'part-00001.gz');
    new RecordFileWriter(path).close();
    expect(statSync(path).size).toBe(20);
    expect(gunzipSync(readFileSync(path)).length).toBe(0);
    const z = spawnSync('zcat', [path]);
    expect(z.status).toBe(0);
    expect(z.stdout.length).toBe(0);
    expect([...new RecordFileReader(path).entries()]).toEqual([]);
  });
});

describe('a task that failed on a cluster', () => {
  // Hadoop 2.6's client output for a job whose map failed on YARN (what the cluster test saw).
  const report = [
    '26/11/28 05:28:37 INFO impl.YarnClientImpl: Submitted application application_1795843702839_0001',
    '26/11/28 05:28:37 INFO mapreduce.Job: The url to track the job: http://rm:8088/proxy/application_1795843702839_0001/',
    '26/11/28 05:28:37 INFO mapreduce.Job: Running job: job_1795843702839_0001',
    '26/11/28 05:28:44 INFO mapreduce.Job: Task Id : attempt_1795843702839_0001_m_000000_0, Status : FAILED',
    'Error: java.lang.RuntimeException: PipeMapRed.waitOutputThreads(): subprocess failed with code 1',
    '26/11/28 05:28:48 INFO mapreduce.Job: Task Id : attempt_1795843702839_0001_m_000000_1, Status : FAILED',
    'Job failed as tasks failed. failedMaps:1 failedReduces:0',
    '',
  ].join('\n');

  it("finds the job, its failed attempts and its tracking URL in the client's report", () => {
    expect(failedAttempts(report)).toEqual({
      job: 'job_1795843702839_0001',
      tracking: 'http://rm:8088/proxy/application_1795843702839_0001/',
      attempts: ['attempt_1795843702839_0001_m_000000_0', 'attempt_1795843702839_0001_m_000000_1'],
    });
  });

  it("says so, naming the history server and the job, when the task's log cannot be read; nothing in local mode", async () => {
    // A history server address where nothing listens (a port just closed).
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    const conf = tempDir();
    writeFileSync(
      join(conf, 'mapred-site.xml'),
      `<configuration><property><name>mapreduce.jobhistory.webapp.address</name><value>127.0.0.1:${port}</value></property></configuration>`,
    );
    expect(siteProperty('mapred-site.xml', ['mapreduce.jobhistory.webapp.address'], { HADOOP_CONF_DIR: conf })).toBe(`127.0.0.1:${port}`);
    const said = await failedTaskReport(report, { env: { HADOOP_CONF_DIR: conf }, waitMs: 0 });
    expect(said).toContain(`attempt_1795843702839_0001_m_000000_1 failed; its log could not be read: the history server at 127.0.0.1:${port} did not answer (`);
    expect(said).toContain('(the job: http://rm:8088/proxy/application_1795843702839_0001/)');
    expect(await failedTaskReport(report.replace(/job_1795843702839/g, 'job_local1795843702839'), { env: { HADOOP_CONF_DIR: conf } })).toBe('');
  });
});
