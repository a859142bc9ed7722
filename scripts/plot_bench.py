#!/usr/bin/python3
"""Turns a `wavewall bench --json` file into PNG charts, one per suite.

Usage: /usr/bin/python3 scripts/plot_bench.py (Debian's python3-matplotlib) bench.json OUTDIR

Each chart shows, for every measurement of the suite, the median time of wavewall's row next
to the baselines measured in the same run (log scale), so ratios can be read off directly.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    path, outdir = sys.argv[1], sys.argv[2]
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        print(f"plot_bench: cannot read {path}: {e}", file=sys.stderr)
        return 2
    os.makedirs(outdir, exist_ok=True)
    suites = {}
    for r in doc.get("records", []):
        suites.setdefault(r["suite"], []).append(r)
    title_machine = f'{doc["machine"]["cpu"]} ({doc["machine"]["cores"]} cores); GL {doc["renderer"]}'
    for suite, records in suites.items():
        labels = [f'{r["name"]}\n{r["size"]} {r["backend"]}' for r in records]
        series = {"wavewall": [r["median_ms"] for r in records]}
        for i, r in enumerate(records):
            for b in r.get("baselines", []):
                series.setdefault(b["name"], [float("nan")] * len(records))[i] = b["median_ms"]
        fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(records) + 2), 4.5))
        width = 0.8 / len(series)
        colors = plt.cm.tab20.colors  # 20 distinct colours: suites have up to ~14 series
        for k, (name, values) in enumerate(series.items()):
            xs = [i + k * width for i in range(len(records))]
            ax.bar(xs, values, width, label=name, color=colors[k % len(colors)])
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(records))])
        ax.set_xticklabels(labels, fontsize=7, rotation=30, ha="right")
        ax.set_yscale("log")
        ax.set_ylabel("median ms (log)")
        ax.set_title(f"wavewall bench: {suite}\n{title_machine}", fontsize=9)
        ax.legend(fontsize=7)
        fig.tight_layout()
        out = os.path.join(outdir, f"bench_{suite}.png")
        fig.savefig(out, dpi=110)
        plt.close(fig)
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
