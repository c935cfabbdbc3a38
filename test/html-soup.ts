/** Awkward markup and generated tag soup, for the HTML scanner's tests and the native extractor's. */

export const AWKWARD = [
  '<p>one<p>two<div>three</p></div>',
  '<A HREF=foo/bar TITLE="x">Link</A><a href="?q=1&amp;r=2&copy=3">q</a>',
  '<a href="x" href="y" HREF=z>first wins</a>',
  '<title>T &amp; T &notit; &#65;&#x42;</title><textarea>a <b> &lt;</textarea>',
  '<script>if (a < b && c > d) { x = "</scrip"; }</script >after<style>p{}</STYLE>',
  '<!-- c --><!--><!---><!-- a --!> b <!-- x -- y --->c<!doctype html><!DOCTYPE><!x><?php echo 1 ?>',
  '</ x>y</>z<3 a < b <!>',
  '<svg><title>in svg</title><circle/><foreignObject><p>html</p></foreignObject><![CDATA[ cdata ]]></svg><![CDATA[ not ]]>',
  '<math><mi>x</mi></math><image src=a.png><br/></br><hr/>',
  '<form><form action=x><input value=a&b></form></form>',
  '<table><tr><td>1<td>2<tr><th>3</table><ul><li>a<li>b</ul><dl><dt>t<dd>d</dl>',
  '<select><option>a<option>b<optgroup><option>c</select><ruby>x<rt>y<rp>z</ruby>',
  '<a/ href=x>slash</a><a href="y"/>self</a><p class= "x" id =y data-x>attrs</p>',
  '<iframe src=f>raw <b>text</b></iframe><noembed>n<i></noembed><xmp><b>x</b></xmp><noscript>ns</noscript><template>t</template>',
  '<base href="/b/"><meta name=robots content="noindex,nofollow"><meta http-equiv=content-language content=de>',
  '<html lang="fr"><body>&nbsp;&nbspx &bogus; &#0; &#x110000; &amp</body>',
  '<p>unclosed <b>bold <i>italic',
  '<div><span>a</div>b</span>',
  '<h1>a<h2>b</h1>c',
  '<script>never closed',
  '<!-- never closed',
  '<a href="never closed>text',
  '<plaintext><b>all text</b></plaintext>',
];

export const TOKENS = [
  ...AWKWARD, '<p>', '</p>', '<div>', '</div>', '<a href="a.html">', '</a>', '<li>', '<td>', '<tr>', '<table>', '</table>',
  '<svg>', '</svg>', '<math>', '</math>', '<title>', '</title>', '<script>', '</script>', '<style>', '</style>', '<textarea>',
  '</textarea>', '<b>', '</b>', '<br>', '</br>', '<form>', '</form>', '<img src=x alt="y">', '<option>', '<h3>', '</h4>',
  ' ', '\n  ', '\t', 'word', 'Wörter', '日本語', '&amp;', '&lt;', '&gt', '&#39;', '&#x3c;', '&eacute;', '&nbsp;', '&', '<', '>',
  '"', "'", '=', '/', '<!--', '-->', '<![CDATA[', ']]>', '<!', '</', '<?', 'x:y',
];

export function soup(rand: () => number, tokens: readonly string[] = TOKENS): string {
  const n = 5 + Math.floor(rand() * 60);
  let s = '';
  for (let i = 0; i < n; i++) s += tokens[Math.floor(rand() * tokens.length)];
  // Ends in text, not inside a tag: after `</x y` and no '>' at the end of the input,
  // htmlparser2 12 reports text from index -1 (a bug not worth copying).
  return `${s}> end.`;
}
