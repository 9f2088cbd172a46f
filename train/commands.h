// Commands of the attnzoo program that live outside main.cpp.
#pragma once
#include <string>
#include <vector>

namespace az {

// attnzoo pattern --model M --seq-len N --out F.png: the entries a variant computes.
int cmd_pattern(const std::vector<std::string>& args);

}  // namespace az
