// Settings that make a variant's structure visible in a small picture.
//
// The registry's defaults are sized for training at N in the thousands
// (bigbird's block is 64, local's window 64): drawn at N = 64 they cover the
// whole matrix and the picture is one solid square.  `attnzoo pattern` and the
// docs pages therefore scale the length-like knobs to the picture's N when the
// user gives none, and say so.
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace az {

// For model at length n: the knobs (registry names) whose defaults would hide
// the structure, with values scaled to n (block n/8, window n/16, ...).  Only
// changed knobs are returned; the caller drops the ones the user set.
std::map<std::string, double> picture_knobs(const std::string& model, int64_t n);

}  // namespace az
