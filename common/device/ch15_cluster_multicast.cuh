// PTX wrappers taught in chapter 15: clusters (rank, cluster-wide barrier, arrivals on another
// block's mbarrier), TMA multicast loads, TMA stores and their wait, and named barriers.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "device/ch13_tma_mbarrier.cuh"  // smem_u32, CUtensorMap

namespace sm90 {

__device__ inline unsigned cluster_rank() {
    unsigned r = 0;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
// Every thread of every block of the cluster gets here before any goes on: release/acquire
// orders the shared-memory writes (barrier initialisation, remote arrivals) around it.
__device__ inline void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::
                     : "memory");
}
// Arrives on the barrier at the same shared-memory offset in block `rank` of this cluster.
__device__ inline void mbar_arrive_cluster(uint64_t* bar, unsigned rank) {
    asm volatile(
        "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"
        " mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(smem_u32(bar)),
        "r"(rank)
        : "memory");
}
// A TMA copy whose box lands at the same offset in every block of `mask` and is counted on each
// one's barrier at the offset of `bar`.
__device__ inline void tma_load_multicast(void* dst, const CUtensorMap* map, int x, int y,
                                          uint64_t* bar, uint16_t mask) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_u32(dst)),
        "l"(map), "r"(x), "r"(y), "r"(smem_u32(bar)), "h"(mask)
        : "memory");
}
// The TMA store of one box of C from shared memory, into the bulk-async group of this thread.
__device__ inline void tma_store(const CUtensorMap* map, const void* src, int x, int y) {
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(map),
        "r"(x), "r"(y), "r"(smem_u32(src))
        : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// Waits until at most PENDING of this thread's TMA stores may still read shared memory
// (READ_ONLY) or may still be writing global memory.
template <int PENDING, bool READ_ONLY>
__device__ inline void tma_store_wait() {
    if constexpr (READ_ONLY)
        asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(PENDING) : "memory");
    else
        asm volatile("cp.async.bulk.wait_group %0;" ::"n"(PENDING) : "memory");
}
// A barrier for the `count` threads that use barrier number `id` (1..15; 0 is __syncthreads).
__device__ inline void named_sync(int id, int count) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

}  // namespace sm90
