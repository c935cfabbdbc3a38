/**
 * Errors with a stable code and class, as undici does (lib/core/errors.js): callers switch
 * on `code`, the CLI prints `message` alone (no stack) and exits with `exitCode`.
 */
export class NwaxError extends Error {
  readonly code: string;
  readonly exitCode: number;

  constructor(code: string, message: string, exitCode = 1) {
    super(message);
    this.name = 'NwaxError';
    this.code = code;
    this.exitCode = exitCode;
  }
}

/** An input that cannot be opened or read at all (missing file, directory, permission). */
export class InputError extends NwaxError {
  constructor(message: string) {
    super('NWAX_INPUT', message, 1);
    this.name = 'InputError';
  }
}

/** A damaged record or line; in --strict mode it stops the job. */
export class FormatError extends NwaxError {
  readonly file: string;
  readonly offset: number;
  readonly reason: string;

  constructor(file: string, offset: number, reason: string, detail: string) {
    super('NWAX_FORMAT', `${file}: offset ${offset}: ${detail}`, 1);
    this.name = 'FormatError';
    this.file = file;
    this.offset = offset;
    this.reason = reason;
  }
}

/** Usage mistakes: bad flags or arguments. */
export class UsageError extends NwaxError {
  constructor(message: string) {
    super('NWAX_USAGE', message, 2);
    this.name = 'UsageError';
  }
}

/** A file system error as one line naming the path. */
export function describeFsError(path: string, err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ENOENT':
      return `${path}: no such file`;
    case 'EACCES':
    case 'EPERM':
      return `${path}: permission denied`;
    case 'EISDIR':
      return `${path}: is a directory, not a file`;
    default:
      return `${path}: cannot read (${err.code ?? err.message})`;
  }
}

/** Text with control characters and undecodable bytes shown as escapes (garbage input quoted in a message). */
export function visible(message: string): string {
  return message.replace(/[\x00-\x1f\x7f-\x9f\ufffd]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
