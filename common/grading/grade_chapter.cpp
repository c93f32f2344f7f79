#include "grade_chapter.hpp"

#include <iostream>
#include <string>

#include "grade.hpp"
#include "remote.hpp"
#include "runner.hpp"

namespace gemm {

int grade_chapter(int argc, char** argv, const ChapterInfo& info, Precision precision,
                  const BackendFactory& make_backend) {
    std::string remote;   // --remote: the child that runs the kernel ("": this process)
    int timeout_s = 120;  // --timeout: seconds the child may take to answer one request
    Command command;
    command.about =
        "Grades this chapter's GEMM (docs/assignments.md): checks it on shapes drawn from --seed,\n"
        "then times the largest default size (or --sizes) against the yardstick; writes\n"
        "DIR/<chapter>.grade.json.\n";
    command.help =
        "  --remote PROG    run the kernel in the child process PROG (built by\n"
        "                   tools/grading/grade.py from a submission); this binary checks what\n"
        "                   it returns\n"
        "  --timeout S      with --remote: seconds the child may take per request  [" +
        std::to_string(timeout_s) + "]\n";
    command.more = [&](const std::string& arg, const std::function<std::string()>& value) {
        if (arg == "--remote") {
            remote = value();
            if (remote.empty()) throw UsageError("--remote: expected a program, got nothing");
        } else if (arg == "--timeout") {
            timeout_s = parse_bounded(value(), "--timeout", 1, 86400);
        } else {
            return false;
        }
        return true;
    };
    // The benchmark times the largest default size unless --sizes says otherwise.
    ChapterInfo graded = info;
    if (!graded.default_sizes.empty()) graded.default_sizes = {graded.default_sizes.back()};

    Started run;
    int rc = start_run(argc, argv, graded, precision, make_backend, command, run);
    if (rc >= 0) return rc;
    if (remote == kRemoteCheckOnly) {  // tools/grading/grade.py asks before it builds anything
        std::cout << info.id << ": the command line is valid for a grade on this machine\n";
        return 0;
    }
    if (!remote.empty()) {  // the kernel runs in a child process; this one keeps the verdict
        try {
            run.backend = make_remote_backend(std::move(run.backend), remote, timeout_s);
        } catch (const UsageError& e) {
            std::cerr << run.program << ": error: " << e.what() << "\n";
            return 2;
        } catch (const RemoteError& e) {
            std::cerr << run.program << ": error: " << e.what() << "\n";
            return 1;
        }
    }
    if ((rc = print_run_header(run, info, precision)) != 0) return rc;
    return grade(*run.backend, info, precision, run.options, remote, run.sizes, run.yardstick,
                 run.program);
}

int grade_cpu_chapter(int argc, char** argv, const ChapterInfo& info, CpuGemmF32 gemm) {
    return grade_chapter(argc, argv, info, Precision::F32, cpu_backend(gemm));
}

}  // namespace gemm
