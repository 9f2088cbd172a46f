# Reference images from Linsley et al.'s own generator, to check ours in law
# (tests/test_pathfinder.cpp "in law with snakes2.py under OpenCV" holds the
# figures this produced).  It runs drewlinsley/pathfinder's snakes.py and
# snakes2.py at commit ab9c130 (the 2020 code LRA used; not vendored here)
# with LRA's Pathfinder32 arguments (long-range-arena
# lra_benchmarks/data/pathfinder/pathfinder.py), writing LRA's layout:
#   OUT/imgs/BATCH/sample_K.png, OUT/metadata/BATCH.npy (np.save, as snakes2 does)
# which load_lra_pathfinder (data/pathfinder/lra_pathfinder_layout.h) reads.
#
# Needs Debian's python3-opencv, python3-numpy, python3-pil (python3-scipy if
# present).  OpenCV is the real one: its cv2.dilate is what decides which
# seeds fail (see below).  Only what no longer exists is supplied:
#  - scipy.misc.imresize / imsave (removed in SciPy 1.3): scipy 1.2's code,
#    bytescale from the array's min and max to 8 bits, then PIL (Lanczos);
#  - np.float (removed in NumPy 1.24): float;
#  - matplotlib is stubbed (snakes2 never draws with LRA's arguments).
# Upstream's later commit f12b747 replaces imresize without the bytescale,
# which changes every paddle; so the files must be ab9c130's (checked).
#
# What OpenCV does that a numpy stand-in easily misses: mask is float64, and
# cv2.dilate pads with -DBL_MAX.  Where every tap of the seed kernel (a
# paddle's mask, anchored off its start) falls outside the image, the result
# is -DBL_MAX; find_available_coordinates then sees min < 0 and reports no
# free pixel, so the seed fails.  That happens for 330 of the 360 seed
# orientations at LRA-32's sizes: a distractor gets through only with one
# of the other 30 (or not at all after 5 tries), and the first target's seed
# always has one.  --numpy-dilate runs the old stand-in (the border taken
# from the source), which draws about a third more ink.
#
#   usage: python3 snakes2_lra32.py [--numpy-dilate] UPSTREAM OUT N BATCH SEED
#     UPSTREAM  a clone of github.com/drewlinsley/pathfinder at ab9c130
#               (git clone ...; git -C UPSTREAM checkout ab9c130)
#   ~4 images/s on one core.
import builtins, hashlib, os, random, sys, types
import numpy as np
from PIL import Image

argv = sys.argv[1:]
numpy_dilate = '--numpy-dilate' in argv
argv = [a for a in argv if a != '--numpy-dilate']
if len(argv) != 5:
    sys.exit('usage: snakes2_lra32.py [--numpy-dilate] UPSTREAM OUT N BATCH SEED (expected 5 arguments, got %d)' % len(argv))
upstream, out, n, batch, seed = argv[0], argv[1], int(argv[2]), int(argv[3]), int(argv[4])

# The blobs of ab9c130's files (git hash-object).
EXPECTED = {'snakes.py': '35cce9ec4ecb4ad6cb4cd0537992aa12d95c0f50',
            'snakes2.py': 'b945e5d54a59e35a4722e40a9120c8ab4cfe42a9'}
for name, blob in EXPECTED.items():
    path = os.path.join(upstream, name)
    if not os.path.isfile(path):
        sys.exit('snakes2_lra32.py: %s not found, expected a clone of drewlinsley/pathfinder' % path)
    data = open(path, 'rb').read()
    got = hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest()
    if got != blob:
        sys.exit('snakes2_lra32.py: %s is not commit ab9c130\'s, expected: git -C %s checkout ab9c130' % (path, upstream))

try:
    import cv2
except ImportError:
    sys.exit('snakes2_lra32.py: no cv2, expected Debian\'s python3-opencv (apt-get install python3-opencv; run /usr/bin/python3)')

np.float = float

def bytescale(a):  # scipy 1.2's bytescale(data) with its defaults
    a = np.asarray(a)
    if a.dtype == np.uint8:
        return a
    lo, hi = float(a.min()), float(a.max())
    scale = 255.0 / ((hi - lo) if hi > lo else 1.0)
    return ((a - lo) * scale).clip(0, 255).__add__(0.5).astype(np.uint8)

def imresize(arr, size, interp='lanczos'):  # scipy 1.2: toimage (bytescale), then PIL resize
    im = Image.fromarray(bytescale(arr), mode='L')
    return np.array(im.resize((size[1], size[0]), resample=Image.LANCZOS))

def imsave(path, arr):
    Image.fromarray(bytescale(arr), mode='L').save(path)

try:
    import scipy, scipy.ndimage
except ImportError:
    scipy = types.ModuleType('scipy'); scipy.ndimage = types.ModuleType('scipy.ndimage')
    sys.modules.update({'scipy': scipy, 'scipy.ndimage': scipy.ndimage})
misc = types.ModuleType('scipy.misc'); misc.imresize = imresize; misc.imsave = imsave
scipy.misc = misc; sys.modules['scipy.misc'] = misc

def stand_in_dilate(src, kernel, iterations=1):
    # The old numpy stand-in: max over the kernel's nonzero taps, anchored at
    # its centre; where every tap falls outside, the source pixel (not cv2's -DBL_MAX).
    src = np.asarray(src, dtype=np.float64); k = np.asarray(kernel)
    ay, ax = k.shape[0] // 2, k.shape[1] // 2
    res = np.full(src.shape, -np.inf)
    H, W = src.shape
    for i, j in zip(*np.nonzero(k)):
        oy, ox = i - ay, j - ax
        sh = np.full(src.shape, -np.inf)
        ys, yd = (slice(oy, H), slice(0, H - oy)) if oy >= 0 else (slice(0, H + oy), slice(-oy, H))
        xs, xd = (slice(ox, W), slice(0, W - ox)) if ox >= 0 else (slice(0, W + ox), slice(-ox, W))
        sh[yd, xd] = src[ys, xs]
        res = np.maximum(res, sh)
    if not np.nonzero(k)[0].size:
        res = src.copy()
    res[np.isinf(res)] = src[np.isinf(res)]
    return res.astype(np.float32)

if numpy_dilate:
    cv2.dilate = stand_in_dilate
mpl = types.ModuleType('matplotlib'); plt = types.ModuleType('matplotlib.pyplot'); mpl.pyplot = plt
sys.modules.update({'matplotlib': mpl, 'matplotlib.pyplot': plt})

sys.path.insert(0, os.path.abspath(upstream))
_print = builtins.print
builtins.print = lambda *a, **k: None  # snakes2 prints a line per image
import snakes2

class Args: pass
np.random.seed(seed); random.seed(seed)
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
