#include "remote.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "remote_protocol.hpp"

namespace gemm {

namespace {

using Clock = std::chrono::steady_clock;
namespace rp = remote;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The last `bytes` of a file, with anything unprintable shown as '?': read from its end, so that a
// child that printed gigabytes costs no more than one that printed a line.
std::string file_tail(const std::string& path, std::size_t bytes) {
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    if (!f) return "";
    const std::streamoff size = f.tellg();
    const std::streamoff from = std::max<std::streamoff>(0, size - std::streamoff(bytes));
    f.seekg(from);
    std::string s(std::size_t(size - from), '\0');
    f.read(&s[0], std::streamsize(s.size()));
    for (char& c : s)
        if ((c < 32 && c != '\n') || c == 127) c = '?';
    return (from > 0 ? "..." : "") + s;
}

// The state letter of /proc/<pid>/stat ('R', 'S', 'T' stopped, 'Z' ...) and the parent, or
// false when the process is gone.
bool proc_stat(pid_t pid, char& state, pid_t& parent) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(f, text)) return false;
    const std::size_t close = text.rfind(')');  // the name may hold spaces and parentheses
    if (close == std::string::npos) return false;
    std::istringstream rest(text.substr(close + 1));
    long ppid = 0;
    rest >> state >> ppid;
    parent = pid_t(ppid);
    return bool(rest);
}

// Whether every thread of `pid` has stopped or ended (a stop reaches a process's threads one by
// one, and its first thread may have ended while the others run).
bool threads_stopped(pid_t pid) {
    bool all = true;
    const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
    if (DIR* d = ::opendir(tasks.c_str())) {
        while (const dirent* e = ::readdir(d)) {
            if (e->d_name[0] == '.') continue;
            char state = 'X';  // gone
            std::ifstream f(tasks + "/" + e->d_name + "/stat");
            std::string text;
            const std::size_t close = std::getline(f, text) ? text.rfind(')') : std::string::npos;
            if (close != std::string::npos && close + 2 < text.size()) state = text[close + 2];
            if (state != 'T' && state != 't' && state != 'Z' && state != 'X') all = false;
        }
        ::closedir(d);
    }
    return all;
}

// The CPU time the processes `pids` have had, every thread of theirs, ended ones included, in ns
// (each process's CPU-time clock); -1 where one cannot be read.
long long cpu_ns(const std::set<pid_t>& pids) {
    long long sum = 0;
    for (pid_t pid : pids) {
        clockid_t clock;
        timespec t{};
        if (::clock_getcpuclockid(pid, &clock) != 0 || ::clock_gettime(clock, &t) != 0) return -1;
        sum += static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec;
    }
    return sum;
}

// Every process descended from `root` (root included), from one scan of /proc: a sandbox's own
// processes, in their PID namespace, are this machine's processes as well.
std::vector<pid_t> process_tree(pid_t root) {
    std::map<pid_t, std::vector<pid_t>> children;
    if (DIR* d = ::opendir("/proc")) {
        while (const dirent* e = ::readdir(d)) {
            char* end = nullptr;
            const long pid = std::strtol(e->d_name, &end, 10);
            char state = 0;
            pid_t parent = 0;
            if (pid > 0 && *end == 0 && proc_stat(pid_t(pid), state, parent))
                children[parent].push_back(pid_t(pid));
        }
        ::closedir(d);
    }
    std::vector<pid_t> tree = {root};
    for (std::size_t i = 0; i < tree.size(); ++i)
        for (pid_t c : children[tree[i]]) tree.push_back(c);
    return tree;
}

