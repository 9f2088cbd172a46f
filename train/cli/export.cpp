// `attnzoo export` and `attnzoo import`: a checkpoint's model as a safetensors
// file (train/safetensors.h) that other frameworks read, and back.
//
// The file holds every named parameter and buffer under the name
// named_parameters() / named_buffers() give it ("blocks.0.mixer.proj.q.weight"),
// so a randomised variant (performer's features, reformer's rotations,
// bigbird's random-block seeds, routing's centroids) is fully determined.
// Linear weights are stored [in, out], as this program holds them (PyTorch's
// nn.Linear holds [out, in]: transpose when loading there; tests/golden/twin.py
// shows how).  The metadata holds the model configuration as model.KEY
// (ModelConfig::to_map), the training configuration as train.KEY
// (TrainConfig::to_map), "format" = "attnzoo" and "buffers", the buffer names
// separated by commas.  Import rebuilds a checkpoint that eval, predict and
// attnmap read; it carries no optimizer state and no data position.
// `--data-out F` also writes a split as the batches eval forms (data.K.tokens,
// data.K.pad_mask, data.K.labels, data.K.patches), so another framework can
// compare predictions example by example.
#include <cstdio>

#include "train/cli.h"
#include "train/cli/commands.h"
#include "train/safetensors.h"
#include "train/trainer.h"

