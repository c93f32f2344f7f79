// The first program of a grading child's sandbox: it makes the process what the child may be, and
// only then executes the child, so that no instruction of a submission ever runs without it.
// tools/grading/grade.py builds it from this file alone, statically (no loader, no library: nothing
// of it can be replaced), and starts it as the sandbox's command:
//
//   grade_seal CPUS NPROC MODE CHILD
//
// CPUS: the CPUs the child keeps, a comma-separated list of numbers, each in its own affinity set
// (grade.py's choice, the CPUs its grade runs on), or "all"; NPROC: the most threads the child may
// have (RLIMIT_NPROC); MODE: "cpu" or "gpu"; CHILD: the program to execute.
// Before executing CHILD it
//   1. sets RLIMIT_NPROC (the other limits come from prlimit(1), outside the sandbox);
//   2. pins the process to CPUS (threads as the assignment says: OMP_NUM_THREADS of the grader,
//      whatever num_threads() the kernel asks for); a CPU outside its own set is an error;
//   3. installs a seccomp filter (classic BPF) that holds for the child's whole life, before its
//      loader, its libraries' constructors and anything of the submission run:
//      - one execve, this one: its path lies at a random address that nothing after the execve
//        can know, and every other execve or execveat is refused;
//      - processes: a clone without CLONE_THREAD (fork, vfork, clone3) is refused: the child is
//        one process of threads, so that the limits of a process bound all of it;
//      - no sched_setaffinity (the pinning stays), no fallocate (which writes past RLIMIT_FSIZE
//        with FALLOC_FL_KEEP_SIZE), no io_uring (which would do either for it), no personality
//        change (READ_IMPLIES_EXEC);
//      - MODE cpu, no new executable memory: no mprotect to PROT_EXEC, no anonymous mapping with
//        PROT_EXEC, no shmat, no memfd_create. The loader maps the child and its libraries from
//        their files, which is allowed: the sandbox holds no file the child can write and map
//        (no /tmp, no /proc, its log opened for writing only). The child's own filter
//        (tools/grading/grade_child.cu) then refuses every PROT_EXEC.
//      MODE gpu leaves executable memory to the child's own filter, installed after the driver
//      has started (the driver maps its own code).
// Exit codes (before the execve only): 120 bad arguments, 121 a limit, 122 the affinity, 123 the
// filter, 124 the execve.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SEAL_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SEAL_ARCH AUDIT_ARCH_AARCH64
#else
#error "tools/grading/grade_seal.c: the seccomp filter knows x86-64 and AArch64 only"
#endif

extern char** environ;

static void fail(const char* what, int code) {
    fprintf(stderr, "grade seal: %s: %s\n", what, strerror(errno));
    _exit(code);
}

// The filter, built one instruction at a time: jumps are resolved by label at the end.
enum { kMax = 128 };
static struct sock_filter prog[kMax];
static int n;
static void op(uint16_t code, uint32_t k) {
    prog[n++] = (struct sock_filter)BPF_STMT(code, k);
}
// A conditional jump to one of the returns below (RET_ALLOW, RET_DENY, ...) or to the next
// instruction (NEXT), patched when the program is complete.
enum Target { NEXT = 0, RET_ALLOW = 1, RET_DENY = 2, RET_NOSYS = 3, RET_KILL = 4 };
static uint8_t jt_to[kMax], jf_to[kMax];
static void jump(uint16_t cond, uint32_t k, enum Target t, enum Target f) {
    jt_to[n] = (uint8_t)t, jf_to[n] = (uint8_t)f;
    prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | cond | BPF_K, k, 0, 0);
}
static void load(uint32_t offset) {
    op(BPF_LD | BPF_W | BPF_ABS, offset);
}
#define ARG_LO(i) (uint32_t)(offsetof(struct seccomp_data, args) + 8 * (i))  // little endian
#define ARG_HI(i) (ARG_LO(i) + 4)

// After the system call's number is loaded: `nr` goes to `t`.
static void is(long nr, enum Target t) {
    jump(BPF_JEQ, (uint32_t)nr, t, NEXT);
}

