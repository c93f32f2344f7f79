// What a run leaves behind: a table on stdout and a CSV with a fixed schema
// (tools/reporting/plot.py draws the charts from the CSVs).
#pragma once

#include <string>
#include <vector>

#include "chapter.hpp"
#include "problem.hpp"

namespace gemm {

// One line of results: one chapter at one shape. The CSV columns, in order, are documented in
// docs/harness.md and are exactly csv_header().
struct Row {
    std::string device, chapter, precision;
    Shape shape;
    float alpha = 1.0f, beta = 0.0f;
    unsigned long long seed = 0;
    int reps = 0;
    double ms_median = 0, ms_min = 0, gflops = 0;
    std::string yardstick;  // "cuBLAS cublasSgemm", "OpenBLAS cblas_sgemm", "" when not run
    double yardstick_ms_median = 0, yardstick_gflops = 0;
    // The chapter and the yardstick are timed in alternating rounds (docs/harness.md): the ratio
    // is the median of the rounds' ratios (each a median over `reps` runs), with its min and max.
    double pct_of_yardstick = 0, pct_min = 0, pct_max = 0;
    int rounds = 0;
    std::string check = "off";  // full | sample | off
    double max_abs_err = 0, max_rel_err = 0;
    unsigned long long bad_elements = 0;
    bool pass = true;
    // The conditions of the run (GPU chapters; empty or 0 where unknown, e.g. on a CPU).
    std::string driver, cuda_runtime, cublas;
    double power_limit_w = 0;
    double sm_clock_mhz = 0, power_w = 0;  // medians of the samples taken while timing
    std::string throttle;                  // "none", or the slowdowns seen and their share
    std::string l2_flush;                  // "yes": L2 written over before every timed run
    // Which sources it came from (stamp.hpp): commit, uncommitted changes, kernel hash.
    std::string commit, dirty, source_hash;
};

double gflops(const Shape& s, double ms);  // 2*M*N*K / time

// A device's theoretical peaks, for the roofline (written by GPU chapters as <out>/peaks.csv).
struct Peaks {
    std::string device;
    double fp32_gflops = 0, fp16_tensor_gflops = 0, bandwidth_gbs = 0;
};
void write_peaks(const std::string& path, const Peaks& p);

std::string csv_header();
std::string csv_line(const Row& r);
// Writes header + rows. Throws std::runtime_error naming the path when it cannot. (The tests read
// them back with tests/read_csv.hpp; the tools read them in Python.)
void write_csv(const std::string& path, const std::vector<Row>& rows);

std::string table_header();
std::string table_line(const Row& r);

void write_text(const std::string& path, const std::string& text);

// "running 4096 (3/6)..." on stderr while a size runs, so that a long size does not look like a
// hang; progress_done() clears the line. Nothing when stderr is not a terminal.
void progress(const std::string& what);
void progress_done();

}  // namespace gemm
