// Combines the chapters' CSVs into the course overview: one chart with every chapter and every
// yardstick, a Markdown table, and (when a GPU chapter left peaks.csv) a roofline.
//   build/tools/gemm_report --out plots/latest plots/latest/*.csv
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "report.hpp"

int main(int argc, char** argv) {
    std::string out_dir, peaks_path;
    std::vector<std::string> csvs;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if ((a == "--out" || a == "--peaks") && i + 1 < argc) {
            (a == "--out" ? out_dir : peaks_path) = argv[++i];
        } else if (a == "--help" || a == "-h") {
            std::cout << "Usage: gemm_report --out DIR [--peaks FILE] RESULTS.csv...\n"
                         "Writes DIR/all_chapters.svg, DIR/results.md and, with peaks (default\n"
                         "DIR/peaks.csv when it exists), DIR/roofline.svg.\n";
            return 0;
        } else if (!a.empty() && a[0] == '-') {
            std::cerr << "gemm_report: error: unknown argument '" << a << "' (see --help)\n";
            return 2;
        } else {
            csvs.push_back(a);
        }
    }
    if (out_dir.empty() || csvs.empty()) {
        std::cerr << "gemm_report: error: needs --out DIR and at least one CSV (see --help)\n";
        return 2;
    }
    std::vector<gemm::Row> rows;
    std::set<std::string> devices;
    try {
        for (const std::string& path : csvs) {
            if (std::filesystem::path(path).filename() == "peaks.csv") continue;
            for (const gemm::Row& r : gemm::read_csv(path)) {
                rows.push_back(r);
                devices.insert(r.device);
            }
        }
        std::string device;
        for (const std::string& d : devices) device += (device.empty() ? "" : " + ") + d;
        std::filesystem::create_directories(out_dir);
        gemm::write_text(out_dir + "/all_chapters.svg",
                         gemm::combined_chart("Every chapter on " + device, rows));
        gemm::write_text(
            out_dir + "/results.md",
            "# Results on " + device +
                "\n\nGFLOPS (median of the timed runs) and, in brackets, the percentage "
                "of the chapter's yardstick timed in the same run. Regenerate with "
                "`./tutorial run`.\n\n" +
                gemm::results_table(rows));
        std::cout << "wrote " << out_dir << "/all_chapters.svg and " << out_dir << "/results.md";
        if (peaks_path.empty() && std::filesystem::exists(out_dir + "/peaks.csv"))
            peaks_path = out_dir + "/peaks.csv";
        if (!peaks_path.empty()) {
            gemm::write_text(out_dir + "/roofline.svg",
                             gemm::roofline_chart(gemm::read_peaks(peaks_path), rows));
            std::cout << " and " << out_dir << "/roofline.svg";
        }
        std::cout << "\n";
    } catch (const std::exception& e) {
        std::cerr << "gemm_report: error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
