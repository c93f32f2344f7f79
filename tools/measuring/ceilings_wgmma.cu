// The wgmma ceiling of tools/ceilings: wgmma.mma_async m64n256k16 (fp16 x fp16, fp32 accumulate)
// with both operands read from shared memory through matrix descriptors, and nothing else in the
// loop: no copies, no barriers. Built for sm_90a alone (tools/meson.build); runs on 9.0 only.
// One block per SM (128 accumulators per thread): two warpgroups, each with its own (64, 64) tile
// of A and the shared (256, 64) tile of B^T, both K-major with the 128-byte swizzle, the layout the
// TMA of chapters 12-15 writes. A loop step is the four wgmmas of the 64-deep tile, one commit.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <sstream>
#include <vector>

#include "ceilings.cuh"
#include "harness_gpu.cuh"

namespace ceilings {
namespace {

constexpr int WG = 128;    // threads per warpgroup
constexpr int GROUPS = 2;  // warpgroups per block, 64 rows of A each
constexpr int THREADS = WG * GROUPS;
constexpr int TM = 64, TN = 256, TK = 16;  // one wgmma: (TM, TK) x (TK, TN)
constexpr int KTILE = 64;          // k per tile row: 64 halves = 128 bytes = one swizzle row
constexpr int STEPS = KTILE / TK;  // wgmmas per loop step
constexpr int ROW_BYTES = 2 * KTILE;
constexpr int A_ROWS = GROUPS * TM;                  // rows 0..127: A, (128, 64)
constexpr int ROWS = A_ROWS + TN;                    // rows 128..383: B^T, (256, 64)
constexpr int SMEM_BYTES = ROWS * ROW_BYTES + 1024;  // + slack to start the tiles on 1024 bytes
constexpr int ACC = TM * TN / WG;                    // fp32 accumulators per thread
constexpr int CHECK_ITERS = 16;
static_assert(ROW_BYTES == 128, "a K-major row is exactly one 128-byte swizzle row");
static_assert(A_ROWS * ROW_BYTES % 1024 == 0, "B^T starts on a 1024-byte boundary too");

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CEIL_SM90A 1
#endif

// The values of the self-check: A(m, k) = a(m) p(k), B(k, n) = p(k) b(n), with p = 1..4 for the
// four 16-deep slices of a tile row. Then every tile adds a(m) b(n) * 16 * (1 + 4 + 9 + 16) to
// C(m, n): exact in fp16 and fp32, and wrong if a descriptor, the swizzle or the accumulator layout
// is misread (the slices and rows would pair up differently).
__host__ __device__ inline float check_a(int m) {
    return float(1 + m % 4);
}
__host__ __device__ inline float check_b(int n) {
    return float(1 + n % 5);
}
constexpr float CHECK_PER_TILE = 16.0f * (1 + 4 + 9 + 16);

__device__ inline uint32_t pack_halves(float lo, float hi) {
    return uint32_t(__half_as_ushort(__float2half_rn(lo))) |
           uint32_t(__half_as_ushort(__float2half_rn(hi))) << 16;
}

// Shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"), in 16-byte units: start
// address (bits 0-13); leading byte offset (16-29), unused by a K-major swizzled layout whose
// 16-deep slice lies inside one 128-byte row, so 1; stride byte offset (32-45), 1024 bytes from one
// group of 8 rows to the next; swizzle mode (62-63) 1 = 128 bytes.
__device__ inline uint64_t desc_kmajor_sw128(uint32_t smem_addr) {
    return uint64_t((smem_addr & 0x3FFFF) >> 4) | uint64_t(1) << 16 | uint64_t(1024 >> 4) << 32 |
           uint64_t(1) << 62;
}

#define CEIL_D4(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define CEIL_D16(i) CEIL_D4(i), CEIL_D4(i + 4), CEIL_D4(i + 8), CEIL_D4(i + 12)

// d (64, 256) += A (64, 16) * B (16, 256): both K-major in shared memory (transpose flags 0), the
// accumulators in this thread's 128 registers.
__device__ inline void wgmma_64x256x16(float (&d)[ACC], uint64_t desc_a, uint64_t desc_b) {
#ifdef CEIL_SM90A
    asm volatile(
        "{\n.reg .pred keep;\nsetp.ne.b32 keep, %130, 0;\n"  // keep: add to d (not overwrite)
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16\n{"
        "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
        "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
        "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
        "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
        "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"
        "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"
        "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,"
        "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127},\n"
        "%128, %129, keep, 1, 1, 0, 0;\n}\n"  // scale A and B by +1; neither transposed
        : CEIL_D16(0), CEIL_D16(16), CEIL_D16(32), CEIL_D16(48), CEIL_D16(64), CEIL_D16(80),
          CEIL_D16(96), CEIL_D16(112)
        : "l"(desc_a), "l"(desc_b), "r"(1));
#else
    (void)d, (void)desc_a, (void)desc_b;
#endif
}
#undef CEIL_D16
#undef CEIL_D4

// Fills the tiles (pseudo-random, or the self-check's values), then `iters` loop steps of four
// wgmmas per warpgroup. sums (if set): the sum of each thread's accumulators; all (if set): every
// accumulator, ACC per thread.
__global__ void __launch_bounds__(THREADS, 1)
    wgmma_rate_kernel(int iters, int check, float* sums, float* all) {
#ifdef CEIL_SM90A
    extern __shared__ unsigned char smem_raw[];
    // The 128-byte swizzle is a function of address bits 4-9: the tiles start on 1024 bytes.
    unsigned char* tiles = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));  // (ROWS, 64)
    for (int q = threadIdx.x; q < ROWS * 8; q += THREADS) {
        const int r = q / 8, c = q % 8;  // row, and its 16-byte chunk: k = 8c .. 8c + 7
        uint32_t w[4];
        for (int e = 0; e < 4; ++e) {
            if (check) {
                const float v =
                    (r < A_ROWS ? check_a(r % TM) : check_b(r - A_ROWS)) * float(c / 2 + 1);
                w[e] = pack_halves(v, v);
            } else {
                const uint32_t seed = (blockIdx.x * ROWS + r) * 64 + 8 * c + 2 * e;
                w[e] = pack_halves(unit_value(seed), unit_value(seed + 1));
            }
        }
        // 128-byte swizzle: chunk c of row r is stored at chunk c ^ (r % 8) of that row.
        *reinterpret_cast<uint4*>(tiles + r * ROW_BYTES + 16 * (c ^ (r % 8))) =
            make_uint4(w[0], w[1], w[2], w[3]);
    }
    // The tiles were written by ordinary stores (the generic proxy) and wgmma reads them through
    // the async proxy: each thread orders its own stores for that proxy, the barrier for all.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();

