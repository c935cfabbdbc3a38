/*
 * nwax replay shim (Apache-2.0, the project's own): keeps the URLs that a replayed page's
 * scripts build inside the archive. The server rewrites the markup; this covers what scripts
 * do at run time: fetch and XMLHttpRequest, setAttribute and the src/href/action setters,
 * history.pushState/replaceState, window.open, document.domain (ignored), and the clock (Date
 * starts at the capture time). Best effort, by design small: it does not proxy `location`,
 * workers or postMessage as a full client-side rewriter does; what it misses is blocked by the
 * replay CSP, never fetched from the live web.
 */
(function () {
  'use strict';
  var me = document.currentScript;
  if (!me || window.__nwaxShim) return;
  window.__nwaxShim = true;
  var coll = me.getAttribute('data-coll');
  var ts = me.getAttribute('data-ts');
  var pageUrl = me.getAttribute('data-url');
  var captured = me.getAttribute('data-capture') || ts;
  var PREFIX = '/replay/';
  var here = location.origin;
  var ARCHIVAL = /^\/replay\/[^/]+\/\d{1,14}(?:[a-z]{2}_)?\/(.*)$/;

  /** The archived URL an address of this origin stands for. */
  function archivedOf(abs) {
    if (abs.indexOf(here + '/') !== 0) return abs;
    var path = abs.slice(here.length);
    var m = ARCHIVAL.exec(path);
    if (m) return m[1];
    // A path of this origin outside /replay/ was meant for the archived page's host.
    var o = /^(https?:\/\/[^/?#]+)/.exec(pageUrl);
    return o ? o[1] + path : abs;
  }

  function base() {
    return archivedOf(document.baseURI);
  }

  function archival(u, mod) {
    if (u === null || u === undefined) return u;
    var s = String(u).trim();
    if (s === '' || s.charAt(0) === '#' || /^(data|blob|javascript|about|mailto|tel):/i.test(s)) return u;
    if (s.indexOf(PREFIX) === 0 || s.indexOf(here + PREFIX) === 0) return u;
    var abs;
    try {
      abs = archivedOf(new URL(s, base()).href);
    } catch (e) {
      return u;
    }
    if (!/^https?:/i.test(abs)) return u;
    return PREFIX + coll + '/' + ts + (mod || 'mp_') + '/' + abs;
  }
  window.__nwaxArchival = archival;

  var realFetch = window.fetch;
  if (realFetch) {
    window.fetch = function (input, init) {
      if (typeof input === 'string' || input instanceof URL) input = archival(String(input));
      else if (input && input.url) input = new Request(archival(input.url), input);
      return realFetch.call(this, input, init);
    };
  }

  var open = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, url) {
    var args = Array.prototype.slice.call(arguments);
    args[1] = archival(url);
    return open.apply(this, args);
  };

  var MOD = { IMG: 'im_', SCRIPT: 'js_', LINK: 'oe_', IFRAME: 'if_', FRAME: 'fr_', SOURCE: 'oe_', VIDEO: 'oe_', AUDIO: 'oe_', EMBED: 'oe_', OBJECT: 'oe_', INPUT: 'im_' };
  var URL_ATTRS = { src: 1, href: 1, action: 1, poster: 1, data: 1, formaction: 1, background: 1 };
  function modOf(el, name) {
    if (el.tagName === 'LINK' && /stylesheet/i.test(el.getAttribute('rel') || '')) return 'cs_';
    if (name === 'poster' || name === 'background') return 'im_';
    return MOD[el.tagName] || 'mp_';
  }
  function srcset(v) {
    return String(v).split(',').map(function (c) {
      var m = /^(\s*)(\S+)(.*)$/.exec(c);
      return m ? m[1] + archival(m[2], 'im_') + m[3] : c;
    }).join(',');
  }

  var setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    var n = String(name).toLowerCase();
    if (URL_ATTRS[n] && !(this.namespaceURI && this.namespaceURI !== 'http://www.w3.org/1999/xhtml' && n !== 'href')) value = archival(value, modOf(this, n));
    else if (n === 'srcset') value = srcset(value);
    return setAttribute.call(this, name, value);
  };

  function hook(proto, prop, mod, rewrite) {
    if (!proto) return;
    var d = Object.getOwnPropertyDescriptor(proto, prop);
    if (!d || !d.set) return;
    Object.defineProperty(proto, prop, {
      configurable: true,
      enumerable: d.enumerable,
      get: d.get,
      set: function (v) {
        d.set.call(this, rewrite ? rewrite(v) : archival(v, typeof mod === 'function' ? mod(this) : mod));
      },
    });
  }
  hook(window.HTMLImageElement && HTMLImageElement.prototype, 'src', 'im_');
  hook(window.HTMLImageElement && HTMLImageElement.prototype, 'srcset', null, srcset);
  hook(window.HTMLSourceElement && HTMLSourceElement.prototype, 'srcset', null, srcset);
  hook(window.HTMLScriptElement && HTMLScriptElement.prototype, 'src', 'js_');
  hook(window.HTMLLinkElement && HTMLLinkElement.prototype, 'href', function (el) { return modOf(el, 'href'); });
  hook(window.HTMLIFrameElement && HTMLIFrameElement.prototype, 'src', 'if_');
  hook(window.HTMLFrameElement && HTMLFrameElement.prototype, 'src', 'fr_');
  hook(window.HTMLMediaElement && HTMLMediaElement.prototype, 'src', 'oe_');
  hook(window.HTMLSourceElement && HTMLSourceElement.prototype, 'src', 'oe_');
  hook(window.HTMLEmbedElement && HTMLEmbedElement.prototype, 'src', 'oe_');
  hook(window.HTMLAnchorElement && HTMLAnchorElement.prototype, 'href', 'mp_');
  hook(window.HTMLFormElement && HTMLFormElement.prototype, 'action', 'mp_');

  ['pushState', 'replaceState'].forEach(function (name) {
    var real = history[name];
    history[name] = function (state, title, url) {
      return url === undefined || url === null ? real.call(this, state, title) : real.call(this, state, title, archival(url));
    };
  });

  var realOpen = window.open;
  window.open = function (url) {
    var args = Array.prototype.slice.call(arguments);
    if (url) args[0] = archival(url);
    return realOpen.apply(this, args);
  };

  try {
    Object.defineProperty(document, 'domain', { configurable: true, get: function () { return /^https?:\/\/([^/:?#]+)/.exec(pageUrl)[1]; }, set: function () {} });
  } catch (e) {
    // left as it is
  }

  // The clock starts at the capture time and runs on from there.
  var RealDate = Date;
  var c = captured;
  var shift = RealDate.UTC(+c.slice(0, 4), +c.slice(4, 6) - 1, +c.slice(6, 8), +c.slice(8, 10), +c.slice(10, 12), +c.slice(12, 14)) - RealDate.now();
  function ArchivedDate() {
    var a = arguments;
    if (!(this instanceof ArchivedDate)) return new RealDate(RealDate.now() + shift).toString();
    return a.length === 0 ? new RealDate(RealDate.now() + shift) : new (Function.prototype.bind.apply(RealDate, [null].concat(Array.prototype.slice.call(a))))();
  }
  ArchivedDate.prototype = RealDate.prototype;
  ArchivedDate.now = function () { return RealDate.now() + shift; };
  ArchivedDate.UTC = RealDate.UTC;
  ArchivedDate.parse = RealDate.parse;
  window.Date = ArchivedDate;

  // The banner (the top frame) follows the page.
  if (window.parent !== window) {
    try {
      window.parent.postMessage({ nwax: 'page', url: pageUrl, ts: captured, title: document.title }, here);
    } catch (e) {
      // no banner
    }
  }
})();
