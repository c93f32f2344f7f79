// What a trusted grade (a chapter binary with --grade --remote) and its child process (built by
// tools/grade.py from a submitted kernel and tools/grade_child.cu) say to each other. The child
// reads requests on file descriptor 3 and answers on 4; its stdout and stderr go to a log that
// the grade never reads for its verdict. Both ends run on one machine: native byte order.
//
//   load:  Op::Load, LoadHeader, A[n_a], B[n_b], C[n_c]    (floats, padding included; C initial)
//   run:   Op::Run, u64 n, C[n] (the initial C)         -> u32 status, u64 n, C[n]
//   time:  Op::Time, i32 warmup, i32 reps              -> u32 status, f64 ms[reps], u64 n, C[n]
//   quit:  Op::Quit
#pragma once

#include <cstdint>

namespace gemm::remote {

enum class Op : std::uint32_t { Load = 1, Run = 2, Time = 3, Quit = 4 };

struct LoadHeader {
    std::int32_t M, N, K, lda, ldb, ldc, view_offset;
    float alpha, beta;
    std::uint64_t n_a, n_b, n_c;  // elements of A, B and C as the harness stores them
};

constexpr int kRequestFd = 3, kReplyFd = 4;

}  // namespace gemm::remote
