"""The scripts around the chapters, one package: run each from the repository root as a module,
`python3 -m tools.<folder>.<script>` (tools/README.md). Its folders import each other by package
name (`from tools.build import chapters`), whatever the directory a command is run from, as long as
the repository root is on Python's path: the current directory with `python3 -m`, else PYTHONPATH
(what ./tutorial, meson and the tests set)."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the repository


def python_env(env=None):
    """`env` (default: this process's) with the repository first on PYTHONPATH: what a
    `python3 -m tools...` child needs when it runs from another directory."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join([ROOT] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env
