// What a run leaves behind: a table on stdout, a CSV with a fixed schema, an SVG chart.
#pragma once

#include <string>
#include <utility>
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
};

double gflops(const Shape& s, double ms);  // 2*M*N*K / time

// A device's theoretical peaks, for the roofline (written by GPU chapters as <out>/peaks.csv).
struct Peaks {
    std::string device;
    double fp32_gflops = 0, fp16_tensor_gflops = 0, bandwidth_gbs = 0;
};
void write_peaks(const std::string& path, const Peaks& p);
Peaks read_peaks(const std::string& path);  // throws std::runtime_error naming the path

// The course's overview from many chapters' CSVs: every chapter and every yardstick on one chart
// (log GFLOPS axis) and a Markdown table of GFLOPS and % of the yardstick per chapter and size.
std::string combined_chart(const std::string& title, const std::vector<Row>& rows);
std::string results_table(const std::vector<Row>& rows);
// A roofline: attainable GFLOPS = min(peak, intensity x bandwidth) for each peak, and the rows
// measured on that device placed at their ideal intensity (each matrix moved once).
std::string roofline_chart(const Peaks& peaks, const std::vector<Row>& rows);

std::string csv_header();
std::string csv_line(const Row& r);
// Writes header + rows. Throws std::runtime_error naming the path when it cannot.
void write_csv(const std::string& path, const std::vector<Row>& rows);
// Reads a file written by write_csv. Throws std::runtime_error naming the path and line.
std::vector<Row> read_csv(const std::string& path);

std::string table_header();
std::string table_line(const Row& r);

// A line on a chart: points are (size, GFLOPS); size is the cube root of M*N*K.
struct Series {
    std::string name;
    std::vector<std::pair<double, double>> points;
    bool dashed = false;  // yardsticks are dashed
};
double chart_size(const Shape& s);

// A self-contained SVG: log2 x axis, GFLOPS axis (linear from 0, or log10 when log_y), ticks,
// labels, a legend and the title.
extern const char* const kSizeAxis;    // "problem size (cube root of M·N·K), log2 scale"
extern const char* const kGflopsAxis;  // "GFLOPS (2·M·N·K / time)"
// A vertical line at x with a short label (a prediction drawn over a measurement).
struct Mark {
    double x = 0;
    std::string label;
};
// linear_x: a linear x axis from the smallest to the largest x (the shape sweeps); marks are drawn
// on either axis.
std::string svg_chart(const std::string& title, const std::vector<Series>& series,
                      bool log_y = false, const std::string& x_label = kSizeAxis,
                      const std::string& y_label = kGflopsAxis, bool linear_x = false,
                      const std::vector<Mark>& marks = {});
// The chapter's chart: its own GFLOPS and, where timed, the yardstick's.
std::string chapter_chart(const std::string& title, const std::vector<Row>& rows);
void write_text(const std::string& path, const std::string& text);

}  // namespace gemm
