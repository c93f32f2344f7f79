// Chapter 19's prices for shapes read from stdin (one MxNxK per line), on `sms` SMs (default 132):
// the plan choose() gives and its cost, chapter 18's price (small_m_price: its critical path in
// k-tiles, a split's price, the cost, its blocks' waves) and where gemm() sends the shape (small_m:
// 1 for chapter 18). Host code alone: no GPU needed. tools/measuring/fit_small_m.py reads it.
//   build/tools/dispatch_costs [SMS] < shapes.txt
#include <cstdio>
#include <cstdlib>

#include "19_dispatcher/kernel.cuh"

int main(int argc, char** argv) {
    const int sms = argc > 1 ? std::atoi(argv[1]) : 132;
    if (argc > 2 || sms <= 0) {
        std::fprintf(stderr, "usage: dispatch_costs [SMS] < shapes (MxNxK per line)\n");
        return 2;
    }
    const char* kernels[] = {"whole", "split_k", "stream_k", "hybrid"};
    const char* tiles[] = {"cluster2", "rows128", "n128", "n64"};
    std::printf(
        "shape,plan,plan_cost,small_m_path,small_m_split,small_m_cost,small_m_waves,small_m\n");
    int M, N, K;
    while (std::scanf(" %dx%dx%d", &M, &N, &K) == 3) {
        const ch19::Plan p = ch19::choose(M, N, K, sms);
        const ch19::SmallMPrice s = ch19::small_m_price(M, N, K, sms);
        std::printf("%dx%dx%d,%s/%s,%.3f,%.0f,%.3f,%.3f,%lld,%d\n", M, N, K, kernels[int(p.kernel)],
                    tiles[int(p.tile)], ch19::plan_cost(p, M, N, K, sms), s.path, s.split, s.cost(),
                    s.waves, ch19::small_m(M, N, K, sms) ? 1 : 0);
    }
    return 0;
}
