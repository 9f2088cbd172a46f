// LRA's released Pathfinder layout, read directly (long-range-arena
// lra_benchmarks/data/pathfinder/pathfinder.py):
//   ROOT/imgs/<batch>/sample_<K>.png      the images (8-bit grey)
//   ROOT/metadata/<batch>.npy             one line per image
// where ROOT is e.g. lra_release/pathfinder32/curv_contour_length_14.  Despite
// the name, LRA's metadata files are text: each line is split on spaces,
// field 0 the image's folder under ROOT ("imgs/<batch>"), field 1 its file
// name, field 2 its index in the batch, field 3 the label (0 or 1); snakes2.py
// writes seven more fields (continuity, lengths, paddle sizes), which we
// ignore.  A metadata file that snakes2.py itself wrote with np.save (binary
// NumPy format, a 2-D array of strings) is read the same way.
// LRA then takes the examples of all metadata files in order and splits them
// [:80%] train, [80%:90%] val, [90%:] test (TFDS's percent slices, rounded
// half to even); we do the same, with the files in numeric batch order.
// Cost: one PNG decode per image; metadata parsing is linear in its size.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace az {

struct LraMetaEntry {
  std::string folder;  // field 0, relative to ROOT, e.g. "imgs/0"
  std::string file;    // field 1, e.g. "sample_0.png"
  int64_t index = 0;   // field 2
  int label = 0;       // field 3
  int64_t line = 0;    // 1-based line (text) or row (NumPy) in its file
};

// Parses one metadata file's bytes; `name` is used in errors.  Throws a
// one-line DataError "NAME:LINE: what, expected what" on a malformed line:
// fewer than 4 fields, an absolute or '..' folder, a file name that is not
// a .png without '/', a bad index, a label other than 0 or 1, a blank line
// before the end, an empty file; for NumPy files, a bad header or dtype.
std::vector<LraMetaEntry> parse_lra_pathfinder_metadata(const std::string& bytes, const std::string& name);
std::vector<LraMetaEntry> read_lra_pathfinder_metadata(const std::string& path);

// True when dir holds imgs/ and metadata/ with at least one .npy file.
bool is_lra_pathfinder_root(const std::string& dir);

// Loads the layout into train / val / test (8-bit grey, tokens value + 1,
// vocabulary 257, classes {"0", "1"}).  `root` may be ROOT or ROOT/imgs.
// Every image must exist, decode and share one size; a batch folder under
// imgs/ without a metadata file is not read, and a one-line notice on stderr
// says so.
Splits load_lra_pathfinder(const std::string& root);

// For the image-folder reader: throws when `dir`, about to be read as
// dir/<class>/<images>, is LRA's layout instead (its "classes" would be the
// batch numbers): dir holds imgs/ and metadata/, or a class folder does
// (dir is e.g. pathfinder32/), or every class folder has a numeric name and
// dir/../metadata holds .npy files.  `flag` names the flag
// that passed dir (e.g. "--data").
void refuse_lra_pathfinder_as_image_folder(const std::string& dir, const std::vector<std::string>& classes,
                                           const std::string& flag = "--data");

// Writes a data set in LRA's layout (PNG images, text metadata with the
// four fields LRA reads, not snakes2.py's eleven), per_batch images per batch folder: fixtures
// for tests, and files any LRA pipeline reads.
void write_lra_pathfinder_layout(const Dataset& ds, const std::string& root, int64_t per_batch);

}  // namespace az
