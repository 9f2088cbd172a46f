// Task `mqar`: multi-query associative recall (data/recall/mqar.h, after
// Zoology's multiquery_ar): N key-value pairs, then every key asked once
// among filler; the model must name each asked key's value at the query's
// position.  The token head scores only the query positions (logits are
// computed there alone, train/model.h); the metric is accuracy over the
// query positions of the split (not over examples).
//
// Causal and non-causal models read the same data: no value appears in the
// input after its query.  The data are generated from --data-seed (default 1,
// the same for every --seed, so seeds differ only in the model's
// initialisation and the batch order).  The example count is per split.
#include <cstdio>

#include "data/recall/mqar.h"
#include "train/tasks.h"

namespace az {
namespace {

MqarConfig config_of(const TaskContext& c) {
  MqarConfig m;
  m.seq_len = c.seq_len ? c.seq_len : 256;
  m.pairs = c.integer("pairs"), m.vocab = c.integer("vocab");
  m.n_train = c.integer("n-train"), m.n_val = c.integer("n-val"), m.n_test = c.integer("n-test");
  m.seed = uint64_t(c.integer("data-seed"));
  return m;
}

TaskData load(const TaskContext& c) {
  MqarConfig m = config_of(c);
  check_mqar(m);
  TaskData t;
  t.splits = mqar_splits(m);
  t.max_len = m.seq_len;
  t.num_classes = m.vocab;
  std::fprintf(stderr,
               "mqar: %lld pairs in %lld tokens, vocabulary %lld (keys %d..%d, values %d..%lld), %lld/%lld/%lld examples "
               "(data seed %llu); accuracy over query positions\n",
               (long long)m.pairs, (long long)m.seq_len, (long long)m.vocab, kMqarFirstKey, mqar_first_value(m.vocab) - 1,
               mqar_first_value(m.vocab), (long long)m.vocab - 1, (long long)m.n_train, (long long)m.n_val,
               (long long)m.n_test, (unsigned long long)m.seed);
  return t;
}

std::string describe(const LraData& d) {
  return "MQAR, " + d.extra.at("pairs") + " pairs in " + std::to_string(d.seq_len) + " tokens, vocabulary " +
         d.extra.at("vocab") + ", power_a 0.01, " + std::to_string(d.n_train) + "/" + std::to_string(d.n_val) + "/" +
         std::to_string(d.n_test) + " examples, data seed 1; accuracy over query positions";
}

LraData data(int64_t len, int64_t pairs, int64_t vocab, int64_t tr, int64_t va, int64_t te) {
  return {len, tr, va, te, {{"pairs", std::to_string(pairs)}, {"vocab", std::to_string(vocab)}}, "", "", ""};
}

TaskInfo info() {
  TaskInfo i;
  i.name = "mqar";
  i.summary = "multi-query associative recall (Zoology's MQAR): name each queried key's value; accuracy over queries";
  i.options = {int_option("pairs", 16, 1, 1 << 20, "key-value pairs per example (each key is queried once)"),
               int_option("vocab", 512, 4, 1 << 24, "vocabulary: id 0 padding, keys from the lower half, values from the upper (Zoology: 8192)"),
               int_option("n-train", 20000, 1, 100000000, "training examples"),
               int_option("n-val", 500, 1, 100000000, "validation examples"),
               int_option("n-test", 1000, 1, 100000000, "test examples"),
               int_option("data-seed", 1, 0, int64_t(1) << 40, "the generator's seed (the same data for every --seed)")};
  i.load = load;
  i.head = Head::kToken;
  i.metric = Metric::kAccuracy;
  i.cli.token_name = [](int32_t id) { return std::to_string(id); };
  // Zoology's model: dim 64, 2 layers, no dropout, and a short convolution (kernel 3) before every
  // mixer, as every model in Zoology's MQAR figures has (its BaseConv layer).  The convolution binds
  // each value to the key before it, so the task measures what the mixer recalls over distance;
  // without it full attention sits for thousands of steps on the 1/N plateau (naming one of the
  // example's values, not the right one), in PyTorch as here (docs/recall/README.md).
  i.flag_defaults = {{"dim", "64"}, {"layers", "2"}, {"dropout", "0"}, {"lr", "3e-3"}, {"schedule", "constant"},
                     {"warmup", "100"}, {"short-conv", "3"}};
  i.default_steps = [](const TaskContext&) -> int64_t { return 3000; };
  i.lra.title = "Recall";
  i.lra.order = 6;
  i.lra.describe = describe;
  i.lra.prepare = [](const LraData&, const std::string&) {};  // generated in memory by every cell, from --data-seed 1
  i.lra.train_args = [](const LraData& d, const std::string&) {
    return std::vector<std::string>{"--task", "mqar", "--short-conv", "3", "--pairs", d.extra.at("pairs"), "--vocab", d.extra.at("vocab"),
                                    "--n-train", std::to_string(d.n_train), "--n-val", std::to_string(d.n_val),
                                    "--n-test", std::to_string(d.n_test)};
  };
  // The mini preset's Recall column (the 20-model picture): 16 pairs in 256 tokens, the recall
  // sweep's state point, where full attention (with the short convolution) passes 0.99 near step 750
  // and a fixed-size state must forget; Zoology's model size, about 4 CPU-minutes per cell of full
  // attention.  The metric is accuracy over the query positions; the harness's schedule is cosine.
  i.lra.rows["mini"] = lra_row(data(256, 16, 512, 20000, 500, 1000), "--dim 64 --heads 4 --layers 2 --ffn 128 --steps 1000 --batch 32 --warmup 100 --eval-every 250 --lr 3e-3");
  return i;
}

RegisterTask reg(info());

}  // namespace
}  // namespace az
