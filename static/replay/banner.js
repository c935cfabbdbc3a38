/*
 * The replay banner (the project's own): keeps the banner in step with the page in the frame
 * (its URL and capture date when the user follows a link, the address bar, the title), and
 * tells the spread in time of what the page loaded from the archive: each replayed response
 * says its capture time in Server-Timing, which Resource Timing shows for this origin.
 */
(function () {
  'use strict';
  var banner = document.getElementById('nwax-banner');
  var frame = document.getElementById('nwax-frame');
  if (!banner || !frame) return;
  var coll = banner.getAttribute('data-coll');
  var ARCHIVAL = /^\/replay\/[^/]+\/(\d{1,14})(?:[a-z]{2}_)?\/(.*)$/;

  function show(ts) {
    return ts.slice(0, 4) + '-' + ts.slice(4, 6) + '-' + ts.slice(6, 8) + ' ' + ts.slice(8, 10) + ':' + ts.slice(10, 12) + ':' + ts.slice(12, 14);
  }
  function days(a, b) {
    var t = function (s) { return Date.UTC(+s.slice(0, 4), +s.slice(4, 6) - 1, +s.slice(6, 8), +s.slice(8, 10), +s.slice(10, 12), +s.slice(12, 14)); };
    return Math.abs(t(a) - t(b)) / 1000;
  }
  function captureOf(entry) {
    var st = (entry && entry.serverTiming) || [];
    for (var i = 0; i < st.length; i++) if (st[i].name === 'capture' && /^\d{14}$/.test(st[i].description)) return st[i].description;
    return null;
  }
  function spanText(seconds) {
    if (seconds < 60) return Math.round(seconds) + ' s';
    if (seconds < 3600) return Math.round(seconds / 60) + ' min';
    if (seconds < 86400 * 2) return Math.round(seconds / 3600) + ' h';
    return Math.round(seconds / 86400) + ' days';
  }

  function coherence(w, pageTs) {
    var out = document.getElementById('nwax-coherence');
    var stamps = [];
    var n = 0;
    w.performance.getEntriesByType('resource').forEach(function (e) {
      var ts = captureOf(e);
      if (ts) stamps.push(ts);
      n++;
    });
    if (!stamps.length) {
      out.textContent = n ? '' : 'The page loaded nothing else from the archive.';
      banner.setAttribute('data-resources', '0');
      return;
    }
    stamps.push(pageTs);
    stamps.sort();
    var oldest = stamps[0];
    var newest = stamps[stamps.length - 1];
    var spread = days(oldest, newest);
    banner.setAttribute('data-resources', String(stamps.length - 1));
    banner.setAttribute('data-spread-seconds', String(spread));
    out.textContent = (stamps.length - 1) + ' resources from the archive, captured between ' + show(oldest) + ' and ' + show(newest) +
      (spread === 0 ? ' (all at the page\u2019s time)' : ' (a spread of ' + spanText(spread) + ')');
  }

  function update() {
    var w;
    try {
      w = frame.contentWindow;
      var m = ARCHIVAL.exec(w.location.pathname + w.location.search);
      if (!m) return;
      var nav = w.performance.getEntriesByType('navigation')[0];
      var ts = captureOf(nav) || m[1];
      var url = m[2];
      document.getElementById('nwax-url').textContent = url;
      var date = document.getElementById('nwax-date');
      date.textContent = show(ts);
      date.setAttribute('datetime', ts);
      banner.setAttribute('data-ts', ts);
      banner.setAttribute('data-url', url);
      document.getElementById('nwax-raw').setAttribute('href', '/replay/' + coll + '/' + ts + 'id_/' + url);
      document.getElementById('nwax-all').setAttribute('href', '/replay/' + coll + '/*/' + url);
      document.title = 'Archived: ' + (w.document.title || url) + ' (' + show(ts).slice(0, 10) + ')';
      history.replaceState(null, '', '/replay/' + coll + '/' + ts + '/' + url);
      coherence(w, ts);
      // Late resources (lazy images, script loads) are counted again a little later.
      setTimeout(function () { coherence(w, ts); }, 1500);
    } catch (e) {
      // the frame left this origin (it cannot: the CSP keeps it here) or is not loaded yet
    }
  }
  frame.addEventListener('load', update);
})();
