#!/usr/bin/python3
"""Figures for the docs, measured on real runs of the installed dpkmeans.

Run through scripts/figures.sh (which starts a throwaway cluster), or against
any PostgreSQL 15 cluster where the dpkmeans extension can be created:

    /usr/bin/python3 scripts/figures.py --host /tmp/sockdir --port 5432

Writes three PNGs to doc/figures/ (or --outdir):

  histogram_centres.png   the private histogram of a live table's latest
                          release as a heat map, its private centres and the
                          true (non-private) k-means centres;
  accuracy_vs_epsilon.png one-shot dp_kmeans, a live table's first release and
                          a plain uniform-grid baseline against epsilon;
  live_releases.png       every release of a sliding-window live table beside
                          the one-shot dp_kmeans at the full epsilon.

Accuracy everywhere is the normalized cost: the k-means cost of the private
centres on the TRUE rows divided by the cost of a non-private k-means on the
same rows (the best of Lloyd from k-means++ seedings, 20 restarts for one
data state and 3 per window plus the previous window's optimum, and of Lloyd
seeded at the generating centres and, for figures 1 and 3, at the released
centres).

The data, the baseline's Laplace noise and the k-means seedings come from
numpy generators seeded by --seed. The extension's noise is not seedable (a
ChaCha20 stream under a per-table secret key), so the private numbers change
from run to run.
"""

import argparse
import csv
import io
import os
import subprocess
import sys
import time

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import PowerNorm  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402

# ---------------------------------------------------------------------------
# Parameters of the data and of the runs
# ---------------------------------------------------------------------------

LOWER = (0.0, 0.0)            # public box of the tracked columns
UPPER = (100.0, 100.0)
K = 6
N = 50_000                    # rows of the base data set

# A skewed mixture in the box: very unequal cluster sizes, Student-t (heavy
# tailed) spreads of different widths and shapes. Points outside the box are
# redrawn, so the rows in the tables are exactly the points the extension
# counts (it would clamp out-of-box values).
MIX_CENTRES = np.array([[30.0, 35.0], [72.0, 70.0], [75.0, 22.0],
                        [25.0, 80.0], [50.0, 55.0], [88.0, 90.0]])
MIX_WEIGHTS = np.array([0.46, 0.24, 0.13, 0.09, 0.05, 0.03])
MIX_SCALES = np.array([[7.0, 4.0], [4.0, 6.0], [3.0, 3.0],
                       [5.0, 2.0], [1.5, 1.5], [1.0, 2.5]])
MIX_ANGLES = np.array([0.5, -0.3, 0.0, 0.2, 0.0, 0.8])   # radians
MIX_DF = 3.0                  # Student-t degrees of freedom (heavy tails)

FIG_SIZE = (10, 7)            # inches; at 100 dpi 1000 x 700 pixels
DPI = 100


# ---------------------------------------------------------------------------
# Talking to PostgreSQL through psql
# ---------------------------------------------------------------------------

MARK = "@@dpkmeans-figures@@"


