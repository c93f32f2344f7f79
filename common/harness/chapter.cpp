// The lookup of a chapter in the table meson generates from chapters/chapters.txt.
#include "chapter.hpp"

#include <stdexcept>

namespace gemm {

const ChapterInfo& chapter_info(const std::string& id) {
    for (const ChapterInfo& c : chapter_list())
        if (c.id == id) return c;
    throw std::logic_error("chapter '" + id +
                           "' is not in chapters/chapters.txt: add its line there "
                           "(tools/build/chapters.py explains the columns)");
}

}  // namespace gemm
