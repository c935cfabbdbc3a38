/**
 * nwax and a Hadoop installation (issue: on a real cluster): the streaming jar found where a
 * distribution puts it, versioned name and all; a path of the cluster shipped with -files
 * qualified with fs.defaultFS (Hadoop reads a path without a scheme as a local one); and an
 * empty partition written as an empty gzip member, which Hadoop's GzipCodec reads (a zero-byte
 * .gz failed every map of the next job on YARN).
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { defaultFs, shippedPath, streamingJar } from '../src/mapreduce/hadoop-install.js';
import { hadoopCommand } from '../src/mapreduce/hadoop.js';
import { RecordFileReader, RecordFileWriter } from '../src/mapreduce/record-file.js';
import { findJob } from '../src/jobs/index.js';
import { tempDir } from './helpers.js';

/** A distribution's layout: the versioned streaming jar beside its sources and tests, and a core-site.xml. */
function distribution(dir: string, defaultFS?: string): string {
  const home = join(dir, 'hadoop-2.6.0');
  const lib = join(home, 'share', 'hadoop', 'tools', 'lib');
  mkdirSync(lib, { recursive: true });
  for (const n of ['hadoop-streaming-2.6.0-sources.jar', 'hadoop-streaming-2.6.0.jar', 'hadoop-streaming-2.6.0-tests.jar', 'hadoop-archives-2.6.0.jar']) writeFileSync(join(lib, n), 'PK');
  mkdirSync(join(home, 'etc', 'hadoop'), { recursive: true });
  if (defaultFS) writeFileSync(join(home, 'etc', 'hadoop', 'core-site.xml'), `<?xml version="1.0"?>\n<configuration>\n  <property><name>hadoop.tmp.dir</name><value>/tmp/x</value></property>\n  <property>\n    <name>fs.defaultFS</name>\n    <value>${defaultFS}/</value>\n  </property>\n</configuration>\n`);
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
