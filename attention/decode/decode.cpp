// Incremental decoding states (see decode.h).  One position at a time, batch
// 1, no graph: the per-head work is a few loops over the cache or the state.
#include "attention/decode/decode.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace az {
namespace {

// The KV cache, a ring of `keep` positions (all of them when keep = 0), shared by
// the heads; head h reads the keys t - k*stride[h], k = 0..window[h].
class KvCache : public DecodeState {
 public:
  KvCache(std::shared_ptr<QKVProjection> proj, std::vector<int64_t> windows, std::vector<int64_t> strides)
      : proj_(std::move(proj)), H_(int64_t(windows.size())), windows_(std::move(windows)), strides_(std::move(strides)) {
    keep_ = 0;
    for (int64_t h = 0; h < H_; ++h) {
      strides_[size_t(h)] = std::max<int64_t>(1, strides_[size_t(h)]);
      if (windows_[size_t(h)] < 0) keep_ = -1;  // some head reads every key
      else if (keep_ >= 0) keep_ = std::max(keep_, windows_[size_t(h)] * strides_[size_t(h)] + 1);
    }
    if (keep_ < 0) keep_ = 0;
    K_.resize(size_t(H_)), V_.resize(size_t(H_));
  }

  Tensor step(const Tensor& x) override {
    NoGradGuard ng;
    auto h = proj_->project(x);  // [1,H,1,d]
    const int64_t d = h.q.size(3), t = t_++;
    const int64_t slot = keep_ ? t % keep_ : t;
    const float scale = 1.0f / std::sqrt(float(d));
    Tensor out = Tensor::zeros({1, H_, 1, d});
    for (int64_t hd = 0; hd < H_; ++hd) {
      const int64_t window_ = windows_[size_t(hd)], stride_ = strides_[size_t(hd)];
      std::vector<float>&K = K_[size_t(hd)], &V = V_[size_t(hd)];
      if (int64_t(K.size()) < (slot + 1) * d) K.resize(size_t((slot + 1) * d)), V.resize(size_t((slot + 1) * d));
      std::copy_n(h.k.data() + hd * d, d, K.begin() + slot * d);
      std::copy_n(h.v.data() + hd * d, d, V.begin() + slot * d);
      const float* q = h.q.data() + hd * d;
      // the keys read: t - k*stride, k = 0..window (all of 0..t when window < 0)
      int64_t n = window_ < 0 ? t + 1 : std::min(window_, t / stride_) + 1;
      scores_.resize(size_t(n));
      if (window_ < 0) {  // every key, stored in order: two matrix-vector products (sgemv)
        cblas_sgemv(CblasRowMajor, CblasNoTrans, int(n), int(d), scale, K.data(), int(d), q, 1, 0.0f, scores_.data(), 1);
        float mx = *std::max_element(scores_.begin(), scores_.end()), sum = 0;
        for (auto& s : scores_) s = std::exp(s - mx), sum += s;
        cblas_sgemv(CblasRowMajor, CblasTrans, int(n), int(d), 1.0f / sum, V.data(), int(d), scores_.data(), 1, 0.0f,
                    out.data() + hd * d, 1);
        continue;
      }
      float mx = -INFINITY;
      for (int64_t k = 0; k < n; ++k) {
        int64_t j = window_ < 0 ? k : t - k * stride_;
        const float* kj = K.data() + (keep_ ? j % keep_ : j) * d;
        float s = 0;
        for (int64_t e = 0; e < d; ++e) s += q[e] * kj[e];
        scores_[size_t(k)] = s * scale;
        mx = std::max(mx, scores_[size_t(k)]);
      }
      float sum = 0;
      for (auto& s : scores_) s = std::exp(s - mx), sum += s;
      float* o = out.data() + hd * d;
      for (int64_t k = 0; k < n; ++k) {
        int64_t j = window_ < 0 ? k : t - k * stride_;
        const float* vj = V.data() + (keep_ ? j % keep_ : j) * d;
        float p = scores_[size_t(k)] / sum;
        for (int64_t e = 0; e < d; ++e) o[e] += p * vj[e];
      }
    }
    return proj_->output(out);
  }

