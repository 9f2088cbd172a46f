// The docs generator's record keeping (train/lab/docs.cpp): which LRA records a
// generated page quotes, and a fingerprint of each, so that a test can tell a
// page drawn from records that have changed since (tests/test_docs.cpp).
#pragma once
#include <string>
#include <vector>

namespace az {

// One preset's records: its name ("mini", "full") and its results.jsonl.
struct LraSource {
  std::string preset, path;
};

// "auto": for every preset, the newest records under DIR (each DIR/*/results.jsonl
// whose results.md names its preset; newest by the latest "finished" field).
// Otherwise SPEC is "PRESET=PATH,PRESET=PATH".
std::vector<LraSource> lra_sources(const std::string& spec, const std::string& dir = "docs/lra");

// FNV-1a 64 of the file's bytes, 16 hex digits: the fingerprint a page quotes.
std::string records_hash(const std::string& path);

// The line a generated page carries: <!-- records: PRESET FOLDER/results.jsonl HASH; ... -->
// (the folder under docs/lra, not the whole path: the same stamp from any working directory)
std::string records_stamp(const std::vector<LraSource>& sources);

// ---- the lists the registry writes (issue 77): nothing lists the models by hand ----

// "attention/NAME.cpp" or "mlp_mixer/NAME.cpp", whichever is under SRC, or "" (a
// registration from outside the tree: a test's, or a user's own folder).
std::string model_source(const std::string& src, const std::string& name);

// What a model's page shows of SRC/FILE (attention/NAME.cpp): each function marked
// `// Shown on the model's page beside reference().`, then reference(), each with
// the comment above it and de-indented, whole from its signature (one line or
// several) to its closing brace.
std::string page_source(const std::string& src, const std::string& file);

// The zoo in the lecture's order: every registered model with its file under SRC,
// ordered by its registration's AttentionInfo::lecture {stop, seat}.
std::vector<std::string> zoo_models(const std::string& src);

// The tour's stops (docs/tour.md), in order: a stop's number and models come from
// the registrations, its title and idea from docs.cpp's prose for that number, or,
// for a number with none yet, from its first model (its name and summary).
struct TourStop {
  int stop;
  std::string title, idea;
  std::vector<std::string> models;
};
std::vector<TourStop> tour_stops(const std::string& src);

// The generated list of a hand-written page, the text between its lines
// `<!-- models:begin ... -->` and `<!-- models:end -->`: PAGE "readme" (README.md:
// the count, and the names by family in the lecture's order) or "architecture"
// (docs/ARCHITECTURE.md's reading order: every model's file, in that order).
std::string models_block(const std::string& page, const std::string& src);
// TEXT with the lines between its markers replaced by BLOCK; fails naming FILE when it has none.
std::string replace_models_block(const std::string& text, const std::string& block, const std::string& file);
// The lines between TEXT's markers, or "" when it has none.
std::string models_block_of(const std::string& text);

}  // namespace az
