// attnzoo predict --ckpt CKPT [INPUT ...]: the top classes of a trained model
// for new inputs (image files, texts, ListOps expressions, pairs of documents:
// whatever the checkpoint's task reads, see its `read_inputs`), with their
// probabilities; --json prints one JSON object per input.  The task's own
// preprocessing (image size, channels, patches, byte limit) comes from the
// checkpoint; class names too.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "train/checkpoint.h"
#include "train/cli.h"
#include "train/cli/commands.h"
#include "train/parallel.h"
#include "train/tasks.h"
#include "train/trainer.h"

namespace az {

int cmd_predict(const std::vector<std::string>& args) {
  for (auto& a : args)
    if (a == "--help" || a == "-h")
      return std::printf("attnzoo predict --ckpt CKPT [--top K] [--json] [--impl fast|reference] [--parallel auto|batch|ops]\n"
                         "                [--profile] INPUT ...\n"
                         "  the model's top K classes (default 3) with probabilities for each input: image files,\n"
                         "  text files or texts, ListOps expressions, pairs of documents (A1 B1 A2 B2 ...), as the\n"
                         "  checkpoint's task reads them; without inputs, one input per line of standard input\n"),
             0;
  // flags first, then the inputs
  std::vector<std::string> flags, inputs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--json") flags.push_back(args[i]);
    else if ((args[i] == "--ckpt" || args[i] == "--top" || args[i] == "--impl" || args[i] == "--parallel") && i + 1 < args.size())
      flags.push_back(args[i]), flags.push_back(args[++i]);
    else if (args[i].rfind("--", 0) == 0) flags.push_back(args[i]);
    else inputs.push_back(args[i]);
  }
  Flags f("predict", flags, {"ckpt", "top", "impl", "parallel"}, {"json", "profile"});
  f.apply_impl();
  Profiler::enabled = f.on("profile");  // time per op on stderr at the end
  if (!f.has("ckpt")) fail("predict: --ckpt CKPT is required");
  int64_t top = f.integer("top", 3);
  if (top < 1) fail("predict: --top must be positive, got " + std::to_string(top));
  if (inputs.empty())
    for (std::string line; std::getline(std::cin, line);)
      if (!line.empty()) inputs.push_back(line);
  if (inputs.empty()) fail("predict: no inputs (give them after the flags, or one per line on standard input)");

  std::string path = f.str("ckpt", "");
  Checkpoint ck = load_checkpoint(path);
  TrainConfig tc = TrainConfig::from_map(ck.train_config);
  ModelConfig mc = ModelConfig::from_map(ck.model_config);
  const TaskInfo& task = task_info(tc.task);
  if (!task.cli.read_inputs) fail("predict: task '" + tc.task + "' takes no new inputs");
  if (task.head == Head::kToken) fail("predict: task '" + tc.task + "' predicts at every position; use generate");
  TaskContext c;
  c.task = tc.task, c.seq_len = mc.max_len, c.batch = tc.batch, c.seed = tc.seed, c.opt = task_settings(tc);
  TaskData data = task.cli.read_inputs(inputs, c);
  data.opts.batch = 32, data.opts.max_len = int(mc.max_len);
  SequenceClassifier model(mc);
  load_into(model.named_parameters(), ck.params, "parameter", path);
  load_into(model.named_buffers(), ck.buffers, "buffer", path);
  model.eval();
  NoGradGuard ng;
  const std::vector<std::string>& names = tc.class_names;
  size_t k = 0, per = task.head == Head::kPair ? 2 : 1;
  // Every batch's logits, in shards as evaluation scores them (train/parallel.h: scoring_pieces),
  // then printed in input order.
  const std::vector<Batch> batches = eval_batches(data.splits.test, data.opts);
  const std::vector<ScoringPiece> pieces = scoring_pieces(batches);
  std::vector<Tensor> all_logits(pieces.size());
  run_scoring(int64_t(pieces.size()), [&](int64_t i) { all_logits[size_t(i)] = model.forward(piece_of(batches, pieces[size_t(i)])); });
  if (f.on("profile")) std::fprintf(stderr, "%s", Profiler::table().c_str()), Profiler::enabled = false;
  for (size_t bi = 0; bi < pieces.size(); ++bi) {
    const Tensor& logits = all_logits[bi];
    int64_t C = logits.size(1);
    for (int64_t i = 0; i < pieces[bi].rows.rows; ++i, ++k) {
      // softmax of the row, in double
      const float* row = logits.data() + i * C;
      std::vector<double> p(static_cast<size_t>(C));
      double mx = *std::max_element(row, row + C), z = 0;
      for (int64_t j = 0; j < C; ++j) z += (p[size_t(j)] = std::exp(double(row[j]) - mx));
      std::vector<int64_t> order(static_cast<size_t>(C));
      for (int64_t j = 0; j < C; ++j) order[size_t(j)] = j;
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b2) { return p[size_t(a)] > p[size_t(b2)]; });
      auto name = [&](int64_t j) { return size_t(j) < names.size() ? names[size_t(j)] : std::to_string(j); };
      std::string input = inputs[k * per];
      if (per == 2) input += " | " + inputs[k * per + 1];
      if (f.on("json")) {
        rapidjson::StringBuffer buf;
        rapidjson::Writer<rapidjson::StringBuffer> w(buf);
        w.StartObject();
        w.Key("input"), w.String(input.c_str());
        w.Key("top"), w.StartArray();
        for (int64_t r = 0; r < std::min<int64_t>(top, C); ++r) {
          w.StartObject();
          w.Key("class"), w.String(name(order[size_t(r)]).c_str());
          w.Key("p"), w.Double(p[size_t(order[size_t(r)])] / z);
          w.EndObject();
        }
        w.EndArray(), w.EndObject();
        std::printf("%s\n", buf.GetString());
      } else {
        std::string line = input.size() > 60 ? input.substr(0, 57) + "..." : input;
        for (char& ch : line)
          if (ch == '\n' || ch == '\t') ch = ' ';
        std::printf("%s:", line.c_str());
        for (int64_t r = 0; r < std::min<int64_t>(top, C); ++r)
          std::printf("%s %s %.3f", r ? "," : "", name(order[size_t(r)]).c_str(), p[size_t(order[size_t(r)])] / z);
        std::printf("\n");
      }
    }
  }
  return 0;
}

}  // namespace az
