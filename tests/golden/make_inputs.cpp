// make_inputs: the inputs of the golden tests (run by `make golden`).
//
// For every case below: a small SequenceClassifier (dim 16, 2 heads, N = 12 of
// max_len 14, a batch of 3 whose second example is padded after 8 tokens),
// every parameter perturbed by N(0, 0.05^2) so that zero biases, unit norms and
// gMLP's near-zero spatial weights all matter, written with its buffers, the
// batch (batch.tokens or batch.patches, batch.pad_mask, batch.labels) and the
// model configuration (model.KEY metadata, as `attnzoo export` writes it) to
// DIR/CASE.in.safetensors.  tests/golden/twin.py reads these, computes logits,
// loss and gradients in PyTorch and writes tests/golden/CASE.safetensors.
//   usage: make_inputs DIR
#include <cstdio>

#include "train/model.h"
#include "train/safetensors.h"

using namespace az;

namespace {

struct Case {
  const char* name;
  const char* model;
  std::map<std::string, double> knobs;
  bool causal = false;
  const char* pool = "mean";
  const char* positions = "learned";
  int64_t patch_dim = 0, layers = 1;
};

// One or two rows per model: the default form, the causal form where the
// variant has one, and the other embedding, pooling and position choices.
const std::vector<Case> kCases = {
    {"full", "full", {}, false, "mean", "learned", 0, 2},
    {"full_cls_sinusoidal", "full", {}, false, "cls", "sinusoidal"},
    {"full_patches", "full", {}, false, "mean", "learned", 5},
    {"full_causal", "full", {}, true},
    {"local", "local", {{"window", 3}, {"block", 4}}},
    {"local_causal", "local", {{"window", 3}, {"block", 5}}, true},
    {"linear", "linear", {}},
    {"linear_causal", "linear", {}, true},
    {"performer", "performer", {{"features", 8}}},
    {"performer_causal", "performer", {{"features", 8}}, true},
    {"linformer", "linformer", {{"proj_k", 5}}},
    {"linformer_per_head_shared_kv", "linformer", {{"proj_k", 5}, {"share_heads", 0}, {"share_kv", 1}}},
    {"synthesizer", "synthesizer", {{"synth_mode", 0}}},
    {"synthesizer_causal", "synthesizer", {{"synth_mode", 0}}, true},
    {"synthesizer_random", "synthesizer", {{"synth_mode", 1}}},
    {"synthesizer_factorised", "synthesizer", {{"synth_mode", 2}, {"synth_rank", 3}}},
    {"mixer", "mixer", {{"token_hidden", 6}}},
    {"mixer_causal", "mixer", {}, true},
    {"gmlp", "gmlp", {{"hidden", 24}}},
    {"gmlp_causal", "gmlp", {{"hidden", 24}}, true},
    {"fnet", "fnet", {}},
    {"flash", "flash", {{"block_q", 4}, {"block_k", 5}}},
    {"flash_causal", "flash", {{"block_q", 4}, {"block_k", 5}}, true},
    {"strided", "strided", {{"window", 2}, {"stride", 3}, {"block", 4}}},
    {"strided_causal", "strided", {{"window", 2}, {"stride", 3}, {"block", 4}}, true},
    {"global", "global", {{"globals", 2}, {"learned", 0}, {"block", 5}}},
    {"global_learned", "global", {{"globals", 2}, {"learned", 1}, {"block", 5}}},
    {"longformer", "longformer", {{"window", 2}, {"dilation", 2}, {"globals", 1}, {"block", 4}}},
    {"longformer_causal", "longformer", {{"window", 2}, {"dilation", 2}, {"globals", 0}, {"block", 4}}, true},
    {"bigbird", "bigbird", {{"block", 2}, {"random_blocks", 1}}},
    {"compressed", "compressed", {{"compress", 3}}},
    {"efficient", "efficient", {}},
    {"rfa", "rfa", {{"features", 8}}},
    {"rfa_causal", "rfa", {{"features", 8}}, true},
    {"reformer", "reformer", {{"bucket_size", 3}, {"hashes", 2}, {"buckets", 4}}},
    {"routing", "routing", {{"clusters", 3}, {"window", 4}}},
    {"sinkhorn", "sinkhorn", {{"block", 3}, {"sinkhorn_iters", 2}, {"temperature", 0.05}}},
    // Blocks, chunks and strides that do not divide N = 12: the padded tails.
    {"compressed_ragged", "compressed", {{"compress", 5}}},
    {"reformer_ragged", "reformer", {{"bucket_size", 5}, {"hashes", 3}, {"buckets", 0}}},
    {"sinkhorn_ragged", "sinkhorn", {{"block", 5}, {"sinkhorn_iters", 3}, {"temperature", 0.1}}},
};

constexpr int64_t kB = 3, kN = 12, kVocab = 20, kClasses = 4;

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return std::fprintf(stderr, "usage: make_inputs DIR\n"), 2;
  std::string dir = argv[1];
  try {
    for (const Case& c : kCases) {
      ModelConfig mc;
      mc.model = c.model, mc.vocab = kVocab, mc.patch_dim = c.patch_dim, mc.num_classes = kClasses;
      mc.max_len = 14, mc.dim = 16, mc.heads = 2, mc.layers = c.layers, mc.ffn = 24;
      mc.dropout = 0, mc.attn_dropout = 0, mc.pool = choice_from<Pool>(c.pool), mc.positions = choice_from<Positions>(c.positions), mc.causal = c.causal;
      mc.knobs = c.knobs;
      for (auto& k : attention_info(c.model).knobs) mc.knobs.emplace(k.name, k.def);  // every knob in the metadata
      global_rng().seed_with(1234);
      SequenceClassifier model(mc);
      Rng rng(99);
      std::vector<TensorRecord> ts;
      for (auto& p : model.named_parameters()) {
        float* v = p.tensor.data();
        for (int64_t i = 0; i < p.tensor.numel(); ++i) v[i] += 0.05f * rng.normal();
        ts.push_back({p.name, p.tensor.shape(), p.tensor.to_vector()});
      }
      std::string buffers;
      for (auto& b : model.named_buffers()) {
        ts.push_back({b.name, b.tensor.shape(), b.tensor.to_vector()});
        buffers += (buffers.empty() ? "" : ",") + b.name;
      }
      // The batch: example 1 is 8 real tokens then padding (id 0, mask 1).
      std::vector<float> tokens, pad, labels, patches;
      for (int64_t i = 0; i < kB; ++i) {
        for (int64_t j = 0; j < kN; ++j) {
          bool padded = i == 1 && j >= 8;
          tokens.push_back(padded ? 0.0f : float(1 + rng.randint(kVocab - 1)));
          pad.push_back(padded ? 1.0f : 0.0f);
          for (int64_t k = 0; k < c.patch_dim; ++k) patches.push_back(padded ? 0.0f : rng.uniform());
        }
        labels.push_back(float(rng.randint(kClasses)));
      }
      if (c.patch_dim) ts.push_back({"batch.patches", {kB, kN, c.patch_dim}, patches});
      else ts.push_back({"batch.tokens", {kB, kN}, tokens});
      ts.push_back({"batch.pad_mask", {kB, kN}, pad});
      ts.push_back({"batch.labels", {kB}, labels});
      std::map<std::string, std::string> meta = {{"case", c.name}, {"buffers", buffers}};
      for (auto& [k, v] : mc.to_map()) meta["model." + k] = v;
      save_safetensors(dir + "/" + c.name + ".in.safetensors", ts, meta);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_inputs: %s\n", e.what());
    return 1;
  }
  std::printf("make_inputs: %zu cases written to %s\n", kCases.size(), dir.c_str());
  return 0;
}
