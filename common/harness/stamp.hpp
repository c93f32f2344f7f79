// Which sources a result came from, stamped on every CSV row: the commit the binary was built
// from, whether the tree had uncommitted changes, and a hash of the chapter's kernel sources (its
// kernel file and what it includes within the repository). Taken at build time by
// tools/build/stamps.py, which also finds the committed results whose kernel has changed since
// (docs/harness.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gemm {

struct Stamp {
    std::string commit;       // 12 hex digits; "" when the build did not know it
    std::string dirty;        // "true" | "false" | "" (unknown)
    std::string source_hash;  // 16 hex digits; "" when the build has no such chapter
};

// The stamps of a result of `chapter`: a chapter id, or a tool's name for one of a chapter's
// configurations ("07_c128x128x8", tools/tune), whose kernel is that chapter's (the same number).
Stamp stamp_of(const std::string& chapter);

// What the build took: the commit, the dirty flag and each chapter's source hash (generated).
struct BuildStamps {
    std::string commit, dirty;
    std::vector<std::pair<std::string, std::string>> source_hashes;  // (chapter id, hash)
};
const BuildStamps& build_stamps();

}  // namespace gemm
