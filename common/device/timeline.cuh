// Phase timestamps inside a kernel, for the per-SM timelines of chapters 14 and 15
// (tools/measuring/timeline.cu records them, tools/reporting/timeline.py draws them). Compiled in
// only with -DGEMM_TIMELINE: without it GEMM_MARK(...) is nothing and the kernels are bit-identical
// (cuobjdump -sass, README of chapter 14). With it, the thread for which `cond` holds records
// %globaltimer (nanoseconds, one clock for the whole GPU), its SM, its block, the phase, the output
// tile and its role (0: the producer warpgroup, 1..: a consumer warpgroup) into the buffer the host
// installed (timeline_buffer).
#pragma once

#ifdef GEMM_TIMELINE

#include <cstdint>

namespace gemm::timeline {

enum Phase : uint32_t { block_begin, load_begin, load_end, math_begin, math_end, store_end };
constexpr const char* PHASE_NAMES[] = {"block_begin", "load_begin", "load_end",
                                       "math_begin",  "math_end",   "store_end"};

struct Event {
    uint64_t ns;
    uint32_t sm, block, phase, tile, role, pad;
};
struct Buffer {
    Event* events;
    unsigned* count;
    unsigned capacity;
};

// Set by the host (cudaMemcpyToSymbol) before a launch; one per translation unit (static), which
// is the timeline tool's.
static __device__ Buffer timeline_buffer;

__device__ inline void mark(Phase phase, int tile, int role) {
    uint64_t ns;
    uint32_t sm;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    const unsigned i = atomicAdd(timeline_buffer.count, 1u);
    if (i < timeline_buffer.capacity)
        timeline_buffer.events[i] = {ns, sm, blockIdx.x, phase, uint32_t(tile), uint32_t(role), 0};
}

}  // namespace gemm::timeline

#define GEMM_MARK(cond, phase, tile, role)                                 \
    do {                                                                   \
        if (cond) gemm::timeline::mark(gemm::timeline::phase, tile, role); \
    } while (0)

#else

#define GEMM_MARK(cond, phase, tile, role) ((void)0)

#endif
