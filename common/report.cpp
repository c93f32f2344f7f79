#include "report.hpp"

#include <fstream>
#include <iomanip>
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
                                "check",
                                "max_abs_err",
                                "max_rel_err",
                                "bad_elements",
                                "pass"};
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
      << ',' << num(r.yardstick_gflops, 8) << ',' << num(r.pct_of_yardstick, 5) << ',' << r.check
      << ',' << num(r.max_abs_err, 4) << ',' << num(r.max_rel_err, 4) << ',' << r.bad_elements
      << ',' << (r.pass ? "true" : "false");
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
    if (!std::getline(f, line) || line != csv_header())
        throw std::runtime_error(path +
                                 ":1: not a results CSV (the header differs from the schema)");
    std::vector<Row> rows;
    int lineno = 1;
    while (std::getline(f, line)) {
        ++lineno;
        if (line.empty()) continue;
        std::vector<std::string> v = split_csv(line);
        if (int(v.size()) != kNumColumns)
            throw std::runtime_error(path + ":" + std::to_string(lineno) + ": expected " +
                                     std::to_string(kNumColumns) + " fields, found " +
                                     std::to_string(v.size()));
        try {
            Row r;
            int c = 0;
            r.device = v[c++];
            r.chapter = v[c++];
            r.precision = v[c++];
            r.shape.M = std::stoi(v[c++]);
            r.shape.N = std::stoi(v[c++]);
            r.shape.K = std::stoi(v[c++]);
            r.alpha = std::stof(v[c++]);
            r.beta = std::stof(v[c++]);
            r.seed = std::stoull(v[c++]);
            r.reps = std::stoi(v[c++]);
            r.ms_median = std::stod(v[c++]);
            r.ms_min = std::stod(v[c++]);
            r.gflops = std::stod(v[c++]);
            r.yardstick = v[c++];
            r.yardstick_ms_median = std::stod(v[c++]);
            r.yardstick_gflops = std::stod(v[c++]);
            r.pct_of_yardstick = std::stod(v[c++]);
            r.check = v[c++];
            r.max_abs_err = std::stod(v[c++]);
            r.max_rel_err = std::stod(v[c++]);
            r.bad_elements = std::stoull(v[c++]);
            if (v[c] != "true" && v[c] != "false") throw std::invalid_argument("pass");
            r.pass = v[c] == "true";
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
