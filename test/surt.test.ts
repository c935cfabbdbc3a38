import { describe, expect, it } from 'vitest';
import { surt, massagedUrl, detectCanonicalizer } from '../src/cdx/surt.js';
import { attemptIpFormats, fromByteString, normalizePath, toByteString, unescapeRepeatedly } from '../src/cdx/url-parts.js';

// Expected keys are those of the surt library (internetarchive/surt, used by cdxj-indexer and
// pywb): its WaybackURLKeyMaker cases and the canonicalizer cases run through surt().
describe('SURT keys as the surt library computes them', () => {
  it.each([
    ['', '-'],
    ['filedesc:foo.arc.gz', 'filedesc:foo.arc.gz'],
    ['filedesc://foo.arc.gz', 'filedesc://foo.arc.gz'],
    ['warcinfo:foo.warc.gz', 'warcinfo:foo.warc.gz'],
    ['dns:alexa.com', 'dns:alexa.com'],
    ['http://www.archive.org/', 'org,archive)/'],
    ['http://archive.org/', 'org,archive)/'],
    ['http://archive.org/goo/', 'org,archive)/goo'],
    ['http://archive.org/goo/?', 'org,archive)/goo'],
    ['http://archive.org/goo/?b&a', 'org,archive)/goo?a&b'],
    ['http://archive.org/goo/?a=2&b&a=1', 'org,archive)/goo?a=1&a=2&b'],
    ['http://archive.org/index.php?PHPSESSID=0123456789abcdefghijklemopqrstuv&action=profile;u=4221', 'org,archive)/index.php?action=profile;u=4221'],
    ['whois://whois.isoc.org.il/shaveh.co.il', 'il,org,isoc,whois)/shaveh.co.il'],
    [
      'http://visit.webhosting.yahoo.com/visit.gif?&r=http%3A//web.archive.org/web/20090517140029/http%3A//anthonystewarthead.electric-chi.com/&b=Netscape%205.0%20%28Windows%3B%20en-US%29&s=1366x768&o=Win32&c=24&j=true&v=1.2',
      'com,yahoo,webhosting,visit)/visit.gif?&b=netscape%205.0%20(windows;%20en-us)&c=24&j=true&o=win32&r=http://web.archive.org/web/20090517140029/http://anthonystewarthead.electric-chi.com/&s=1366x768&v=1.2',
    ],
    ['mailto:foo@example.com', 'mailto:foo@example.com'],
    ['ftp://www.example.com/', 'com,example)/'],
    ['http://host/%25%32%35', 'host)/%25'],
    ['http://host/%2525252525252525', 'host)/%25'],
    ['http://%31%36%38%2e%31%38%38%2e%39%39%2e%32%36/%2E%73%65%63%75%72%65/', '26,99,188,168)/.secure'],
    ['http://3279880203/blah', '11,0,127,195)/blah'],
    ['http://www.google.com/blah/..', 'com,google)/'],
    ['www.google.com', 'com,google)/'],
    ['http://www.evil.com/blah#frag', 'com,evil)/blah'],
    ['http://www.GOOgle.com.../', 'com,google)/'],
    ['http://www.google.com/foo\tbar\rbaz\n2', 'com,google)/foobarbaz2'],
    ['http://evil.com/foo;', 'com,evil)/foo;'],
    ['B\u00fccher.ch:8080', 'ch,xn--bcher-kva:8080)/'],
    ['http://www.t%EF%BF%BD%04.82.net/', 'net,82,t%ef%bf%bd%04)/'],
    ['http://host.com//twoslashes?more//slashes', 'com,host)/twoslashes?more//slashes'],
    ['http:////////////////www.vikings.com', 'com,vikings)/'],
    ['http://https://order.1and1.com', 'com,1and1,order)/'],
    ['http://mineral.galleries.com:/minerals/silicate/chabazit/chabazit.htm', 'com,galleries,mineral)/minerals/silicate/chabazit/chabazit.htm'],
    ['https://www.archive.org:443/', 'org,archive)/'],
    ['http://www.archive.org:443/', 'org,archive:443)/'],
    ['http://www34.archive.org/index.html?b=a&b=b&a=b', 'org,archive)/index.html?a=b&b=a&b=b'],
    ['http://127.0.0.1:18081/python/index.html', '1,0,0,127:18081)/python/index.html'],
    ['http://example.com/(S(4hqa0555fwsecu455xqckv45))/mileg.aspx', 'com,example)/mileg.aspx'],
    ['http://x.org/?CFID=1169580&CFTOKEN=48630702&dtstamp=22%2F08%2F2006', 'org,x)/?dtstamp=22/08/2006'],
    ['http://example.com:99999/', 'http://example.com:99999/'], // unparseable port: the URL itself, as cdxj-indexer
  ])('%s -> %s', (url, key) => {
    expect(surt(url)).toBe(key);
  });
});

