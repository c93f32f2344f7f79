#include "report.hpp"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <map>
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

std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    bool in_quotes = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        char c = line[i];
        if (in_quotes) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
                cur += '"', ++i;
            else if (c == '"')
                in_quotes = false;
            else
                cur += c;
        } else if (c == '"') {
            in_quotes = true;
        } else if (c == ',') {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
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

std::vector<Row> read_csv(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw std::runtime_error("cannot read " + path);
    std::string line;
    // Columns are found by name. The ones from pct_min on came with the alternating rounds and the
    // run's conditions; a CSV written before them (plots/h100/) reads with those left empty.
    const std::string first_new = "pct_min";
    std::map<std::string, int> at;
    bool ours = bool(std::getline(f, line));
    if (ours) {
        const std::vector<std::string> names = split_csv(line);
        for (int i = 0; i < int(names.size()); ++i) at[names[i]] = i;
        bool before_new = true;
        for (const char* c : kColumns) {
            if (c == first_new) before_new = false;
            if (before_new && !at.count(c)) ours = false;
        }
        for (const std::string& n : names)
            if (std::find(std::begin(kColumns), std::end(kColumns), n) == std::end(kColumns))
                ours = false;
    }
    if (!ours)
        throw std::runtime_error(path +
                                 ":1: not a results CSV (the header differs from the schema)");
    std::vector<Row> rows;
    int lineno = 1;
    while (std::getline(f, line)) {
        ++lineno;
        if (line.empty()) continue;
        std::vector<std::string> v = split_csv(line);
        if (v.size() != at.size())
            throw std::runtime_error(path + ":" + std::to_string(lineno) + ": expected " +
                                     std::to_string(at.size()) + " fields, found " +
                                     std::to_string(v.size()));
        auto text = [&](const char* name) { return at.count(name) ? v[at[name]] : std::string(); };
        auto number = [&](const char* name) {
            return at.count(name) ? std::stod(v[at[name]]) : 0.0;
        };
        try {
            Row r;
            r.device = text("device");
            r.chapter = text("chapter");
            r.precision = text("precision");
            r.shape.M = std::stoi(text("M"));
            r.shape.N = std::stoi(text("N"));
            r.shape.K = std::stoi(text("K"));
            r.alpha = std::stof(text("alpha"));
            r.beta = std::stof(text("beta"));
            r.seed = std::stoull(text("seed"));
            r.reps = std::stoi(text("reps"));
            r.ms_median = number("ms_median");
            r.ms_min = number("ms_min");
            r.gflops = number("gflops");
            r.yardstick = text("yardstick");
            r.yardstick_ms_median = number("yardstick_ms_median");
            r.yardstick_gflops = number("yardstick_gflops");
            r.pct_of_yardstick = number("pct_of_yardstick");
            r.pct_min = number("pct_min");
            r.pct_max = number("pct_max");
            r.rounds = int(number("rounds"));
            r.check = text("check");
            r.max_abs_err = number("max_abs_err");
            r.max_rel_err = number("max_rel_err");
            r.bad_elements = std::stoull(text("bad_elements"));
            if (text("pass") != "true" && text("pass") != "false")
                throw std::invalid_argument("pass");
            r.pass = text("pass") == "true";
            r.driver = text("driver");
            r.cuda_runtime = text("cuda_runtime");
            r.cublas = text("cublas");
            r.power_limit_w = number("power_limit_w");
            r.sm_clock_mhz = number("sm_clock_mhz");
            r.power_w = number("power_w");
            r.throttle = text("throttle");
            r.l2_flush = text("l2_flush");
            r.commit = text("commit");
            r.dirty = text("dirty");
            r.source_hash = text("source_hash");
            rows.push_back(r);
        } catch (const std::exception&) {
            throw std::runtime_error(path + ":" + std::to_string(lineno) +
                                     ": a field is not a number");
        }
    }
    return rows;
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

}  // namespace gemm
