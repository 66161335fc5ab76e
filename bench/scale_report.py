#!/usr/bin/env python3
"""The cost curve of bench/scale: per scenario p50 and p99 at each data size, as a Markdown
table (with the 10x step's p99 ratio) and an SVG chart of small multiples (log-scale axes).

    scale_report.py OUT.svg SIZE_FILE RESULTS_TSV [SIZE_FILE RESULTS_TSV ...]

A SIZE_FILE is bench/run's `posts=N<TAB>bytes=B<TAB>seed_seconds=S<TAB>vacuum_seconds=V`; a
RESULTS_TSV its rows (scenario, rps, p50, p99, non-2xx, CPU %, RSS MB).
"""
import math
import sys


def fields(path):
    text = open(path).read().strip()
    return dict(part.split("=", 1) for part in text.split("\t") if "=" in part)


def label(posts):
    return f"{posts // 1_000_000} M" if posts >= 1_000_000 else f"{posts // 1000} k"


svg_path, args = sys.argv[1], sys.argv[2:]
sizes = []  # (posts, bytes, seed seconds, {scenario: (rps, p50, p99, errors)})
for size_file, results_file in zip(args[0::2], args[1::2]):
    meta = fields(size_file)
    rows = {}
    for line in open(results_file):
        if line.strip():
            name, rps, p50, p99, errors = line.rstrip("\n").split("\t")[:5]
            rows[name] = (int(rps), float(p50), float(p99), int(errors))
    seconds = int(meta.get("seed_seconds", 0)) + int(meta.get("vacuum_seconds", 0))
    sizes.append((int(meta["posts"]), int(meta["bytes"]), seconds, rows))
sizes.sort()
scenarios = [name for name in sizes[0][3] if all(name in size[3] for size in sizes)]

# The table.
head = " | ".join(f"{label(p)} rps | {label(p)} p50 | {label(p)} p99" for p, _, _, _ in sizes)
print("Data size against latency: bench/run at each size (wrk -t2 -c64, release, one machine).\n")
print("| database | " + " | ".join(label(p) for p, _, _, _ in sizes) + " |")
print("|---|" + "---|" * len(sizes))
print("| size | " + " | ".join(f"{b / 2**30:.1f} GiB" for _, b, _, _ in sizes) + " |")
print("| seed bulk + VACUUM | " + " | ".join(f"{s} s" for _, _, s, _ in sizes) + " |")
print()
last = "p99 ×" + (f" ({label(sizes[-1][0])} ÷ {label(sizes[-2][0])})" if len(sizes) > 1 else "")
print(f"| scenario | {head} | {last} |")
print("|---|" + "---|" * (3 * len(sizes) + 1))
for name in scenarios:
    cells = " | ".join(f"{r[0]} | {r[1]:.2f} | {r[2]:.2f}" for r in (size[3][name] for size in sizes))
    step = f"{sizes[-1][3][name][2] / sizes[-2][3][name][2]:.2f}" if len(sizes) > 1 and sizes[-2][3][name][2] > 0 else ""
    print(f"| {name} | {cells} | {step} |")
print(f"\nChart: {svg_path.rsplit('/', 1)[-1]}")

# The chart: one panel per scenario, p50 (solid) and p99 (dashed) in ms against posts,
# both axes logarithmic; the last panel is the database's size.
columns, width, height, pad = 5, 190, 130, 34
panels = scenarios + ["database GiB"]
rows_needed = math.ceil(len(panels) / columns)
total_w, total_h = columns * width + 20, rows_needed * height + 60
xs = [math.log10(p) for p, _, _, _ in sizes]
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{total_h}" font-family="sans-serif" font-size="10">',
       f'<rect width="{total_w}" height="{total_h}" fill="white"/>',
       f'<text x="10" y="18" font-size="13">Latency against data size ({", ".join(label(p) for p, _, _, _ in sizes)} posts): '
       f'p50 solid, p99 dashed, ms, log scales</text>']
for index, name in enumerate(panels):
    left, top = 10 + (index % columns) * width, 40 + (index // columns) * height
    plot_w, plot_h = width - pad - 12, height - pad - 10
    ox, oy = left + pad, top + 14
    if name == "database GiB":
        series = [[b / 2**30 for _, b, _, _ in sizes]]
    else:
        series = [[size[3][name][1] for size in sizes], [size[3][name][2] for size in sizes]]
    values = [v for line in series for v in line if v > 0] or [1]
    low, high = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    high = max(high, low + 1)

    def at(x, v):
        fx = (x - xs[0]) / ((xs[-1] - xs[0]) or 1)
        fy = (math.log10(max(v, 10 ** low)) - low) / (high - low)
        return ox + fx * plot_w, oy + plot_h - fy * plot_h

    out.append(f'<text x="{ox}" y="{top + 8}" font-weight="bold">{name}</text>')
    out.append(f'<rect x="{ox}" y="{oy}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#ccc"/>')
    for decade in range(low, high + 1):
        _, y = at(xs[0], 10 ** decade)
        out.append(f'<line x1="{ox}" x2="{ox + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>')
        out.append(f'<text x="{ox - 3}" y="{y + 3:.1f}" text-anchor="end">{10 ** decade:g}</text>')
    for x, (posts, _, _, _) in zip(xs, sizes):
        px, _ = at(x, 10 ** low)
        out.append(f'<text x="{px:.1f}" y="{oy + plot_h + 11}" text-anchor="middle">{label(posts)}</text>')
    for line, dash in zip(series, ["", ' stroke-dasharray="4 3"']):
        points = " ".join("%.1f,%.1f" % at(x, v) for x, v in zip(xs, line))
        out.append(f'<polyline points="{points}" fill="none" stroke="#1f5fbf" stroke-width="1.5"{dash}/>')
        for x, v in zip(xs, line):
            px, py = at(x, v)
            out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="2" fill="#1f5fbf"/>')
out.append("</svg>")
open(svg_path, "w").write("\n".join(out) + "\n")
