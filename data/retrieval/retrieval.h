// LRA's Retrieval task (Tay et al. 2021, section 3.3) on a citation graph that
// Debian ships: the cross-references between the Linux man pages (packages
// `manpages` and `manpages-dev`) and OpenSSL's (`libssl-doc`).  LRA pairs two
// AAN papers and asks whether one cites the other; here the documents are man
// pages and a link is a reference `name(section)` from one page to another.  Byte level: a token is
// byte + 1 (vocabulary 257, 0 = padding), as data/text/text.h's bytes_to_tokens.
//
// The pipeline (steps 1-4 in retrieval_corpus.cpp, 5-6 in retrieval.cpp):
//   1. pages: the files the packages ship under ROOT/man{sections}/ (from
//      dpkg's file lists), decompressed with zlib.  Aliases are resolved, so
//      no document appears under two names: symlinks, one-line `.so x.3`
//      redirects (followed to their target) and byte-identical copies all
//      become names of one document.
//   2. roff -> text: requests and macros removed (.B/.I/.BR... keep their
//      arguments, alternating fonts joined as man(7) prints them), font and
//      size escapes dropped, special characters spelled in ASCII, tables and
//      macro definitions reduced to their cells or dropped.  Filled text is
//      joined into paragraphs as man prints it; no-fill blocks (.nf, .EX,
//      pod2man's .Vb) and tables keep their lines; headings on their own line.
//   3. links: every `name(section)` in the SEE ALSO section that names a page
//      of the corpus (through its aliases; `x(3)` falls back to the one page
//      `x(3ssl)`, as Debian files OpenSSL's), undirected, no self links.  With
//      `links_from_body` the references in the body count too (an in-text
//      citation is a citation).
//   4. strip the links: the SEE ALSO section is removed, and so is every
//      mention `name(section)` or `name (section)` of a page linked to the
//      document, under any of its names.  Otherwise the task is string
//      matching.
//      What could still leak, and what we do:
//        - the NAME line (`open, openat, creat \- open and possibly create a
//          file`) names the document, and the partner may mention `open()`
//          or `openat` without a section.  We keep both: they are content
//          (an AAN paper keeps its title, and the citing paper discusses it),
//          and matching an identifier across 4K bytes is the long-range skill
//          the task is about.  build_retrieval measures how far it goes (the
//          `name_mention` rule: "one document names the other in a word").
//        - mentions of pages that are not linked stay in the text; a
//          negative whose documents mention each other would then be told
//          apart by "a mention means unlinked", so negatives never mention
//          their partner (neither do positives, once stripped).
//        - the gaps where links were cut: a page with many links loses many
//          strings.  Negatives are drawn by degree (below), so how much a
//          document was cut says nothing about the pair.
//   5. splits share no document: documents are dealt into train/val/test
//      (seeded) first; a pair's two documents always come from one group,
//      so a link between groups is lost (counted).  A random deal would
//      keep 40% of the links; dealing whole communities of the graph (label
//      propagation) keeps 84%, which is what gives the test split its
//      2,000+ pairs.  The price: test documents are on topics train has not
//      seen, which makes the task harder, as a new paper is in AAN; and the
//      splits need not share a make-up (the summary prints each split's
//      commonest sections): with seed 0, 72% of val's documents are
//      OpenSSL's (3ssl) against 27% of train's and 16% of test's.  At 1,024
//      bytes val is then the easier split (bag of bytes 70.8% on val, 64.3%
//      on test), at 4,096 not (70.6%, 69.1%).
//   6. pairs: each link (a, b) inside a group is one positive, in random
//      order; its negative (a, c) keeps a random end a and takes c from b's
//      section, near b in length, drawn with probability proportional to
//      c's degree (every document is as often a negative's partner as a
//      positive's), c != a, c not linked to a, no mention either way.
//      Section pair and length pair alone then classify near 50%
//      (retrieval_baselines measures it).
// The default corpus (seed 0): 7,882 files -> 1,710 documents, 4,834 links;
// pairs train 4,322 / val 1,406 / test 2,356 (seeds 1, 2: test 2,092, 2,006),
// half linked.  Test accuracy of the shortcuts (retrieval_baselines): majority
// 50.0%, length only 49.3%, section only 50.0%; of content: bag of bytes
// 69.1%, tf-idf cosine 80.9%; the name_mention rule 67%.  Document bytes:
// median 2,731, 90th percentile 10,039; 595 of 1,710 exceed 4,096.
// Cost: linear in the corpus's bytes (8.5 MB of text): 0.45 s of CPU on a
// Xeon (Sapphire Rapids) core; pairing is O(E log V).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace az {

// A tree of HTML documentation read as documents (retrieval_html.cpp): every
// page a document, every hyperlink in its content to another page a link.
struct HtmlFamily {
  std::string name;     // "jdk": the start of each page's id ("jdk:java.base/java/util/ArrayList") and section
  std::string root;     // the folder the page paths are relative to
  // The content: the element with this id (or, with "<main>", the first <main>); text outside it is
  // the site's chrome.  Elements with one of the `chrome` classes inside it are left out too.
  std::string content_id;
  std::vector<std::string> chrome;
  // Pages read: *.html whose path has none of these parts and, with upper_case, whose file name
  // starts with a capital (the JDK's class pages; its package and index pages do not).
  std::vector<std::string> skip;
  bool upper_case = false;
  // The section: the family and the page path's first section_depth folders ("jdk:java.base"), or
  // with 0 all of them, the page's own folder ("jdk:java.base/java/util": its package).
  size_t section_depth = 0;
};