// One timed batch's C, checked where the grade fetched it: rows [first, first + rows/ldc) of the
// product of A and B with its K index permuted by `perm` (rp::permute_k; FP8's B is N x K). Every
// element is scanned (NaN: never written; padding: must keep the initial C's sentinel) and up to
// 256 are recomputed.
CheckResult check_rows(const HostProblem& hp, const std::vector<std::uint32_t>& perm, int first,
                       const std::vector<float>& rows, std::mt19937_64& rng) {
    const Problem& p = hp.p;
    const int N = p.shape.N, K = p.shape.K, ldc = p.ldc;
    const int count = int(rows.size() / std::size_t(ldc));
    const bool fp8 = precision_info(p.precision).b_n_by_k;  // B is N x K
    const float sentinel = padding_sentinel(p.precision);
    CheckResult r;
    r.mode = "sample";
    auto bad = [&](int i, int j, double expected, double got, double tol, const char* why) {
        if (r.bad++ == 0) {
            r.bad_row = first + i, r.bad_col = j;
            r.expected = expected, r.got = got, r.tolerance = tol, r.reason = why;
        }
        r.pass = false;
    };
    for (int i = 0; i < count; ++i)
        for (int j = 0; j < ldc; ++j) {
            const float g = rows[std::size_t(i) * ldc + j];
            if (j >= N) {
                if (std::memcmp(&g, &sentinel, sizeof g) != 0)
                    bad(i, j, sentinel, g, 0.0, "padding written (column >= N)");
            } else if (!std::isfinite(g)) {
                bad(i, j, 0.0, g, 0.0,
                    std::isnan(g) ? "NaN (never written, or NaN computed)" : "Inf");
            }
        }
    if (count == 0 || N == 0) return r;
    const int samples = int(std::min<std::int64_t>(256, std::int64_t(count) * N));
    for (int s = 0; s < samples; ++s) {
        const std::int64_t at = samples == std::int64_t(count) * N
                                    ? s
                                    : std::int64_t(rng() % std::uint64_t(std::int64_t(count) * N));
        const int i = int(at / N), j = int(at % N);
        const float g = rows[std::size_t(i) * ldc + j];
        ++r.checked;
        if (!std::isfinite(g)) continue;  // counted by the scan
        const std::size_t row = std::size_t(first + i);
        double acc = 0.0, sc = 0.0;
        for (int k = 0; k < K; ++k) {
            const double b = fp8 ? double(hp.B[std::size_t(j) * p.ldb + perm[k]])
                                 : double(hp.B[std::size_t(perm[k]) * p.ldb + j]);
            const double ab = double(hp.A[row * p.lda + k]) * b;
            acc += ab;
            sc += std::fabs(ab);
        }
        const double c = p.beta == 0.0f ? 0.0 : double(hp.C0[row * ldc + j]);
        const double e = double(p.alpha) * acc + double(p.beta) * c;
        const double scale = std::fabs(double(p.alpha)) * sc + std::fabs(double(p.beta) * c);
        const double err = std::fabs(double(g) - e),
                     tol = tolerance(p.precision, K, scale) + output_tolerance(p.precision, e);
        r.max_abs_err = std::max(r.max_abs_err, err);
        if (scale > 0) r.max_rel_err = std::max(r.max_rel_err, err / scale);
        if (err > tol) bad(i, j, e, g, tol, "out of tolerance");
    }
    return r;
}

class RemoteBackend : public Backend {
public:
    RemoteBackend(std::unique_ptr<Backend> local, std::string program, int timeout_s)
        : local_(std::move(local)),
          program_(std::move(program)),
          timeout_s_(timeout_s),
          samples_(fresh()) {
        start();
    }
    ~RemoteBackend() override { stop(); }
    // The child must leave as asked, with exit code 0: a grade needs its clean exit.
    void finish() override {
        stop();
        if (!exit_error_.empty()) throw RemoteError(exit_error_);
    }

    std::string device_name() const override { return local_->device_name(); }
    std::string device_report() const override {
        return local_->device_report() + "kernel: run by " + program_ +
               " (a child process), timed by this process's clock around each batch of calls\n";
    }
    Peaks peaks() const override { return local_->peaks(); }
    std::string yardstick_name() const override { return local_->yardstick_name(); }
    void check_fits(const Problem& p) const override { local_->check_fits(p); }

