/**
 * Worker thread of the local runner: runs the map and reduce tasks of registered jobs that the
 * runner sends, one at a time, for as long as the runner keeps it.
 */
import { serveTasks } from '../mapreduce/task-serve.js';
import { findJob } from './registry.js';

serveTasks(findJob);
