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

}  // namespace az