    void load(const HostProblem& hp) override {
        local_->load(hp);  // for the yardstick
        hp_ = &hp;
        const Problem& p = hp.p;
        const std::vector<float> C0 = initial_C(hp);
        // The e4m3 codes and their scales, not the values (precision.hpp's Inputs::E4M3Codes).
        const bool fp8 = precision_info(p.precision).inputs == Inputs::E4M3Codes;
        rp::LoadHeader h{p.shape.M,
                         p.shape.N,
                         p.shape.K,
                         p.lda,
                         p.ldb,
                         p.ldc,
                         p.view_offset,
                         p.alpha,
                         p.beta,
                         fp8 ? hp.A8.size() : hp.A.size(),
                         fp8 ? hp.B8.size() : hp.B.size(),
                         C0.size(),
                         fp8 ? 1u : 0u,
                         fp8 ? hp.scale_a.size() : 0,
                         fp8 ? hp.scale_b.size() : 0};
        send(rp::Op::Load);
        put(&h, sizeof h);
        if (fp8) {
            put(hp.A8.data(), hp.A8.size());
            put(hp.B8.data(), hp.B8.size());
            put(hp.scale_a.data(), hp.scale_a.size() * sizeof(float));
            put(hp.scale_b.data(), hp.scale_b.size() * sizeof(float));
        } else {
            put(hp.A.data(), hp.A.size() * sizeof(float));
            put(hp.B.data(), hp.B.size() * sizeof(float));
        }
        put(C0.data(), C0.size() * sizeof(float));
        n_c_ = C0.size();
    }

    std::vector<float> run_once(const std::vector<float>& c_init) override {
        send(rp::Op::Run);
        const std::uint64_t n = c_init.size();
        put(&n, sizeof n);
        put(c_init.data(), n * sizeof(float));
        expect_ok("run");
        return get_floats(n_c_, "C");
    }

