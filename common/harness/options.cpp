#include "options.hpp"

#include <cctype>
#include <cerrno>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace gemm {

namespace {

// Whole-string integer parse: "12", "-3" yes; "+12", "12a", "", "1e3", " 12", "0x10" no.
long long parse_integer(const std::string& text, const std::string& what) {
    if (text.empty()) throw UsageError(what + ": expected a whole number, got nothing");
    std::size_t start = text[0] == '-' ? 1 : 0;
    if (start == text.size())
        throw UsageError(what + ": expected a whole number, got '" + text + "'");
    for (std::size_t i = start; i < text.size(); ++i)
        if (text[i] < '0' || text[i] > '9')
            throw UsageError(what + ": expected a whole number, got '" + text + "'");
    errno = 0;
    long long value = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == ERANGE) throw UsageError(what + ": '" + text + "' is out of range");
    return value;
}

// Whole-string decimal parse, in the integers' plain form plus a fraction and an exponent:
// "-1.5", "2", ".5", "1e-3" yes; "+1", " 1", "0x10", "1,5", "inf", "nan", "1e99" (beyond float),
// "1e-45" (subnormal) and "1e-50" (a nonzero number that would become 0) no.
float parse_float(const std::string& text, const std::string& what) {
    std::size_t i = !text.empty() && text[0] == '-' ? 1 : 0;
    const std::size_t int_digits = std::strspn(text.c_str() + i, "0123456789");
    i += int_digits;
    std::size_t frac_digits = 0;
    if (i < text.size() && text[i] == '.') {
        frac_digits = std::strspn(text.c_str() + i + 1, "0123456789");
        i += 1 + frac_digits;
    }
    const std::size_t mantissa_end = i;
    bool ok = int_digits + frac_digits > 0;
    if (ok && i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        i += (i + 1 < text.size() && (text[i + 1] == '-' || text[i + 1] == '+')) ? 2 : 1;
        const std::size_t exp_digits = std::strspn(text.c_str() + i, "0123456789");
        ok = exp_digits > 0;
        i += exp_digits;
    }
    std::string word;
    for (char c : text) word += char(std::tolower(static_cast<unsigned char>(c)));
    if (word == "nan" || word == "-nan" || word.find("inf") != std::string::npos)
        throw UsageError(what + ": '" + text + "' is not a finite float");
    if (!ok || i != text.size())
        throw UsageError(what + ": expected a decimal number such as 1, -0.5 or 2e-3, got '" +
                         text + "'");
    const float value = std::strtof(text.c_str(), nullptr);
    if (std::isinf(value))
        throw UsageError(what + ": '" + text + "' is not a finite float (the largest is 3.4e38)");
    if (value == 0.0f && text.find_first_of("123456789") < mantissa_end)
        throw UsageError(what + ": '" + text + "' is below the smallest float (1.4e-45) and " +
                         "would become 0");
    // A subnormal is a finite float, but products with it keep only a few bits: no kernel's
    // result could pass the check against the double reference.
    if (value != 0.0f && std::fabs(value) < FLT_MIN)
        throw UsageError(what + ": '" + text + "' is a subnormal float (nonzero, below 1.2e-38): " +
                         "products with it lose their precision; use 0 or a normal float");
    return value;
}

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, sep)) parts.push_back(part);
    if (!text.empty() && text.back() == sep) parts.push_back("");
    return parts;
}

}  // namespace

int parse_bounded(const std::string& text, const std::string& what, long long lo, long long hi) {
    long long v = parse_integer(text, what);
    if (v < lo || v > hi)
        throw UsageError(what + ": " + text + " is outside [" + std::to_string(lo) + ", " +
                         std::to_string(hi) + "]");
    return static_cast<int>(v);
}

std::string Shape::str() const {
    if (M == N && N == K) return std::to_string(M);
    return std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
}

Shape parse_shape(const std::string& text) {
    const std::string what = "--sizes '" + text + "'";
    std::vector<std::string> dims = split(text, 'x');
    std::vector<int> v;
    for (const std::string& d : dims) {
        long long x = parse_integer(d, what);
        if (x < 0) throw UsageError(what + ": dimensions cannot be negative");
        if (x > INT_MAX) throw UsageError(what + ": dimension " + d + " does not fit in int");
        v.push_back(static_cast<int>(x));
    }
    if (v.size() != 1 && v.size() != 3)
        throw UsageError(what + ": a size is N (square) or MxNxK, e.g. 1024 or 1000x1001x999");
    return v.size() == 1 ? Shape(v[0]) : Shape(v[0], v[1], v[2]);
}

const char* to_string(CheckMode mode) {
    switch (mode) {
        case CheckMode::Auto:
            return "auto";
        case CheckMode::Full:
            return "full";
        case CheckMode::Sample:
            return "sample";
        case CheckMode::Off:
            return "off";
    }
    return "?";
}