    const int group = threadIdx.x / WG;
    const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(tiles));
    const uint32_t a_addr = base + group * TM * ROW_BYTES;  // this warpgroup's (64, 64) of A
    const uint32_t b_addr = base + A_ROWS * ROW_BYTES;      // (256, 64) of B^T
    float d[ACC];
#pragma unroll
    for (int i = 0; i < ACC; ++i) d[i] = 0.0f;
#pragma unroll 1
    for (int it = 0; it < iters; ++it) {
        // Orders the accumulators' earlier writes (the zeroing) before the wgmmas read them; the
        // wgmmas among themselves (same shape, same registers) need no fence.
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int s = 0; s < STEPS; ++s)  // a 16-deep slice is 32 bytes further along each row
            wgmma_64x256x16(d, desc_kmajor_sw128(a_addr + 32 * s),
                            desc_kmajor_sw128(b_addr + 32 * s));
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        // At most this step's group in flight while the next one is issued: the tensor cores
        // always have a queued group, and the queue stays bounded.
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");  // d is final
    const long long t = static_cast<long long>(blockIdx.x) * THREADS + threadIdx.x;
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < ACC; ++i) s += d[i];
    if (sums) sums[t] = s;
    if (all) {
#pragma unroll
        for (int i = 0; i < ACC; ++i) all[t * ACC + i] = d[i];
    }
#else
    (void)iters, (void)check, (void)sums, (void)all;
#endif
}

void opt_in() {
    static const bool done = [] {
        GEMM_CUDA_CHECK(cudaFuncSetAttribute(
            wgmma_rate_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
        return true;
    }();
    (void)done;
}

}  // namespace

int wgmma_threads() {
    return THREADS;
}

int wgmma_blocks_per_sm() {
    opt_in();
    int blocks = 0;
    GEMM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, wgmma_rate_kernel,
                                                                  THREADS, SMEM_BYTES));
    return blocks;
}

double wgmma_flop(int blocks, int iters) {
    return double(blocks) * GROUPS * iters * STEPS * 2.0 * TM * TN * TK;
}

void wgmma_launch(int blocks, int iters, float* sums, cudaStream_t stream) {
    opt_in();
    wgmma_rate_kernel<<<blocks, THREADS, SMEM_BYTES, stream>>>(iters, 0, sums, nullptr);
    GEMM_CUDA_CHECK_LAUNCH();
}

std::string wgmma_method(int blocks, int iters) {
    std::ostringstream s;
    s << "wgmma.mma_async m64n256k16 f16 x f16 + f32; A and B from shared memory (K-major; "
         "128-byte swizzle); "
      << blocks << " blocks x " << GROUPS << " warpgroups x " << iters << " steps of " << STEPS
      << " wgmmas";
    return s.str();
}

std::string wgmma_self_check(int blocks) {
    opt_in();
    const long long threads = static_cast<long long>(blocks) * THREADS;
    gemm::DeviceBuffer<float> all(threads * ACC);
    wgmma_rate_kernel<<<blocks, THREADS, SMEM_BYTES>>>(CHECK_ITERS, 1, nullptr, all.get());
    GEMM_CUDA_CHECK_LAUNCH();
    GEMM_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> host(all.size());
    GEMM_CUDA_CHECK(
        cudaMemcpy(host.data(), all.get(), host.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (long long t = 0; t < threads; ++t) {
        // The accumulator layout (PTX ISA, wgmma D fragments for .m64nNk16): warp w of the
        // warpgroup holds rows 16w .. 16w + 15; register 4j + 2h + e of lane l is row
        // 16w + l / 4 + 8h, column 8j + 2 (l % 4) + e.
        const int warp = int(t % WG) / 32, lane = int(t % 32);
        for (int i = 0; i < ACC; ++i) {
            const int j = i / 4, h = (i / 2) % 2, e = i % 2;
            const int m = 16 * warp + lane / 4 + 8 * h, n = 8 * j + 2 * (lane % 4) + e;
            const float want = check_a(m) * check_b(n) * CHECK_PER_TILE * CHECK_ITERS;
            const float got = host[t * ACC + i];
            if (got != want) {
                std::ostringstream s;
                s << "wgmma self-check: block " << t / THREADS << ", thread " << t % THREADS
                  << ", accumulator " << i << " (row " << m << ", column " << n << " of its "
                  << "warpgroup's 64 x 256 tile) is " << got << ", expected " << want;
                return s.str();
            }
        }
    }
    return "";
}

}  // namespace ceilings