struct RetrievalOptions {
  // Non-empty: the corpus is these HTML trees (the man-page options below are unused).
  std::vector<HtmlFamily> html;
  std::string man_root = "/usr/share/man";
  // Subfolders man<s> that are read (pages of other sections are not
  // documents, and links to them are dropped).
  std::vector<std::string> sections = {"1", "2", "3", "4", "5", "7", "8"};
  // Keep only the files these Debian packages ship (dpkg_info/<pkg>.list), so
  // the corpus is the same on every machine whatever else is installed.
  // Empty: every page in the folders.
  // libssl-doc (OpenSSL's pages, filed as 3ssl, 7ssl...) is a second linked
  // family: with it the test split holds over 2,000 pairs, without 1,500.
  std::vector<std::string> packages = {"manpages", "manpages-dev", "libssl-doc"};
  std::string dpkg_info = "/var/lib/dpkg/info";
  bool links_from_body = false;  // references outside SEE ALSO are links too
  // Deal whole communities of the link graph into splits (more links stay
  // inside a split); false: deal documents one by one.
  bool split_by_community = true;
  // Deal the communities section by section (each by its commonest section),
  // so that every split has the same make-up (seed 0 unstratified: 72% of
  // val's documents are OpenSSL's, 16% of test's).  Off by default: the
  // published Retrieval records were made without it.
  bool stratify = false;
  // The fractions count link ends instead of documents (a community weighs the sum of its
  // members' degrees): in a dense graph with hubs, dealing documents evenly leaves the splits'
  // pair counts 2-4x apart (--corpus docs, seeds 0-2: val 2,452-8,532 pairs).
  bool deal_by_links = false;
  double val_fraction = 0.2;     // of the linked documents (with deal_by_links, of their link ends)
  double test_fraction = 0.25;
  uint64_t seed = 0;
  size_t max_documents = 0;      // 0 = all; else a seeded random subset of them
  // Keep the first max_bytes of each document in the Datasets (0 = whole; the
  // summary says how many were cut).  Documents are copied into every pair
  // they are in: whole, the default corpus's pairs hold ~450 MB of tokens;
  // cut to 4096, ~200 MB.  Pairing and the summary's lengths use whole texts.
  size_t max_bytes = 0;
  bool verbose = true;           // print the summary to stderr
};

// One document.
struct ManPage {
  std::string id;                  // "open(2)": file name without .gz, as name(section)
  std::string section;             // "2", "3type", ...
  std::vector<std::string> names;  // every name it goes by (aliases), sorted, including id
  std::vector<std::string> title_names;  // the names on its NAME line
  std::string path;                // the file read
  std::string text;                // after roff -> text and link stripping
};

struct ManCorpus {
  std::vector<ManPage> pages;                 // sorted by id
  std::vector<std::array<int32_t, 2>> links;  // undirected, [0] < [1], sorted, unique
  std::vector<std::vector<int32_t>> mentions; // per page: pages it still names as name(sec)
  // What was dropped or merged, for the summary.
  size_t files = 0;            // files listed
  size_t left_out = 0;         // HTML files the family's rules leave out: indexes, class-use/ (said in the summary)
  size_t aliases = 0;          // symlinks, .so redirects and copies merged into a document
  size_t dangling = 0;         // aliases whose target is missing (dropped)
  size_t empty = 0;            // pages with no text (kept, in no link)
  size_t refs = 0;             // name(section) references parsed as links
  size_t refs_missing = 0;     // ... naming no page of the corpus (dropped)
  size_t refs_self = 0;        // ... naming the page itself (dropped)
  size_t mentions_stripped = 0;
};

// Reads, converts, links and strips.  DataError naming the file on a page
// that cannot be read, a missing package list or an empty corpus.
ManCorpus read_man_corpus(const RetrievalOptions& opt);
// The same for opt.html: pages listed, converted to text with every hyperlink
// to another page of the corpus cut out (the link), byte-identical texts
// merged into one document.  retrieval_html.cpp.
ManCorpus read_html_corpus(const RetrievalOptions& opt);
// One page's content as text.  links gets the href of every anchor whose text
// was cut: those for which is_link(href) says true.
std::string html_to_text(const std::string& html, const HtmlFamily& f, const std::function<bool(const std::string&)>& is_link,
                         std::vector<std::string>* links, std::string* title = nullptr);
