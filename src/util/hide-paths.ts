/**
 * A message for the public about an archive that could not be read, with where the archive lies
 * taken out: an absolute path on the server, or the URL of an archive on the network, becomes
 * its file name (what NutchWAX's `arcname` showed, and what CDX lines name). Where the archives
 * are is the operator's to know; the service logs the message whole.
 */
const LOCATION = /(?:\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]+?(?=:?(?:[\s'"<>]|$))|(?<![\w.])\/(?:[^\s'"<>/:]+\/)+[^\s'"<>/:]+)/gi;

export function hidePaths(message: string): string {
  return message.replace(LOCATION, (loc) => {
    const clean = loc.replace(/[?#].*$/, '').replace(/\/+$/, '');
    const name = clean.slice(clean.lastIndexOf('/') + 1);
    return name || 'an archive';
  });
}
