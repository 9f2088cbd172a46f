// Task `listops`: LRA's ListOps (data/listops/listops.h): nested MIN/MAX/MED/SM
// expressions, one token per symbol, the value 0-9 as the class.  Generated
// in memory from the seed (a small default, or LRA's sizes with --preset lra),
// or LRA's TSV files read with --data DIR.  The model's length fits the
// longest expression: a --seq-len shorter than one is refused, never cut.
#include <cstdio>

#include "data/listops/listops.h"
#include "train/cli.h"
#include "train/tasks.h"

namespace az {
namespace {

TaskData load(const TaskContext& c) {
  TaskData t;
  bool lra = c.str("preset") == "lra";
  t.splits = c.data.empty() ? generate_listops(lra ? listops_lra_preset() : listops_default()) : load_listops_dir(c.data);
  int64_t longest = longest_sequence(t.splits);
  if (c.seq_len && longest > c.seq_len)
    fail("listops: the longest expression has " + std::to_string(longest) + " tokens, more than --seq-len " +
         std::to_string(c.seq_len) + " (raise --seq-len to at least " + std::to_string(longest) + "; nothing is cut)");
  int64_t def = lra ? 2000 : 128;  // the model's length when --seq-len is not given, grown to fit
  t.max_len = c.seq_len ? c.seq_len : std::max(def, longest);
  if (!c.seq_len && t.max_len > def)
    std::fprintf(stderr, "listops: --seq-len %lld, the longest expression in the data\n", (long long)t.max_len);
  return t;
}

std::string describe(const LraData& d) {
  return "ListOps, LRA's rules at depth " + d.extra.at("depth") + ", arity 2-" + d.extra.at("args") + ", " +
         d.extra.at("min") + " < length < " + std::to_string(d.seq_len) + ", " + std::to_string(d.n_train) + "/" +
         std::to_string(d.n_val) + "/" + std::to_string(d.n_test) + " examples, seed 1";
}

void prepare(const LraData& d, const std::string& dir) {
  ListOpsConfig c;
  c.min_len = std::stoi(d.extra.at("min")), c.max_len = int(d.seq_len);
  c.max_depth = std::stoi(d.extra.at("depth")), c.max_args = std::stoi(d.extra.at("args"));
  c.n_train = int(d.n_train), c.n_val = int(d.n_val), c.n_test = int(d.n_test), c.seed = 1;
  write_listops_dir(c, dir);
}

LraData data(int64_t len, int64_t tr, int64_t va, int64_t te, int min, int depth, int args) {
  return {len, tr, va, te, {{"min", std::to_string(min)}, {"depth", std::to_string(depth)}, {"args", std::to_string(args)}}};
}

int data_command(const std::vector<std::string>& args) {
  Flags f("data listops", args, {"out", "preset", "seed"}, {});
  if (!f.has("out")) fail("data listops: --out DIR is required");
  std::string preset = f.str("preset", "");
  if (preset != "" && preset != "lra") fail("data listops: --preset must be lra (or omitted), got '" + preset + "'");
  ListOpsConfig c = preset == "lra" ? listops_lra_preset() : listops_default();
  c.seed = uint64_t(f.integer("seed", int64_t(c.seed)));
  write_listops_dir(c, f.str("out", ""));
  std::printf("wrote ListOps (%d/%d/%d examples, %d-%d tokens) to %s\n", c.n_train, c.n_val, c.n_test, c.min_len,
              c.max_len, f.str("out", "").c_str());
  return 0;
}

TaskInfo info() {
  TaskInfo i;
  i.name = "listops";
  i.summary = "LRA's ListOps: the value (0-9) of a nested MIN/MAX/MED/SM expression";
  i.options = {text_option("preset", "", {"", "lra"}, "lra: LRA's sizes (500-2000 tokens, depth 10, arity 10, 96K/2K/2K)")};
  i.load = load;
  i.cli.token_name = listops_token_name;
  i.cli.input_help = "ListOps expressions, e.g. '[MAX 2 9 [MIN 4 7 ] 0 ]'";
  i.cli.read_inputs = [](const std::vector<std::string>& in, const TaskContext& c) {
    TaskData t;
    Dataset& d = t.splits.test;
    d.vocab_size = kListOpsVocab;
    for (auto& e : in) {
      std::vector<int32_t> ids = listops_tokenize(e);
      if (int64_t(ids.size()) > c.seq_len)
        fail("predict: '" + e + "' has " + std::to_string(ids.size()) + " tokens, more than the model's " +
             std::to_string(c.seq_len));
      d.seqs.push_back(ids), d.labels.push_back(0);
    }
    t.max_len = c.seq_len;
    return t;
  };
  i.cli.data_name = "listops";
  i.cli.data_help = "attnzoo data listops --out DIR [--preset lra] [--seed S]   ListOps TSV files (train/val/test.tsv)\n";
  i.cli.data_command = data_command;
  i.lra.title = "ListOps";
  i.lra.order = 1;
  i.lra.rows["quick"] = lra_row(data(128, 2000, 200, 200, 20, 4, 5), "--dim 32 --heads 2 --layers 1 --ffn 64 --steps 60 --batch 16 --warmup 10 --eval-every 30 --lr 1e-3");
  i.lra.rows["mini"] = lra_row(data(1000, 10000, 500, 2000, 250, 10, 10), "--dim 64 --heads 4 --layers 2 --ffn 128 --steps 600 --batch 16 --warmup 60 --eval-every 150 --lr 1e-3");
  i.lra.rows["full"] = lra_row(data(2000, 96000, 1000, 2000, 500, 10, 10), "--dim 64 --heads 4 --layers 2 --ffn 128 --steps 800 --batch 8 --warmup 80 --eval-every 200 --lr 1e-3");
  i.lra.rows["tiny"] = lra_row(data(40, 64, 16, 16, 5, 3, 3), "--dim 8 --heads 2 --layers 1 --ffn 16 --steps 4 --batch 4 --warmup 1 --eval-every 2 --lr 1e-3");
  i.lra.describe = describe;
  i.lra.prepare = prepare;
  i.lra.train_args = [](const LraData&, const std::string& dir) {
    return std::vector<std::string>{"--task", "listops", "--data", dir};
  };
  return i;
}

RegisterTask reg(info());

}  // namespace
}  // namespace az