  int64_t state_bytes() const override {
    int64_t n = 0;
    for (int64_t hd = 0; hd < H_; ++hd) n += int64_t(K_[size_t(hd)].size() + V_[size_t(hd)].size());
    return n * int64_t(sizeof(float));
  }
  std::string kind() const override {
    if (keep_ == 0) return "KV cache";
    return "KV cache of the last " + std::to_string(keep_) + " positions (reads " + std::to_string(windows_[0] + 1) +
           " per head)";
  }

 private:
  std::shared_ptr<QKVProjection> proj_;
  int64_t H_;
  std::vector<int64_t> windows_, strides_;  // per head (window < 0: every key)
  int64_t keep_, t_ = 0;
  std::vector<std::vector<float>> K_, V_;  // per head, [slots, d]
  std::vector<float> scores_;
};

class Recurrent : public DecodeState {
 public:
  Recurrent(std::shared_ptr<QKVProjection> proj, FeatureFn f, float eps, KernelNorm norm)
      : proj_(std::move(proj)), features_(std::move(f)), eps_(eps), norm_(norm) {}

  Tensor step(const Tensor& x) override {
    NoGradGuard ng;
    auto h = features_(x);  // phi(q), phi(k) [1,H,1,m], v [1,H,1,d]
    const int64_t H = h.q.size(1), m = h.q.size(3), d = h.v.size(3);
    if (S_.empty()) S_.assign(size_t(H * m * d), 0.0f), z_.assign(size_t(H * m), 0.0f);
    Tensor out = Tensor::zeros({1, H, 1, d});
    for (int64_t hd = 0; hd < H; ++hd) {
      const float *q = h.q.data() + hd * m, *k = h.k.data() + hd * m, *v = h.v.data() + hd * d;
      float* S = S_.data() + hd * m * d;
      float* z = z_.data() + hd * m;
      for (int64_t i = 0; i < m; ++i) {  // S += phi(k) v^T, z += phi(k)
        for (int64_t e = 0; e < d; ++e) S[i * d + e] += k[i] * v[e];
        z[i] += k[i];
      }
      float den = 0;
      float* o = out.data() + hd * d;
      for (int64_t i = 0; i < m; ++i) {
        den += q[i] * z[i];
        for (int64_t e = 0; e < d; ++e) o[e] += q[i] * S[i * d + e];
      }
      den = norm_ == KernelNorm::add_eps ? den + eps_ : std::max(den, eps_);
      for (int64_t e = 0; e < d; ++e) o[e] /= den;
    }
    return proj_->output(out);
  }

  int64_t state_bytes() const override { return int64_t((S_.size() + z_.size()) * sizeof(float)); }
  std::string kind() const override { return "recurrent state"; }

 private:
  std::shared_ptr<QKVProjection> proj_;
  FeatureFn features_;
  float eps_;
  KernelNorm norm_;
  std::vector<float> S_, z_;  // per head: S [m,d], z [m]
};

}  // namespace

std::unique_ptr<DecodeState> kv_cache_state(std::shared_ptr<QKVProjection> proj, int64_t heads, int64_t window,
                                            int64_t stride) {
  return std::make_unique<KvCache>(std::move(proj), std::vector<int64_t>(size_t(heads), window),
                                   std::vector<int64_t>(size_t(heads), stride));
}

std::unique_ptr<DecodeState> kv_cache_state(std::shared_ptr<QKVProjection> proj, std::vector<int64_t> windows,
                                            std::vector<int64_t> strides) {
  return std::make_unique<KvCache>(std::move(proj), std::move(windows), std::move(strides));
}

std::unique_ptr<DecodeState> recurrent_state(std::shared_ptr<QKVProjection> proj, FeatureFn features, float eps,
                                             KernelNorm norm) {
  return std::make_unique<Recurrent>(std::move(proj), std::move(features), eps, norm);
}

std::unique_ptr<DecodeState> make_decode_state(Attention& a) {
  if (!a.config().causal) fail("decode: the layer is not causal (incremental decoding needs --causal)");
  if (attention_impl() == Impl::reference) return nullptr;  // the reference form keeps no state: re-run the prefix
  return a.decoder();
}

}  // namespace az
