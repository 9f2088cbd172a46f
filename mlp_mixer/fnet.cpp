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
#include "attention/attention.h"
#include "mlp_mixer/fft_op.h"

namespace az {
namespace {

class FNet : public Attention {
 public:
  explicit FNet(const AttentionConfig& c) : Attention(c) {}

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

RegisterAttention reg({"fnet",
                       "parameter-free token mixing: Re of a 2-D FFT over positions and channels (Lee-Thorp et al. 2021)",
                       {{"ortho", 1, 0, 1, "1: unitary scaling 1/sqrt(N*D) (suits pre-norm blocks); 0: unscaled as in HF FNet"},
                        {"own_length", 1, 0, 1,
                         "1: transform each example over its own unpadded length; 0: over the batch's padded length"}},
                       [](const AttentionConfig& c) { return std::make_shared<FNet>(c); }, false, "attention-free",
                       "its Fourier transform over positions mixes every position into each output"});

}  // namespace
}  // namespace az
