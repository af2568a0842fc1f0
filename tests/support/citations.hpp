#pragma once
// Finds citations a reader of this repository cannot open: a file name or relative path that
// names no file of the repository, and the project's private notes (../shared, which is in no
// clone). A citation of another repository (a URL, `owner/repo:path`, `owner/repo path`, a path
// pinned to a commit `path@abc1234`) is not judged: only its own repository can answer for it.

#include <cstddef>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace neograde::test {

// The files and folders of a source tree, as '/'-separated paths relative to its root.
struct repository_index {
  std::set<std::string> files;
  std::set<std::string> dirs;
  // The providers' display names (specs/providers/*.json), some of which read like file names
  // ("Latitude.sh"): a name, never a citation.
  std::set<std::string> names;

  // Every file under root but .git and the top-level folders .gitignore names ("/build/").
  static repository_index of(const std::filesystem::path& root);

  // Whether `path`, cited in the file `citing` (both relative to the root), names a file or
  // folder of the repository: "./x" and "../x" from the citing file's folder, "a/b.hpp" as the
  // end of a longer path ("core/clock.hpp" for core/include/neograde/core/clock.hpp), a bare
  // name as any file's name.
  [[nodiscard]] bool has(std::string_view path, std::string_view citing) const;
};

struct citation_offence {
  std::string file;
  std::size_t line = 0;    // 1-based
  std::size_t column = 0;  // 1-based, in bytes
  std::string text;        // what was cited
  std::string why;
};

// The unopenable citations in `text`, the contents of the file `file` (relative to the root).
// In Markdown (a file ending .md) code spans and blocks hold commands and the files a run writes,
// so there only paths into the repository's own top-level folders and the private notes are judged.
[[nodiscard]] std::vector<citation_offence> unopenable_citations(std::string_view text, std::string_view file,
                                                                 const repository_index& repo);

}  // namespace neograde::test
