# Reference images from Linsley et al.'s own generator, to check ours in law
# (tests/test_pathfinder.cpp "in law with snakes2.py's own images" holds the
# figures this produced).  It runs drewlinsley/pathfinder's snakes2.py (commit
# ab9c130, the 2020 code LRA used; not vendored here: clone it and put this
# file beside snakes.py and snakes2.py) with LRA's Pathfinder32 arguments
# (long-range-arena lra_benchmarks/data/pathfinder/pathfinder.py), writing LRA's layout:
#   OUT/imgs/BATCH/sample_K.png, OUT/metadata/BATCH.npy (np.save, as snakes2 does)
# which load_lra_pathfinder (data/pathfinder/lra_pathfinder_layout.h) reads.  Needs only
# Debian's python3-numpy and python3-pil: what the 2020 code took from scipy
# (misc.imresize / imsave: bytescale to 8 bits, then PIL) and cv2 (dilate: max
# over the kernel's nonzero entries, anchor at its centre) is reimplemented
# below; matplotlib is stubbed (never called).  ~3 images/s on one core.
#   usage: python3 snakes2_lra32.py OUT N BATCH SEED
# matplotlib (never called).  Usage: run_lra32.py OUT N BATCH SEED
import sys, types, os
import numpy as np
np.float = float  # removed in numpy 1.24; snakes.py uses it
from PIL import Image

def bytescale(a):
    a = np.asarray(a)
    if a.dtype == np.uint8:
        return a
    lo, hi = float(a.min()), float(a.max())
    scale = 255.0 / ((hi - lo) if hi > lo else 1.0)
    return ((a - lo) * scale).clip(0, 255).__add__(0.5).astype(np.uint8)

def imresize(arr, size, interp='lanczos'):
    im = Image.fromarray(bytescale(arr), mode='L')
    return np.array(im.resize((size[1], size[0]), resample=Image.LANCZOS))

def imsave(path, arr):
    Image.fromarray(bytescale(arr), mode='L').save(path)

scipy = types.ModuleType('scipy'); misc = types.ModuleType('scipy.misc'); nd = types.ModuleType('scipy.ndimage')
misc.imresize = imresize; misc.imsave = imsave; scipy.misc = misc; scipy.ndimage = nd
sys.modules.update({'scipy': scipy, 'scipy.misc': misc, 'scipy.ndimage': nd})

def dilate(src, kernel, iterations=1):
    src = np.asarray(src, dtype=np.float64); k = np.asarray(kernel)
    ay, ax = k.shape[0] // 2, k.shape[1] // 2
    out = np.full(src.shape, -np.inf)
    H, W = src.shape
    for i, j in zip(*np.nonzero(k)):
        oy, ox = i - ay, j - ax
        sh = np.full(src.shape, -np.inf)
        ys, yd = (slice(oy, H), slice(0, H - oy)) if oy >= 0 else (slice(0, H + oy), slice(-oy, H))
        xs, xd = (slice(ox, W), slice(0, W - ox)) if ox >= 0 else (slice(0, W + ox), slice(-ox, W))
        sh[yd, xd] = src[ys, xs]
        out = np.maximum(out, sh)
    if not np.nonzero(k)[0].size:
        out = src.copy()
    out[np.isinf(out)] = src[np.isinf(out)]
    return out.astype(np.float32)

cv2 = types.ModuleType('cv2'); cv2.useOptimized = lambda: None; cv2.dilate = dilate
sys.modules['cv2'] = cv2
mpl = types.ModuleType('matplotlib'); plt = types.ModuleType('matplotlib.pyplot'); mpl.pyplot = plt
sys.modules.update({'matplotlib': mpl, 'matplotlib.pyplot': plt})

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import builtins
_print = builtins.print
builtins.print = lambda *a, **k: None  # snakes2 prints a line per image
import snakes2

class Args: pass
out, n, batch, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
np.random.seed(seed); import random; random.seed(seed)
a = Args()
# snakes2_wrapper.py's settings ...
a.contour_path = out; a.batch_id = batch; a.n_images = n
a.window_size = [300, 300]; a.padding = 22; a.antialias_scale = 4; a.LABEL = 1; a.seed_distance = 27
a.marker_radius = 3; a.contour_length = 15; a.distractor_length = 5; a.num_distractor_snakes = 6
a.snake_contrast_list = [1.]; a.use_single_paddles = False; a.max_target_contour_retrial = 4
a.max_distractor_contour_retrial = 4; a.max_paddle_retrial = 2; a.continuity = 1.4; a.paddle_length = 5
a.paddle_thickness = 1.5; a.paddle_margin_list = [4]; a.paddle_contrast_list = [1.]; a.pause_display = False
a.save_images = True; a.save_metadata = True; a.segmentation_task = False; a.segmentation_task_double_circle = False
# ... then LRA's Pathfinder32 (lra_benchmarks/data/pathfinder/pathfinder.py)
a.paddle_margin_list = [1]; a.window_size = [32, 32]; a.padding = 1; a.paddle_length = 2; a.marker_radius = 1.5
a.contour_length = 14; a.paddle_thickness = 0.5; a.antialias_scale = 2; a.seed_distance = 7; a.continuity = 1.0
a.distractor_length = a.contour_length // 3; a.num_distractor_snakes = 20 // a.distractor_length
a.snake_contrast_list = [2]; a.paddle_contrast_list = [0.75]
snakes2.from_wrapper(a)
