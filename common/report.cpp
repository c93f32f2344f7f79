#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
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
                                "l2_flush"};
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

std::string escape_xml(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '&')
            o += "&amp;";
        else if (c == '<')
            o += "&lt;";
        else if (c == '>')
            o += "&gt;";
        else if (c == '"')
            o += "&quot;";
        else
            o += c;
    }
    return o;
}

// Compact tick label: 1500 -> "1.5k", 2000000 -> "2M".
std::string si(double v) {
    const char* suffix[] = {"", "k", "M", "G"};
    int i = 0;
    while (std::fabs(v) >= 1000 && i < 3) v /= 1000, ++i;
    std::ostringstream s;
    s << std::setprecision(3) << v << suffix[i];
    return s.str();
}

// A "nice" step (1, 2 or 5 times a power of ten) giving about `target` ticks over [0, hi].
double nice_step(double hi, int target) {
    double raw = hi / target;
    double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw) return m * p;
    return 10 * p;
}

const char* const kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                                "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939",
                                "#000000", "#e6550d", "#3182bd", "#31a354"};

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
      << ',' << quote(r.cublas) << ',' << num(r.power_limit_w, 5) << ','
      << num(r.sm_clock_mhz, 5) << ',' << num(r.power_w, 5) << ',' << quote(r.throttle) << ','
      << quote(r.l2_flush);
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

double chart_size(const Shape& s) {
    return std::cbrt(double(s.M) * double(s.N) * double(s.K));
}

const char* const kSizeAxis = "problem size (cube root of M·N·K), log2 scale";
const char* const kGflopsAxis = "GFLOPS (2·M·N·K / time)";