class Psql:
    """Runs SQL with psql. A batch is one psql process reading a script:
    every statement runs on its own in autocommit mode (so dp_release is
    never inside a transaction block), query results come back as CSV."""

    def __init__(self, host, port, user, dbname):
        bindir = subprocess.run(["pg_config", "--bindir"], check=True,
                                capture_output=True, text=True).stdout.strip()
        self.base = [os.path.join(bindir, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "--csv", "-t",
                     "-h", host, "-p", str(port), "-U", user, "-d", dbname]

    def batch(self, items):
        """items: SQL statements (str) or (COPY ... FROM STDIN, csv data)
        pairs. Returns the output of each item (CSV text)."""
        script = []
        for it in items:
            if isinstance(it, tuple):
                script.append("%s;\n%s\\.\n" % it)
            else:
                script.append(it + ";\n")
            script.append("\\echo %s\n" % MARK)
        res = subprocess.run(self.base + ["-f", "-"], input="".join(script),
                             capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit("psql failed:\n%s" % res.stderr)
        return res.stdout.split(MARK + "\n")[:len(items)]

    def rows(self, query):
        """Result rows of one query as lists of strings."""
        return parse_rows(self.batch([query])[0])


def parse_rows(text):
    return list(csv.reader(io.StringIO(text)))


def parse_array(text):
    """'{1.5,2}' -> np.array([1.5, 2.0])."""
    return np.array([float(v) for v in text.strip("{}").split(",")])


def parse_centres(text):
    """Output of a 'SELECT center FROM ...' query -> k x d array."""
    return np.array([parse_array(r[0]) for r in parse_rows(text)])


def parse_points(text):
    """Output of COPY ... TO STDOUT (csv) -> n x 2 array."""
    return np.loadtxt(io.StringIO(text), delimiter=",", ndmin=2)


def csv_data(pts):
    """Points as CSV with 17 significant digits (exactly the float8 values)."""
    buf = io.StringIO()
    np.savetxt(buf, pts, fmt="%.17g", delimiter=",")
    return buf.getvalue()


# SQL snippets (tables have columns id bigserial, x float8, y float8).

def sql_box():
    return "ARRAY[%g, %g]::float8[], ARRAY[%g, %g]::float8[]" % (LOWER + UPPER)


def sql_create(table, pts):
    return ["DROP TABLE IF EXISTS %s" % table,
            "CREATE TABLE %s (id bigserial PRIMARY KEY, x float8, y float8)" % table,
            ("COPY %s (x, y) FROM STDIN WITH (FORMAT csv)" % table, csv_data(pts))]


def sql_attach(table, epsilon, horizon):
    return ("SELECT dp_attach('%s', ARRAY['x', 'y'], k => %d, epsilon => %r, lower => ARRAY[%g, %g]::float8[], "
            "upper => ARRAY[%g, %g]::float8[], horizon => %d, mode => 'insert_delete', size_hint => %d)"
            % ((table, K, float(epsilon)) + LOWER + UPPER + (horizon, N)))


def sql_slide(table, pts):
    """Insert a batch of new rows, then delete as many of the oldest rows."""
    return [("COPY %s (x, y) FROM STDIN WITH (FORMAT csv)" % table, csv_data(pts)),
            "DELETE FROM %s WHERE id IN (SELECT id FROM %s ORDER BY id LIMIT %d)" % (table, table, len(pts))]


def sql_release(table):
    return "SELECT dp_release('%s')" % table


def sql_centers(table):
    return "SELECT center FROM dp_centers('%s', %d) ORDER BY cluster" % (table, K)


def sql_oneshot(table, epsilon):
    return ("SELECT center FROM dp_kmeans('SELECT x, y FROM %s', %d, %r, %s) ORDER BY cluster"
            % (table, K, float(epsilon), sql_box()))


def sql_points(table):
    return "COPY (SELECT x, y FROM %s ORDER BY id) TO STDOUT WITH (FORMAT csv)" % table


# ---------------------------------------------------------------------------
# Data and non-private k-means (numpy)
# ---------------------------------------------------------------------------

def draw_points(rng, n):
    """n points of the skewed mixture, all inside the box."""
    out = np.empty((0, 2))
    while len(out) < n:
        m = 2 * (n - len(out)) + 100
        comp = rng.choice(K, size=m, p=MIX_WEIGHTS)
        z = rng.standard_t(MIX_DF, size=(m, 2)) * MIX_SCALES[comp]
        c, s = np.cos(MIX_ANGLES[comp]), np.sin(MIX_ANGLES[comp])
        p = MIX_CENTRES[comp] + np.stack([c * z[:, 0] - s * z[:, 1],
                                          s * z[:, 0] + c * z[:, 1]], axis=1)
        inside = np.all((p >= LOWER) & (p <= UPPER), axis=1)
        out = np.vstack([out, p[inside]])
    return out[:n]


def sq_dists(x, c):
    """Squared distances, n x k."""
    d = (x * x).sum(1)[:, None] - 2.0 * x @ c.T + (c * c).sum(1)[None, :]
    return np.maximum(d, 0.0)


def cost(x, c, w=None):
    """k-means cost of centres c on points x (optionally weighted)."""
    d = sq_dists(x, c).min(1)
    return float(d.sum() if w is None else (w * d).sum())


def kmeanspp(x, k, rng, w):
    """k-means++ seeding (D^2 sampling, weighted)."""
    c = [x[rng.choice(len(x), p=w / w.sum())]]
    d = sq_dists(x, np.array(c))[:, 0]
    for _ in range(1, k):
        p = w * d
        if p.sum() <= 0:
            p = w
        c.append(x[rng.choice(len(x), p=p / p.sum())])
        d = np.minimum(d, sq_dists(x, c[-1][None, :])[:, 0])
    return np.array(c)


def lloyd(x, c, w, iters=300):
    """Weighted Lloyd iterations from centres c until the labels are stable."""
    c = c.copy()
    labels = None
    for _ in range(iters):
        new = sq_dists(x, c).argmin(1)
        if labels is not None and np.array_equal(new, labels):
            break
        labels = new
        mass = np.bincount(labels, weights=w, minlength=len(c))
        sums = np.stack([np.bincount(labels, weights=w * x[:, j], minlength=len(c))
                         for j in range(x.shape[1])], axis=1)
        full = mass > 0
        c[full] = sums[full] / mass[full, None]
        for j in np.flatnonzero(~full):        # empty cluster: move it to the worst point
            c[j] = x[(w * sq_dists(x, c).min(1)).argmax()]
    return c


def kmeans(x, k, rng, w=None, restarts=20, seeds=()):
    """Best of Lloyd from `restarts` k-means++ seedings and from each of `seeds`."""
    w = np.ones(len(x)) if w is None else np.asarray(w, dtype=float)
    starts = [np.asarray(s, dtype=float) for s in seeds]
    starts += [kmeanspp(x, k, rng, w) for _ in range(restarts)]
    best, best_cost = None, np.inf
    for s in starts:
        c = lloyd(x, s, w)
        f = cost(x, c, w)
        if f < best_cost:
            best, best_cost = c, f
    return best, best_cost


def grid_baseline(x, epsilon, m, noise_rng, km_rng):
    """Plain uniform grid: m x m cells, Laplace(1/epsilon) noise on every
    count, negative counts clipped to 0, centres = weighted k-means of the
    cell centres (computed here in numpy from the true rows)."""
    lo, hi = np.array(LOWER), np.array(UPPER)
    idx = np.clip(((x - lo) / (hi - lo) * m).astype(int), 0, m - 1)
    counts = np.bincount(idx[:, 0] * m + idx[:, 1], minlength=m * m).astype(float)
    noisy = np.maximum(counts + noise_rng.laplace(0.0, 1.0 / epsilon, m * m), 0.0)
    g = (np.arange(m) + 0.5) / m
    cells = lo + np.stack(np.meshgrid(g, g, indexing="ij"), -1).reshape(-1, 2) * (hi - lo)
    keep = noisy > 0
    c, _ = kmeans(cells[keep], K, km_rng, w=noisy[keep], restarts=10)
    return c


def rows_str(n):
    """50000 -> '50 000'."""
    return format(n, ",").replace(",", "\u2009")


def footnote(fig, seed):
    fig.text(0.985, 0.008, "data seed %d; the extension's noise is not seedable, so the private "
             "values change from run to run" % seed, ha="right", va="bottom", fontsize=8, color="#666666")


def tree_nodes(t):
    """Nodes of the binary tree summed at release t: the non-zero digits of
    t's non-adjacent form (the extension's signed dyadic decomposition)."""
    n = 0
    while t:
        if t & 1:
            t -= 2 - (t & 3)
            n += 1
        t >>= 1
    return n


# ---------------------------------------------------------------------------
# Figure 1: private histogram, private centres, true centres
# ---------------------------------------------------------------------------

def figure_histogram(db, data_rng, km_rng, base, outdir, seed, horizon, rounds, batch):
    """A live table: attach (release 1), then `rounds` times insert `batch`
    new rows, delete the `batch` oldest and release; plot the latest release."""
    table = "fig_hist"
    script = sql_create(table, base) + [sql_attach(table, 1.0, horizon), sql_release(table)]
    for _ in range(rounds):
        script += sql_slide(table, draw_points(data_rng, batch)) + [sql_release(table)]
    script += [sql_points(table), sql_centers(table),
               "SELECT level, center, noisy_count FROM dp_histogram('%s')" % table,
               "DROP TABLE %s" % table]
    out = db.batch(script)
    t = int(out[-5])
    pts, priv, hist = parse_points(out[-4]), parse_centres(out[-3]), parse_rows(out[-2])
    true_c, true_cost = kmeans(pts, K, km_rng, restarts=20, seeds=[MIX_CENTRES, priv])
    ratio = cost(pts, priv) / true_cost
    level = int(hist[0][0])

    # The noisy counts of the release's level, as an image (row = y).
    m = 1 << level
    lo, hi = np.array(LOWER), np.array(UPPER)
    grid = np.zeros((m, m))
    for _, ctr, cnt in hist:
        ix, iy = np.floor((parse_array(ctr) - lo) / (hi - lo) * m).astype(int)
        grid[iy, ix] = float(cnt)

    fig, ax = plt.subplots(figsize=FIG_SIZE, dpi=DPI)
    im = ax.imshow(np.maximum(grid, 0), origin="lower", extent=(LOWER[0], UPPER[0], LOWER[1], UPPER[1]),
                   cmap="Blues", norm=PowerNorm(0.5, vmin=0), interpolation="nearest")
    cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.03)
    cb.set_label("noisy count per cell, square-root scale (negative counts shown as 0)")
    ax.scatter(true_c[:, 0], true_c[:, 1], s=320, facecolors="none", edgecolors="black",
               linewidths=2.2, label="true centres (non-private k-means on the rows)", zorder=3)
    ax.scatter(priv[:, 0], priv[:, 1], s=170, marker="X", color="#e6550d", edgecolors="white",
               linewidths=1.2, label="private centres (dp_centers)", zorder=4)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title("Live table after release %d (horizon %d): %s rows, k = %d, ε = 1\n"
                 "private histogram at the release's level %d (%d × %d cells); normalized cost %.4f"
                 % (t, horizon, rows_str(len(pts)), K, level, m, m, ratio))
    ax.legend(loc="upper left", framealpha=0.9)
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    footnote(fig, seed)
    fig.savefig(os.path.join(outdir, "histogram_centres.png"))
    plt.close(fig)
    return {"release": t, "rows": len(pts), "level": level, "ratio": ratio,
            "private": priv, "true": true_c}


# ---------------------------------------------------------------------------
# Figure 2: normalized cost against epsilon
# ---------------------------------------------------------------------------

def figure_epsilon(db, km_rng, noise_rng, base, outdir, seed, epsilons, reps, live_reps, horizon):
    """On the base rows, per epsilon: `reps` one-shot dp_kmeans calls,
    `reps` draws of the uniform-grid baseline, `live_reps` attaches of a live
    table (a new key each time) with its first release."""
    static, live = "fig_static", "fig_live_eps"
    out = db.batch(sql_create(static, base) + sql_create(live, base) + [sql_points(static)])
    pts = parse_points(out[-1])
    _, true_cost = kmeans(pts, K, km_rng, restarts=20, seeds=[MIX_CENTRES])

    res = {"oneshot": [], "grid": [], "live": [], "m": []}
    for eps in epsilons:
        script = ["SELECT cells_per_dim FROM dp_grid_size(%d, %r, %d, 2, 'eugkm')" % (len(pts), float(eps), K)]
        script += [sql_oneshot(static, eps)] * reps
        for _ in range(live_reps):
            script += [sql_attach(live, eps, horizon), sql_release(live), sql_centers(live),
                       "SELECT dp_detach('%s')" % live]
        out = db.batch(script)
        m = int(out[0])
        res["m"].append(m)
        res["oneshot"].append([cost(pts, parse_centres(o)) / true_cost for o in out[1:1 + reps]])
        res["live"].append([cost(pts, parse_centres(o)) / true_cost for o in out[1 + reps + 2::4]])
        res["grid"].append([cost(pts, grid_baseline(pts, eps, m, noise_rng, km_rng)) / true_cost for _ in range(reps)])
    db.batch(["DROP TABLE %s" % static, "DROP TABLE %s" % live])

    fig, ax = plt.subplots(figsize=FIG_SIZE, dpi=DPI)
    series = [("grid", "uniform grid at EUGkM's size with Laplace counts\n(baseline computed in numpy here, %d draws)"
               % reps, "#7f7f7f", "s"),
              ("live", "live table, release 1 of horizon %d (%d attaches)" % (horizon, live_reps), "#e6550d", "^"),
              ("oneshot", "one-shot dp_kmeans (%d calls)" % reps, "#3182bd", "o")]
    # The y axis is logarithmic in (normalized cost - 1), labelled with the
    # normalized cost itself, so that 1.001 and 2 both read well.
    floor = 1e-5
    for key, label, color, marker in series:
        v = np.maximum(np.array(res[key]) - 1.0, floor)
        ax.fill_between(epsilons, v.min(1), v.max(1), color=color, alpha=0.18, linewidth=0)
        ax.plot(epsilons, np.median(v, axis=1), marker=marker, color=color, linewidth=2, markersize=7,
                label=label + ": median, band min–max")
    for eps, m, g in zip(epsilons, res["m"], np.min(res["grid"], axis=1) - 1.0):
        ax.annotate("%d×%d" % (m, m), (eps, max(g, floor)), textcoords="offset points", xytext=(0, -14),
                    ha="center", fontsize=8, color="#555555")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(top=ax.get_ylim()[1] * 6)     # room for the legend above the data
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: "%g" % (1.0 + y)))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(epsilons)
    ax.set_xticklabels(["%g" % e for e in epsilons])
    ax.set_xlabel("ε")
    ax.set_ylabel("normalized cost (private ÷ non-private, on the true rows)\nlog scale of cost − 1")
    ax.set_title("Accuracy against ε: %s rows of skewed 2-d data, k = %d\n"
                 "(grey labels: cells of the baseline's EUGkM grid)" % (rows_str(len(pts)), K))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper right", framealpha=0.9)
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    footnote(fig, seed)
    fig.savefig(os.path.join(outdir, "accuracy_vs_epsilon.png"))
    plt.close(fig)
    return res