Options parse_options(int argc, const char* const* argv, const MoreOptions& more) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        std::string value;
        bool has_inline_value = false;
        if (arg.rfind("--", 0) == 0) {
            std::size_t eq = arg.find('=');
            if (eq != std::string::npos) {
                value = arg.substr(eq + 1);
                arg = arg.substr(0, eq);
                has_inline_value = true;
            }
        }
        auto take = [&]() -> std::string {
            if (has_inline_value) return value;
            if (i + 1 >= argc) throw UsageError(arg + " needs a value (see --help)");
            return argv[++i];
        };
        auto no_value = [&]() {
            if (has_inline_value) throw UsageError(arg + " takes no value");
        };
        if (arg == "--help" || arg == "-h") {
            no_value();
            o.help = true;
        } else if (arg == "--sizes") {
            std::string list = take();
            o.sizes.clear();
            for (const std::string& item : split(list, ',')) {
                if (item.empty())
                    throw UsageError("--sizes '" + list + "': empty entry in the list");
                o.sizes.push_back(parse_shape(item));
            }
            if (o.sizes.empty()) throw UsageError("--sizes needs at least one size");
        } else if (arg == "--reps") {
            o.reps = parse_bounded(take(), "--reps", 1, 100000);
        } else if (arg == "--rounds") {
            o.rounds = parse_bounded(take(), "--rounds", 1, 1000);
        } else if (arg == "--l2-flush") {
            const std::string v = take();
            if (v != "on" && v != "off")
                throw UsageError("--l2-flush: expected on or off, got '" + v + "'");
            o.l2_flush = v == "on";
        } else if (arg == "--warmup") {
            o.warmup = parse_bounded(take(), "--warmup", 0, 100000);
        } else if (arg == "--alpha") {
            o.alpha = parse_float(take(), "--alpha");
        } else if (arg == "--beta") {
            o.beta = parse_float(take(), "--beta");
        } else if (arg == "--seed") {
            std::string s = take();
            long long v = parse_integer(s, "--seed");
            if (v < 0)
                throw UsageError("--seed: expected a non-negative whole number, got '" + s + "'");
            o.seed = static_cast<std::uint64_t>(v);
        } else if (arg == "--check") {
            std::string m = take();
            if (m == "full")
                o.check = CheckMode::Full;
            else if (m == "sample")
                o.check = CheckMode::Sample;
            else if (m == "off")
                o.check = CheckMode::Off;
            else if (m == "auto")
                o.check = CheckMode::Auto;
            else
                throw UsageError("--check: expected full, sample, off or auto, got '" + m + "'");
        } else if (arg == "--no-baseline") {
            no_value();
            o.baseline = false;
        } else if (arg == "--out") {
            o.out_dir = take();
            if (o.out_dir.empty()) throw UsageError("--out: expected a directory, got nothing");
        } else if (arg == "--device") {
            o.device = parse_bounded(take(), "--device", 0, 1023);
        } else if (!more || !more(arg, take)) {
            throw UsageError("unknown argument '" + std::string(argv[i]) + "' (see --help)");
        }
    }
    return o;
}

std::string usage(const std::string& program, const std::vector<Shape>& default_sizes,
                  const std::string& about, const std::string& more) {
    std::string defaults;
    for (const Shape& s : default_sizes) defaults += (defaults.empty() ? "" : ",") + s.str();
    Options d;
    std::ostringstream u;
    u << "Usage: " << program << " [options]\n"
      << (about.empty() ? "Checks this chapter's GEMM against a double-precision reference and "
                          "times it against\nthe yardstick library in the same run.\n"
                        : about)
      << "\n"
      << "  --sizes LIST     comma-separated sizes: N (square) or MxNxK   [" << defaults << "]\n"
      << "  --reps N         timed runs per round, chapter and yardstick each  [" << d.reps << "]\n"
      << "  --rounds N       rounds alternating chapter and yardstick; the % of the yardstick\n"
      << "                   is the median of the rounds' ratios, min-max beside it   [" << d.rounds
      << "]\n"
      << "  --warmup N       untimed runs of each before the first round  [" << d.warmup << "]\n"
      << "  --l2-flush on|off  GPU: write over L2 before every timed run (both sides)  [on]\n"
      << "  --alpha X        C = alpha*A*B + beta*C                        [" << d.alpha << "]\n"
      << "  --beta X                                                       [" << d.beta << "]\n"
      << "  --seed N         seed of the inputs                           [" << d.seed << "]\n"
      << "  --check MODE     full | sample | off | auto (full up to 2^30 multiply-adds, else "
         "sample)\n"
      << "  --no-baseline    do not time the yardstick (cuBLAS / CBLAS)\n"
      << "  --out DIR        where the CSV goes                          [" << d.out_dir << "]\n"
      << "  --device N       CUDA device (GPU chapters)                   [" << d.device << "]\n"
      << more << "  --help           this text\n\n"
      << "Exit codes: 0 every check passed, 1 a check failed, 2 bad usage, 77 no usable GPU.\n";
    return u.str();
}

}  // namespace gemm
