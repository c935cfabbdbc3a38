#!/usr/bin/env node
// nwax command line. Commands are thin and import their modules lazily, so `nwax --help` is instant.
import { execute } from '@oclif/core';

await execute({ dir: import.meta.url });
