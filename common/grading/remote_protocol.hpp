// What a trusted grade (a chapter's grading binary with --remote) and its child process (built by
// tools/grading/grade.py from a submitted kernel and tools/grading/grade_child.cu) say to each
// other, and the two functions both ends must compute alike. The child reads requests on file
// descriptor 3 and answers on 4; its stdout and stderr go to a log that the grade never reads for
// its verdict. Both ends run on one machine: native byte order. Every reply starts with a u32
// status, 0 = done.
//
//   load:   Op::Load, LoadHeader, A[n_a], B[n_b], C[n_c]  (floats, padding included; C initial)
//           FP8 (fp8 = 1): Op::Load, LoadHeader, A[n_a], B[n_b] (e4m3 codes, bytes), scale_a[n_sa],
//           scale_b[n_sb] (floats), C[n_c] (floats, bf16 values); C comes back as floats too
//   run:    Op::Run, u64 n, C[n] (the initial C)                        -> status, u64 n, C[n]
//   ping:   Op::Ping                                                    -> status
//   stage:  Op::Stage, u32 slots: set each of `slots` Cs to the loaded initial C  -> status
//   batch:  Op::Batch, u32 slots, u64 key: for each slot s in turn, B' = B with its rows (FP8:
//           the columns of its N x K) permuted by permute_k(., K, slot_keys(key, s).perm, fp8),
//           then C_s = gemm(A, B', C_s);
//           then the digest of every row block of every C_s   -> status, u32 blocks,
//                                                                u64 digest[slots][blocks]
//   rows:   Op::Rows, u32 slot, u32 block: the rows of that block of C_s, padding included
//                                                             -> status, u64 n, C rows[n]
//   quit:   Op::Quit (the child exits with 0)
//
// The batch is what the grade times, on its own clock, from sending it to the last digest. The
// key arrives with it, so no product can be computed before; the digests arrive with the reply,
// so none can be computed after; which rows the grade then fetches and checks, the child learns
// only when it has committed to all of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define GRADE_HD __host__ __device__
#else
#define GRADE_HD
#endif

