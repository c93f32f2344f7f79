// The precision descriptor (common/harness/precision.hpp): one entry per precision, the bytes each
// element takes, every precision of chapters/chapters.txt naming exactly one entry, an unknown one
// refused, and tools/build/chapters.py's table saying the same names, bytes and layouts.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "chapter.hpp"
#include "precision.hpp"

using namespace gemm;

namespace {

// Bytes of one element, from the formats themselves (IEEE float and half, bf16, e4m3).
int bytes_of(Element e) {
    switch (e) {
        case Element::F32:
            return 4;
        case Element::F16:
        case Element::BF16:
            return 2;
        case Element::E4M3:
            return 1;
    }
    return 0;
}

int list_count(const std::string& value) {
    int n = 0;
    for (const PrecisionInfo& p : kPrecisions) n += value == p.list;
    return n;
}

}  // namespace

TEST_SUITE("precision descriptor") {
    TEST_CASE("one entry per precision, its bytes those of its element types") {
        CHECK(kPrecisionCount == 5);
        std::set<std::string> lists, names;
        for (int i = 0; i < kPrecisionCount; ++i) {
            const PrecisionInfo& p = kPrecisions[i];
            CAPTURE(p.list);
            CHECK(int(p.id) == i);
            CHECK(&precision_info(p.id) == &p);
            CHECK(p.ab_bytes == bytes_of(p.ab));
            CHECK(p.c_bytes == bytes_of(p.c));
            CHECK(std::string(to_string(p.id)) == p.name);
            CHECK(std::string(p.yardstick_name).size() > 0);
            lists.insert(p.list);
            names.insert(p.name);
        }
        CHECK(lists.size() == std::size_t(kPrecisionCount));  // no two entries share a name
        CHECK(names.size() == std::size_t(kPrecisionCount));
        CHECK(precision_info(Precision::F32).ab_bytes == 4);
        CHECK(precision_info(Precision::F16).ab_bytes == 2);
        CHECK(precision_info(Precision::F16).c_bytes == 4);
        for (Precision p : {Precision::E4M3Fast, Precision::E4M3, Precision::E4M3Block}) {
            CHECK(precision_info(p).ab_bytes == 1);
            CHECK(precision_info(p).c_bytes == 2);  // bf16 C
            CHECK(precision_info(p).b_n_by_k);
        }
        CHECK_FALSE(precision_info(Precision::F16).b_n_by_k);
        // The yardstick per precision, as before the descriptor.
        CHECK(precision_info(Precision::F32).yardstick == Yardstick::CublasSgemm);
        CHECK(precision_info(Precision::F16).yardstick == Yardstick::CublasGemmEx);
        CHECK(precision_info(Precision::E4M3Fast).yardstick == Yardstick::CublasLtFp8FastAccum);
        CHECK(precision_info(Precision::E4M3).yardstick == Yardstick::CublasLtFp8);
        CHECK(precision_info(Precision::E4M3Block).yardstick == Yardstick::CublasLtFp8Blocks);
        CHECK(std::string(precision_info(Precision::E4M3Fast).yardstick_name)
                  .find("fast accumulation") != std::string::npos);
        CHECK(
            std::string(precision_info(Precision::E4M3Block).yardstick_name).find("block scales") !=
            std::string::npos);
        CHECK(std::string(precision_info(Precision::F16).yardstick_name).find("GemmEx") !=
              std::string::npos);
        CHECK(std::string(precision_info(Precision::F32).yardstick_name).find("Sgemm") !=
              std::string::npos);
    }

    TEST_CASE("each chapter's precision in chapters/chapters.txt names exactly one entry") {
        REQUIRE(!chapter_list().empty());
        std::set<std::string> used;
        for (const ChapterInfo& c : chapter_list()) {
            CAPTURE(c.id);
            CAPTURE(c.precision);
            CHECK(list_count(c.precision) == 1);
            CHECK(std::string(precision_info(precision_from_list(c.precision)).list) ==
                  c.precision);
            used.insert(c.precision);
        }
        CHECK(used.size() == std::size_t(kPrecisionCount));  // and every entry has a chapter
    }

    TEST_CASE("an unknown value is an error naming it") {
        for (const char* bad : {"fp64", "", "FP16", "e4m3", "fp8 "}) {
            CAPTURE(bad);
            try {
                (void)precision_from_list(bad);
                FAIL("precision_from_list accepted '" << bad << "'");
            } catch (const std::invalid_argument& e) {
                CHECK(std::string(e.what()).find("'" + std::string(bad) + "'") !=
                      std::string::npos);
                CHECK(std::string(e.what()).find("fp8_block") != std::string::npos);
            }
        }
    }

    TEST_CASE("tools/build/chapters.py's table says the same names, bytes and layouts") {
        const char* root = std::getenv("GEMM_SOURCE_ROOT");
        REQUIRE_MESSAGE(root != nullptr, "GEMM_SOURCE_ROOT: the repository (tests/meson.build)");
        std::ifstream f(std::string(root) + "/tools/build/chapters.py");
        REQUIRE(f);
        std::stringstream text;
        text << f.rdbuf();
        for (const PrecisionInfo& p : kPrecisions) {
            // Precision("fp8_fast", "e4m3-fast", "fp8", 1, 2, "NxK"): name, csv, family, ab, c, b
            const std::string head =
                std::string("Precision(\"") + p.list + "\", \"" + p.name + "\", \"";
            const std::size_t at = text.str().find(head);
            CAPTURE(head);
            REQUIRE(at != std::string::npos);
            const std::string rest =
                text.str().substr(at + head.size(), text.str().find(')', at) - at - head.size());
            const std::string tail = std::to_string(p.ab_bytes) + ", " + std::to_string(p.c_bytes) +
                                     ", \"" + (p.b_n_by_k ? "NxK" : "KxN") + "\"";
            CAPTURE(rest);
            CHECK(rest.find("\", " + tail) != std::string::npos);
        }
    }
}
