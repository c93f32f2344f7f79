#include "report.hpp"

#include <unistd.h>

#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace gemm {

namespace {

const char* const kColumns[] = {"device",
                                "chapter",
                                "precision",
                                "M",
                                "N",
                                "K",
                                "alpha",
                                "beta",
                                "seed",
                                "reps",
                                "ms_median",
                                "ms_min",
                                "gflops",
                                "yardstick",
                                "yardstick_ms_median",
                                "yardstick_gflops",
                                "pct_of_yardstick",
                                "pct_min",
                                "pct_max",
                                "rounds",
                                "check",
                                "max_abs_err",
                                "max_rel_err",
                                "bad_elements",
                                "pass",
                                "driver",
                                "cuda_runtime",
                                "cublas",
                                "power_limit_w",
                                "sm_clock_mhz",
                                "power_w",
                                "throttle",
                                "l2_flush",
                                "commit",
                                "dirty",
                                "source_hash"};
constexpr int kNumColumns = sizeof(kColumns) / sizeof(kColumns[0]);

std::string quote(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string num(double v, int precision = 6) {
    std::ostringstream s;
    s << std::setprecision(precision) << v;
    return s.str();
}

}  // namespace

double gflops(const Shape& s, double ms) {
    if (ms <= 0) return 0.0;
    return 2.0 * double(s.M) * double(s.N) * double(s.K) / (ms * 1e-3) / 1e9;
}

std::string csv_header() {
    std::string h;
    for (int i = 0; i < kNumColumns; ++i) h += (i ? "," : "") + std::string(kColumns[i]);
    return h;
}

std::string csv_line(const Row& r) {
    std::ostringstream s;
    s << quote(r.device) << ',' << quote(r.chapter) << ',' << r.precision << ',' << r.shape.M << ','
      << r.shape.N << ',' << r.shape.K << ',' << num(r.alpha) << ',' << num(r.beta) << ',' << r.seed
      << ',' << r.reps << ',' << num(r.ms_median, 8) << ',' << num(r.ms_min, 8) << ','
      << num(r.gflops, 8) << ',' << quote(r.yardstick) << ',' << num(r.yardstick_ms_median, 8)
      << ',' << num(r.yardstick_gflops, 8) << ',' << num(r.pct_of_yardstick, 5) << ','
      << num(r.pct_min, 5) << ',' << num(r.pct_max, 5) << ',' << r.rounds << ',' << r.check << ','
      << num(r.max_abs_err, 4) << ',' << num(r.max_rel_err, 4) << ',' << r.bad_elements << ','
      << (r.pass ? "true" : "false") << ',' << quote(r.driver) << ',' << quote(r.cuda_runtime)
      << ',' << quote(r.cublas) << ',' << num(r.power_limit_w, 5) << ',' << num(r.sm_clock_mhz, 5)
      << ',' << num(r.power_w, 5) << ',' << quote(r.throttle) << ',' << quote(r.l2_flush) << ','
      << quote(r.commit) << ',' << quote(r.dirty) << ',' << quote(r.source_hash);
    return s.str();
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream f(path);
    f << text;
    f.close();
    if (!f) throw std::runtime_error("cannot write " + path);
}

void write_csv(const std::string& path, const std::vector<Row>& rows) {
    std::string text = csv_header() + "\n";
    for (const Row& r : rows) text += csv_line(r) + "\n";
    write_text(path, text);
}

namespace {

// One right-aligned column of the table: at least one space before it, however wide the value.
void column(std::ostringstream& s, int width, const std::string& text) {
    s << ' ' << std::right << std::setw(width - 1) << text;
}
std::string fixed(double v, int digits) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v;
    return s.str();
}

}  // namespace

std::string table_header() {
    std::ostringstream s;
    s << std::left << std::setw(17) << "shape";
    column(s, 12, "ms");
    column(s, 12, "GFLOPS");
    column(s, 12, "yard GFLOPS");
    column(s, 8, "% yard");
    column(s, 14, "rounds min-max");
    column(s, 6, "MHz");
    column(s, 5, "W");
    column(s, 8, "check");
    column(s, 11, "max err");
    s << "  result";
    return s.str();
}

std::string table_line(const Row& r) {
    std::ostringstream s;
    s << std::left << std::setw(17) << r.shape.str();
    column(s, 12, fixed(r.ms_median, 3));
    column(s, 12, fixed(r.gflops, 1));
    column(s, 12, r.yardstick.empty() ? "-" : fixed(r.yardstick_gflops, 1));
    column(s, 8, r.yardstick.empty() ? "-" : fixed(r.pct_of_yardstick, 1) + "%");
    column(s, 14, r.yardstick.empty() ? "-" : fixed(r.pct_min, 1) + "-" + fixed(r.pct_max, 1) + "%");
    column(s, 6, r.sm_clock_mhz > 0 ? fixed(r.sm_clock_mhz, 0) : "-");
    column(s, 5, r.power_w > 0 ? fixed(r.power_w, 0) : "-");
    column(s, 8, r.check);
    if (r.check == "off") {
        column(s, 11, "-");
        s << "  unchecked";
    } else {
        std::ostringstream e;
        e << std::scientific << std::setprecision(2) << r.max_abs_err;
        column(s, 11, e.str());
        s << "  " << (r.pass ? "PASS" : "FAIL");
    }
    return s.str();
}

void write_peaks(const std::string& path, const Peaks& p) {
    write_text(path, "device,fp32_gflops,fp16_tensor_gflops,bandwidth_gbs\n" + quote(p.device) +
                         "," + num(p.fp32_gflops, 8) + "," + num(p.fp16_tensor_gflops, 8) + "," +
                         num(p.bandwidth_gbs, 8) + "\n");
}

void progress(const std::string& what) {
    if (isatty(2)) std::cerr << "\r  running " << what << "...\033[K" << std::flush;
}

void progress_done() {
    if (isatty(2)) std::cerr << "\r\033[K" << std::flush;
}

}  // namespace gemm
