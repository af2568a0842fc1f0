#pragma once
// The one exception type for what is not neograde's fault: a request the user got wrong (a bad
// URL, a missing key, an unknown variable) or a file the machine cannot give us (an unwritable
// output directory, a journal that cannot be locked). The CLI answers it with exit code 2 and
// one line; any other exception is a bug in neograde and exits with its own code.

#include <stdexcept>

namespace neograde {

struct config_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace neograde
