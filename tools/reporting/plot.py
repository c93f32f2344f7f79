#!/usr/bin/env python3
"""The charts and the results table, drawn from the CSVs the harness writes.

    python3 -m tools.reporting.plot [--out DIR] [--png] PATH...

PATH is a results directory (every CSV directly in it) or CSV files. Each file is recognized by
its header, and columns are found by name, so older CSVs with fewer columns still plot:

  results CSV (NN_chapter.csv)  -> NN_chapter.svg: GFLOPS against size with the yardstick dashed,
                                   and the percentage of the yardstick with its spread
  all results CSVs together     -> ladder.svg: one bar per chapter of chapters/chapters.txt, its %
                                   of its yardstick at 4096 and 8192 (a CPU chapter: its largest
                                   size), TFLOP/s on the bar, grouped by era (ERAS below);
                                   all_chapters.svg (log GFLOPS) and results.md (the table)
  peaks.csv and/or ceilings.csv -> roofline.svg for that device
  NAME.csv beside NAME.steps.csv -> NAME.svg: a shape sweep (tools/shape_sweep) with its
                                   predicted tile and wave steps
  suite_CHAPTER.csv (a category   -> suite_CHAPTER.svg: the shape suite (tools/measuring/suite.py), one bar
  column)                          per shape, % of cuBLAS with the rounds' spread, sorted and
                                   coloured by category; the geomean in the title
  fp8_accuracy.csv (tools/fp8_accuracy) -> fp8_accuracy.svg: relative error against K of each
                                   FP8 kernel and cuBLASLt, one panel per input distribution

results.md needs nothing but Python; the charts need matplotlib (Debian: python3-matplotlib).
Without it the script writes the table, prints one line saying the charts were skipped, and
exits 0. A CSV it cannot read (a missing column, a number that is not finite) stops it with the
file, the line and the column, exit 2, before anything is written; so does a bad command line.
"""

import argparse
import os
import sys

# The modules beside this one, one per chart or table (their names say which); the names the
# tests and other tools use (plot.Result, plot.intensity, plot.ERAS, ...) stay importable from here.
from tools.reporting.plot_charts import Charts
from tools.reporting.plot_ladder import ERAS, LADDER_SIZES, chapter_list, era_of, ladder_bars  # noqa: F401
from tools.reporting.plot_read import (NO_MATPLOTLIB, InputError, Result, number_reader,  # noqa: F401
                                       read_inputs)
from tools.reporting.plot_results_md import results_md
from tools.reporting.plot_roofline import NAPKIN, intensity, napkin_bytes  # noqa: F401
from tools.reporting.plot_text import slug  # noqa: F401


def main(argv):
    parser = argparse.ArgumentParser(
        prog="plot.py", description=__doc__.split("\n\n")[0],
        epilog="Exit: 0 done (also when matplotlib is missing: the table alone, and one line "
               "saying so), 1 a file could not be written, 2 a bad command line or CSV.")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="a results directory, or CSV files")
    parser.add_argument("--out", help="where the charts and results.md go (default: the first "
                        "PATH if it is a directory, else the directory of the first file)")
    parser.add_argument("--png", action="store_true", help="write a PNG beside every SVG")
    args = parser.parse_args(argv)
    try:
        inputs = read_inputs(args.paths)
    except InputError as e:
        print(f"plot.py: error: {e}", file=sys.stderr)
        return 2
    if not inputs.results and not inputs.sweeps and not inputs.suites and not inputs.accuracy:
        print("plot.py: error: no results CSV among " + " ".join(args.paths), file=sys.stderr)
        return 2
    first = args.paths[0]
    out = args.out or (first if os.path.isdir(first) else os.path.dirname(first) or ".")
    overview = [r for _, rows in inputs.results for r in rows]
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        print(f"plot.py: error: --out {out}: cannot create this directory ({e.strerror})",
              file=sys.stderr)
        return 2
    try:
        written = []
        if overview:
            with open(os.path.join(out, "results.md"), "w") as f:
                f.write(results_md(overview))
            written.append(os.path.join(out, "results.md"))
        try:
            charts = Charts(out, args.png)
        except ImportError:
            print(NO_MATPLOTLIB)
            print("wrote " + " ".join(written) if written else "wrote nothing")
            return 0
        for stem, rows in inputs.results:
            charts.chapter(stem, rows)
        if overview:
            charts.ladder(overview, chapter_list())
            charts.all_chapters(overview)
        devices = list(inputs.ceilings) + [d for d in inputs.peaks if d not in inputs.ceilings]
        if devices:
            device = next((d for d in devices if any(r.device == d for r in overview)),
                          devices[0])
            charts.roofline(device, inputs.peaks.get(device, {}),
                            inputs.ceilings.get(device, {}), overview)
        for stem, rows, steps in inputs.sweeps:
            charts.sweep(stem, rows, steps)
        for stem, rows in inputs.suites:
            charts.suite(stem, rows)
        for stem, rows in inputs.accuracy:
            charts.accuracy(stem, rows)
    except OSError as e:
        print(f"plot.py: error: cannot write in {out}: {e.strerror} "
              f"({e.filename or out})", file=sys.stderr)
        return 1
    written += charts.written
    print(f"wrote {len(written)} file(s) in {out}: " +
          ", ".join(os.path.basename(w) for w in written))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
