#include "remote.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "remote_protocol.hpp"

namespace gemm {

namespace {

using Clock = std::chrono::steady_clock;

class RemoteBackend : public Backend {
public:
    RemoteBackend(std::unique_ptr<Backend> local, std::string program, int timeout_s)
        : local_(std::move(local)), program_(std::move(program)), timeout_s_(timeout_s) {
        start();
    }
    ~RemoteBackend() override { finish(); }
    void finish() override {
        if (pid_ > 0) {
            const remote::Op quit = remote::Op::Quit;
            if (!dead_ && ::write(req_, &quit, sizeof quit) < 0) {
                // the child is gone already: it is reaped below all the same
            }
            ::close(req_);  // a child still reading sees the end of its requests
            req_ = -1;
            // A child that ignores the request to quit is not waited for.
            pid_t done = 0;
            for (int i = 0; i < 50 && (done = ::waitpid(pid_, nullptr, WNOHANG)) == 0; ++i)
                ::usleep(10000);
            if (done != pid_) {
                ::kill(pid_, SIGKILL);
                ::waitpid(pid_, nullptr, 0);
            }
            pid_ = -1;
            dead_ = true;
            reason_ = "the kernel process has been ended";
        }
        for (int* fd : {&req_, &rep_})  // also after fail(), which reaped the child itself
            if (*fd >= 0) ::close(*fd), *fd = -1;
    }

    std::string device_name() const override { return local_->device_name(); }
    std::string device_report() const override {
        return local_->device_report() + "kernel: run by " + program_ + " (a child process)\n";
    }
    Peaks peaks() const override { return local_->peaks(); }
    std::string yardstick_name() const override { return local_->yardstick_name(); }
    void check_fits(const Problem& p) const override { local_->check_fits(p); }

    void load(const HostProblem& hp) override {
        local_->load(hp);  // for the yardstick
        hp_ = &hp;
        const Problem& p = hp.p;
        const std::vector<float> C0 = initial_C(hp);
        remote::LoadHeader h{p.shape.M, p.shape.N,  p.shape.K, p.lda,      p.ldb,
                             p.ldc,     p.view_offset, p.alpha, p.beta, hp.A.size(),
                             hp.B.size(), C0.size()};
        send(remote::Op::Load);
        put(&h, sizeof h);
        put(hp.A.data(), hp.A.size() * sizeof(float));
        put(hp.B.data(), hp.B.size() * sizeof(float));
        put(C0.data(), C0.size() * sizeof(float));
        n_c_ = C0.size();
    }

    std::vector<float> run_once(const std::vector<float>& c_init) override {
        send(remote::Op::Run);
        const std::uint64_t n = c_init.size();
        put(&n, sizeof n);
        put(c_init.data(), n * sizeof(float));
        expect_ok("run");
        return get_c();
    }

    // The child's event timings are taken only if this process's clock agrees that the work took
    // at least that long, and only if the C left by the timed runs is still the product.
    std::vector<double> time_chapter(int warmup, int reps) override {
        send(remote::Op::Time);
        const std::int32_t w = warmup, r = reps;
        put(&w, sizeof w);
        put(&r, sizeof r);
        const auto t0 = Clock::now();
        expect_ok("time");
        std::vector<double> ms(reps);
        get(ms.data(), ms.size() * sizeof(double));
        const std::vector<float> C = get_c();
        const double wall = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        double sum = 0;
        for (double t : ms) {
            if (!std::isfinite(t) || t <= 0) fail("the kernel process reported a timing of " +
                                                  std::to_string(t) + " ms");
            sum += t;
        }
        if (sum > wall * 1.02 + 1.0)
            fail("the kernel process claims " + std::to_string(sum) + " ms of timed runs in " +
                 std::to_string(wall) + " ms of wall-clock time");
        if (hp_->p.beta == 0.0f) {  // with beta != 0 every run changes C
            const CheckResult c = check_sampled(*hp_, C);
            if (!c.pass) fail("C after the timed runs is wrong: " + c.summary());
        }
        return ms;
    }
    RunEnvironment environment() const override { return local_->environment(); }
    void start_sampling() override { local_->start_sampling(); }
    Sampled stop_sampling() override { return local_->stop_sampling(); }
    std::string l2_flush() const override { return local_->l2_flush(); }
    std::vector<double> time_yardstick(int warmup, int reps) override {
        return local_->time_yardstick(warmup, reps);
    }

private:
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
            // The child: requests on fd 3, replies on fd 4, everything it prints to the log.
            ::dup2(req[0], remote::kRequestFd);
            ::dup2(rep[1], remote::kReplyFd);
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

    // Why the child stopped answering, with the end of what it printed.
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
                if (WIFEXITED(status)) how = "; it exited with code " + std::to_string(WEXITSTATUS(status));
                if (WIFSIGNALED(status)) how = "; it ended on signal " + std::to_string(WTERMSIG(status));
            } else {
                ::kill(pid_, SIGKILL);
                ::waitpid(pid_, &status, 0);
                how = "; it was stopped";
            }
        }
        pid_ = -1;
        std::ifstream f(log_);
        std::stringstream text;
        text << f.rdbuf();
        std::string tail = text.str();
        if (tail.size() > 600) tail = "..." + tail.substr(tail.size() - 600);
        reason_ = what + how + (tail.empty() ? "" : "; its last output: " + tail);
        throw RemoteError(reason_);
    }
    void check_alive() {
        if (dead_) throw RemoteError(reason_.empty() ? "the kernel process is gone" : reason_);
    }

    void send(remote::Op op) {
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
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  deadline - Clock::now())
                                  .count();
            pollfd pfd{rep_, POLLIN, 0};
            const int ready = left > 0 ? ::poll(&pfd, 1, int(left)) : 0;
            if (ready < 0 && errno == EINTR) continue;
            if (ready == 0)
                fail("the kernel process did not answer within " + std::to_string(timeout_s_) + " s");
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
    std::vector<float> get_c() {
        std::uint64_t n = 0;
        get(&n, sizeof n);
        if (n != n_c_)
            fail("the kernel process returned " + std::to_string(n) + " elements of C, not " +
                 std::to_string(n_c_));
        std::vector<float> C(n);
        get(C.data(), n * sizeof(float));
        return C;
    }

    std::unique_ptr<Backend> local_;
    std::string program_, log_, reason_;
    int timeout_s_;
    pid_t pid_ = -1;
    int req_ = -1, rep_ = -1;
    bool dead_ = false;
    const HostProblem* hp_ = nullptr;
    std::uint64_t n_c_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_remote_backend(std::unique_ptr<Backend> local,
                                             const std::string& program, int timeout_s) {
    if (::access(program.c_str(), X_OK) != 0)
        throw UsageError("--remote " + program + ": not an executable program");
    return std::unique_ptr<Backend>(new RemoteBackend(std::move(local), program, timeout_s));
}

}  // namespace gemm