// Debian's JDK API documentation (openjdk-17-doc: class pages) and
// cppreference (cppreference-doc-en-html), read where installed, else fetched
// once with `apt-get download` and unpacked with dpkg-deb into cache_dir (a
// one-line notice says so).  The corpus of `--corpus docs`.
std::vector<HtmlFamily> debian_doc_families(const std::string& cache_dir);
// The options of `--corpus docs` (families: debian_doc_families'): LRA's
// proportions (AAN's pairs are 81/10/9 train/val/test: val and test 10% of
// the documents), communities dealt family by family, documents cut to 4,096
// bytes (whole, the pairs' copies of them would hold ~9 GB).
RetrievalOptions docs_options(std::vector<HtmlFamily> families);

struct RetrievalPair {
  int32_t doc1 = 0, doc2 = 0;  // page indices, in the order the example holds them
  int32_t label = 0;           // 1 = linked
};

struct RetrievalData {
  ManCorpus corpus;
  std::vector<int8_t> group;                     // per page: 0 train, 1 val, 2 test
  std::array<std::vector<RetrievalPair>, 3> pairs;
  Splits splits;                                 // seqs/seqs2 = the documents' bytes + 1, uncut
  size_t links_across = 0;       // links between two groups (no pair)
  size_t negatives_wider = 0;    // negatives taken outside b's section (none was left in it)
  size_t positives_unmatched = 0;  // positives dropped because no negative was possible
  size_t max_bytes = 0, documents_cut = 0;  // documents longer than max_bytes (cut in the Datasets)
  // The section-pair key of each pair ("2|3", unordered), for the section-only baseline.
  std::array<std::vector<std::string>, 3> section_keys() const;
  // Fraction of pairs whose one document names the other (a NAME-line name, or
  // an HTML page's title, as a whole word in its first max_bytes), per label, on
  // split s; and the accuracy of the rule "linked when one names the other".
  // The summary prints it for test.
  struct NameMention { double pos = 0, neg = 0, accuracy = 0; };
  NameMention name_mention(int s) const;
};

// The whole pipeline.  Prints a summary to stderr when opt.verbose.
RetrievalData build_retrieval(const RetrievalOptions& opt);
// The splits only: labels 0 "unlinked" / 1 "linked", vocabulary 257.
Splits load_retrieval(const RetrievalOptions& opt);
// Counts, lengths, what was dropped: the lines the summary prints.
std::string retrieval_summary(const RetrievalData& d);

// man(7) roff -> readable text.  headings get the spans of the .SH sections
// (title as written, upper-case in man-pages; [begin, end) in the text,
// including the heading line).
struct RoffHeading {
  std::string title;
  size_t begin = 0, end = 0;
};
std::string roff_to_text(const std::string& roff, std::vector<RoffHeading>* headings = nullptr);

// A reference `name(section)` (or `name (section)`) found in text: its span
// and the id "name(section)" it spells.
struct ManRef {
  size_t begin = 0, end = 0;
  std::string id;
};
std::vector<ManRef> find_man_refs(const std::string& text);

// ---- baselines (retrieval_baselines.cpp) ------------------------------------
// Test accuracy of classifiers that see one thing only, fit on train.
struct RetrievalBaselines {
  double majority = 0;      // the train majority class
  double length_only = 0;   // table on the unordered pair of log2 length bins
  double section_only = -1; // table on the unordered section pair; -1 without keys
  double bag_of_bytes = 0;  // logistic regression on [h1, h2, h1*h2, |h1-h2|], h = byte histogram
  double cosine = 0;        // tf-idf cosine of the words, threshold fit on train
  size_t n_test = 0;
};
// The byte and word baselines read the first max_bytes of each document (what
// a model with --seq-len max_bytes sees; 0 = all); length_only the whole one.
RetrievalBaselines retrieval_baselines(const Splits& s,
                                       const std::array<std::vector<std::string>, 3>* section_keys = nullptr,
                                       size_t max_bytes = 4096);
std::string format_baselines(const RetrievalBaselines& b);

// ---- TSV (retrieval_tsv.cpp) --------------------------------------------
// LRA's layout (lra_benchmarks/matching/input_pipeline.py): one pair a row,
// `label<TAB>id1<TAB>id2<TAB>text1<TAB>text2`, no header, no quoting; label
// 0 or 1 (also written 0.0, 1.0).  Texts may hold the escapes \n \t \r \\,
// which write_retrieval_tsv uses; any other backslash is kept as it is (LRA's
// AAN text has raw backslashes).  A path is either a folder holding one
// *train.tsv, one *eval.tsv or *val.tsv and one *test.tsv (LRA's
// new_aan_pairs.{train,eval,test}.tsv), or a prefix P with P.train.tsv ...
// One-line DataError naming file:line for a row without 5 fields, a bad
// label, an empty text, a malformed escape at the end of a field.
Splits load_retrieval_tsv(const std::string& path);
// Writes the three splits as PREFIX.train.tsv, PREFIX.eval.tsv and
// PREFIX.test.tsv (LRA's names), ids the page ids ("open(2)"): readable back
// with load_retrieval_tsv(PREFIX) and by LRA's input pipeline.
void write_retrieval_splits(const std::string& prefix, const RetrievalData& d);
// Writes one split; ids are the page ids when `ids` is given, else the row number.
void write_retrieval_tsv(const std::string& path, const Dataset& d,
                         const std::vector<std::array<std::string, 2>>* ids = nullptr);

}  // namespace az