namespace gemm::remote {

enum class Op : std::uint32_t {
    Load = 1,
    Run = 2,
    Quit = 4,
    Ping = 5,
    Stage = 6,
    Batch = 7,
    Rows = 8
};

struct LoadHeader {
    std::int32_t M, N, K, lda, ldb, ldc, view_offset;
    float alpha, beta;
    std::uint64_t n_a, n_b, n_c;  // elements of A, B and C as the harness stores them
    std::uint32_t fp8;            // 1: A and B are e4m3 codes with scales, C is bf16
    std::uint64_t n_sa, n_sb;     // FP8: the scales of A and B (fp8_problem.hpp's layouts)
};

constexpr int kRequestFd = 3, kReplyFd = 4;

// ---- keyed row permutation ----------------------------------------------------------------------

GRADE_HD inline std::uint64_t mix64(std::uint64_t x) {  // splitmix64's finalizer: a bijection
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Row k of B' is row permute_row(k, K, key) of B: a bijection of [0, K) chosen by the key. Each
// round (multiply by an odd number, add, xor with a right shift) is a bijection of the m-bit
// values, 2^m >= K; values that land at K or above walk on until they fall below K.
GRADE_HD inline std::uint32_t permute_row(std::uint32_t k, std::uint32_t K, std::uint64_t key) {
    if (K <= 1) return 0;
    unsigned bits = 1;
    while ((1ull << bits) < K) ++bits;
    const std::uint64_t mask = (1ull << bits) - 1;
    const unsigned shift = bits / 2 + 1;
    std::uint64_t x = k;
    do {
        for (std::uint64_t r = 0; r < 4; ++r) {
            const std::uint64_t h = mix64(key + r);
            x = (x * (h | 1) + (h >> 32)) & mask;
            x ^= x >> shift;
        }
    } while (x >= K);
    return std::uint32_t(x);
}

// Index k of the permuted K dimension: permute_row for fp32 and fp16; for FP8 a permutation within
// each block of 128 (the scales' blocks: a K index keeps its block and so its scale).
GRADE_HD inline std::uint32_t permute_k(std::uint32_t k, std::uint32_t K, std::uint64_t key,
                                        bool fp8) {
    if (!fp8) return permute_row(k, K, key);
    const std::uint32_t base = k / 128 * 128, size = K - base < 128 ? K - base : 128;
    return base + permute_row(k - base, size, mix64(key + base));
}

// ---- digests of C -------------------------------------------------------------------------------

// SipHash-2-4 (Aumasson and Bernstein) over whole 64-bit words: a keyed hash for which finding an
// input with a given digest is not practical even knowing the key.
struct SipHash {
    std::uint64_t v0 = 0, v1 = 0, v2 = 0, v3 = 0, words = 0;
    GRADE_HD SipHash() {}
    GRADE_HD SipHash(std::uint64_t k0, std::uint64_t k1)
        : v0(k0 ^ 0x736f6d6570736575ull),
          v1(k1 ^ 0x646f72616e646f6dull),
          v2(k0 ^ 0x6c7967656e657261ull),
          v3(k1 ^ 0x7465646279746573ull) {}
    GRADE_HD static std::uint64_t rotl(std::uint64_t x, int b) {
        return (x << b) | (x >> (64 - b));
    }
    GRADE_HD void round() {
        v0 += v1, v1 = rotl(v1, 13), v1 ^= v0, v0 = rotl(v0, 32);
        v2 += v3, v3 = rotl(v3, 16), v3 ^= v2;
        v0 += v3, v3 = rotl(v3, 21), v3 ^= v0;
        v2 += v1, v1 = rotl(v1, 17), v1 ^= v2, v2 = rotl(v2, 32);
    }
    GRADE_HD void add(std::uint64_t m) {
        v3 ^= m;
        round(), round();
        v0 ^= m;
        ++words;
    }
    GRADE_HD std::uint64_t finish() {
        const std::uint64_t last = (words * 8) << 56;  // the message length in bytes, mod 256
        v3 ^= last;
        round(), round();
        v0 ^= last;
        v2 ^= 0xff;
        round(), round(), round(), round();
        return v0 ^ v1 ^ v2 ^ v3;
    }
};

// C is cut into row blocks, each digested in kDigestLanes interleaved lanes (lane t takes words
// t, t + kDigestLanes, ...; a word is two neighbouring floats); the lanes' digests are digested in
// groups of kDigestGroup, and the groups' digests in order: lanes make it parallel on a GPU, the
// two short passes tie them together without a long serial tail.
constexpr int kDigestLanes = 256;
constexpr int kDigestGroup = 16;
constexpr int kMaxDigestBlocks = 1024;

GRADE_HD inline int digest_blocks(int M) {
    return M < kMaxDigestBlocks ? M : kMaxDigestBlocks;
}
GRADE_HD inline int block_first_row(int b, int M, int blocks) {  // rows [first(b), first(b + 1))
    return blocks == 0 ? 0 : int(std::int64_t(M) * b / blocks);
}

struct SlotKeys {
    std::uint64_t perm, k0, k1;
};
GRADE_HD inline SlotKeys slot_keys(std::uint64_t batch_key, std::uint32_t slot) {
    const std::uint64_t s = mix64(batch_key ^ (0x9E3779B97F4A7C15ull * (slot + 1ull)));
    return {mix64(s + 1), mix64(s + 2), mix64(s + 3)};
}

GRADE_HD inline std::uint32_t float_bits(float x) {
#ifdef __CUDA_ARCH__
    return __float_as_uint(x);
#else
    std::uint32_t u = 0;
    std::memcpy(&u, &x, sizeof u);
    return u;
#endif
}

// Word w of a block of n floats: floats 2w and 2w + 1, a missing second one read as zero.
GRADE_HD inline std::uint64_t block_word(const float* f, std::uint64_t n, std::uint64_t w) {
    const std::uint64_t hi = 2 * w + 1 < n ? float_bits(f[2 * w + 1]) : 0;
    return std::uint64_t(float_bits(f[2 * w])) | (hi << 32);
}
GRADE_HD inline SipHash lane_hash(const SlotKeys& k, std::uint32_t block, std::uint32_t lane) {
    return SipHash(k.k0 ^ mix64((std::uint64_t(block) << 32) | lane), k.k1);
}
GRADE_HD inline SipHash group_hash(const SlotKeys& k, std::uint32_t block, std::uint32_t group) {
    return SipHash(k.k0 ^ mix64(~((std::uint64_t(block) << 32) | group)), k.k1);
}
GRADE_HD inline SipHash block_hash(const SlotKeys& k, std::uint32_t block, std::uint64_t n) {
    return SipHash(k.k0 ^ mix64(std::uint64_t(block) * 0x9E3779B97F4A7C15ull + n), k.k1 ^ n);
}

// The digest of one block of n floats in one thread (the grade, and the CPU child): the words in
// memory order, each into its lane, so that the block is read once.
inline std::uint64_t digest_block(const SlotKeys& k, std::uint32_t block, const float* f,
                                  std::uint64_t n) {
    SipHash lanes[kDigestLanes];
    for (int t = 0; t < kDigestLanes; ++t) lanes[t] = lane_hash(k, block, std::uint32_t(t));
    const std::uint64_t words = (n + 1) / 2;
    for (std::uint64_t w = 0; w < words; ++w) lanes[w % kDigestLanes].add(block_word(f, n, w));
    SipHash h = block_hash(k, block, n);
    for (int g = 0; g < kDigestLanes / kDigestGroup; ++g) {
        SipHash group = group_hash(k, block, std::uint32_t(g));
        for (int t = g * kDigestGroup; t < (g + 1) * kDigestGroup; ++t)
            group.add(lanes[t].finish());
        h.add(group.finish());
    }
    return h.finish();
}

}  // namespace gemm::remote
