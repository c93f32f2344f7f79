// Reads back a results CSV that write_csv (common/harness/report.hpp) wrote: the tests' side of the
// CSV round trip. The tools read the CSVs in Python (tools/reporting/plot.py); nothing else reads
// them in C++.
#pragma once

#include <algorithm>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "report.hpp"

namespace gemm {

// One line of a CSV: fields apart at commas, quoted ones ("a, ""b""") unquoted.
inline std::vector<std::string> split_csv(const std::string& line) {
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

// Throws std::runtime_error naming the path and line: a header that is not the schema's, a line
// with too few fields, a field that is not a number.
inline std::vector<Row> read_csv(const std::string& path) {
    const std::vector<std::string> columns = split_csv(csv_header());
    std::ifstream f(path);
    if (!f) throw std::runtime_error("cannot read " + path);
    std::string line;
    // Columns are found by name. The ones from pct_min on came with the alternating rounds, the
    // run's conditions and the stamps; a CSV written before them (plots/h100/) reads with those
    // left empty.
    const std::string first_new = "pct_min";
    std::map<std::string, int> at;
    bool ours = bool(std::getline(f, line));
    if (ours) {
        const std::vector<std::string> names = split_csv(line);
        for (int i = 0; i < int(names.size()); ++i) at[names[i]] = i;
        bool before_new = true;
        for (const std::string& c : columns) {
            if (c == first_new) before_new = false;
            if (before_new && !at.count(c)) ours = false;
        }
        for (const std::string& n : names)
            if (std::find(columns.begin(), columns.end(), n) == columns.end()) ours = false;
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

}  // namespace gemm