int main(int argc, char** argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: grade_seal CPUS NPROC MODE CHILD\n");
        return 120;
    }
    const long nproc = strtol(argv[2], NULL, 10);
    const int strict = strcmp(argv[3], "cpu") == 0;
    if (nproc <= 0 || (!strict && strcmp(argv[3], "gpu") != 0)) return 120;

    const struct rlimit procs = {(rlim_t)nproc, (rlim_t)nproc};
    if (setrlimit(RLIMIT_NPROC, &procs) != 0) fail("RLIMIT_NPROC", 121);

    cpu_set_t own, keep;
    if (sched_getaffinity(0, sizeof own, &own) != 0) fail("sched_getaffinity", 122);
    if (strcmp(argv[1], "all") == 0) {
        keep = own;
    } else {
        CPU_ZERO(&keep);
        for (const char* p = argv[1];; ++p) {
            char* end = NULL;
            const long c = strtol(p, &end, 10);
            if (end == p || c < 0 || c >= CPU_SETSIZE || (*end != ',' && *end != 0)) return 120;
            if (!CPU_ISSET(c, &own)) errno = EINVAL, fail("a CPU outside its affinity set", 122);
            CPU_SET(c, &keep);
            if (*end == 0) break;
            p = end;
        }
    }
    if (sched_setaffinity(0, sizeof keep, &keep) != 0) fail("sched_setaffinity", 122);

    // The child's path at a random address of a page of its own: the one execve the filter allows
    // names this address, which the child, a new address space, cannot know.
    uint64_t r[2] = {0, 0};
    if (getrandom(r, sizeof r, 0) != sizeof r) fail("getrandom", 123);
    const size_t len = strlen(argv[4]) + 1;
    if (len > 2048) return 120;
    char* page = MAP_FAILED;
    for (int tries = 0; page == MAP_FAILED && tries < 64; ++tries) {
        const uintptr_t at =
            ((uintptr_t)(r[0] >> (tries % 8)) & 0x3fffffff000ull) + 0x10000000000ull;
        page = mmap((void*)at, 8192, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (page != MAP_FAILED && page != (char*)at) munmap(page, 8192), page = MAP_FAILED;
    }
    if (page == MAP_FAILED) fail("mmap", 123);
    char* path = page + r[1] % (8192 - len);
    memcpy(path, argv[4], len);
    const uint64_t secret = (uint64_t)(uintptr_t)path;

    load(offsetof(struct seccomp_data, arch));
    jump(BPF_JEQ, SEAL_ARCH, NEXT, RET_KILL);  // another ABI (i386 on x86-64): kill
    load(offsetof(struct seccomp_data, nr));
#if defined(__x86_64__)
    jump(BPF_JGE, 0x40000000u, RET_DENY, NEXT);  // x32 system calls
    is(__NR_fork, RET_DENY);
    is(__NR_vfork, RET_DENY);
#endif
    is(__NR_execveat, RET_DENY);
    is(__NR_clone3, RET_NOSYS);  // glibc then uses clone, whose flags the filter can read
    is(__NR_sched_setaffinity, RET_DENY);
    is(__NR_fallocate, RET_DENY);
    is(__NR_io_uring_setup, RET_DENY);
    is(__NR_io_uring_enter, RET_DENY);
    is(__NR_io_uring_register, RET_DENY);
    if (strict) {
        is(__NR_shmat, RET_DENY);
        is(__NR_memfd_create, RET_DENY);
    }
    // execve: only with the secret path.
    int at_execve = n;
    jump(BPF_JEQ, __NR_execve, NEXT, NEXT);
    int at_clone = n;
    jump(BPF_JEQ, __NR_clone, NEXT, NEXT);
    int at_personality = n;
    jump(BPF_JEQ, __NR_personality, NEXT, NEXT);
    int at_mmap = -1, at_mprotect = -1, at_pkey = -1;
    if (strict) {
        at_mmap = n;
        jump(BPF_JEQ, __NR_mmap, NEXT, NEXT);
        at_mprotect = n;
        jump(BPF_JEQ, __NR_mprotect, NEXT, NEXT);
        at_pkey = n;
        jump(BPF_JEQ, __NR_pkey_mprotect, NEXT, NEXT);
    }
    op(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    // The blocks each system call jumps to (relative offsets patched here).
#define HERE_FROM(at) (prog[at].jt = (uint8_t)(n - (at)-1))
    HERE_FROM(at_execve);
    load(ARG_LO(0));
    jump(BPF_JEQ, (uint32_t)secret, NEXT, RET_DENY);
    load(ARG_HI(0));
    jump(BPF_JEQ, (uint32_t)(secret >> 32), RET_ALLOW, RET_DENY);
    HERE_FROM(at_clone);
    load(ARG_LO(0));  // the flags: a thread, or nothing
    jump(BPF_JSET, 0x00010000u /* CLONE_THREAD */, RET_ALLOW, RET_DENY);
    HERE_FROM(at_personality);
    load(ARG_LO(0));  // personality(0xffffffff) only asks
    jump(BPF_JEQ, 0xffffffffu, RET_ALLOW, RET_DENY);
    if (strict) {
        HERE_FROM(at_mmap);
        load(ARG_LO(2));  // the protection
        jump(BPF_JSET, PROT_EXEC, NEXT, RET_ALLOW);
        load(ARG_LO(3));  // the flags: executable only from a file (the loader's mappings)
        jump(BPF_JSET, MAP_ANONYMOUS, RET_DENY, RET_ALLOW);
        HERE_FROM(at_mprotect);
        HERE_FROM(at_pkey);
        load(ARG_LO(2));
        jump(BPF_JSET, PROT_EXEC, RET_DENY, RET_ALLOW);
    }
    // The returns, in the order of enum Target.
    const int ret0 = n;
    op(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    op(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
    op(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
    op(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    for (int i = 0; i < ret0; ++i) {
        if (BPF_CLASS(prog[i].code) != BPF_JMP) continue;
        if (jt_to[i]) prog[i].jt = (uint8_t)(ret0 + jt_to[i] - 1 - i - 1);
        if (jf_to[i]) prog[i].jf = (uint8_t)(ret0 + jf_to[i] - 1 - i - 1);
    }
    const struct sock_fprog fprog = {(unsigned short)n, prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0)
        fail("seccomp", 123);

    char* child_argv[] = {path, NULL};
    syscall(__NR_execve, path, child_argv, environ);
    fail("execve", 124);
    return 124;
}