# ---------------------------------------------------------------------------
# Figure 3: every release of a sliding-window live table
# ---------------------------------------------------------------------------

def figure_live(db, data_rng, km_rng, base, outdir, seed, horizon, batch, epsilon=1.0):
    """A sliding window: attach the base rows (release 1), then for
    t = 2..horizon insert `batch` rows, delete the `batch` oldest, release.
    At every t: the live release and one one-shot call on the same rows."""
    table = "fig_window"
    db.batch(sql_create(table, base) + [sql_attach(table, epsilon, horizon)])
    live_r, os_r = [], []
    prev = MIX_CENTRES
    for t in range(1, horizon + 1):
        script = sql_slide(table, draw_points(data_rng, batch)) if t > 1 else []
        script += [sql_release(table), sql_centers(table), sql_oneshot(table, epsilon), sql_points(table)]
        out = db.batch(script)
        assert int(out[-4]) == t
        priv, one, pts = parse_centres(out[-3]), parse_centres(out[-2]), parse_points(out[-1])
        # Warm-started from the previous window's optimum: few restarts suffice.
        prev, true_cost = kmeans(pts, K, km_rng, restarts=3, seeds=[MIX_CENTRES, prev, priv, one])
        live_r.append(cost(pts, priv) / true_cost)
        os_r.append(cost(pts, one) / true_cost)
    db.batch(["DROP TABLE %s" % table])

    ts = np.arange(1, horizon + 1)
    nodes = [tree_nodes(int(t)) for t in ts]
    fig, ax = plt.subplots(figsize=FIG_SIZE, dpi=DPI)
    ax2 = ax.twinx()                             # node counts as bars behind the curves
    ax2.bar(ts, nodes, color="#bdbdbd", alpha=0.5, width=0.8, label="tree nodes summed at release t (right axis)")
    ax2.set_ylim(0, max(nodes) * 4)
    ax2.set_yticks(range(0, max(nodes) + 1))
    ax2.set_ylabel("binary-tree nodes summed at release t")
    ax.set_zorder(ax2.get_zorder() + 1)
    ax.patch.set_visible(False)
    ax.plot(ts, live_r, marker="^", color="#e6550d", linewidth=1.8, label="live table, release t (dp_centers)")
    ax.plot(ts, os_r, marker="o", color="#3182bd", linewidth=1.2, markersize=5,
            label="one-shot dp_kmeans at the full ε on the same rows")
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle=":")
    ax.set_xlim(0.3, horizon + 0.7)
    top = max(live_r + os_r)
    ax.set_ylim(top=1.0 + (top - 1.0) * 1.3)    # room for the legend above the data
    ax.set_xlabel("release t")
    ax.set_ylabel("normalized cost (private ÷ non-private, on the true rows)")
    ax.set_title("Sliding window of %s rows: before each release %s rows inserted, the %s oldest deleted\n"
                 "k = %d, ε = %g over all %d releases (insert_delete); median live %.4f, one-shot %.4f"
                 % (rows_str(N), rows_str(batch), rows_str(batch), K, epsilon, horizon,
                    np.median(live_r), np.median(os_r)))
    ax.grid(True, alpha=0.3)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="upper right", framealpha=0.9)
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    footnote(fig, seed)
    fig.savefig(os.path.join(outdir, "live_releases.png"))
    plt.close(fig)
    return {"live": live_r, "oneshot": os_r, "nodes": nodes}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", required=True, help="socket directory or host of the cluster")
    ap.add_argument("--port", type=int, default=5432)
    ap.add_argument("--user", default="postgres")
    ap.add_argument("--dbname", default="postgres")
    ap.add_argument("--outdir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "..", "doc", "figures"))
    ap.add_argument("--seed", type=int, default=20240515, help="seed of the data and of numpy's draws")
    ap.add_argument("--horizon", type=int, default=32, help="releases of the sliding-window table")
    ap.add_argument("--reps", type=int, default=9, help="one-shot calls and grid draws per epsilon")
    ap.add_argument("--live-reps", type=int, default=5, help="live attaches per epsilon")
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)

    db = Psql(args.host, args.port, args.user, args.dbname)
    db.batch(["CREATE EXTENSION IF NOT EXISTS dpkmeans"])
    # Separate streams for the data, the k-means restarts and the baseline's
    # noise, so that each is the same whatever the others consume.
    data_rng, km_rng, noise_rng = (np.random.default_rng(s)
                                   for s in np.random.SeedSequence(args.seed).spawn(3))
    base = draw_points(data_rng, N)
    np.set_printoptions(precision=2, suppress=True)

    t0 = time.time()
    h = figure_histogram(db, data_rng, km_rng, base, args.outdir, args.seed, horizon=args.horizon, rounds=3, batch=5000)
    print("histogram_centres.png: release %d, %d rows, level %d, normalized cost %.4f (%.0f s)"
          % (h["release"], h["rows"], h["level"], h["ratio"], time.time() - t0))
    print("  private centres:\n%s\n  true centres:\n%s" % (h["private"], h["true"]))

    t1 = time.time()
    eps = [0.05, 0.1, 0.25, 0.5, 1.0, 2.0]
    e = figure_epsilon(db, km_rng, noise_rng, base, args.outdir, args.seed, eps, args.reps, args.live_reps, args.horizon)
    print("accuracy_vs_epsilon.png (%.0f s): normalized cost, median [min, max]" % (time.time() - t1))
    below = sum(r < 1 for v in (e["oneshot"], e["live"], e["grid"]) for rs in v for r in rs)
    if below:
        print("  note: %d private results below the non-private reference (shown at 1.00001)" % below)
    print("  %5s %6s %26s %26s %26s" % ("eps", "grid m", "one-shot", "live release 1", "EUGkM grid"))
    for i, x in enumerate(eps):
        f = ["%.4f [%.4f, %.4f]" % (np.median(v[i]), min(v[i]), max(v[i]))
             for v in (e["oneshot"], e["live"], e["grid"])]
        print("  %5g %6d %26s %26s %26s" % (x, e["m"][i], f[0], f[1], f[2]))

    t2 = time.time()
    batch = 2500
    l = figure_live(db, data_rng, km_rng, base, args.outdir, args.seed, args.horizon, batch)
    print("live_releases.png (%.0f s): live median %.4f range [%.4f, %.4f]; one-shot median %.4f range [%.4f, %.4f]"
          % (time.time() - t2, np.median(l["live"]), min(l["live"]), max(l["live"]),
             np.median(l["oneshot"]), min(l["oneshot"]), max(l["oneshot"])))
    print("  t  nodes  live    one-shot")
    for t, (n, a, b) in enumerate(zip(l["nodes"], l["live"], l["oneshot"]), 1):
        print("  %2d %5d  %.4f  %.4f" % (t, n, a, b))
    print("total %.0f s" % (time.time() - t0))


if __name__ == "__main__":
    main()