    // Each timed run is a batch of calls that this process times from its request to the reply.
    // Every call has its own C, set to the poisoned initial C before the batch, and its own B,
    // whose rows are permuted by a key that comes with the request: no answer exists before the
    // clock starts. The reply holds a digest of every row block of every C: nothing can change
    // after the clock stops. Then a few blocks, drawn at random, are fetched, compared with
    // their digests and checked. The milliseconds returned are each batch's time per call.
    std::vector<double> time_chapter(int warmup, int reps) override {
        double round_trip = 1e30;  // the fastest empty request: what a batch pays besides its calls
        for (int i = 0; i < 5; ++i) {
            const auto t0 = Clock::now();
            send(rp::Op::Ping);
            expect_ok("ping");
            round_trip = std::min(round_trip, ms_since(t0));
        }
        double one = 0.0;
        for (int i = 0; i < std::max(warmup, 1); ++i)
            one = batch(1, "warm-up run " + std::to_string(i + 1));
        // Enough calls per batch that the round trip is at most 2% of the batch, within 1 GiB of
        // Cs. A child that answers pings slowly gets more calls per batch, not a better time.
        const double per_call = std::max(one - round_trip, 1e-3);
        const double c_bytes = std::max(1.0, double(n_c_) * sizeof(float));
        const int most = int(std::clamp(double(1ull << 30) / c_bytes, 1.0, 32.0));
        const int calls =
            int(std::clamp(std::ceil(50.0 * round_trip / per_call), 1.0, double(most)));
        std::vector<double> ms;
        for (int r = 0; r < reps; ++r)
            ms.push_back(
                batch(calls, "timed run " + std::to_string(r + 1) + " of " + std::to_string(reps)) /
                calls);
        return ms;
    }
    RunEnvironment environment() const override { return local_->environment(); }
    void start_sampling() override { local_->start_sampling(); }
    Sampled stop_sampling() override { return local_->stop_sampling(); }
    std::string l2_flush() const override { return local_->l2_flush(); }
    // The yardstick is timed with every process of the child stopped: a kernel that keeps
    // threads spinning while it waits cannot slow the yardstick down (and so look faster).
    // The stop is checked after the series: the same processes, all still stopped (a child can
    // continue itself: a timer's SIGCONT), and their CPU time (every thread's, ended ones
    // included) grown by at most 0.1 ms (stopped, it does not grow). Otherwise the yardstick's
    // times are not to be trusted, and the grade fails.
    std::vector<double> time_yardstick(int warmup, int reps) override {
        freeze();  // frozen_: the whole tree, every thread stopped
        const long long before = cpu_ns(frozen_);
        std::vector<double> ms;
        try {
            ms = local_->time_yardstick(warmup, reps);
        } catch (...) {
            thaw();
            throw;
        }
        const long long after = cpu_ns(frozen_);
        const std::vector<pid_t> now = process_tree(pid_);
        bool stopped = std::set<pid_t>(now.begin(), now.end()) == frozen_;
        for (pid_t p : frozen_) stopped = stopped && threads_stopped(p);
        thaw();
        if (before < 0 || after < 0)
            fail("the grade could not read the CPU time of the kernel's processes");
        if (!stopped || after - before > 100000)
            fail("the kernel's processes ran while the yardstick was timed, when they are stopped");
        return ms;
    }

private:
    // One batch of `calls` calls: stages their Cs, times the batch, checks `kChecked` blocks.
    double batch(int calls, const std::string& what) {
        static constexpr int kChecked = 4;
        const Problem& p = hp_->p;
        send(rp::Op::Stage);
        const std::uint32_t n = std::uint32_t(calls);
        put(&n, sizeof n);
        expect_ok("stage");

        const std::uint64_t key = fresh();
        const auto t0 = Clock::now();
        send(rp::Op::Batch);
        put(&n, sizeof n);
        put(&key, sizeof key);
        expect_ok("batch");
        std::uint32_t blocks = 0;
        get(&blocks, sizeof blocks);
        if (int(blocks) != rp::digest_blocks(p.shape.M))
            fail("the kernel process reported a wrong number of digest blocks");
        std::vector<std::uint64_t> digests(std::size_t(n) * blocks);
        get(digests.data(), digests.size() * sizeof(std::uint64_t));
        const double ms = ms_since(t0);
        if (blocks == 0) return ms;

        for (int c = 0; c < kChecked; ++c) {
            const std::uint32_t slot = std::uint32_t(fresh() % n),
                                b = std::uint32_t(fresh() % blocks);
            const rp::SlotKeys keys = rp::slot_keys(key, slot);
            const int first = rp::block_first_row(int(b), p.shape.M, int(blocks));
            const int end = rp::block_first_row(int(b) + 1, p.shape.M, int(blocks));
            send(rp::Op::Rows);
            put(&slot, sizeof slot);
            put(&b, sizeof b);
            expect_ok("rows");
            const std::vector<float> rows =
                get_floats(std::uint64_t(end - first) * std::uint64_t(p.ldc), "rows of C");
            const std::string where =
                what +
                (n > 1 ? " (call " + std::to_string(slot + 1) + " of " + std::to_string(n) +
                             " in its batch)"
                       : std::string()) +
                (end - first > 1 ? ", rows " + std::to_string(first) + "-" + std::to_string(end - 1)
                                 : ", row " + std::to_string(first));
            if (rp::digest_block(keys, b, rows.data(), rows.size()) != digests[slot * blocks + b])
                fail(where +
                     ": C differs from the digest the kernel process reported when the "
                     "run ended (it changed after the run was timed)");
            std::vector<std::uint32_t> perm(std::size_t(p.shape.K));
            for (int k = 0; k < p.shape.K; ++k)
                perm[std::size_t(k)] =
                    rp::permute_k(std::uint32_t(k), std::uint32_t(p.shape.K), keys.perm,
                                  precision_info(p.precision).scales != Scales::None);
            const CheckResult check = check_rows(*hp_, perm, first, rows, samples_);
            if (!check.pass) fail(where + ": C is wrong: " + blind_summary(check));
        }
        return ms;
    }

