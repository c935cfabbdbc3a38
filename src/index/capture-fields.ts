/**
 * Where a version's record lies and what it is: the fields an index row carries for it, and
 * with it every row read back (merge, dedup, the searcher's rows and hits). One list, so a
 * field added to the index is added here once.
 */
export interface CaptureFields {
  mime: string;
  status: number | null;
  /** The payload's length in bytes. */
  length: number;
  collection: string;
  /** The segment that holds the version. */
  segment: string;
  /** The archive's name as CDX lines give it, and where it is read (a path, a URL, PACKAGE#ENTRY). */
  file: string;
  location: string;
  /** The record's offset in the archive and its length there (compressed). */
  offset: number;
  clen: number;
}

/** The capture fields of a row that has them and more (a hit or a document made from a row). */
export function captureFieldsOf(r: CaptureFields): CaptureFields {
  return {
    mime: r.mime,
    status: r.status,
    length: r.length,
    collection: r.collection,
    segment: r.segment,
    file: r.file,
    location: r.location,
    offset: r.offset,
    clen: r.clen,
  };
}