std::string svg_chart(const std::string& title, const std::vector<Series>& series, bool log_y,
                      const std::string& x_label, const std::string& y_label, bool linear_x,
                      const std::vector<Mark>& marks) {
    const double W = 900, H = 520, left = 90, right = 270, top = 50, bottom = 60;
    const double pw = W - left - right, ph = H - top - bottom;

    double xmin = 1e300, xmax = -1e300, ymax = 0, ypos_min = 1e300;
    for (const Series& s : series)
        for (auto [x, y] : s.points) {
            if (x <= 0) continue;
            xmin = std::min(xmin, linear_x ? x : std::log2(x));
            xmax = std::max(xmax, linear_x ? x : std::log2(x));
            ymax = std::max(ymax, y);
            if (y > 0) ypos_min = std::min(ypos_min, y);
        }
    if (xmin > xmax) xmin = 0, xmax = 1;  // no points at all: an empty, labelled frame
    double xstep = 1;  // between x ticks: a power of two (log axis) or a round number (linear)
    if (linear_x) {
        if (xmax - xmin <= 0) xmin -= 1, xmax += 1;
        xstep = nice_step(xmax - xmin, 8);
        xmin = std::floor(xmin / xstep) * xstep, xmax = std::ceil(xmax / xstep) * xstep;
    } else {
        xmin = std::floor(xmin), xmax = std::ceil(xmax);
        if (xmax - xmin < 1) xmin -= 1, xmax += 1;
    }
    if (ymax <= 0) ymax = 1;

    double y0 = 0, y1 = 0, ystep = 0;
    if (log_y) {
        if (ypos_min > ymax) ypos_min = ymax / 10;
        y0 = std::floor(std::log10(ypos_min));
        y1 = std::ceil(std::log10(ymax));
        if (y1 - y0 < 1) y1 = y0 + 1;
    } else {
        ystep = nice_step(ymax, 6);
        y1 = std::ceil(ymax / ystep) * ystep;
    }
    auto px = [&](double x) {
        return left + ((linear_x ? x : std::log2(x)) - xmin) / (xmax - xmin) * pw;
    };
    auto py = [&](double y) {
        double t = log_y ? (std::log10(std::max(y, std::pow(10.0, y0))) - y0) / (y1 - y0) : y / y1;
        return top + ph - t * ph;
    };

    std::ostringstream o;
    o << std::fixed << std::setprecision(1);
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
      << "\" viewBox=\"0 0 " << W << ' ' << H
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    o << "<text x=\"" << W / 2 << "\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">"
      << escape_xml(title) << "</text>\n";
    // Grid and ticks.
    for (double e = xmin; e <= xmax + 1e-9 * xstep; e += xstep) {
        double x = left + (e - xmin) / (xmax - xmin) * pw;
        o << "<line x1=\"" << x << "\" y1=\"" << top << "\" x2=\"" << x << "\" y2=\"" << top + ph
          << "\" stroke=\"#e5e5e5\"/>\n";
        // Powers of two read best written out (1024, 4096); so do the round numbers of a sweep.
        const double v = linear_x ? e : std::pow(2.0, e);
        o << "<text x=\"" << x << "\" y=\"" << top + ph + 18 << "\" text-anchor=\"middle\">"
          << (v >= 1 && v <= 65536 ? num(v) : si(v)) << "</text>\n";
    }
    std::vector<double> yticks;
    if (log_y)
        for (double e = y0; e <= y1 + 1e-9; e += 1) yticks.push_back(std::pow(10.0, e));
    else
        for (double v = 0; v <= y1 + ystep / 2; v += ystep) yticks.push_back(v);
    for (double v : yticks) {
        double y = py(v);
        o << "<line x1=\"" << left << "\" y1=\"" << y << "\" x2=\"" << left + pw << "\" y2=\"" << y
          << "\" stroke=\"#e5e5e5\"/>\n";
        o << "<text x=\"" << left - 8 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\">" << si(v)
          << "</text>\n";
    }
    o << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\"" << ph
      << "\" fill=\"none\" stroke=\"#333\"/>\n";
    for (std::size_t i = 0; i < marks.size(); ++i) {  // predictions: dotted, labelled at the top
        const Mark& m = marks[i];
        if (m.x <= 0 || (linear_x ? m.x : std::log2(m.x)) < xmin ||
            (linear_x ? m.x : std::log2(m.x)) > xmax)
            continue;
        const double x = px(m.x);
        o << "<g class=\"mark\" data-x=\"" << num(m.x) << "\"><line x1=\"" << x << "\" y1=\"" << top
          << "\" x2=\"" << x << "\" y2=\"" << top + ph
          << "\" stroke=\"#888\" stroke-dasharray=\"2,3\"/><text x=\"" << x + 3 << "\" y=\""
          << top + 12 + 12.0 * double(i % 3) << "\" font-size=\"10\" fill=\"#555\">"
          << escape_xml(m.label) << "</text></g>\n";
    }
    o << "<text x=\"" << left + pw / 2 << "\" y=\"" << H - 18 << "\" text-anchor=\"middle\">"
      << escape_xml(x_label) << "</text>\n";
    o << "<text transform=\"translate(22," << top + ph / 2
      << ") rotate(-90)\" text-anchor=\"middle\">" << escape_xml(y_label)
      << (log_y ? ", log scale" : "") << "</text>\n";
    // Series and legend.
    for (std::size_t i = 0; i < series.size(); ++i) {
        const Series& s = series[i];
        const char* color = kPalette[i % (sizeof(kPalette) / sizeof(kPalette[0]))];
        std::vector<std::pair<double, double>> pts = s.points;
        std::sort(pts.begin(), pts.end());
        o << "<g class=\"series\" data-name=\"" << escape_xml(s.name) << "\">\n";
        o << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"2\""
          << (s.dashed ? " stroke-dasharray=\"6,4\"" : "") << " points=\"";
        for (auto [x, y] : pts)
            if (x > 0) o << px(x) << ',' << py(y) << ' ';
        o << "\"/>\n";
        for (auto [x, y] : pts)
            if (x > 0)
                o << "<circle cx=\"" << px(x) << "\" cy=\"" << py(y) << "\" r=\"3\" fill=\""
                  << color << "\"><title>" << escape_xml(s.name) << ": " << si(x) << " -> "
                  << num(y, 4) << " GFLOPS</title></circle>\n";
        double ly = top + 10 + 20.0 * double(i);
        o << "<line x1=\"" << left + pw + 15 << "\" y1=\"" << ly << "\" x2=\"" << left + pw + 45
          << "\" y2=\"" << ly << "\" stroke=\"" << color << "\" stroke-width=\"2\""
          << (s.dashed ? " stroke-dasharray=\"6,4\"" : "") << "/>\n";
        o << "<text x=\"" << left + pw + 52 << "\" y=\"" << ly + 4 << "\">" << escape_xml(s.name)
          << "</text>\n</g>\n";
    }
    o << "</svg>\n";
    return o.str();
}