namespace az {

namespace {
const char* kFormat = "attnzoo";

std::map<std::string, std::string> metadata_of(const ModelConfig& mc, const TrainConfig& tc, const Module& m) {
  std::map<std::string, std::string> meta;
  meta["format"] = kFormat;
  // Every knob, defaults included, so that another framework needs no registry.
  ModelConfig full = mc;
  for (auto& k : attention_info(mc.model).knobs) full.knobs.emplace(k.name, k.def);
  for (auto& [k, v] : full.to_map()) meta["model." + k] = v;
  for (auto& [k, v] : tc.to_map()) meta["train." + k] = v;
  std::string buffers;
  for (auto& b : m.named_buffers()) buffers += (buffers.empty() ? "" : ",") + b.name;
  meta["buffers"] = buffers;
  return meta;
}

std::map<std::string, std::string> with_prefix(const std::map<std::string, std::string>& meta, const std::string& p) {
  std::map<std::string, std::string> out;
  for (auto& [k, v] : meta)
    if (k.rfind(p, 0) == 0) out[k.substr(p.size())] = v;
  return out;
}

TensorRecord as_floats(const std::string& name, const Shape& shape, const std::vector<int32_t>& v) {
  return {name, shape, std::vector<float>(v.begin(), v.end())};  // ids and labels < 2^24: exact
}
}  // namespace

int cmd_export(const std::vector<std::string>& args) {
  for (auto& a : args)
    if (a == "--help" || a == "-h")
      return std::printf(
                 "attnzoo export --ckpt CKPT --out F.safetensors [--data-out D.safetensors --split test|val|train]\n"
                 "  writes the model's parameters and buffers (names as in the checkpoint, Linear weights [in,out])\n"
                 "  with the model and training configuration as metadata; --data-out also writes a split\n"
                 "  as the batches `attnzoo eval` forms\n"),
             0;
  Flags f("export", args, {"ckpt", "out", "data-out", "split", "data"}, {});
  if (!f.has("ckpt")) fail("export: --ckpt CKPT is required");
  if (!f.has("out")) fail("export: --out F.safetensors is required");
  std::string path = f.str("ckpt", "");
  Checkpoint ck = load_checkpoint(path);
  TrainConfig tc = TrainConfig::from_map(ck.train_config);
  ModelConfig mc = ModelConfig::from_map(ck.model_config);
  SequenceClassifier model(mc);
  load_into(model.named_parameters(), ck.params, "parameter", path);
  load_into(model.named_buffers(), ck.buffers, "buffer", path);
  std::vector<TensorRecord> tensors = records_of(model.named_parameters());
  for (auto& b : records_of(model.named_buffers())) tensors.push_back(b);
  std::string out = f.str("out", "");
  save_safetensors(out, tensors, metadata_of(mc, tc, model));
  std::printf("%s: %zu parameters and buffers of %s (%lld trainable values) written to %s\n", path.c_str(), tensors.size(),
              mc.model.c_str(), (long long)model.num_parameters(), out.c_str());
  if (!f.has("data-out")) return 0;
  if (f.has("data")) tc.data = f.str("data", "");
  TaskData data = load_task(tc, mc.model, mc.max_len);
  apply_task_shape(mc, data.shape);
  std::string split = f.str("split", "test");
  const Dataset* d = split == "test" ? &data.splits.test : split == "val" ? &data.splits.val
                     : split == "train" ? &data.splits.train : nullptr;
  if (!d) fail("export: --split must be train, val or test, got '" + split + "'");
  std::vector<TensorRecord> rows;
  std::vector<Batch> batches = eval_batches(*d, data.opts);
  for (size_t k = 0; k < batches.size(); ++k) {
    const Batch& b = batches[k];
    std::string p = "data." + std::to_string(k) + ".";
    Shape bn = {b.B, b.N};
    if (b.patch_dim > 0) rows.push_back({p + "patches", {b.B, b.N, b.patch_dim}, b.patches});
    else rows.push_back(as_floats(p + "tokens", bn, b.tokens));
    rows.push_back({p + "pad_mask", bn, b.pad_mask});
    rows.push_back(as_floats(p + "labels", {b.B}, b.labels));
  }
  std::string dout = f.str("data-out", "");
  save_safetensors(dout, rows, {{"format", kFormat}, {"split", split}, {"batches", std::to_string(batches.size())}});
  std::printf("%s split: %zu examples in %zu batches written to %s\n", split.c_str(), d->size(), batches.size(),
              dout.c_str());
  return 0;
}

int cmd_import(const std::vector<std::string>& args) {
  for (auto& a : args)
    if (a == "--help" || a == "-h")
      return std::printf("attnzoo import --in F.safetensors --out CKPT\n"
                         "  rebuilds a checkpoint (for eval, predict, attnmap) from a file `attnzoo export` wrote,\n"
                         "  or any file with the same tensor names and model.* / train.* metadata\n"),
             0;
  Flags f("import", args, {"in", "out"}, {});
  if (!f.has("in")) fail("import: --in F.safetensors is required");
  if (!f.has("out")) fail("import: --out CKPT is required");
  std::string in = f.str("in", "");
  Safetensors st = load_safetensors(in);
  auto model_meta = with_prefix(st.metadata, "model."), train_meta = with_prefix(st.metadata, "train.");
  if (model_meta.empty() || train_meta.empty())
    fail("import: " + in + " has no model.* or train.* metadata (expected a file written by attnzoo export)");
  ModelConfig mc = ModelConfig::from_map(model_meta);
  TrainConfig tc = TrainConfig::from_map(train_meta);
  tc.validate();
  SequenceClassifier model(mc);
  // Each tensor goes to the parameter or buffer of its name; load_into names
  // any missing one and any shape that differs, and the count catches extras.
  std::map<std::string, bool> is_buffer;
  for (auto& p : model.named_parameters()) is_buffer[p.name] = false;
  for (auto& b : model.named_buffers()) is_buffer[b.name] = true;
  std::vector<TensorRecord> params, buffers;
  for (auto& t : st.tensors) {
    auto it = is_buffer.find(t.name);
    if (it == is_buffer.end())
      fail("import: " + in + " has tensor '" + t.name + "', which a " + mc.model + " model of this configuration lacks");
    (it->second ? buffers : params).push_back(t);
  }
  load_into(model.named_parameters(), params, "parameter", in);
  load_into(model.named_buffers(), buffers, "buffer", in);
  Checkpoint ck;
  ck.model_config = mc.to_map();
  ck.train_config = tc.to_map();
  ck.params = records_of(model.named_parameters());
  ck.buffers = records_of(model.named_buffers());
  ck.rng = Rng(tc.seed).state();
  std::string out = f.str("out", "");
  save_checkpoint(out, ck);
  std::printf("%s: %zu parameters and %zu buffers of %s written to checkpoint %s\n", in.c_str(), ck.params.size(),
              ck.buffers.size(), mc.model.c_str(), out.c_str());
  return 0;
}

}  // namespace az
