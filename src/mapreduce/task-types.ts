/**
 * What a task sees of its engine: where its records go (Emit, RecordSink), its counters and its
 * context. Apart from job.ts so that the Job and its encoding (job-encoding.ts) both use them
 * without importing each other.
 */
import type { Configuration } from '../conf/config.js';

/**
 * Where a task's records go. It may return a promise when its output is congested (a streaming
 * task's stdout read slowly by Hadoop): an asynchronous map awaits it, so a 10 GB archive's
 * records wait in the archive, not in memory.
 */
export type Emit = (key: string, value: unknown) => void | Promise<void>;

/** Where a reduce task's records go. */
export interface RecordSink {
  write(key: string, value: unknown): void;
  close(): void;
}

export interface Counters {
  [name: string]: number;
}

export interface TaskContext {
  /** Adds to a named counter (summed over tasks, printed in the job summary). */
  count(name: string, by?: number): void;
  /** The configuration the job was started with (defaults, site file, its -D overrides). */
  readonly conf: Configuration;
  /** A one-line report on stderr (a damaged record, a bad line): the task goes on. */
  warn(message: string): void;
  /**
   * The file this map task reads (a job that reads several datasets tells them apart by it);
   * under Hadoop Streaming, `mapreduce_map_input_file` from the environment. Empty in reduce.
   */
  readonly inputFile: string;
}
