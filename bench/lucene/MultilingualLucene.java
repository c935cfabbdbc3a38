// The Lucene 8 peer of `npm run bench -- multilingual`: the same pages, the same queries, one
// in-memory index per language and analysis chain (StandardAnalyzer, CJKAnalyzer, Kuromoji,
// SmartChinese, Nori, and an ICU chain), BM25, title and body. Prints one JSON line per
// (language, chain, query kind) with MRR@10, success@1, success@10 and zero-hit count.
//
// Input (args): pages.tsv (lang TAB url TAB title TAB text, tabs and newlines blanked) and
// queries.tsv (lang TAB kind TAB query TAB relevant URLs separated by spaces).
//
// Debian's ICU4J 72 refuses the rule files inside Debian's lucene-analyzers-icu jar (built for
// an older ICU), so the ICU chain breaks words with ICU4J's own word rules and dictionaries
// (Thai, Lao, Khmer, Myanmar, CJK) and folds with ICU4J's NFKC_Casefold.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import com.ibm.icu.lang.UScript;
import com.ibm.icu.text.BreakIterator;
import com.ibm.icu.text.Normalizer2;
import com.ibm.icu.text.RuleBasedBreakIterator;
import com.ibm.icu.util.ULocale;
import org.apache.lucene.analysis.*;
import org.apache.lucene.analysis.cjk.CJKAnalyzer;
import org.apache.lucene.analysis.cn.smart.SmartChineseAnalyzer;
import org.apache.lucene.analysis.icu.ICUNormalizer2Filter;
import org.apache.lucene.analysis.icu.segmentation.ICUTokenizer;
import org.apache.lucene.analysis.icu.segmentation.ICUTokenizerConfig;
import org.apache.lucene.analysis.ja.JapaneseAnalyzer;
import org.apache.lucene.analysis.ko.KoreanAnalyzer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.*;
import org.apache.lucene.index.*;
import org.apache.lucene.queryparser.classic.MultiFieldQueryParser;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.*;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.AttributeFactory;

public class MultilingualLucene {
  /** ICU4J's own word break rules for every script. */
  static final class OwnRules extends ICUTokenizerConfig {
    public boolean cjkAsWords() { return true; }
    public boolean combineCJ() { return true; }
    public RuleBasedBreakIterator getBreakIterator(int script) { return (RuleBasedBreakIterator) BreakIterator.getWordInstance(ULocale.ROOT); }
    public String getType(int script, int ruleStatus) { return ruleStatus == BreakIterator.WORD_NONE ? "<NONE>" : "<WORD>"; }
  }

  static Analyzer icu() {
    return new Analyzer() {
      protected TokenStreamComponents createComponents(String field) {
        Tokenizer t = new ICUTokenizer(AttributeFactory.DEFAULT_ATTRIBUTE_FACTORY, new OwnRules());
        return new TokenStreamComponents(t, new ICUNormalizer2Filter(t, Normalizer2.getNFKCCasefoldInstance()));
      }
    };
  }

  static Map<String, Analyzer> chains(String lang) {
    Map<String, Analyzer> m = new LinkedHashMap<>();
    m.put("standard", new StandardAnalyzer(CharArraySet.EMPTY_SET));
    m.put("icu", icu());
    m.put("cjk", new CJKAnalyzer(CharArraySet.EMPTY_SET));
    if (lang.startsWith("ja")) m.put("kuromoji", new JapaneseAnalyzer());
    if (lang.startsWith("zh")) m.put("smartcn", new SmartChineseAnalyzer());
    if (lang.startsWith("ko")) m.put("nori", new KoreanAnalyzer());
    return m;
  }

  public static void main(String[] args) throws Exception {
    Map<String, List<String[]>> pages = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8)) {
      String[] f = line.split("\t", -1);
      pages.computeIfAbsent(f[0], k -> new ArrayList<>()).add(f);
    }
    Map<String, List<String[]>> queries = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8)) {
      String[] f = line.split("\t", -1);
      queries.computeIfAbsent(f[0], k -> new ArrayList<>()).add(f);
    }
    for (String lang : pages.keySet()) {
      for (Map.Entry<String, Analyzer> chain : chains(lang).entrySet()) {
        ByteBuffersDirectory dir = new ByteBuffersDirectory();
        try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(chain.getValue()))) {
          for (String[] p : pages.get(lang)) {
            Document d = new Document();
            d.add(new StringField("url", p[1], Field.Store.YES));
            d.add(new TextField("title", p[2], Field.Store.NO));
            d.add(new TextField("body", p[3], Field.Store.NO));
            w.addDocument(d);
          }
        }
        IndexSearcher s = new IndexSearcher(DirectoryReader.open(dir));
        Map<String, Float> boosts = new HashMap<>();
        boosts.put("title", 2f);
        boosts.put("body", 1f);
        MultiFieldQueryParser qp = new MultiFieldQueryParser(new String[] {"title", "body"}, chain.getValue(), boosts);
        Map<String, double[]> acc = new LinkedHashMap<>(); // kind -> n, rr, s1, s10, zero
        for (String[] q : queries.getOrDefault(lang, List.of())) {
          double[] a = acc.computeIfAbsent(q[1], k -> new double[5]);
          Set<String> relevant = new HashSet<>(Arrays.asList(q[3].split(" ")));
          a[0]++;
          Query query;
          try {
            query = qp.parse(QueryParser.escape(q[2]));
          } catch (Exception e) {
            a[4]++;
            continue;
          }
          TopDocs top = s.search(query, 10);
          if (top.scoreDocs.length == 0) a[4]++;
          for (int i = 0; i < top.scoreDocs.length; i++) {
            if (relevant.contains(s.doc(top.scoreDocs[i].doc).get("url"))) {
              a[1] += 1.0 / (i + 1);
              if (i == 0) a[2]++;
              a[3]++;
              break;
            }
          }
        }
        for (Map.Entry<String, double[]> e : acc.entrySet()) {
          double[] a = e.getValue();
          System.out.printf(Locale.ROOT, "{\"lang\":\"%s\",\"chain\":\"%s\",\"kind\":\"%s\",\"n\":%d,\"mrr\":%.4f,\"s1\":%.4f,\"s10\":%.4f,\"zero\":%d}%n",
              lang, chain.getKey(), e.getKey(), (int) a[0], a[1] / a[0], a[2] / a[0], a[3] / a[0], (int) a[4]);
        }
      }
    }
  }
}
