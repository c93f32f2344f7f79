"""The one runner of the Python tests: runs one test module as a program and turns its checks
into an exit status.

    python3 -m tests.run tests.tools.test_docs ARGS...   (from the repository root, or with the
                                                          repository on PYTHONPATH, as meson does)

The module runs as `__main__` with ARGS as its sys.argv[1:]. It records its checks with
tests/check.py's expect() and ends, or exits itself (77: skipped). The runner prints one line,
`NAME: N checks, F failed`, and exits 1 when a check failed, the module raised, or it exited
non-zero; 77 when it skipped with no failed check; 0 otherwise."""
import runpy
import sys
import traceback

from tests import check


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    name = argv[0]
    sys.argv = [name] + argv[1:]
    rc = 0
    try:
        runpy.run_module(name, run_name="__main__", alter_sys=True)
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, (int, type(None))):
            print(e.code)
    except BaseException:  # an error in the test itself is a failure, with its traceback
        traceback.print_exc(file=sys.stdout)
        check.failures.append("the test raised")
        rc = 1
    print(f"{name.rsplit('.', 1)[-1]}: {check.checks[0]} checks, {len(check.failures)} failed"
          + (" (skipped)" if rc == 77 and not check.failures else ""))
    if check.failures or rc not in (0, 77):
        return 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
