// fnet: token mixing by the real part of a 2-D Fourier transform (Lee-Thorp
// et al. 2021, "FNet: Mixing Tokens with Fourier Transforms"; conventions of
// HF transformers modeling_fnet: fftn over (positions, channels), real part).
//
// What mixes what: every output position is a fixed (parameter-free) linear
// combination of every input position and channel, y = Re(F_N X F_D).  There is
// no attention matrix and nothing is learned; cost O(N D log(N D)) per example
// through FFTW (mlp_mixer/fft_op.*), linear-logarithmic in N.
//
// The defaults rescale and transform per example's own length: with padding,
// example b is transformed over its n_b rows up to its last real token and
// scaled by 1/sqrt(n_b D), not over the batch's padded length (HF and the paper
// use neither: unscaled, over the whole padded input).  Two deliberate
// choices, both knobs:
//  * ortho (default 1): scale by 1/sqrt(N D), the unitary DFT.  FNet is post-LN
//    (LN(x + FFT(x))); our blocks are pre-norm (x + mixer(LN(x))), where an
//    unscaled transform would add a term sqrt(N D) times larger than the
//    residual stream and drown every later sublayer.  ortho 0 is HF's unscaled form.
//  * own_length (default 1): padding.  Padded rows are zeroed before the
//    transform, so they contribute nothing to any output.  The DFT still mixes
//    over its length, so with own_length 0 an example's outputs depend
//    on how far its batch was padded (the batcher pads to the batch's longest
//    sequence): the same sequence would be represented differently in training
//    and evaluation.  own_length 1 transforms each example over its own length
//    (FFTW handles any length in O(n log n); one cached plan per length), so a
//    padded example's outputs equal those of the unpadded sequence.
//    own_length 0 transforms the whole padded length, as HF does; it is
//    consistent only with fixed-length padding (as the FNet paper trains).
//
// forward() runs FFTW (fft_op.h); reference() writes the DFT as matrix products.
#include <cmath>
#include <utility>
#include <vector>

#include "attention/attention.h"
#include "mlp_mixer/fft_op.h"

namespace az {
namespace {

class FNet : public Attention {
 public:
  explicit FNet(const AttentionConfig& c) : Attention(c) {}

 private:
  // The k-point DFT's real and imaginary parts (up to sign): C[j,l] = cos(2 pi j l / k), S[j,l] = sin(..).
  static std::pair<Tensor, Tensor> dft(int64_t k) {
    Tensor C = Tensor::empty({k, k}), S = Tensor::empty({k, k});
    for (int64_t j = 0; j < k; ++j)
      for (int64_t l = 0; l < k; ++l) {
        double a = 2.0 * M_PI * double((j * l) % k) / double(k);  // j l mod k keeps the angle small
        C.data()[j * k + l] = float(std::cos(a)), S.data()[j * k + l] = float(std::sin(a));
      }
    return {C, S};
  }

 public:
  // The reference form: the DFT as matrix products, y = s Re(F_n X F_D) = s (C_n X C_D - S_n X S_D),
  // with F_k = C_k - i S_k, C_k[j,l] = cos(2 pi j l / k), S_k[j,l] = sin(2 pi j l / k).  Example by example:
  // X is its rows with padding zeroed, n its own length (own_length) or N; rows past n give 0.
  Tensor reference(const Tensor& x, const Tensor& key_pad) override {
    int64_t B = x.size(0), N = x.size(1), D = cfg_.dim;
    bool own = knob_int("own_length") != 0, ortho = knob_int("ortho") != 0;
    auto [CD, SD] = dft(D);                                            // the channels' DFT, one for all
    std::vector<Tensor> out;
    for (int64_t b = 0; b < B; ++b) {
      Tensor X = narrow(x, 0, b, 1);                                   // [1,N,D]
      int64_t n = N;
      if (key_pad.defined()) {
        Tensor keep = Tensor::empty({1, N, 1});
        for (int64_t i = 0; i < N; ++i) keep.data()[i] = key_pad.data()[b * N + i] != 0 ? 0.0f : 1.0f;
        X = X * keep;                                                  // padded rows contribute nothing
        if (own) while (n > 0 && keep.data()[n - 1] == 0) --n;         // one past the last real row
      }
      if (n == 0) { out.push_back(Tensor::zeros({1, N, D})); continue; }
      Tensor Xn = reshape(narrow(X, 1, 0, n), {n, D});
      auto [Cn, Sn] = dft(n);
      Tensor y = matmul(matmul(Cn, Xn), CD) - matmul(matmul(Sn, Xn), SD);  // Re(F_n X F_D) [n,D]
      if (ortho) y = y * float(1.0 / std::sqrt(double(n) * double(D)));  // the unitary DFT
      if (n < N) y = concat({y, Tensor::zeros({N - n, D})}, 0);
      out.push_back(reshape(y, {1, N, D}));
    }
    return concat(out, 0);
  }

  // x [B,N,D] -> [B,N,D]; key_pad [B,N] (1 = padding) or undefined.
  Tensor forward(const Tensor& x, const Tensor& key_pad) override {
    if (x.dim() != 3 || x.size(2) != cfg_.dim)
      fail("fnet: input must be [B,N," + std::to_string(cfg_.dim) + "], got " + shape_str(x.shape()));
    return fourier_real(x, key_pad, knob_int("own_length") != 0, knob_int("ortho") != 0);
  }

  Pattern pattern(const Tensor& x, const Tensor& key_pad) override {  // padded positions contribute nothing
    return all_keys_pattern(x.size(1), key_pad, cfg_.causal, "Fourier mixing");
  }
};

AttentionInfo info() {
  AttentionInfo i;
  i.name = "fnet";
  i.summary = "parameter-free token mixing: Re of a 2-D FFT over positions and channels (Lee-Thorp et al. 2021)";
  i.knobs = {{"ortho", 1, 0, 1, "1: unitary scaling 1/sqrt(N*D) (suits pre-norm blocks); 0: unscaled as in HF FNet"},
             {"own_length", 1, 0, 1,
               "1: transform each example over its own unpadded length; 0: over the batch's padded length"}};
  i.make = [](const AttentionConfig& c) { return std::make_shared<FNet>(c); };
  i.causal_ok = false;
  i.family = "attention-free";
  i.lecture = {12, 3};
  i.why_not_causal = "its Fourier transform over positions mixes every position into each output";
  return i;
}
RegisterAttention reg(info());

}  // namespace
}  // namespace az