namespace {

// Chapters as solid lines, yardsticks dashed; a yardstick timed by several chapters at one size
// is drawn at the median of its timings.
std::vector<Series> gflops_series(const std::vector<Row>& rows) {
    std::vector<Series> series;
    std::map<std::string, std::size_t> index;
    std::map<std::string, std::map<double, std::vector<double>>> yard;
    std::vector<std::string> yard_order;
    for (const Row& r : rows) {
        auto it = index.find(r.chapter);
        if (it == index.end()) {
            it = index.emplace(r.chapter, series.size()).first;
            series.push_back({r.chapter, {}, false});
        }
        series[it->second].points.push_back({chart_size(r.shape), r.gflops});
        if (r.yardstick.empty()) continue;
        if (!yard.count(r.yardstick)) yard_order.push_back(r.yardstick);
        yard[r.yardstick][chart_size(r.shape)].push_back(r.yardstick_gflops);
    }
    for (const std::string& name : yard_order) {
        Series s{name, {}, true};
        for (const auto& [x, ys] : yard[name]) {
            std::vector<double> v = ys;
            std::sort(v.begin(), v.end());
            s.points.push_back({x, v[v.size() / 2]});
        }
        series.push_back(s);
    }
    return series;
}

// Bytes a GEMM must move at the least: A and B read once, C written once.
double min_bytes(const Row& r) {
    const double in = r.precision == "fp16" ? 2.0 : 4.0;
    const double M = r.shape.M, N = r.shape.N, K = r.shape.K;
    return in * (M * K + K * N) + 4.0 * M * N;
}

std::string thousands(double v) {
    if (v < 100) return num(v, v < 10 ? 2 : 3);
    std::string digits = std::to_string(static_cast<long long>(std::llround(v)));
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

}  // namespace

std::string chapter_chart(const std::string& title, const std::vector<Row>& rows) {
    return svg_chart(title, gflops_series(rows));
}

std::string combined_chart(const std::string& title, const std::vector<Row>& rows) {
    return svg_chart(title, gflops_series(rows), true);
}

std::string results_table(const std::vector<Row>& rows) {
    std::vector<Shape> shapes;
    std::vector<std::string> chapters;
    for (const Row& r : rows) {
        if (std::find(shapes.begin(), shapes.end(), r.shape) == shapes.end())
            shapes.push_back(r.shape);
        if (std::find(chapters.begin(), chapters.end(), r.chapter) == chapters.end())
            chapters.push_back(r.chapter);
    }
    std::sort(shapes.begin(), shapes.end(),
              [](const Shape& a, const Shape& b) { return chart_size(a) < chart_size(b); });
    std::sort(chapters.begin(), chapters.end());
    std::ostringstream t;
    t << "| chapter | in |";
    for (const Shape& s : shapes) t << ' ' << s.str() << " |";
    t << "\n|---|---|";
    for (std::size_t i = 0; i < shapes.size(); ++i) t << "---:|";
    t << '\n';
    for (const std::string& ch : chapters) {
        const Row* any = nullptr;
        std::ostringstream cells;
        for (const Shape& s : shapes) {
            const Row* hit = nullptr;
            for (const Row& r : rows)
                if (r.chapter == ch && r.shape == s) hit = &r;
            if (hit) any = hit;
            cells << ' ';
            if (!hit) {
                cells << '-';
            } else {
                cells << thousands(hit->gflops);
                if (!hit->yardstick.empty())
                    cells << " (" << std::fixed << std::setprecision(1) << hit->pct_of_yardstick
                          << "%)";
                if (!hit->pass) cells << " FAIL";
            }
            cells << " |";
        }
        t << "| " << ch << " | " << (any ? any->precision : "") << " |" << cells.str() << '\n';
    }
    for (const Series& y : gflops_series(rows)) {
        if (!y.dashed) continue;
        t << "| *" << y.name << "* | |";
        for (const Shape& s : shapes) {
            auto hit = std::find_if(
                y.points.begin(), y.points.end(),
                [&](const std::pair<double, double>& p) { return p.first == chart_size(s); });
            t << ' ' << (hit == y.points.end() ? std::string("-") : thousands(hit->second)) << " |";
        }
        t << '\n';
    }
    return t.str();
}

std::string roofline_chart(const Peaks& pk, const std::vector<Row>& rows) {
    std::vector<Series> series;
    std::map<std::string, std::size_t> index;
    double imin = 1.0, imax = 4096.0;
    for (const Row& r : rows) {
        // Only what ran on the device these peaks describe (not, say, the CPU chapters).
        if (r.device != pk.device || r.shape.M == 0 || r.shape.N == 0 || r.shape.K == 0) continue;
        const double intensity = 2.0 * r.shape.M * double(r.shape.N) * r.shape.K / min_bytes(r);
        imin = std::min(imin, intensity);
        imax = std::max(imax, intensity);
        auto it = index.find(r.chapter);
        if (it == index.end()) {
            it = index.emplace(r.chapter, series.size()).first;
            series.push_back({r.chapter, {}, false});
        }
        series[it->second].points.push_back({intensity, r.gflops});
    }
    auto roof = [&](const std::string& name, double peak) {
        if (peak <= 0 || pk.bandwidth_gbs <= 0) return;
        const double ridge = peak / pk.bandwidth_gbs;  // FLOP per byte where the two limits meet
        Series s{name + " (ridge " + num(ridge, 3) + " FLOP/B)", {}, true};
        s.points.push_back({imin, std::min(peak, imin * pk.bandwidth_gbs)});
        if (ridge > imin && ridge < imax) s.points.push_back({ridge, peak});
        s.points.push_back({imax, std::min(peak, imax * pk.bandwidth_gbs)});
        series.push_back(s);
    };
    roof("fp32 CUDA-core roof", pk.fp32_gflops);
    roof("fp16 tensor-core roof", pk.fp16_tensor_gflops);
    return svg_chart("Roofline of " + pk.device + " (" + thousands(pk.bandwidth_gbs) + " GB/s)",
                     series, true,
                     "arithmetic intensity (FLOP per byte of the minimum traffic), log2", "GFLOPS");
}

void write_peaks(const std::string& path, const Peaks& p) {
    write_text(path, "device,fp32_gflops,fp16_tensor_gflops,bandwidth_gbs\n" + quote(p.device) +
                         "," + num(p.fp32_gflops, 8) + "," + num(p.fp16_tensor_gflops, 8) + "," +
                         num(p.bandwidth_gbs, 8) + "\n");
}

Peaks read_peaks(const std::string& path) {
    std::ifstream f(path);
    std::string header, line;
    if (!f || !std::getline(f, header) || !std::getline(f, line))
        throw std::runtime_error("cannot read peaks from " + path);
    std::vector<std::string> v = split_csv(line);
    if (v.size() != 4) throw std::runtime_error(path + ":2: expected 4 fields");
    try {
        return {v[0], std::stod(v[1]), std::stod(v[2]), std::stod(v[3])};
    } catch (const std::exception&) {
        throw std::runtime_error(path + ":2: a field is not a number");
    }
}

}  // namespace gemm