describe('URL canonicalization pieces', () => {
  it('reads dotted, octal and overflowing numeric hosts as the surt library does', () => {
    expect(attemptIpFormats('127.0.0.1')).toBe('127.0.0.1');
    expect(attemptIpFormats('017.0.0.1')).toBe('15.0.0.1');
    expect(attemptIpFormats('10.0.258')).toBe('10.0.1.2');
    expect(attemptIpFormats('1.2.3.256')).toBeNull();
    expect(attemptIpFormats('39024579298')).toBe('22.11.210.226');
    expect(attemptIpFormats('www.foo.com')).toBeNull();
    // Near the canonical dotted quads the fast path returns as they are: leading zeros (octal),
    // a first 0, a part past 255, five parts.
    expect(attemptIpFormats('127.000.0.1')).toBe('127.0.0.1');
    expect(attemptIpFormats('1.2.3.04')).toBe('1.2.3.4');
    expect(attemptIpFormats('1.2.3.08')).toBe('1.2.3.0');
    expect(attemptIpFormats('0.1.2.3')).toBe('0.1.2.3');
    expect(attemptIpFormats('0.1.2.9')).toBeNull();
    expect(attemptIpFormats('256.1.1.1')).toBeNull();
    expect(attemptIpFormats('1.2.3.4.5')).toBeNull();
    expect(attemptIpFormats('255.249.200.99')).toBe('255.249.200.99');
  });

  it('normalizes paths as the surt library does, and leaves normal ones as they are', () => {
    const cases: [string, string][] = [
      ['/a/b.html', '/a/b.html'],
      ['/', '/'],
      ['/a/', '/a/'],
      ['/.well-known/x', '/.well-known/x'],
      ['/a/...', '/a/...'],
      ['/a//b/', '/a/b/'],
      ['/a/./b', '/a/b'],
      ['/a/../b', '/b'],
      ['/a/b/..', '/a'],
      ['/a/b/.', '/a/b'],
      ['/..', '/..'],
      ['a/b', '/b'],
      ['//a', '/a'],
    ];
    for (const [path, normal] of cases) expect(normalizePath(path), path).toBe(normal);
  });

  it('keeps ASCII strings as their own byte strings, and others as UTF-8 bytes', () => {
    expect(toByteString('http://example.org/a?b')).toBe('http://example.org/a?b');
    expect(toByteString('/caf\u00e9')).toBe('/caf\u00c3\u00a9');
    expect(fromByteString('/caf\u00c3\u00a9')).toBe('/caf\u00e9');
    expect(fromByteString('\x7f')).toBe('\x7f');
  });

  it('unescapes repeatedly', () => {
    expect(unescapeRepeatedly('%!A%21%21%25')).toBe('%!A!!%');
    expect(unescapeRepeatedly('%2')).toBe('%2');
    expect(unescapeRepeatedly('%25%32%35')).toBe('%');
  });

  it('makes classic massaged keys and tells the two kinds apart', () => {
    expect(massagedUrl('http://www.Example.com/?b=2&a=1')).toBe('example.com/?a=1&b=2');
    expect(massagedUrl('https://archive.org:8443/goo/')).toBe('archive.org:8443/goo');
    expect(detectCanonicalizer(['org,example)/a', 'com,foo)/'])).toBe('surt');
    expect(detectCanonicalizer(['example.org/a', 'foo.com/'])).toBe('massaged');
  });
});
