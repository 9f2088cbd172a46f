// Task `retrieval`: LRA's Retrieval (Tay et al. 2021, section 3.3): are two
// byte-level documents linked?  One shared encoder reads both; the pair head
// classifies [u, v, u*v, u-v] (train/model.h).  Default corpus: the SEE ALSO
// links between the man pages Debian ships (data/retrieval/retrieval.h: links stripped
// from the text, negatives matched in section and length, splits that share
// no document).  --corpus docs: the hyperlinks between the JDK's API pages and
// cppreference's (data/retrieval/retrieval_html.cpp; fetched with apt-get
// download on first use), 24 times the man pages' training pairs.  --data
// reads LRA's own TSV files (label, id1, id2, text1, text2).  Documents are
// cut to --seq-len bytes (default 1024 here; LRA and the `full` preset use
// 4096; bench/retrieval_lra.sh 4000), and the run says how many were cut.  Every run
// prints the baselines of its data (majority, length only, section only, bag
// of bytes, tf-idf cosine), so a model's accuracy reads against what content
// statistics alone give.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "data/retrieval/retrieval.h"
#include "data/text/text.h"
#include "train/cli.h"
#include "train/tasks.h"

namespace az {
namespace {

size_t cut_pairs(Dataset& d, size_t max_bytes) {
  size_t cut = 0;
  for (auto* seqs : {&d.seqs, &d.seqs2})
    for (auto& s : *seqs)
      if (s.size() > max_bytes) s.resize(max_bytes), ++cut;
  return cut;
}

// The corpus's options: the man pages (--stratify 1 deals them section by section; off by default,
// as their published records), or --corpus docs (always dealt family by family: docs_options).
RetrievalOptions corpus_options(const std::string& corpus, bool stratify) {
  if (corpus == "docs") return docs_options(debian_doc_families(data_cache_dir() + "/retrieval-docs"));
  RetrievalOptions o;
  o.stratify = stratify;
  return o;
}

TaskData load(const TaskContext& c) {
  TaskData t;
  t.max_len = c.seq_len ? c.seq_len : 1024;
  if (c.data.empty()) {
    RetrievalOptions o = corpus_options(c.str("corpus"), c.integer("stratify") == 1);
    o.seed = uint64_t(c.integer("corpus-seed"));
    o.max_bytes = size_t(t.max_len);  // its summary says how many documents were cut
    RetrievalData d = build_retrieval(o);
    if (c.integer("baselines")) {
      auto keys = d.section_keys();
      std::fprintf(stderr, "retrieval: baselines on this data (fit on train, test accuracy):\n%s",
                   format_baselines(retrieval_baselines(d.splits, &keys, size_t(t.max_len))).c_str());
    }
    t.splits = std::move(d.splits);
  } else {
    t.splits = load_retrieval_tsv(c.data);
    if (c.integer("baselines"))
      std::fprintf(stderr, "retrieval: baselines on this data (fit on train, test accuracy):\n%s",
                   format_baselines(retrieval_baselines(t.splits, nullptr, size_t(t.max_len))).c_str());
    size_t cut = 0, total = 0;
    for (Dataset* d : {&t.splits.train, &t.splits.val, &t.splits.test})
      cut += cut_pairs(*d, size_t(t.max_len)), total += 2 * d->size();
    if (cut)
      std::fprintf(stderr, "retrieval: %zu of %zu documents are longer than --seq-len %lld bytes and were cut to it\n",
                   cut, total, (long long)t.max_len);
  }
  return t;
}

int data_command(const std::vector<std::string>& args) {
  Flags f("data retrieval", args, {"out", "seed", "stratify", "corpus"}, {});
  if (!f.has("out")) fail("data retrieval: --out PREFIX is required (writes PREFIX.train.tsv, .eval.tsv, .test.tsv)");
  const std::string corpus = f.str("corpus", "man");
  if (corpus != "man" && corpus != "docs") fail("data retrieval: --corpus must be man or docs, got '" + corpus + "'");
  const int64_t seed = f.integer("seed", 0);
  if (seed < 0) fail("data retrieval: --seed must be >= 0, got " + std::to_string(seed));
  const int64_t stratify = f.integer("stratify", 0);
  if (stratify != 0 && stratify != 1) fail("data retrieval: --stratify must be 0 or 1, got " + std::to_string(stratify));
  // PREFIX's folder is made (or refused) before the corpus is read, not after
  const std::string out = f.str("out", "");
  const std::filesystem::path folder = std::filesystem::path(out).parent_path();
  std::error_code ec;
  if (!folder.empty() && !std::filesystem::is_directory(folder, ec) && !std::filesystem::create_directories(folder, ec))
    fail("data retrieval: cannot create the folder '" + folder.string() + "' of --out " + out + " (" + ec.message() +
         "); expected a PREFIX in a writable folder");
  RetrievalOptions o = corpus_options(corpus, stratify == 1);
  o.seed = uint64_t(seed);
  RetrievalData d = build_retrieval(o);
  write_retrieval_splits(out, d);
  std::printf("wrote %zu/%zu/%zu retrieval pairs to %s.{train,eval,test}.tsv\n", d.splits.train.size(),
              d.splits.val.size(), d.splits.test.size(), f.str("out", "").c_str());
  return 0;
}

TaskInfo info() {
  TaskInfo i;
  i.name = "retrieval";
  i.summary = "LRA's Retrieval: are two byte-level documents linked? (man pages' SEE ALSO links; 2 classes)";
  i.options = {text_option("corpus", "man", {"man", "docs"},
                           "man: the man pages' SEE ALSO links; docs: the hyperlinks between the JDK's API pages "
                           "and cppreference's (fetched with apt-get download on first use)"),
               int_option("corpus-seed", 0, 0, 1000000, "seed of the corpus's splits and negatives"),
               int_option("baselines", 1, 0, 1, "print the content baselines of the data"),
               int_option("stratify", 0, 0, 1,
                          "1: deal the man pages' link graph's communities section by section, so that train, val "
                          "and test share a make-up (0, as the published records: val may hold most of one family; "
                          "--corpus docs is always dealt family by family)")};
  i.load = load;
  i.head = Head::kPair;
  i.default_steps = [](const TaskContext&) -> int64_t { return 500; };  // two ~1K-token documents an example
  i.cli.input_help = "pairs of text files (or texts): A1 B1 [A2 B2 ...]";
  i.cli.read_inputs = [](const std::vector<std::string>& in, const TaskContext& c) {
    if (in.size() % 2) fail("predict: retrieval takes pairs of documents (A1 B1 A2 B2 ...), got " + std::to_string(in.size()) + " inputs");
    TaskData t;
    Dataset& d = t.splits.test;
    d.vocab_size = kByteVocab;
    for (size_t k = 0; k < in.size(); k += 2) {
      d.seqs.push_back(bytes_to_tokens(read_file_or_text(in[k])));
      d.seqs2.push_back(bytes_to_tokens(read_file_or_text(in[k + 1])));
      d.labels.push_back(0);
    }
    if (size_t cut = cut_pairs(d, size_t(c.seq_len)))
      std::fprintf(stderr, "predict: %zu documents are longer than the model's %lld bytes and were cut to it\n", cut,
                   (long long)c.seq_len);
    t.max_len = c.seq_len;
    return t;
  };
  i.cli.data_name = "retrieval";
  i.cli.data_help = "attnzoo data retrieval --out PREFIX [--corpus man|docs] [--seed S] [--stratify 0|1]   pairs as LRA's TSV files\n";
  i.cli.data_command = data_command;
  i.lra.title = "Retrieval";
  i.lra.order = 3;
  i.lra.rows["quick"] = lra_row({256, 1000, 200, 400, {}}, "--dim 32 --heads 2 --layers 1 --ffn 64 --steps 30 --batch 16 --warmup 6 --eval-every 15 --lr 1e-3");
  i.lra.rows["mini"] = lra_row({1024, 0, 0, 0, {}}, "--dim 64 --heads 4 --layers 1 --ffn 128 --steps 400 --batch 16 --warmup 40 --eval-every 100 --lr 1e-3");
  i.lra.rows["full"] = lra_row({4096, 0, 0, 0, {}}, "--dim 64 --heads 4 --layers 2 --ffn 128 --steps 800 --batch 4 --warmup 80 --eval-every 200 --lr 1e-3");
  i.lra.rows["tiny"] = lra_row({32, 32, 16, 16, {}}, "--dim 8 --heads 2 --layers 1 --ffn 16 --steps 2 --batch 4 --warmup 1 --eval-every 2 --lr 1e-3");
  i.lra.describe = [](const LraData& d) {
    std::string n = d.n_train ? std::to_string(d.n_train) + "/" + std::to_string(d.n_val) + "/" +
                                    std::to_string(d.n_test) + " pairs"
                              : "every pair";
    return "man-page SEE ALSO pairs (manpages, manpages-dev, libssl-doc), first " + std::to_string(d.seq_len) +
           " bytes of each document, " + n + ", corpus seed 0";
  };
  i.lra.prepare = [](const LraData& d, const std::string& dir) {
    RetrievalOptions o;
    o.max_bytes = size_t(d.seq_len);
    RetrievalData r = build_retrieval(o);
    r.splits.train = lra_subset(r.splits.train, d.n_train, 11), r.splits.val = lra_subset(r.splits.val, d.n_val, 12);
    r.splits.test = lra_subset(r.splits.test, d.n_test, 13);
    for (auto [name, ds] : {std::pair<const char*, const Dataset*>{"train", &r.splits.train},
                            {"eval", &r.splits.val}, {"test", &r.splits.test}})
      write_retrieval_tsv(dir + "/pairs." + name + ".tsv", *ds);
    RetrievalBaselines b = retrieval_baselines(r.splits, nullptr, size_t(d.seq_len));
    std::ofstream out(dir + "/baselines.jsonl");  // rows of the LRA table
    out << "{\"name\": \"bag of bytes\", \"test_acc\": " << b.bag_of_bytes << "}\n"
        << "{\"name\": \"tf-idf cosine\", \"test_acc\": " << b.cosine << "}\n"
        << "{\"name\": \"length only\", \"test_acc\": " << b.length_only << "}\n";
  };
  i.lra.train_args = [](const LraData&, const std::string& dir) {
    return std::vector<std::string>{"--task", "retrieval", "--data", dir, "--baselines", "0"};
  };
  return i;
}

RegisterTask reg(info());

}  // namespace
}  // namespace az