    // Stops every process of the child's tree (SIGSTOP cannot be caught or ignored, and a stopped
    // process starts no other), scanning again until a scan finds nothing new and everything it
    // found has stopped, every thread of it. A process the grade cannot stop within 2 s ends the
    // grade.
    void freeze() {
        check_alive();
        const auto deadline = Clock::now() + std::chrono::seconds(2);
        for (;;) {
            bool settled = true;
            for (pid_t p : process_tree(pid_)) {
                if (frozen_.insert(p).second) ::kill(p, SIGSTOP);
                if (!threads_stopped(p)) settled = false;
            }
            if (settled) return;
            if (Clock::now() > deadline) {
                thaw();
                fail("the kernel process could not be stopped while the yardstick was timed");
            }
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
    }
    void thaw() {
        for (pid_t p : frozen_) ::kill(p, SIGCONT);
        frozen_.clear();
    }

    void start() {
        int req[2], rep[2];
        if (::pipe(req) != 0 || ::pipe(rep) != 0)
            throw RemoteError(std::string("pipe: ") + std::strerror(errno));
        // Move the pipe ends above the child's fds 3 and 4, so that setting those up in the child
        // cannot close one end it still needs.
        for (int* fd : {&req[0], &req[1], &rep[0], &rep[1]}) {
            const int high = ::fcntl(*fd, F_DUPFD_CLOEXEC, 16);
            ::close(*fd);
            *fd = high;
        }
        log_ = program_ + ".log";
        pid_ = ::fork();
        if (pid_ < 0) throw RemoteError(std::string("fork: ") + std::strerror(errno));
        if (pid_ == 0) {
            // The child: no input but requests on fd 3, replies on fd 4, everything it prints to
            // the log, and none of this process's other files.
            const int null = ::open("/dev/null", O_RDONLY);
            if (null >= 0) ::dup2(null, 0);
            ::dup2(req[0], rp::kRequestFd);
            ::dup2(rep[1], rp::kReplyFd);
            const int log = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (log >= 0) {
                ::dup2(log, 1);
                ::dup2(log, 2);
            }
            for (int fd = 5; fd < 1024; ++fd) ::close(fd);
            ::execl(program_.c_str(), program_.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        ::close(req[0]);
        ::close(rep[1]);
        req_ = req[1];
        rep_ = rep[0];
        ::signal(SIGPIPE, SIG_IGN);  // a dead child shows up as a failed write, not a signal
    }

    // Asks the child to quit and reaps it; a child that does not leave with exit code 0 within
    // two seconds is stopped, and exit_error_ says so.
    void stop() {
        if (pid_ > 0) {
            const rp::Op quit = rp::Op::Quit;
            if (!dead_ && ::write(req_, &quit, sizeof quit) < 0) {
                // the child is gone already: it is reaped below all the same
            }
            ::close(req_);  // a child still reading sees the end of its requests
            req_ = -1;
            int status = 0;
            pid_t done = 0;
            for (int i = 0; i < 200 && (done = ::waitpid(pid_, &status, WNOHANG)) == 0; ++i)
                ::usleep(10000);
            if (done != pid_) {
                ::kill(pid_, SIGKILL);
                ::waitpid(pid_, nullptr, 0);
                exit_error_ =
                    "the kernel process did not exit within 2 s of the grade's last request";
            } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                exit_error_ =
                    "the kernel process did not exit cleanly after the grade's last request (" +
                    exit_text(status) + ")";
            }
            if (!exit_error_.empty()) report_log();
            pid_ = -1;
            dead_ = true;
            reason_ = "the kernel process has been ended";
        }
        for (int* fd : {&req_, &rep_})  // also after fail(), which reaped the child itself
            if (*fd >= 0) ::close(*fd), *fd = -1;
    }
    // How the child ended, in a few fixed words: the child chooses its exit code and may raise
    // any signal, so neither number is repeated (it could spell the seed with them).
    static std::string exit_text(int status) {
        if (WIFEXITED(status)) {
            // A sandbox (bubblewrap) reports its command's death by signal N as exit code 128 + N.
            const int code = WEXITSTATUS(status);
            if (code > 128 && code < 128 + 65) return signal_text(code - 128);
            return code == 0 ? "exit code 0" : "a non-zero exit code";
        }
        return WIFSIGNALED(status) ? signal_text(WTERMSIG(status)) : "an unknown status";
    }
    static std::string signal_text(int sig) {
        switch (sig) {
            case SIGXFSZ:
                return "SIGXFSZ (it wrote past the sandbox's limit on a file's size)";
            case SIGXCPU:
                return "SIGXCPU (it ran past its limit of CPU time)";
            case SIGKILL:
                return "SIGKILL (a limit of the sandbox, or the grade, ended it)";
            case SIGSEGV:
            case SIGBUS:
                return "a crash (SIGSEGV or SIGBUS)";
            case SIGABRT:
                return "an abort (SIGABRT)";
            default:
                return "a signal";
        }
    }
    // The end of the child's log, for the instructor (this process's stderr): never part of a
    // reason, which goes into the verdict and from there to the student.
    void report_log() const {
        const std::string tail = file_tail(log_, 600);
        if (!tail.empty())
            std::fprintf(stderr, "[the end of %s]\n%s\n[end]\n", log_.c_str(), tail.c_str());
    }

    // Why the child stopped answering.
    [[noreturn]] void fail(const std::string& what) {
        int status = 0;
        std::string how;
        if (!dead_) {
            dead_ = true;
            // Give a child that is on its way out a moment to finish, then stop it.
            pid_t done = 0;
            for (int i = 0; i < 20 && (done = ::waitpid(pid_, &status, WNOHANG)) == 0; ++i)
                ::usleep(5000);
            if (done == pid_) {
                how = "; it ended with " + exit_text(status);
            } else {
                ::kill(pid_, SIGKILL);
                ::waitpid(pid_, &status, 0);
                how = "; it was stopped";
            }
            report_log();
        }
        pid_ = -1;
        reason_ =
            what + how + " (its output is in " + log_.substr(log_.find_last_of('/') + 1) + ")";
        throw RemoteError(reason_);
    }
    void check_alive() {
        if (dead_) throw RemoteError(reason_.empty() ? "the kernel process is gone" : reason_);
    }

    void send(rp::Op op) {
        check_alive();
        put(&op, sizeof op);
    }
    void put(const void* data, std::size_t bytes) {
        const char* p = static_cast<const char*>(data);
        while (bytes > 0) {
            const ssize_t n = ::write(req_, p, bytes);
            if (n <= 0) {
                if (n < 0 && errno == EINTR) continue;
                fail("the kernel process stopped reading its requests");
            }
            p += n, bytes -= std::size_t(n);
        }
    }
    // Reads exactly `bytes`, giving the child timeout_s seconds from the start of the call.
    void get(void* data, std::size_t bytes) {
        char* p = static_cast<char*>(data);
        const auto deadline = Clock::now() + std::chrono::seconds(timeout_s_);
        while (bytes > 0) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now())
                    .count();
            pollfd pfd{rep_, POLLIN, 0};
            const int ready = left > 0 ? ::poll(&pfd, 1, int(left)) : 0;
            if (ready < 0 && errno == EINTR) continue;
            if (ready == 0)
                fail("the kernel process did not answer within " + std::to_string(timeout_s_) +
                     " s");
            const ssize_t n = ::read(rep_, p, bytes);
            if (n <= 0) {
                if (n < 0 && errno == EINTR) continue;
                fail("the kernel process ended before answering");
            }
            p += n, bytes -= std::size_t(n);
        }
    }
    void expect_ok(const char* what) {
        std::uint32_t status = 1;
        get(&status, sizeof status);
        if (status != 0) fail(std::string("the kernel process failed the ") + what + " request");
    }
    std::vector<float> get_floats(std::uint64_t expected, const char* what) {
        std::uint64_t n = 0;
        get(&n, sizeof n);
        if (n != expected)
            fail(std::string("the kernel process returned a wrong number of elements of ") + what);
        std::vector<float> v(n);
        get(v.data(), n * sizeof(float));
        return v;
    }

