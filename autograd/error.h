// The one error type.  Every refusal in the project (a shape mismatch in an
// op, a bad flag, a corrupt file) is an az::Error whose message is one line
// naming what is wrong and what was expected (autograd/tensor.h declares
// fail(msg), which throws one).
#pragma once
#include <stdexcept>
#include <string>

namespace az {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace az