    std::unique_ptr<Backend> local_;
    std::string program_, log_, reason_, exit_error_;
    int timeout_s_;
    pid_t pid_ = -1;
    std::set<pid_t> frozen_;  // stopped by freeze(), continued by thaw()
    int req_ = -1, rep_ = -1;
    bool dead_ = false;
    const HostProblem* hp_ = nullptr;
    std::uint64_t n_c_ = 0;
    // Keys and the blocks checked come straight from the operating system's random source, so
    // that no number of them seen lets the child predict the next; sample positions (which the
    // child never sees) from a generator seeded there.
    std::random_device random_;
    std::mt19937_64 samples_;
    std::uint64_t fresh() { return (std::uint64_t(random_()) << 32) ^ random_(); }
};

}  // namespace

std::string blind_summary(const CheckResult& c) {
    if (!c.pass && c.checked == 0 && !c.reason.empty()) return "FAIL: " + c.reason;
    return std::string(c.pass ? "PASS" : "FAIL") + " (" + c.mode + " check)" +
           (c.pass ? "" : ": " + c.reason);
}

std::unique_ptr<Backend> make_remote_backend(std::unique_ptr<Backend> local,
                                             const std::string& program, int timeout_s) {
    if (::access(program.c_str(), X_OK) != 0)
        throw UsageError("--remote " + program + ": not an executable program");
    return std::unique_ptr<Backend>(new RemoteBackend(std::move(local), program, timeout_s));
}

}  // namespace gemm
