/*
 * bench_highd_live.c
 *		Accuracy benchmark of the continual (live) releases at high d, over
 *		every release from T/4 on.
 *
 * It replays, in plain C, what a live table with d >= DPK_HIGHD_MIN_D does
 * (release.c, trigger.c):
 *
 *	 cfg = dpk_live_defaults(d, K, eps, T, insert_only);
 *	 dpk_live_use_projection(&cfg, seed);	(then the tuning overrides below)
 *	 on the declared box, as dp_attach (attach.c): dpk_live_use_few_sides,
 *	 dpk_live_use_ball (--norm-bound; none: no ball), dpk_live_use_ball_dims
 *	 (unless --dhat), dpk_live_use_box,
 *	 cfg.level = dpk_live_choose_level_box(&cfg, &box, N, 4194304);
 *	 copy r projects with dpk_projection_init(d, cfg.dhat,
 *		dpk_projection_copy_seed(cfg.proj_seed, r), DPK_LIVE_HALF_WIDTH = 0.75);
 *	 every inserted (+1) or deleted (-1) point: u = dpk_box_normalize on the
 *		box, its projections t (dpk_project_rows, as the capture, per copy and
 *		batch of up to 2048 points, as the triggers buffer them), then
 *		dpk_live_add_projected(&cfg, &state, u, t, sign);
 *	 release t: dpk_live_noisy_projected_box (stream on the table's key, zero
 *		nonce), then dpk_live_cluster_projected(..., seed = the next u64 of
 *		that stream, &rel); the K centres are at rel.centers +
 *		dpk_live_block(K) * d.
 *
 * The noise of release t depends only on the key and t, so releases that
 * are not measured are not computed; in between the state just accumulates
 * its batches, as the table's counters would.  Releases measured
 * (--releases): every t in [ceil(T/4), T] ("all", the default up to
 * T = 256) or the sample of bench_release_list ("sample", the default
 * beyond): every release of that range with the range's largest node
 * count, every stride-th release (--stride, default the odd number nearest
 * T/64) and T, means weighing each node count by its share of all releases.
 *
 * Streams (Gaussian mixtures of mixture.h on [0,100]^d, i.i.d. so in random
 * order; the same datasets as bench_highd and bench_continual):
 *	 insert  N points, batch t = points [floor((t-1)N/T), floor(tN/T)),
 *			 insert_only = true;
 *	 window  2N points in T batches; release t inserts batch t and, once
 *			 t > T/2, deletes batch t - T/2, so the window holds N points
 *			 from t = T/2 on; insert_only = false (insert_delete).
 *
 * At each measured t, on the points currently in the stream:
 *	 live     the K centres of the release;
 *	 oneshot  dp_kmeans at the full eps: dpk_highd_oneshot_cluster with
 *			  dpk_highd_defaults (max_cells 4194304, as the extension);
 *	 naive    the same at eps / T (T one-shot releases composed);
 *	 1c       one centre at the noisy mean at eps (mean_cost): a release
 *			  should never cost more (issue 15).
 * The baselines run weighted k-means with --restarts (default 10); the
 * live releases keep the restarts of dpk_live_use_projection (10, and
 * DPK_LIVE_WEIGHTED_RESTARTS from d = DPK_LIVE_WEIGHTED_D) unless
 * --restarts is given (from that d a release lifting by cells runs
 * DPK_LIVE_CORESET_RESTARTS on its projected coreset; --restarts sets
 * both).
 * Each cost is the k-means cost of the centres on the current true points
 * divided by a non-private reference on the same points (bench_ref_cost:
 * Lloyd warm-started from the previous measured release's reference, with
 * dpk_kmeans (10 restarts) and Lloyd from the generating centres every
 * 32nd measured release).
 *
 * Output: per (stream, T, d, K, eps) one line: for live, oneshot and
 * live/oneshot the geometric mean over every measured (release, seed) and
 * the worst release (largest geometric mean over seeds at one t, with that
 * t and its node count), the worst single run of live/oneshot, naive's
 * mean, the counted level and cells per copy, the mean coreset and release
 * time; then live/oneshot's mean per node count.  Seeds are --seed-base ..
 * --seed-base + seeds - 1 (default 100-107: the defaults were tuned on
 * seeds 0-9).
 *
 * Digits (--digits PATH): the UCI handwritten digits as shipped by Debian's
 * python3-sklearn (sklearn/datasets/data/digits.csv.gz: 1797 rows of 64
 * pixel values 0..16 and a label, which is dropped).  Box [0,16]^64, K = 10,
 * eps in {0.5, 1, 2}; per seed the rows are put in a seeded random order and
 * inserted as a stream of T = 64 batches (insert_only, size hint 1797);
 * every release from T/4 on is measured, the reference being the best of
 * dpk_kmeans with 20 restarts on the current rows.  "k=1" is the cost of
 * the single best centre (the data mean) over the same reference: what
 * clustering gains at all on this data; "1c" one centre at the noisy mean
 * at eps, as for the mixtures.
 *
 * MNIST (--mnist PATH): the 10 000 test digits of 28 x 28 pixels that
 * scripts/real-data.sh writes (mnist.csv.gz: 784 values in [0, 1] and the
 * label, dropped).  The same runs with box [0,1]^784, eps from --mnist-eps
 * (default 1, 4) and T = --mnist-horizon (default 16); the reference is
 * the best of 5 restarts (one Lloyd run on 10 000 x 784 takes seconds).
 *
 * GloVe (--glove PATH): a real embedding set, the 50 000 most frequent
 * English words' 100-dimensional GloVe vectors (glove100.csv.gz of
 * scripts/real-data.sh), in three declarations: box [-5,5]^100; that box
 * with norm_bound 10; the rows scaled to norm 1 with box [-1,1]^100 and
 * norm_bound 1 (the one-shot column with the same bound).  eps from
 * --glove-eps (default 1, 4), T = --glove-horizon (default 16), reference
 * the best of 5 restarts.
 *
 * Options (all optional):
 *	 --seeds N  --seed-base N  --n N  --rows "d:K:eps,..."  --horizons "1024"
 *	 --stream insert|window|both  --releases all|sample|auto  --stride N
 *	 --restarts N  --no-baselines (skip the oneshot and naive columns)
 *	 --no-naive  skip the naive column only (slow at large d)
 *	 --matched  also the one-shot at each release's eps_t = eps / (h touches
 *			 sqrt(norm2_t)), whose noise has the release's variances
 *			 (matched_eps; pure tables): "matched/os" is what the continual
 *			 counter costs, "live/matched" what the live pipeline loses
 *			 against the one-shot's at equal noise
 *	 --drift D  the mixtures' clusters move D box units over the stream
 *			 (drift_rows): a stream whose partition goes stale
 *	 --eps-scale X  the live tables are configured at X times each row's
 *			 eps (every node variance / X^2) while keys, data and the
 *			 one-shot columns stay those of eps: what a counter or share
 *			 with that much less noise would give the same pipeline
 *	 --regions, --cells  the live releases lift from sums keyed by public
 *			 regions (live_regions.h), or from the cells' sums; by default
 *			 each row lifts as dp_attach would choose (dpk_live_use_regions).
 *			 A table lifting by regions releases at every step, measured or
 *			 not, as the extension does (its maps come from every release),
 *			 and each release checks that its tree nodes hold exactly the
 *			 table's rows
 *	 --digits PATH  also run the digits data set; --digits-only: only the
 *	 real data sets (digits, MNIST, GloVe)
 *	 --glove PATH  also run GloVe; --glove-eps "1,4"  --glove-horizon 16
 *	 --glove-set NAME  only that GloVe variant (glove, glove-R or glove-u)
 *	 --digits-eps "0.5,1,2"  --digits-horizon 64
 *	 --mnist PATH  also run MNIST; --mnist-eps "1,4"  --mnist-horizon 16
 *	 --verbose  one line per seed and release
 *	 --heldout-z "2,3,off"  also the K answers under each threshold of the
 *			 held-out guard (DpkLiveConfig.heldout_z, ascending; off: never
 *			 fires), one line per threshold, and a "# heldout" line per
 *			 release whose K answer differs between them
 *	 --sign-cells on|off  new insert-only Gaussian tables of 64 columns
 *			 count sign cells as dp_attach gives them
 *			 (dpk_live_use_sign_cells, on), or the grid before (off)
 *	 --tail laplace|gauss  the coreset threshold of Gaussian tables with a
 *			 ball: the Laplace rule of releases before 0.9
 *			 (DpkLiveConfig.laplace_tail) or the Gaussian one (the default;
 *			 dpk_live_gauss_tail)
 *	 --box-upper X  the mixtures' declared box is [0, X]^d (default 100, the
 *			 points' own range; larger: loose bounds, the points in a corner)
 *	 --os-refine N, --os-refine-share X, --os-lift-share X,
 *			 --os-guard on|off  the one-shot column's refinement steps,
 *			 their share, the lift's share and the mean guard
 *			 (DpkHighdConfig refine_steps, refine_share, lift_share,
 *			 mean_guard)
 *	 --embed S  unit-norm embeddings instead (implies --sphere): each row
 *			 (mu + S g / sqrt(d)) / norm around its cluster's random unit
 *			 direction mu, the mixture's unequal weights (embed_rows)
 *	 --sphere  the mixtures' points moved onto the unit sphere about the
 *			 box's middle, x <- (x - 50) / ||x - 50|| (unit-norm embeddings),
 *			 declared box [-1, 1]^d
 *	 --oracle  (research lower bound, not shipped; Gaussian tables, with the
 *			 baselines) also each release's k-means partition released as
 *			 noisy sums over noisy counts at the best continual counter's
 *			 variance (oracle.h), a table per release beside live and oneshot
 *	 --adaptive-lift R, --adaptive-epoch a  (research measurement, not
 *			 shipped; insert streams lifting by cells) the releases after
 *			 step a (default 1) lift from sums of the rows inserted after it,
 *			 each taken about its cell's reference (the last release's
 *			 nearest centre) and clipped to norm R (box units), noised at
 *			 sensitivity R on 0.8 of the sum budget (adaptive_lift.h);
 *			 --verbose adds a "# adapt" line per release with the rows
 *			 clipped; --adaptive-epoch-share X: releases 1..a at X of the
 *			 sum budget (default 1: not modelled); --adaptive-s1-share X:
 *			 S1's share (default 0.8)
 *	 --norm-bound R  dp_attach's norm_bound => R (dpk_live_use_ball; 0, the
 *			 default: no ball), rows clamped into the ball; the one-shot
 *			 column as dp_kmeans(..., norm_bound => R)
 *	 tuning, applied after dpk_live_use_projection (before the level choice):
 *	 --copies N  --sum-share X  --norm-share X  --threshold X  --dhat N,
 *	 --lift heavy|weighted (dpk_lift_centers_heavy or _weighted),
 *	 --rest-mean on|off (DpkLiveConfig.rest_mean),
 *	 and after it: --arity N (the counters' tree; else dpk_live_use_box's),
 *	 --level-delta N, --level N (the counted level forced, after the
 *			 counter's choice), --counter tree|auto|square_root (Gaussian tables:
 *			 dp_attach's choice by default);
 *	 --family mix|tight|loose  bench_highd's families of the mixtures (sd
 *			 2-6, 0.5-1.5, or 8-16 with Zipf 1 weights);
 *	 --half-width X  the projected box half-width of the copies and of
 *			 cfg.half_width (what a change of DPK_LIVE_HALF_WIDTH and of
 *			 dpk_live_use_projection would do; default 0.75).
 *	 threshold_sigmas only matters above ln(cells)/sqrt(2) (5.9 at 4096
 *	 cells per copy): dpk_coreset_threshold takes the larger of the two.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cellmap.h"
#include "live_core.h"
#include "live_reach.h"
#include "coreset.h"
#include "counter.h"
#include "dpk_mem.h"
#include "grid.h"
#include "kmeans.h"
#include "noise.h"
#include "highd.h"
#include "lift.h"
#include "live_regions.h"

#define BENCH_PROG "bench_highd_live"

#include "mixture.h"
#include "bench_common.h"
#include "oracle.h"
#include "adaptive_lift.h"

#define MAX_ROWS 64
#define MAX_HORIZONS 4
#define MAX_CELLS 4194304.0
#define LIVE_HALF_WIDTH 0.75	/* DPK_LIVE_HALF_WIDTH of capture.h */
#define BATCH 2048				/* rows the triggers project per dgemm */
#define MAX_EPS 8
#define REF_FULL_EVERY 32
#define MAX_Z 4					/* --heldout-z values */

/* Options.lifting */
#define LIFT_AUTO 0
#define LIFT_CELLS 1
#define LIFT_REGIONS 2

enum
{
	STREAM_INSERT = 0, STREAM_WINDOW = 1, NSTREAMS = 2
};

static const char *const stream_name[NSTREAMS] = {"insert", "window"};

/* Key tags, so that every method gets its own noise. */
enum
{
	TAG_LIVE = 0x6c697665, TAG_ONESHOT = 0x6f6e65, TAG_NAIVE = 0x6e6169,
	TAG_DATA = 0x6d6978, TAG_REF = 0x726566, TAG_KM = 0x6b6d,
	TAG_PROJ = 0x70726f6a, TAG_DIGITS = 0x646967, TAG_MEAN = 0x6d65616e,
	TAG_MNIST = 0x6d6e6973, TAG_GLOVE = 0x676c6f76, TAG_MATCHED = 0x6d617463,
	TAG_DRIFT = 0x64726966,
	TAG_EMBED = 0x656d6264, TAG_ORACLE = 0x6f726163, TAG_ADAPT = 0x61646170
};

/* Figures of one (row, horizon, stream) over releases and seeds. */
typedef struct Summary
{
	int			nrel;
	uint32_t   *ts;
	double	   *w;
	BenchFig	live,
				os,
				naive,
				ratio,
				mean,			/* mixtures: one noisy centre at the mean
								 * (mean_cost), also for the image sets */
				vsmean,			/* live / mean */
				matched,		/* --matched: one-shot at the release's eps_t */
				vsmatched,		/* live / matched */
				matched_os;		/* matched / oneshot */
	/* --heldout-z: the K answers under each threshold */
	BenchFig	zlive[MAX_Z],
				zratio[MAX_Z],	/* live / oneshot */
				zvsmean[MAX_Z];	/* live / 1c */
	long		zfired[MAX_Z],	/* k' blocks the guard replaced */
				zkone[MAX_Z];	/* releases whose K block it replaced */
	OracleSummary oracle;		/* --oracle */
	int			level;
	uint64_t	cells;
	double		coreset,
				ms;
	long		runs;
} Summary;

typedef struct Row
{
	int			d;
	int			k;
	double		eps;
	Summary		sum[MAX_HORIZONS][NSTREAMS];
} Row;

typedef struct Options
{
	int			seeds;
	int			seed_base;
	size_t		n;
	bool		streams[NSTREAMS];
	uint32_t	horizons[MAX_HORIZONS];
	int			nhorizons;
	int			releases;		/* 0 auto, 1 all, 2 sample */
	uint32_t	stride;
	bool		baselines;
	bool		no_naive;		/* skip only the naive column */
	bool		matched;		/* also the one-shot at each release's eps_t */
	bool		oracle;			/* --oracle: the research lower bound */
	int			lifting;		/* LIFT_AUTO (dp_attach's choice,
								 * dpk_live_use_regions), LIFT_CELLS,
								 * LIFT_REGIONS (live_regions.h) */
	bool		verbose;
	const char *digits;
	bool		digits_only;
	double		digits_eps[MAX_EPS];
	int			ndigits_eps;
	uint32_t	digits_horizon;
	const char *mnist;
	double		mnist_eps[MAX_EPS];
	int			nmnist_eps;
	uint32_t	mnist_horizon;
	const char *glove;
	double		glove_eps[MAX_EPS];
	int			nglove_eps;
	uint32_t	glove_horizon;
	const char *glove_set;		/* NULL: every GloVe variant */
	int			restarts;
	bool		restarts_set;	/* --restarts given: also the live releases'
								 * (else they keep dpk_live_use_projection's) */
	/* overrides of the live configuration (NaN / -1 = keep) */
	int			copies;
	double		sum_share;
	double		norm_share;
	double		threshold;
	int			dhat;
	double		half_width;
	int			level_delta;
	int			level;			/* >= 0: the counted level forced (--level) */
	const char *family;			/* --family: bench_highd's mix, tight, loose */
	int			counter;		/* Gaussian tables: -1 tree, 0 dp_attach's
								 * choice, 1 the square root forced */
	int			lift_weighted;	/* -1 keep, 0 heavy, 1 weighted */
	int			rest_mean;		/* -1 keep, 0 off, 1 on */
	int			arity;			/* > 0: the counters' tree arity (else keep) */
	double		box_upper;		/* the declared box [0, box_upper]^d */
	bool		sphere;			/* points on the unit sphere, box [-1, 1]^d */
	double		norm_bound;		/* < 0: not given; >= 0: dp_attach's norm_bound */
	double		embed;			/* > 0: --embed's spread (unit embeddings) */
	double		drift;			/* > 0: the mixtures' clusters move this far
								 * over the stream (drift_rows) */
	double		eps_scale;		/* live tables at eps_scale * eps */
	double		heldout_z[MAX_Z];	/* --heldout-z, ascending (INFINITY: off) */
	int			nz;
	bool		laplace_tail;	/* --tail laplace: DpkLiveConfig.laplace_tail */
	bool		no_sign_cells;	/* --sign-cells off: not dpk_live_use_sign_cells */
	double		adapt_r;		/* > 0: --adaptive-lift R (adaptive_lift.h) */
	int			adapt_a;		/* --adaptive-epoch a */
	double		adapt_share0;	/* --adaptive-epoch-share X (1: not modelled) */
	double		adapt_share1;	/* --adaptive-s1-share X (0.8) */
} Options;

/* One live table: configuration, projections, counted cell map. */
typedef struct Live
{
	DpkLiveConfig cfg;
	DpkCellMap	map;
	DpkProjection *proj;
	double	   *ubuf;			/* BATCH * d normalized points */
	double	   *tbuf;			/* copies * BATCH * dhat projected */
	double	   *tall;			/* copies * dhat, one point */
	bool		verbose;		/* also the partition's exact-means cost */
	bool		regions;		/* --regions: lifting sums keyed by regions */
	DpkRegions	rs;
	AdaptLift  *adapt;			/* --adaptive-lift, else NULL */
} Live;

/* How many of k centres differ from every earlier one (by more than 1e-9). */
static int
distinct_centers(const double *c, int k, int d)
{
	int			a,
				b,
				j,
				n = 0;

	for (a = 0; a < k; a++)
	{
		for (b = 0; b < a; b++)
		{
			double		s = 0.0;

			for (j = 0; j < d; j++)
				s += (c[(size_t) a * d + j] - c[(size_t) b * d + j]) *
					(c[(size_t) a * d + j] - c[(size_t) b * d + j]);
			if (s <= 1e-18)
				break;
		}
		n += b == a;
	}
	return n;
}

/* What one live release gave. */
typedef struct LiveOut
{
	double		cost;
	double		cost1;			/* of the release's one-centre block, --verbose */
	double		est1,			/* the release's private cost estimates of */
				estk;			/* k' = 1 and k' = K, --verbose */
	double		part;			/* cost of the exact means of the release's
								 * partition (one Lloyd step), --verbose */
	int			coreset;
	int			fired;			/* k' blocks the held-out guard replaced */
	bool		kone;			/* the guard replaced the K block */
	int			distinct;		/* distinct centres of the K block */
	int			used;			/* centres nearest to >= 1 % of the rows, --verbose */
	double		lift_pred;		/* --verbose: the cost the K centres' lifting noise
								 * is expected to add (live_lift_parts) */
	double		one_sum;		/* the same with one noisy sum a centre */
	double		lift_cells;		/* cells a centre, (sum c)^2 / sum c^2, mean */
	double		ms;
} LiveOut;

/* The largest counted level dpk_live_choose_level allows (cells, 48-bit ids). */
static int
max_level(const DpkLiveConfig *cfg)
{
	return (int) floor(fmin(log2(MAX_CELLS), 48.0 - ceil(log2(cfg->copies + 1.0))) /
					   cfg->dhat + 1e-9);
}

/*
 * Rows of x moved onto the unit sphere about (about, ..., about): x <- (x -
 * about) / ||x - about|| (a row at the centre becomes 0).  --sphere: the
 * mixtures of [0,100]^d about 50; the real sets' unit rows: about 0.
 */
static void
unit_rows(double *x, size_t n, int d, double about)
{
	size_t		i;
	int			j;

	for (i = 0; i < n; i++)
	{
		double		s = 0.0;

		for (j = 0; j < d; j++)
			s += (x[i * d + j] - about) * (x[i * d + j] - about);
		s = s > 0.0 ? 1.0 / sqrt(s) : 0.0;
		for (j = 0; j < d; j++)
			x[i * d + j] = (x[i * d + j] - about) * s;
	}
}

/*
 * --embed S: unit-norm embeddings around K random directions (the mixture's
 * weights, labels and seed): row i becomes (mu_l + S g / sqrt(d)) / norm,
 * mu_l a random unit direction of its cluster, g standard normal; the
 * generating centres become the mu_l.  S = 0.65 puts one centre at the
 * mean near 3.4 times the optimum at d = 384, K = 10 (loose clusters
 * whose directions are nearly orthogonal).
 */
static void
embed_rows(MixData *mx, double S, uint64_t seed)
{
	double	   *mu = xmalloc(sizeof(double) * mx->k * mx->d);
	size_t		i;
	int			c,
				j;
	MixRng		r;

	for (c = 0; c < mx->k; c++)
	{
		double		norm = 0.0;

		mix_rng_seed(&r, mix_hash4(seed, TAG_EMBED, (uint64_t) c, 0));
		for (j = 0; j < mx->d; j++)
		{
			mu[c * mx->d + j] = mix_rng_normal(&r);
			norm += mu[c * mx->d + j] * mu[c * mx->d + j];
		}
		for (j = 0; j < mx->d; j++)
			mu[c * mx->d + j] /= sqrt(norm);
	}
	mix_rng_seed(&r, mix_hash4(seed, TAG_EMBED, (uint64_t) mx->k, 1));
	for (i = 0; i < mx->n; i++)
		for (j = 0; j < mx->d; j++)
			mx->points[i * mx->d + j] = mu[mx->labels[i] * mx->d + j] +
				S * mix_rng_normal(&r) / sqrt((double) mx->d);
	memcpy(mx->centers, mu, sizeof(double) * mx->k * mx->d);
	unit_rows(mx->points, mx->n, mx->d, 0.0);
	free(mu);
}

/*
 * --drift D: the clusters of a mixture move along the stream, point i (in
 * arrival order) shifted by D i / (n - 1) along a unit direction of its
 * generating cluster (seeded by the data's seed), clamped into the box
 * [0, upper]^d: streams whose clusters drift, where a release's partition
 * goes stale.
 */
static void
drift_rows(MixData *mx, double D, double upper, uint64_t seed)
{
	double	   *dir = xmalloc(sizeof(double) * mx->k * mx->d);
	size_t		i;
	int			c,
				j;

	for (c = 0; c < mx->k; c++)
	{
		MixRng		r;
		double		norm = 0.0;

		mix_rng_seed(&r, mix_hash4(seed, TAG_DRIFT, (uint64_t) c, 0));
		for (j = 0; j < mx->d; j++)
		{
			dir[c * mx->d + j] = mix_rng_normal(&r);
			norm += dir[c * mx->d + j] * dir[c * mx->d + j];
		}
		for (j = 0; j < mx->d; j++)
			dir[c * mx->d + j] /= sqrt(norm);
	}
	for (i = 0; i < mx->n; i++)
	{
		double		f = mx->n > 1 ? D * (double) i / (double) (mx->n - 1) : 0.0;

		for (j = 0; j < mx->d; j++)
			mx->points[i * mx->d + j] =
				fmin(upper, fmax(0.0, mx->points[i * mx->d + j] +
								 f * dir[mx->labels[i] * mx->d + j]));
	}
	free(dir);
}

/*
 * The live configuration of a table, as attach makes it, plus the overrides.
 * norm_bound >= 0 configures as dp_attach(..., norm_bound) on the declared
 * box (NULL: the mixtures' box of opt).
 */
static void
live_config(DpkLiveConfig *cfg, int d, int k, double eps, uint32_t horizon,
			bool insert_only, double size_hint, uint64_t proj_seed, const DpkBox *declared,
			double norm_bound, const Options *opt)
{
	dpk_live_defaults(cfg, d, k, eps, horizon, insert_only);
	dpk_live_use_projection(cfg, proj_seed & UINT64_C(0x7fffffffffffffff));
	dpk_live_use_delta(cfg, bench_delta);
	if (opt->copies > 0)
		cfg->copies = opt->copies;
	if (!isnan(opt->sum_share))
		cfg->sum_share = opt->sum_share;
	if (!isnan(opt->norm_share))
		cfg->norm_share = opt->norm_share;
	if (!isnan(opt->threshold))
		cfg->threshold_sigmas = opt->threshold;
	if (opt->dhat > 0)
		cfg->dhat = opt->dhat;
	if (opt->lift_weighted >= 0)
		cfg->lift_weighted = opt->lift_weighted > 0;
	if (opt->rest_mean >= 0)
		cfg->rest_mean = opt->rest_mean > 0;
	cfg->half_width = isnan(opt->half_width) ? LIVE_HALF_WIDTH : opt->half_width;
	if (opt->restarts_set)
		cfg->restarts = cfg->coreset_restarts = opt->restarts;
	cfg->laplace_tail = opt->laplace_tail;
	{
		/* as dp_attach: few sides, the ball, the box's configuration, its level */
		double	   *lo = xmalloc(sizeof(double) * d),
				   *up = xmalloc(sizeof(double) * d);
		DpkBox		box = {d, lo, up};
		int			j;

		for (j = 0; j < d; j++)
		{
			lo[j] = declared ? declared->lower[j] : (opt->sphere ? -1.0 : 0.0);
			up[j] = declared ? declared->upper[j] : (opt->sphere ? 1.0 : opt->box_upper);
		}
		dpk_live_use_few_sides(cfg, &box, size_hint);
		dpk_live_use_ball(cfg, &box, norm_bound > 0.0 ? norm_bound : 0.0);
		if (opt->dhat <= 0)
			dpk_live_use_ball_dims(cfg, &box, size_hint, MAX_CELLS);	/* --dhat wins */
		dpk_live_use_box(cfg, &box);
		if (!isnan(opt->sum_share))
			cfg->sum_share = opt->sum_share;	/* the override wins */
		if (opt->arity > 0)
			cfg->arity = opt->arity;
		cfg->level = dpk_live_choose_level_box(cfg, &box, size_hint, MAX_CELLS);
		/* the counter as dp_attach chooses it, or forced (--counter) */
		if (opt->counter >= 0)
			dpk_live_use_counter(cfg, &box, size_hint, MAX_CELLS, opt->counter > 0);
		if (!opt->no_sign_cells)
			dpk_live_use_sign_cells(cfg);
		free(lo);
		free(up);
	}
	cfg->level += opt->level_delta;
	if (opt->level >= 0)
		cfg->level = opt->level;
	if (cfg->level > max_level(cfg))
		cfg->level = max_level(cfg);
	if (cfg->level < 0)
		cfg->level = 0;
	dpk_live_use_norm_shift(cfg);	/* as dp_attach, last */
}

static void
live_init(Live *lv, int d, int k, double eps, uint32_t horizon, bool insert_only,
		  double size_hint, uint64_t proj_seed, const DpkBox *box, double norm_bound,
		  const Options *opt)
{
	int			r;

	live_config(&lv->cfg, d, k, eps * opt->eps_scale, horizon, insert_only, size_hint,
				proj_seed, box, norm_bound, opt);
	lv->verbose = opt->verbose;
	lv->adapt = NULL;
	dpk_cellmap_init(&lv->map, d);
	lv->proj = xmalloc(sizeof(DpkProjection) * lv->cfg.copies);
	for (r = 0; r < lv->cfg.copies; r++)
		dpk_projection_init(&lv->proj[r], d, lv->cfg.dhat,
							dpk_projection_copy_seed(lv->cfg.proj_seed, r),
							lv->cfg.half_width);
	lv->ubuf = xmalloc(sizeof(double) * BATCH * d);
	lv->tbuf = xmalloc(sizeof(double) * BATCH * lv->cfg.dhat * lv->cfg.copies);
	lv->tall = xmalloc(sizeof(double) * lv->cfg.dhat * lv->cfg.copies);
	/* the lifting dp_attach would choose, unless forced */
	lv->regions = opt->lifting == LIFT_AUTO ? dpk_live_use_regions(&lv->cfg)
		: opt->lifting == LIFT_REGIONS;
	if (lv->regions)
	{
		if (!dpk_regions_supported(&lv->cfg))
		{
			fprintf(stderr, "bench_highd_live: --regions needs a pure projected table "
					"with one copy, a k-ary tree and K <= 255\n");
			exit(2);
		}
		dpk_regions_init(&lv->rs, &lv->cfg);
	}
}

static void
live_free(Live *lv)
{
	int			r;

	for (r = 0; r < lv->cfg.copies; r++)
		dpk_projection_free(&lv->proj[r]);
	free(lv->proj);
	dpk_cellmap_free(&lv->map);
	if (lv->regions)
		dpk_regions_free(&lv->rs);
	if (lv->adapt)
	{
		adapt_free(lv->adapt);
		free(lv->adapt);
	}
	free(lv->ubuf);
	free(lv->tbuf);
	free(lv->tall);
}

/*
 * Insert (sign +1) or delete (sign -1) points [from, to) into the state at
 * step `step`, a batch of up to BATCH rows at a time (dpk_shape_flush's
 * way).
 */
static void
live_apply(Live *lv, const DpkBox *box, const double *pts, size_t from, size_t to,
		   int sign)
{
	int			d = lv->cfg.d,
				dhat = lv->cfg.dhat,
				copies = lv->cfg.copies;

	while (from < to)
	{
		size_t		n = to - from < BATCH ? to - from : BATCH;
		size_t		i;
		int			r;

		for (i = 0; i < n; i++)
		{
			dpk_box_normalize(box, pts + (from + i) * d, lv->ubuf + i * d);
			if (lv->cfg.box_metric)
				dpk_box_to_metric(box, lv->ubuf + i * d);
			dpk_box_ball_clamp(d, lv->cfg.ball, lv->ubuf + i * d);
		}
		for (r = 0; r < copies; r++)
			dpk_project_rows(&lv->proj[r], lv->ubuf, n,
							 lv->tbuf + (size_t) r * BATCH * dhat);
		for (i = 0; i < n; i++)
		{
			for (r = 0; r < copies; r++)
				memcpy(lv->tall + (size_t) r * dhat,
					   lv->tbuf + ((size_t) r * BATCH + i) * dhat,
					   sizeof(double) * dhat);
			dpk_live_add_projected(&lv->cfg, &lv->map, lv->ubuf + i * d, lv->tall, sign);
			if (lv->adapt && sign > 0)
				adapt_add_row(lv->adapt, &lv->cfg, lv->ubuf + i * d, lv->tall);
		}
		from += n;
	}
}

/*
 * Where a release's excess over its partition's exact means comes from
 * (--verbose): each counted cell of copy 0 goes to the released centre
 * nearest its exact mean; a centre lifted by count-weighted sums over its
 * cells above the coreset threshold (Laplace's rule, (sigma/sqrt 2) ln
 * cells, at least 2 sigma) has noise sum_var / sum c^2 a coordinate (exact
 * counts c), so adds about n d sum_var / sum c^2 to the cost ("pred");
 * with one noisy sum a centre, as the one-shot's lift, n d sum_var / n^2
 * ("one_sum"); (sum c)^2 / sum c^2 is its number of cells.  Box [0,100]^d
 * (the mixtures') assumed for the units.
 */
static void
live_lift_parts(const Live *lv, uint32_t t, const double *centers, const double *count,
				LiveOut *out)
{
	const DpkLiveConfig *cfg = &lv->cfg;
	int			d = cfg->d,
				k = cfg->k,
				a,
				j;
	size_t		pos = 0;
	uint64_t	cell;
	const int64_t *v;
	double	   *nc = calloc(k, sizeof(double)),
			   *n2 = calloc(k, sizeof(double)),
			   *n2core = calloc(k, sizeof(double)),
			   *mu = xmalloc(sizeof(double) * d);
	double		csd = sqrt(dpk_live_projected_count_var(cfg, t)),
				svar = dpk_live_projected_sum_var(cfg, t) * 1e4,
				thr = fmax(2.0, log((double) dpk_live_copy_cells(cfg)) / sqrt(2.0)) * csd;

	while (dpk_cellmap_next(&lv->map, &pos, &cell, &v))
	{
		double		cn = (double) v[0];

		if (cell >= dpk_live_copy_cells(cfg) || cn <= 0)
			continue;
		for (j = 0; j < d; j++)
			mu[j] = (0.5 + (double) v[1 + j] / (DPK_LIFT_UNITS * cn)) * 100.0;
		a = dpk_highd_nearest(mu, centers, k, d);
		nc[a] += cn;
		n2[a] += cn * cn;
		if (count[cell] > thr)
			n2core[a] += cn * cn;
	}
	out->lift_pred = out->one_sum = out->lift_cells = 0.0;
	for (a = 0; a < k; a++)
		if (nc[a] > 0)
		{
			out->lift_pred += n2core[a] > 0 ? nc[a] * d * svar / n2core[a] : NAN;
			out->one_sum += d * svar / nc[a];
			out->lift_cells += nc[a] * nc[a] / n2[a] / k;
		}
	free(nc);
	free(n2);
	free(n2core);
	free(mu);
}

/* Release t of a live table: its K centres' cost on cur[0 .. ncur). */
static LiveOut
live_release(Live *lv, const DpkBox *box, const uint8_t key[DPK_KEY_BYTES],
			 uint32_t t, const double *cur, size_t ncur)
{
	const DpkLiveConfig *cfg = &lv->cfg;
	int			d = cfg->d,
				k = cfg->k;
	uint64_t	total = (uint64_t) cfg->copies * dpk_live_copy_cells(cfg);
	double	   *count = xmalloc(sizeof(double) * total);
	double	   *sum = xmalloc(sizeof(double) * total * d);
	double		sumnorm;
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	DpkStream	s = {0};
	DpkLiveRelease rel;
	LiveOut		out;
	double		t0 = now_ms();
	uint64_t	cseed;
	bool		adapt = lv->adapt && t >= (uint32_t) lv->adapt->a;
	AdaptDiag	dg;

	if (!dpk_stream_open(&s, key, nonce))
	{
		fprintf(stderr, "bench_highd_live: cannot open noise stream\n");
		exit(1);
	}
	/* lifting by regions: the counts alone, as the extension draws them */
	dpk_live_noisy_projected_box(cfg, box, key, &lv->map, t, &s, count,
								 lv->regions ? NULL : sum, &sumnorm);
	cseed = dpk_stream_u64(&s);
	if (adapt && t <= (uint32_t) lv->adapt->a && lv->adapt->share0 < 1.0)
		adapt_epoch0_noise(lv->adapt, cfg, box, &lv->map, t, count, sum);
	if (adapt)
		adapt_sums(lv->adapt, cfg, &lv->map, t, count, sum, &dg);
	if (lv->regions)
	{
		/* the extension's release of a table lifting by regions */
		double		cells = dpk_live_zero_unreachable(cfg, box, &lv->proj[0], count, sum);
		int64_t		rows;

		dpk_regions_release(&lv->rs,
							&(DpkRegionsTable) {cfg, box, &lv->proj[0], key},
							&(DpkRegionsInput) {t, &lv->map, count, cells, sumnorm, cseed},
							&(DpkRegionsOut) {&rel, NULL, &rows});
		if (rows != (int64_t) ncur)
		{
			/* the signed nodes must hold exactly the current rows, (*) */
			fprintf(stderr, "bench_highd_live: --regions: the nodes of t = %u hold %lld "
					"rows, the table %zu\n", t, (long long) rows, ncur);
			exit(1);
		}
	}
	else
		dpk_live_cluster_projected(cfg, box, count, sum, sumnorm, t, cseed, &rel);
	if (adapt)
	{
		AdaptLift  *al = lv->adapt;

		adapt_refs(al, cfg, box, lv->proj, rel.centers + (size_t) dpk_live_block(k) * d);
		if (lv->verbose)
		{
			double		w2 = (box->upper[0] - box->lower[0]) * (box->upper[0] - box->lower[0]);

			/* errors: root mean square over the heavy cells' rows, box units */
			printf("#   adapt seed=%d t=%u R=%g a=%d clipped_step=%.4f clipped_all=%.4f "
				   "replaced=%ld heavy_kept=%ld table_sum_sd=%.4g pred=%.4g err_table=%.2f "
				   "err_adapt=%.2f err_noise=%.2f err_clip=%.2f err_sub=%.2f\n",
				   al->seed_no, t, al->r * (box->upper[0] - box->lower[0]), al->a,
				   al->rows_step ? (double) al->clip_step / al->rows_step : NAN,
				   al->rows_all ? (double) al->clip_all / al->rows_all : NAN,
				   dg.replaced, dg.heavy_kept, dg.emp_sd,
				   sqrt(dpk_live_projected_sum_var(cfg, t)), sqrt(dg.table * w2 / dg.w),
				   sqrt(dg.adapt * w2 / dg.w), sqrt(dg.noise * w2 / dg.w),
				   sqrt(dg.clip * w2 / dg.w), sqrt(dg.sub * w2 / dg.w));
		}
		al->clip_step = al->rows_step = 0;
	}
	out.ms = now_ms() - t0;
	out.cost = dpk_kmeans_cost(cur, NULL, (int) ncur, d,
							   rel.centers + (size_t) dpk_live_block(k) * d, k, NULL);
	out.coreset = rel.coreset_size;
	out.cost1 = out.part = out.lift_pred = out.one_sum = out.lift_cells = NAN;
	out.est1 = rel.costs[0];
	out.estk = rel.costs[k - 1];
	out.fired = rel.guard_fired;
	out.kone = false;
	if (rel.guard_fired > 0)
	{
		/* the K block is the one centre, padded at size 0 (live_cost_guard.c) */
		int			i;

		out.kone = memcmp(rel.centers + (size_t) dpk_live_block(k) * d,
						  rel.centers + (size_t) dpk_live_block(1) * d,
						  sizeof(double) * d) == 0;
		for (i = 1; i < k && out.kone; i++)
			out.kone = rel.sizes[dpk_live_block(k) + i] == 0.0;
	}
	out.distinct = distinct_centers(rel.centers + (size_t) dpk_live_block(k) * d, k, d);
	if (lv->verbose)
	{
		out.cost1 = dpk_kmeans_cost(cur, NULL, (int) ncur, d,
									rel.centers + (size_t) dpk_live_block(1) * d, 1, NULL);
		/* the partition the live centres induce, at its exact means */
		double	   *c = xmalloc(sizeof(double) * k * d);
		double	   *w = calloc(k, sizeof(double));
		size_t		i;
		int			a,
					j;

		memset(c, 0, sizeof(double) * k * d);
		for (i = 0; i < ncur; i++)
		{
			a = dpk_highd_nearest(cur + i * d, rel.centers + (size_t) dpk_live_block(k) * d, k, d);
			w[a] += 1.0;
			for (j = 0; j < d; j++)
				c[(size_t) a * d + j] += cur[i * d + j];
		}
		for (a = 0; a < k; a++)
			for (j = 0; j < d; j++)
				c[(size_t) a * d + j] = w[a] > 0.0 ? c[(size_t) a * d + j] / w[a] : 50.0;
		out.part = dpk_kmeans_cost(cur, NULL, (int) ncur, d, c, k, NULL);
		live_lift_parts(lv, t, rel.centers + (size_t) dpk_live_block(k) * d, count, &out);
		out.used = 0;
		for (a = 0; a < k; a++)
			out.used += w[a] >= 0.01 * (double) ncur;
		free(c);
		free(w);
	}
	dpk_live_release_free(&rel);
	dpk_stream_close(&s);
	free(count);
	free(sum);
	return out;
}

/*
 * A release that is not measured: a table lifting by regions makes one at
 * every step (its maps come from every release), as the extension's does;
 * the cells' releases keep nothing from one release to the next.
 */
static void
live_unmeasured(Live *lv, const DpkBox *box, const uint8_t key[DPK_KEY_BYTES], uint32_t t,
				const double *cur, size_t ncur)
{
	if (lv->regions || (lv->adapt && t >= (uint32_t) lv->adapt->a))
		(void) live_release(lv, box, key, t, cur, ncur);
}

/* --norm-bound for the one-shot column too (0: none). */
static double oneshot_norm_bound = 0.0;

/* The one-shot column's tuning overrides (-1 / NaN: the defaults). */
static int	oneshot_refine = -1;
static double oneshot_refine_share = NAN;
static int	oneshot_guard = -1;
static double oneshot_lift_share = NAN;

/* dp_kmeans (high d) with budget eps on the current points. */
static double
oneshot_cost(const DpkBox *box, const double *cur, size_t ncur, int k, double eps,
			 int restarts, uint64_t keyseed)
{
	DpkHighdConfig cfg;
	DpkOneshotResult res;
	DpkStream	s = {0};
	double		cost;

	open_seed_stream(&s, keyseed);
	dpk_highd_defaults(&cfg, eps, k);
	dpk_highd_use_delta(&cfg, bench_delta);
	cfg.max_cells = MAX_CELLS;
	cfg.restarts = restarts;
	dpk_highd_use_ball(&cfg, box, oneshot_norm_bound);
	if (oneshot_refine >= 0)
		cfg.refine_steps = oneshot_refine;
	if (!isnan(oneshot_refine_share))
		cfg.refine_share = oneshot_refine_share;
	if (oneshot_guard >= 0)
		cfg.mean_guard = oneshot_guard > 0;
	if (!isnan(oneshot_lift_share))
		cfg.lift_share = oneshot_lift_share;
	dpk_highd_oneshot_cluster(box, cur, ncur, &cfg, &s, &res);
	cost = dpk_kmeans_cost(cur, NULL, (int) ncur, box->d, res.centers, k, NULL);
	dpk_oneshot_result_free(&res);
	dpk_stream_close(&s);
	return cost;
}

/*
 * --matched: the epsilon at which a one-shot's noise has release t's
 * variances.  A pure live table draws every node's noise at the scale of
 * eps / (h touches) (one node per level of its tree, twice with deletions:
 * dpk_live_count_sensitivity) and release t sums nodes with weights of
 * squared norm norm2_t, so each of its counters has (h touches)^2 norm2_t
 * times the variance of the same counter measured once at eps.  Copies
 * are the live pipeline's own choice, so left out: the one-shot at this
 * epsilon is what the continual counter alone costs, and live / matched
 * what the live pipeline loses against the one-shot's at equal noise.
 */
static double
matched_eps(const DpkLiveConfig *cfg, double eps, uint32_t t)
{
	double		f = dpk_live_tree_levels(cfg) * (cfg->insert_only ? 1.0 : 2.0);

	return eps / (f * sqrt(dpk_live_tree_norm2(cfg, t)));
}

static void
summary_init(Summary *sm, const Options *opt, uint32_t T)
{
	int			i;

	sm->ts = xmalloc(sizeof(uint32_t) * T);
	sm->w = xmalloc(sizeof(double) * T);
	sm->nrel = bench_release_list(T, bench_measure_all(opt->releases, T),
								  bench_sample_stride(opt->stride, T), sm->ts, sm->w);
	bench_fig_init(&sm->live, sm->nrel);
	bench_fig_init(&sm->os, sm->nrel);
	bench_fig_init(&sm->naive, sm->nrel);
	bench_fig_init(&sm->ratio, sm->nrel);
	bench_fig_init(&sm->mean, sm->nrel);
	bench_fig_init(&sm->vsmean, sm->nrel);
	bench_fig_init(&sm->matched, sm->nrel);
	bench_fig_init(&sm->vsmatched, sm->nrel);
	bench_fig_init(&sm->matched_os, sm->nrel);
	for (i = 0; i < opt->nz; i++)
	{
		bench_fig_init(&sm->zlive[i], sm->nrel);
		bench_fig_init(&sm->zratio[i], sm->nrel);
		bench_fig_init(&sm->zvsmean[i], sm->nrel);
		sm->zfired[i] = sm->zkone[i] = 0;
	}
	if (opt->oracle)
		oracle_init(&sm->oracle, T, sm->nrel, sm->ts);
	sm->coreset = sm->ms = 0.0;
	sm->runs = 0;
	sm->level = -1;
	sm->cells = 0;
}

/* Add one measured release to a summary. */
static void
summary_add(Summary *sm, int ri, uint32_t t, int seed, const LiveOut *lo, double ref,
			double os, double naive, double mean, double matched,
			const DpkLiveConfig *cfg)
{
	double		live = lo->cost / ref;

	if (!isnan(matched))
	{
		bench_fig_add(&sm->matched, ri, t, seed, matched);
		bench_fig_add(&sm->vsmatched, ri, t, seed, live / matched);
		bench_fig_add(&sm->matched_os, ri, t, seed, matched / os);
	}

	bench_fig_add(&sm->live, ri, t, seed, live);
	bench_fig_add(&sm->os, ri, t, seed, os);
	bench_fig_add(&sm->naive, ri, t, seed, naive);
	bench_fig_add(&sm->ratio, ri, t, seed, live / os);
	bench_fig_add(&sm->mean, ri, t, seed, mean);
	bench_fig_add(&sm->vsmean, ri, t, seed, live / mean);
	sm->coreset += lo->coreset;
	sm->ms += lo->ms;
	sm->runs++;
	sm->level = cfg->level;
	sm->cells = dpk_live_copy_cells(cfg);
}

/*
 * --heldout-z: release t's K answer under each threshold of the held-out
 * guard (ascending), into the summary's z figures.  The release is the same
 * up to the guard (its noise depends on the key and t only) and a block
 * replaced at z is replaced at every smaller z, so a threshold above one
 * that replaced nothing reuses that answer; only releases where the guard
 * fired are computed again.  A line for each release whose K answer
 * differs between thresholds.
 */
static void
heldout_compare(Live *lv, const DpkBox *box, const uint8_t key[DPK_KEY_BYTES], uint32_t t,
				const double *cur, size_t ncur, const LiveOut *lo, Summary *sm, int ri,
				int seed, double refc, double os, double mean, const Options *opt)
{
	double		z0 = lv->cfg.heldout_z,
				prev_z = z0;
	LiveOut		prev = *lo,
				got[MAX_Z];
	bool		differ = false;
	int			i;

	for (i = 0; i < opt->nz; i++)
	{
		double		z = opt->heldout_z[i];

		/* tables lifting by regions have no held-out guard (record 038) */
		if (lv->regions || z == prev_z || (z > prev_z && prev.fired == 0))
			got[i] = prev;
		else
		{
			lv->cfg.heldout_z = z;
			got[i] = live_release(lv, box, key, t, cur, ncur);
		}
		prev = got[i];
		prev_z = z;
		bench_fig_add(&sm->zlive[i], ri, t, seed, got[i].cost / refc);
		bench_fig_add(&sm->zratio[i], ri, t, seed, got[i].cost / refc / os);
		bench_fig_add(&sm->zvsmean[i], ri, t, seed, got[i].cost / refc / mean);
		sm->zfired[i] += got[i].fired;
		sm->zkone[i] += got[i].kone;
		differ |= got[i].cost != got[0].cost;
	}
	lv->cfg.heldout_z = z0;
	if (!differ)
		return;
	printf("#   heldout d=%d T=%u seed=%d t=%u 1c=%.4f oneshot=%.4f", lv->cfg.d,
		   lv->cfg.horizon, seed, t, mean, os);
	for (i = 0; i < opt->nz; i++)
		printf(" | z=%g live=%.4f fired=%d K=%d", opt->heldout_z[i], got[i].cost / refc,
			   got[i].fired, got[i].kone);
	printf("\n");
}

/*
 * Run one stream of one row and horizon on one dataset: step through the
 * releases up to the last measured one, computing the measured ones.
 */
static void
run_stream(const MixData *mx, const DpkBox *box, Row *row, Summary *sm, uint32_t T,
		   int stream, int seed, const Options *opt)
{
	int			d = row->d,
				k = row->k;
	size_t		N = opt->n;
	bool		window = stream == STREAM_WINDOW;
	size_t		total = window ? 2 * N : N;
	uint32_t	half = T / 2;
	int			ri = 0;
	Live		lv;
	BenchRef	ref;
	uint8_t		key[DPK_KEY_BYTES];
	uint64_t	keyseed;
	uint32_t	t;

	keyseed = mix_hash4(TAG_LIVE ^ (((uint64_t) d << 32) | (uint64_t) k),
						double_bits(row->eps), ((uint64_t) T << 2) | (uint64_t) stream,
						(uint64_t) seed);
	dpk_key_from_seed(keyseed, key);
	live_init(&lv, d, k, row->eps, T, !window, (double) N,
			  mix_hash4(keyseed, TAG_PROJ, 0, 0), box, opt->norm_bound, opt);
	bench_ref_init(&ref, d, k, REF_FULL_EVERY);
	if (opt->adapt_r > 0.0)
	{
		if (window || lv.regions)
		{
			fprintf(stderr, "bench_highd_live: --adaptive-lift: insert streams of tables "
					"lifting by cells only\n");
			exit(2);
		}
		lv.adapt = xmalloc(sizeof(AdaptLift));
		adapt_init(lv.adapt, &lv.cfg, opt->adapt_r, box->upper[0] - box->lower[0],
				   opt->adapt_a, mix_hash4(keyseed, TAG_ADAPT, 0, 0));
		lv.adapt->seed_no = seed;
		lv.adapt->share0 = opt->adapt_share0;
		lv.adapt->share1 = opt->adapt_share1;
		if (opt->verbose && seed == opt->seed_base)
			printf("# adapt: the table lifts by cells (regions %d), lifted sums %d, refined "
				   "sums %d, copies %d, dhat %d, level %d, %llu cells a copy\n",
				   (int) lv.regions, (int) dpk_live_lifts_sums(&lv.cfg),
				   (int) dpk_live_refines_sums(&lv.cfg), lv.cfg.copies, lv.cfg.dhat,
				   lv.cfg.level, (unsigned long long) dpk_live_copy_cells(&lv.cfg));
	}

	for (t = 1; t <= T && ri < sm->nrel; t++)
	{
		size_t		b0 = bench_batch_end(t - 1, total, T),
					b1 = bench_batch_end(t, total, T);
		size_t		cur0;

		if (lv.adapt)
			lv.adapt->step = t;
		live_apply(&lv, box, mx->points, b0, b1, +1);
		if (window && t > half)
			live_apply(&lv, box, mx->points, bench_batch_end(t - half - 1, total, T),
					   bench_batch_end(t - half, total, T), -1);
		cur0 = window && t > half ? bench_batch_end(t - half, total, T) : 0;
		if (t != sm->ts[ri])
		{
			live_unmeasured(&lv, box, key, t, mx->points + cur0 * d, b1 - cur0);
			continue;
		}
		{
			const double *cur = mx->points + cur0 * d;
			size_t		ncur = b1 - cur0;
			double		refc = bench_ref_cost(&ref, cur, ncur, mx->centers,
											  mix_hash4(TAG_REF, keyseed, t, TAG_KM));
			LiveOut		lo = live_release(&lv, box, key, t, cur, ncur);
			double		os = 1.0,
						naive = 1.0,
						matched = NAN,
						mean = mean_cost(box, cur, ncur, row->eps,
										 mix_hash4(keyseed ^ TAG_MEAN, t, 0, 0)) / refc;

			if (opt->baselines)
			{
				os = oneshot_cost(box, cur, ncur, k, row->eps, opt->restarts,
								  mix_hash4(keyseed ^ TAG_ONESHOT, t, 0, 0)) / refc;
				if (!opt->no_naive)
					naive = oneshot_cost(box, cur, ncur, k, row->eps / T, opt->restarts,
										 mix_hash4(keyseed ^ TAG_NAIVE, t, 0, 0)) / refc;
				if (opt->matched)
					matched = oneshot_cost(box, cur, ncur, k,
										   matched_eps(&lv.cfg, row->eps, t), opt->restarts,
										   mix_hash4(keyseed ^ TAG_MATCHED, t, 0, 0)) / refc;
			}
			if (opt->verbose)
				printf("#   %s T=%u d=%d eps=%g seed=%d t=%u nodes=%d live=%.4f "
					   "oneshot=%.4f naive=%.4f matched=%.4f mean=%.4f part=%.4f coreset=%d "
					   "ms=%.1f count_sd=%.1f sum_sd=%.3g one=%.4f est1=%.4f estk=%.4f fired=%d distinct=%d used=%d "
					   "lift=%.4f pred=%.4f one_sum=%.4f lift_cells=%.2f\n",
					   stream_name[stream], T, d, row->eps, seed, t, bench_nodes(t),
					   lo.cost / refc, os, naive, matched, mean, lo.part / refc, lo.coreset,
					   lo.ms,
					   sqrt(dpk_live_projected_count_var(&lv.cfg, t)),
					   sqrt(dpk_live_projected_sum_var(&lv.cfg, t)), lo.cost1 / refc,
					   lo.est1 / refc, lo.estk / refc, lo.fired, lo.distinct, lo.used,
					   (lo.cost - lo.part) / refc, lo.lift_pred / refc, lo.one_sum / refc,
					   lo.lift_cells);
			summary_add(sm, ri, t, seed, &lo, refc, os, naive, mean, matched, &lv.cfg);
			if (opt->oracle)
				oracle_release(&sm->oracle, ri, t, &lv.cfg, box, cur, ncur, ref.centers,
							   refc, lo.cost / refc, os,
							   oneshot_cost(box, cur, ncur, k,
											oracle_eps(row->eps, bench_delta,
													   oracle_units_opt(T)),
											opt->restarts,
											mix_hash4(keyseed ^ TAG_ORACLE, t, 0, 0)) / refc,
							   keyseed ^ TAG_ORACLE);
			if (opt->nz > 0)
				heldout_compare(&lv, box, key, t, cur, ncur, &lo, sm, ri, seed, refc, os,
								mean, opt);
		}
		ri++;
	}
	bench_ref_free(&ref);
	live_free(&lv);
}

static void
print_config(const Options *opt)
{
	DpkLiveConfig def;

	live_config(&def, 16, 10, 1.0, 1024, false, (double) opt->n, 1, NULL, opt->norm_bound, opt);
	printf("# live config of d = 16 (after dpk_live_use_projection and overrides; the sum "
		   "share grows with d): dhat=%d "
		   "copies=%d sum_share=%g norm_share=%g threshold_sigmas=%g half_width=%g "
		   "level=choose_level_box(N, %g)%+d; baselines %d k-means restarts, live %s\n",
		   def.dhat, def.copies, def.sum_share, def.norm_share, def.threshold_sigmas,
		   def.half_width, MAX_CELLS, opt->level_delta, opt->restarts,
		   opt->restarts_set ? "the same" : "dpk_live_use_projection's (d >= 64: more)");
}

/* "mean worst@t/nodes" of one figure into buf. */
static void
fig_text(char *buf, size_t len, const BenchFig *f, const Summary *sm)
{
	int			at;
	double		worst = bench_fig_worst(f, &at);

	snprintf(buf, len, "%8.4f %8.4f@%-4u/%d", bench_fig_mean(f, sm->w), worst,
			 at >= 0 ? sm->ts[at] : 0, at >= 0 ? bench_nodes(sm->ts[at]) : 0);
}

static void
print_header(const Options *opt)
{
	char		hs[64] = "";
	int			i;

	for (i = 0; i < opt->nhorizons; i++)
		snprintf(hs + strlen(hs), sizeof(hs) - strlen(hs), "%s%u%s", i ? "," : "",
				 opt->horizons[i], bench_measure_all(opt->releases, opt->horizons[i]) ? "(all)" : "(sample)");
	printf("# bench_highd_live: N=%zu seeds %d-%d (disjoint from the tuning seeds 0-9) "
		   "horizons=%s box=[0,%g]^d, mixture in [0,100]^d: centres uniform, separation>=15, "
		   "sd in [2,6]\n",
		   opt->n, opt->seed_base, opt->seed_base + opt->seeds - 1, hs, opt->box_upper);
	if (opt->family)
		printf("# --family %s: sd in %s\n", opt->family,
			   strcmp(opt->family, "tight") == 0 ? "[0.5,1.5]"
			   : strcmp(opt->family, "loose") == 0 ? "[8,16], Zipf 1 weights" : "[2,6]");
	if (opt->sphere)
		printf("# --sphere: points (x - 50) / ||x - 50|| on the unit sphere, box [-1,1]^d\n");
	if (opt->norm_bound >= 0.0)
		printf("# --norm-bound %g: dp_attach's norm_bound (0: no ball)\n",
			   opt->norm_bound);
	if (opt->eps_scale != 1.0)
		printf("# --eps-scale %g: live tables configured at eps x %g (node variances / %g); "
			   "keys, data and one-shot columns at eps\n",
			   opt->eps_scale, opt->eps_scale, opt->eps_scale * opt->eps_scale);
	print_config(opt);
	printf("# releases: every t in [T/4, T] (all), or every t there with the most tree "
		   "nodes plus every stride-th t and T (sample; means weigh each node count by its "
		   "share of all releases)\n");
	printf("# insert: N points, T batches, insert_only; window: 2N points, T batches, "
		   "window of N points from t=T/2, insert_delete\n");
	printf("# cost = k-means cost on the current true points / non-private reference; "
		   "mean = geometric mean over every measured (release, seed); worst = largest "
		   "geometric mean over seeds at one release, @t/nodes; single = worst one run; "
		   "oneshot = dp_kmeans (highd) at eps, naive = at eps/T\n");
	printf("# 1c = one centre at the noisy mean at eps (one noisy count and sum); "
		   "live/1c: worst = largest over releases, single = largest one run\n");
	printf("%-6s %5s %2s %2s %4s %4s | %-24s | %-24s | %-24s %7s | %8s | %8s %8s %7s | %2s %6s "
		   "%6s %6s\n",
		   "stream", "T", "d", "K", "eps", "rels", "live mean worst@t/nodes",
		   "oneshot mean worst", "live/os mean worst", "single", "naive", "1c mean",
		   "live/1c", "single", "L", "cells", "cores", "ms");
	fflush(stdout);
}

/* --matched: the one-shot at each release's eps_t, and the two ratios, one line. */
static void
print_matched(const Summary *sm, const Options *opt)
{
	char		m[64],
				l[64],
				o[64];

	if (!opt->matched || !opt->baselines || isinf(sm->matched.max_single))
		return;
	fig_text(m, sizeof(m), &sm->matched, sm);
	fig_text(l, sizeof(l), &sm->vsmatched, sm);
	fig_text(o, sizeof(o), &sm->matched_os, sm);
	printf("    one-shot at eps_t: %s | live/matched %s | matched/os %s\n", m, l, o);
}

static void
print_summary(const Row *row, uint32_t T, int stream, const Summary *sm, const Options *opt)
{
	char		l[64],
				o[64],
				r[64];
	int			at;

	if (sm->runs == 0)
		return;
	fig_text(l, sizeof(l), &sm->live, sm);
	if (opt->baselines)
	{
		fig_text(o, sizeof(o), &sm->os, sm);
		fig_text(r, sizeof(r), &sm->ratio, sm);
	}
	else
	{
		snprintf(o, sizeof(o), "-");
		snprintf(r, sizeof(r), "-");
	}
	printf("%-6s %5u %2d %2d %4.2f %4d | %-24s | %-24s | %-24s %7.3f | %8.3f | %8.3f %8.3f "
		   "%7.3f | %2d %6llu %6.0f %6.1f\n",
		   stream_name[stream], T, row->d, row->k, row->eps, sm->nrel, l, o, r,
		   opt->baselines ? sm->ratio.max_single : NAN,
		   opt->baselines && !opt->no_naive ? bench_fig_mean(&sm->naive, sm->w) : NAN,
		   bench_fig_mean(&sm->mean, sm->w), bench_fig_worst(&sm->vsmean, &at),
		   sm->vsmean.max_single, sm->level,
		   (unsigned long long) sm->cells, sm->coreset / sm->runs, sm->ms / sm->runs);
	bench_print_by_nodes(&sm->ratio, &sm->live, sm->w, sm->ts);
	print_matched(sm, opt);
	if (opt->oracle)
		oracle_print(&sm->oracle, stream_name[stream]);
	for (at = 0; at < opt->nz; at++)
	{
		char		zl[64],
					zr[64];
		int			w;

		fig_text(zl, sizeof(zl), &sm->zlive[at], sm);
		fig_text(zr, sizeof(zr), &sm->zratio[at], sm);
		printf("    heldout z=%-4g live %s | live/os %s %7.3f | live/1c %8.3f %7.3f | "
			   "blocks replaced %ld, K blocks %ld of %ld releases\n",
			   opt->heldout_z[at], zl, zr, sm->zratio[at].max_single,
			   bench_fig_worst(&sm->zvsmean[at], &w), sm->zvsmean[at].max_single,
			   sm->zfired[at], sm->zkone[at], sm->runs);
	}
	fflush(stdout);
}

/* ---- real data sets: digits, MNIST, GloVe ---- */

/* Best non-private cost of x (n points) for k centres, dpk_kmeans's best of restarts. */
static double
plain_cost(const double *x, size_t n, int d, int k, int restarts, uint64_t seed)
{
	double	   *c = xmalloc(sizeof(double) * k * d);
	double		cost = dpk_kmeans(&(DpkPoints) {x, NULL, (int) n, d},
								  &(DpkClusterOpts) {k, restarts, 300, seed},
								  &(DpkClusterOut) {c, NULL});

	/* dpk_kmeans returns the cost of its best run: recompute on the points */
	cost = fmin(cost, dpk_kmeans_cost(x, NULL, (int) n, d, c, k, NULL));
	free(c);
	return cost;
}

/*
 * A real data set: its first d columns (the rest, e.g. a label, dropped), the
 * declared box [lo, hi]^d, and dp_attach's norm_bound (< 0: none); unit:
 * every row scaled to norm 1 first (embeddings compared by cosine).
 */
typedef struct RealSet
{
	const char *name;
	const char *path;
	int			d;
	double		lo;
	double		hi;
	double		norm_bound;
	bool		unit;
	uint64_t	tag;
	const double *eps;
	int			neps;
	uint32_t	horizon;
	int			ref_restarts;	/* of the non-private reference */
} RealSet;

/*
 * One real data set: per eps and seed, its rows in a seeded random order as
 * an insert stream of set->horizon batches, every measured release against
 * the one-shot, the exact mean (k=1) and one noisy centre (1c).
 */
static void
run_real(const Options *opt, const RealSet *set)
{
	const int	d = set->d,
				k = 10;
	int		   *cols = xmalloc(sizeof(int) * d);
	double	   *all;
	size_t		n;
	double	   *pts;
	double	   *lo = xmalloc(sizeof(double) * d),
			   *up = xmalloc(sizeof(double) * d);
	DpkBox		box;
	uint32_t	T = set->horizon;
	int			e,
				j;
	double		t_start = now_ms(),
				saved_bound = oneshot_norm_bound;

	for (j = 0; j < d; j++)
	{
		cols[j] = j;
		lo[j] = set->lo;
		up[j] = set->hi;
	}
	n = bench_read_csv(set->path, d, cols, &all);
	if (set->unit)
		unit_rows(all, n, d, 0.0);
	oneshot_norm_bound = set->norm_bound > 0.0 ? set->norm_bound : 0.0;
	if (n < (size_t) T || n < 16)
	{
		fprintf(stderr, "bench_highd_live: %s has %zu rows of >= %d numbers\n",
				set->path, n, d);
		exit(2);
	}
	pts = xmalloc(sizeof(double) * n * d);
	box.d = d;
	box.lower = lo;
	box.upper = up;

	printf("# %s: %s, %zu rows x %d%s, box [%g,%g]^%d", set->name, set->path, n, d,
		   set->unit ? " scaled to norm 1" : "", set->lo, set->hi, d);
	if (set->norm_bound >= 0.0)
		printf(", norm_bound %g", set->norm_bound);
	printf(", K=%d, insert stream of T=%u batches (insert_only, size hint %zu), rows in "
		   "a seeded random order, seeds %d-%d\n", k, T, n, opt->seed_base,
		   opt->seed_base + opt->seeds - 1);
	printf("# cost / best of dpk_kmeans (%d restarts) on the current rows; k=1: the "
		   "data mean's cost over the same reference; oneshot = dp_kmeans (highd) at "
		   "eps, naive = at eps/T\n", set->ref_restarts);
	printf("# 1c = one centre at the noisy mean at eps (one noisy count and sum); live/1c: "
		   "worst = largest over releases, single = largest one run\n");
	printf("%-6s %5s %5s %4s %4s | %-24s | %-24s | %-24s %7s | %8s %8s | %8s %7s %7s | "
		   "%2s %6s %6s %7s\n",
		   "data", "T", "N", "eps", "rels", "live mean worst@t/nodes", "oneshot mean worst",
		   "live/os mean worst", "single", "naive", "k=1", "1c mean", "live/1c", "single",
		   "L", "cells", "cores", "ms");

	for (e = 0; e < set->neps; e++)
	{
		double		eps = set->eps[e];
		Summary		sm;
		BenchFig	sm_exact;	/* the data mean's cost, exact */
		int			si,
					at;
		char		l[64],
					o[64],
					r[64];

		summary_init(&sm, opt, T);
		bench_fig_init(&sm_exact, sm.nrel);
		for (si = 0; si < opt->seeds; si++)
		{
			int			seed = opt->seed_base + si;
			uint64_t	keyseed = mix_hash4(set->tag, double_bits(eps), T, (uint64_t) seed);
			uint8_t		key[DPK_KEY_BYTES];
			Live		lv;
			uint32_t	t;
			int			ri = 0;

			memcpy(pts, all, sizeof(double) * n * d);
			bench_shuffle_rows(pts, n, d, mix_hash4(set->tag, TAG_DATA, (uint64_t) seed, 0));
			dpk_key_from_seed(keyseed, key);
			live_init(&lv, d, k, eps, T, true, (double) n,
					  mix_hash4(keyseed, TAG_PROJ, 0, 0), &box, set->norm_bound, opt);
			for (t = 1; t <= T && ri < sm.nrel; t++)
			{
				size_t		b1 = bench_batch_end(t, n, T);

				live_apply(&lv, &box, pts, bench_batch_end(t - 1, n, T), b1, +1);
				if (t != sm.ts[ri])
				{
					live_unmeasured(&lv, &box, key, t, pts, b1);
					continue;
				}
				{
					double		ref = plain_cost(pts, b1, d, k, set->ref_restarts,
												 mix_hash4(keyseed, TAG_REF, t, 0));
					double		exact = plain_cost(pts, b1, d, 1, 1,
												   mix_hash4(keyseed, TAG_REF, t, 1)) / ref;
					double		onec = mean_cost(&box, pts, b1, eps,
												 mix_hash4(keyseed ^ TAG_MEAN, t, 0, 0)) / ref;
					LiveOut		lo = live_release(&lv, &box, key, t, pts, b1);
					double		os = 1.0,
								naive = 1.0,
								matched = NAN;

					if (opt->baselines)
					{
						os = oneshot_cost(&box, pts, b1, k, eps, opt->restarts,
										  mix_hash4(keyseed ^ TAG_ONESHOT, t, 0, 0)) / ref;
						if (!opt->no_naive)
							naive = oneshot_cost(&box, pts, b1, k, eps / T, opt->restarts,
												 mix_hash4(keyseed ^ TAG_NAIVE, t, 0, 0)) / ref;
						if (opt->matched)
							matched = oneshot_cost(&box, pts, b1, k,
												   matched_eps(&lv.cfg, eps, t), opt->restarts,
												   mix_hash4(keyseed ^ TAG_MATCHED, t, 0, 0)) / ref;
					}
					if (opt->verbose)
						printf("#   %s eps=%g seed=%d t=%u nodes=%d live=%.4f "
							   "oneshot=%.4f naive=%.4f k=1 %.4f 1c=%.4f ms=%.1f "
							   "live_k'=1 %.4f est_k'=1 %.4f est_K %.4f\n", set->name,
							   eps, seed, t, bench_nodes(t), lo.cost / ref, os, naive, exact,
							   onec, lo.ms, lo.cost1 / ref, lo.est1 / ref, lo.estk / ref);
					summary_add(&sm, ri, t, seed, &lo, ref, os, naive, onec, matched, &lv.cfg);
					bench_fig_add(&sm_exact, ri, t, seed, exact);
				}
				ri++;
			}
			live_free(&lv);
		}
		fig_text(l, sizeof(l), &sm.live, &sm);
		fig_text(o, sizeof(o), &sm.os, &sm);
		fig_text(r, sizeof(r), &sm.ratio, &sm);
		printf("%-6s %5u %5zu %4.2f %4d | %-24s | %-24s | %-24s %7.3f | %8.3f %8.3f | "
			   "%8.3f %7.3f %7.3f | %2d %6llu %6.0f %7.1f\n",
			   set->name, T, n, eps, sm.nrel, l, o, r, sm.ratio.max_single,
			   opt->baselines && !opt->no_naive ? bench_fig_mean(&sm.naive, sm.w) : NAN,
			   bench_fig_mean(&sm_exact, sm.w), bench_fig_mean(&sm.mean, sm.w),
			   bench_fig_worst(&sm.vsmean, &at), sm.vsmean.max_single, sm.level,
			   (unsigned long long) sm.cells, sm.coreset / sm.runs, sm.ms / sm.runs);
		bench_fig_free(&sm_exact);
		bench_print_by_nodes(&sm.ratio, &sm.live, sm.w, sm.ts);
		print_matched(&sm, opt);
		fflush(stdout);
	}
	printf("# %s time %.1f s\n", set->name, (now_ms() - t_start) / 1e3);
	oneshot_norm_bound = saved_bound;
	free(all);
	free(pts);
	free(cols);
	free(lo);
	free(up);
}

/* ---- command line ---- */

/*
 * GloVe as a data owner would declare it: the coordinates' box [-5, 5] (the
 * largest is 4.07), then that box with a norm bound of 10 (norms 2-12,
 * 99.9 % below 8.9), then the rows scaled to norm 1 with [-1, 1] and bound
 * 1.  Each its own key (tag + index).
 */
typedef struct GloveVariant
{
	const char *name;
	double		lo,
				hi,
				bound;			/* < 0: no norm bound */
	bool		unit;			/* rows scaled to norm 1 */
} GloveVariant;

static const GloveVariant glove_variants[] = {
	{"glove", -5.0, 5.0, -1.0, false},
	{"glove-R", -5.0, 5.0, 10.0, false},
	{"glove-u", -1.0, 1.0, 1.0, true},
};

#define N_GLOVE_VARIANTS ((int) (sizeof(glove_variants) / sizeof(glove_variants[0])))

/* Index of the GloVe variant called name, or -1. */
static int
glove_variant(const char *name)
{
	int			v;

	for (v = 0; v < N_GLOVE_VARIANTS; v++)
		if (strcmp(glove_variants[v].name, name) == 0)
			return v;
	return -1;
}

static void
usage(void)
{
	fprintf(stderr,
			"usage: bench_highd_live [--seeds N] [--seed-base N] [--n N]\n"
			"       [--rows \"d:K:eps,...\"] [--horizons \"1024\"]\n"
			"       [--stream insert|window|both] [--releases all|sample|auto] [--stride N]\n"
			"       [--restarts N] [--no-baselines] [--no-naive] [--matched] [--oracle]\n"
			"       [--regions] [--adaptive-lift R] [--adaptive-epoch a]\n"
			"       [--adaptive-epoch-share X] [--adaptive-s1-share X]\n"
			"       [--drift D] [--embed S] [--eps-scale X] [--verbose]\n"
			"       [--digits PATH] [--digits-only] [--digits-eps \"0.5,1,2\"]"
			" [--digits-horizon T]\n"
			"       [--mnist PATH] [--mnist-eps \"1,4\"] [--mnist-horizon T]\n"
			"       [--glove PATH] [--glove-eps \"1,4\"] [--glove-horizon T] [--glove-set NAME]\n"
			"       [--copies N] [--sum-share X] [--norm-share X] [--threshold X]\n"
			"       [--dhat N] [--half-width X] [--level-delta N] [--level N]\n"
			"       [--lift heavy|weighted]\n"
			"       [--counter tree|auto|square_root] [--family mix|tight|loose]\n"
			"       [--rest-mean on|off] [--arity N] [--sign-cells on|off]\n");
	exit(2);
}

static int
parse_rows(const char *spec, Row *rows)
{
	RowSpec		specs[MAX_ROWS];
	char		note[32];
	int			nrows,
				r;

	snprintf(note, sizeof(note), " (d >= %d)", DPK_HIGHD_MIN_D);
	nrows = parse_row_specs(spec, DPK_HIGHD_MIN_D, 2048, specs, MAX_ROWS, note);
	for (r = 0; r < nrows; r++)
	{
		rows[r].d = specs[r].d;
		rows[r].k = specs[r].k;
		rows[r].eps = specs[r].eps;
	}
	return nrows;
}

/* --heldout-z: up to MAX_Z ascending thresholds, "off" for INFINITY. */
static int
parse_heldout_z(const char *spec, double *z)
{
	char	   *copy = strdup(spec);
	char	   *tok,
			   *save = NULL;
	int			n = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		double		v = strcmp(tok, "off") == 0 ? INFINITY : atof(tok);

		if (!(v > 0.0) || n >= MAX_Z || (n > 0 && v <= z[n - 1]))
		{
			fprintf(stderr, "bench_highd_live: bad --heldout-z \"%s\" (ascending, at most %d)\n",
					tok, MAX_Z);
			exit(2);
		}
		z[n++] = v;
	}
	free(copy);
	return n;
}

/* A comma-separated list of positive integers (or of reals when dbl). */
static int
parse_list(const char *spec, uint32_t *u, double *x, int max, const char *what)
{
	char	   *copy = strdup(spec);
	char	   *tok,
			   *save = NULL;
	int			n = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		double		v = atof(tok);

		if (!(v > 0.0) || n >= max || (u && (v < 1 || v > (double) (1L << 30))))
		{
			fprintf(stderr, "bench_highd_live: bad %s \"%s\"\n", what, tok);
			exit(2);
		}
		if (u)
			u[n] = (uint32_t) v;
		else
			x[n] = v;
		n++;
	}
	free(copy);
	return n;
}

static int
default_rows(Row *rows)
{
	static const int ds[] = {8, 16, 32, 64};
	static const double epss[] = {0.5, 1.0};
	int			a,
				c,
				nrows = 0;

	for (a = 0; a < 4; a++)
		for (c = 0; c < 2; c++)
		{
			rows[nrows].d = ds[a];
			rows[nrows].k = 10;
			rows[nrows].eps = epss[c];
			nrows++;
		}
	return nrows;
}

int
main(int argc, char **argv)
{
	static Row	rows[MAX_ROWS];
	Options		opt;
	int			nrows = 0;
	bool		done[MAX_ROWS];
	int			i,
				r;
	double		t_start = now_ms();

	memset(rows, 0, sizeof(rows));
	memset(&opt, 0, sizeof(opt));
	opt.seeds = 8;
	opt.seed_base = BENCH_SEED_BASE;
	opt.n = 100000;
	opt.streams[STREAM_INSERT] = opt.streams[STREAM_WINDOW] = true;
	opt.horizons[0] = 1024;
	opt.nhorizons = 1;
	opt.baselines = true;
	opt.digits_eps[0] = 0.5;
	opt.digits_eps[1] = 1.0;
	opt.digits_eps[2] = 2.0;
	opt.ndigits_eps = 3;
	opt.digits_horizon = 64;
	opt.mnist_eps[0] = 1.0;
	opt.mnist_eps[1] = 4.0;
	opt.nmnist_eps = 2;
	opt.mnist_horizon = 16;
	opt.glove_eps[0] = 1.0;
	opt.glove_eps[1] = 4.0;
	opt.nglove_eps = 2;
	opt.glove_horizon = 16;
	opt.restarts = BENCH_RESTARTS;
	opt.copies = -1;
	opt.sum_share = opt.norm_share = opt.threshold = NAN;
	opt.dhat = -1;
	opt.half_width = NAN;
	opt.level_delta = 0;
	opt.level = -1;
	opt.counter = 0;
	opt.family = NULL;
	opt.lift_weighted = -1;
	opt.rest_mean = -1;
	opt.arity = 0;
	opt.box_upper = 100.0;
	opt.sphere = false;
	opt.norm_bound = -1.0;
	opt.drift = 0.0;
	opt.embed = 0.0;
	opt.eps_scale = 1.0;
	opt.laplace_tail = false;
	opt.adapt_r = 0.0;
	opt.adapt_a = 1;
	opt.adapt_share0 = 1.0;
	opt.adapt_share1 = 0.8;

	for (i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (strcmp(a, "--delta") == 0)
			bench_delta = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--seeds") == 0)
			opt.seeds = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--seed-base") == 0)
			opt.seed_base = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--n") == 0)
			opt.n = (size_t) atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--rows") == 0)
			nrows = parse_rows(arg_value(argc, argv, &i), rows);
		else if (strcmp(a, "--horizons") == 0)
			opt.nhorizons = parse_list(arg_value(argc, argv, &i), opt.horizons, NULL,
									   MAX_HORIZONS, "horizon");
		else if (strcmp(a, "--stream") == 0)
		{
			const char *v = arg_value(argc, argv, &i);

			opt.streams[STREAM_INSERT] = strcmp(v, "insert") == 0 || strcmp(v, "both") == 0;
			opt.streams[STREAM_WINDOW] = strcmp(v, "window") == 0 || strcmp(v, "both") == 0;
			if (!opt.streams[STREAM_INSERT] && !opt.streams[STREAM_WINDOW])
				usage();
		}
		else if (strcmp(a, "--releases") == 0)
		{
			opt.releases = bench_parse_releases(arg_value(argc, argv, &i));
			if (opt.releases < 0)
				usage();
		}
		else if (strcmp(a, "--stride") == 0)
			opt.stride = (uint32_t) atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--no-baselines") == 0)
			opt.baselines = false;
		else if (strcmp(a, "--no-naive") == 0)
			opt.no_naive = true;
		else if (strcmp(a, "--matched") == 0)
			opt.matched = true;
		else if (strcmp(a, "--oracle") == 0)
			opt.oracle = true;
		else if (strcmp(a, "--adaptive-lift") == 0)
			opt.adapt_r = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--adaptive-epoch") == 0)
			opt.adapt_a = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--adaptive-epoch-share") == 0)
			opt.adapt_share0 = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--adaptive-s1-share") == 0)
			opt.adapt_share1 = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--regions") == 0)
			opt.lifting = LIFT_REGIONS;
		else if (strcmp(a, "--cells") == 0)
			opt.lifting = LIFT_CELLS;
		else if (strcmp(a, "--os-refine") == 0)
			oneshot_refine = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--os-refine-share") == 0)
			oneshot_refine_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--os-lift-share") == 0)
			oneshot_lift_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--os-guard") == 0)
			oneshot_guard = strcmp(arg_value(argc, argv, &i), "on") == 0;
		else if (strcmp(a, "--embed") == 0)
		{
			opt.embed = atof(arg_value(argc, argv, &i));
			opt.sphere = true;
		}
		else if (strcmp(a, "--drift") == 0)
			opt.drift = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--heldout-z") == 0)
			opt.nz = parse_heldout_z(arg_value(argc, argv, &i), opt.heldout_z);
		else if (strcmp(a, "--eps-scale") == 0)
		{
			opt.eps_scale = atof(arg_value(argc, argv, &i));
			if (!(opt.eps_scale > 0.0) || !isfinite(opt.eps_scale))
				usage();
		}
		else if (strcmp(a, "--sign-cells") == 0)
		{
			const char *v = arg_value(argc, argv, &i);

			if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
				usage();
			opt.no_sign_cells = strcmp(v, "off") == 0;
		}
		else if (strcmp(a, "--tail") == 0)
		{
			const char *v = arg_value(argc, argv, &i);

			if (strcmp(v, "laplace") != 0 && strcmp(v, "gauss") != 0)
				usage();
			opt.laplace_tail = strcmp(v, "laplace") == 0;
		}
		else if (strcmp(a, "--verbose") == 0)
			opt.verbose = true;
		else if (strcmp(a, "--arity") == 0)
			opt.arity = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--digits") == 0)
			opt.digits = arg_value(argc, argv, &i);
		else if (strcmp(a, "--digits-only") == 0)
			opt.digits_only = true;
		else if (strcmp(a, "--digits-eps") == 0)
			opt.ndigits_eps = parse_list(arg_value(argc, argv, &i), NULL, opt.digits_eps,
										 MAX_EPS, "epsilon");
		else if (strcmp(a, "--digits-horizon") == 0)
			opt.digits_horizon = (uint32_t) atol(arg_value(argc, argv, &i));
		else if (strcmp(a, "--mnist") == 0)
			opt.mnist = arg_value(argc, argv, &i);
		else if (strcmp(a, "--mnist-eps") == 0)
			opt.nmnist_eps = parse_list(arg_value(argc, argv, &i), NULL, opt.mnist_eps,
										MAX_EPS, "epsilon");
		else if (strcmp(a, "--mnist-horizon") == 0)
			opt.mnist_horizon = (uint32_t) atol(arg_value(argc, argv, &i));
		else if (strcmp(a, "--glove") == 0)
			opt.glove = arg_value(argc, argv, &i);
		else if (strcmp(a, "--glove-eps") == 0)
			opt.nglove_eps = parse_list(arg_value(argc, argv, &i), NULL, opt.glove_eps,
										MAX_EPS, "epsilon");
		else if (strcmp(a, "--glove-set") == 0)
			opt.glove_set = arg_value(argc, argv, &i);
		else if (strcmp(a, "--glove-horizon") == 0)
			opt.glove_horizon = (uint32_t) atol(arg_value(argc, argv, &i));
		else if (strcmp(a, "--copies") == 0)
			opt.copies = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--sum-share") == 0)
			opt.sum_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--norm-share") == 0)
			opt.norm_share = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--threshold") == 0)
			opt.threshold = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--dhat") == 0)
			opt.dhat = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--half-width") == 0)
			opt.half_width = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--restarts") == 0)
		{
			opt.restarts = atoi(arg_value(argc, argv, &i));
			opt.restarts_set = true;
		}
		else if (strcmp(a, "--lift") == 0)
		{
			const char *v = arg_value(argc, argv, &i);

			opt.lift_weighted = strcmp(v, "weighted") == 0 ? 1 : (strcmp(v, "heavy") == 0 ? 0 : -2);
			if (opt.lift_weighted < -1)
				usage();
		}
		else if (strcmp(a, "--rest-mean") == 0)
		{
			const char *v = arg_value(argc, argv, &i);

			opt.rest_mean = strcmp(v, "on") == 0 ? 1 : (strcmp(v, "off") == 0 ? 0 : -2);
			if (opt.rest_mean < -1)
				usage();
		}
		else if (strcmp(a, "--sphere") == 0)
			opt.sphere = true;
		else if (strcmp(a, "--norm-bound") == 0)
		{
			opt.norm_bound = atof(arg_value(argc, argv, &i));
			oneshot_norm_bound = opt.norm_bound;
		}
		else if (strcmp(a, "--box-upper") == 0)
			opt.box_upper = atof(arg_value(argc, argv, &i));
		else if (strcmp(a, "--level-delta") == 0)
			opt.level_delta = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--level") == 0)
			opt.level = atoi(arg_value(argc, argv, &i));
		else if (strcmp(a, "--family") == 0)
		{
			opt.family = arg_value(argc, argv, &i);
			if (strcmp(opt.family, "mix") != 0 && strcmp(opt.family, "tight") != 0 &&
				strcmp(opt.family, "loose") != 0)
				usage();
		}
		else if (strcmp(a, "--counter") == 0)
		{
			const char *v = arg_value(argc, argv, &i);

			if (strcmp(v, "tree") == 0)
				opt.counter = -1;
			else if (strcmp(v, "auto") == 0)
				opt.counter = 0;
			else if (strcmp(v, "square_root") == 0)
				opt.counter = 1;
			else
				usage();
		}
		else
			usage();
	}
	if (opt.seeds < 1 || opt.seed_base < 0 || opt.n < 16 || opt.n > 100000000 ||
		opt.nhorizons < 1 || opt.digits_horizon < 4 || opt.ndigits_eps < 1 ||
		opt.mnist_horizon < 4 || opt.nmnist_eps < 1 || opt.glove_horizon < 4 ||
		opt.nglove_eps < 1 || opt.restarts < 1)
		usage();
	if (opt.digits_only && opt.digits == NULL && opt.mnist == NULL && opt.glove == NULL)
		usage();
	if (opt.glove_set != NULL && glove_variant(opt.glove_set) < 0)
		usage();
	if (opt.matched && bench_delta > 0.0)
	{
		fprintf(stderr, "--matched: pure tables only (a Gaussian table's releases are "
				"accounted in zCDP)\n");
		return 2;
	}
	if (opt.adapt_r > 0.0 && (opt.adapt_a < 1 || opt.streams[STREAM_WINDOW] || opt.nz > 0 ||
							  !(opt.adapt_share0 > 0.0 && opt.adapt_share0 <= 1.0) ||
							  !(opt.adapt_share1 > 0.0 && opt.adapt_share1 <= 1.0)))
	{
		fprintf(stderr, "--adaptive-lift: --stream insert, --adaptive-epoch >= 1, "
				"--adaptive-epoch-share and --adaptive-s1-share in (0, 1], no --heldout-z\n");
		return 2;
	}
	if (opt.oracle && (!(bench_delta > 0.0) || !opt.baselines))
	{
		fprintf(stderr, "--oracle: Gaussian tables (--delta) with the baselines\n");
		return 2;
	}
	if (opt.copies == 0 || opt.copies > 16 || opt.dhat == 0 || opt.dhat > 16 ||
		!(isnan(opt.half_width) || opt.half_width > 0.0))
		usage();
	{
		/* the shares of the count noise must stay positive */
		DpkLiveConfig probe;

		live_config(&probe, 16, 10, 1.0, 1024, false, (double) opt.n, 1, NULL, opt.norm_bound,
					&opt);
		if (!(probe.sum_share > 0.0) || !(probe.norm_share >= 0.0) ||
			!(probe.sum_share + probe.norm_share < 1.0))
		{
			fprintf(stderr, "bench_highd_live: need sum_share > 0, norm_share >= 0 and "
					"sum_share + norm_share < 1\n");
			exit(2);
		}
	}
	for (i = 0; i < opt.nhorizons; i++)
		if (opt.horizons[i] < 4 || opt.horizons[i] > opt.n)
		{
			fprintf(stderr, "bench_highd_live: horizon %u not in [4, N]\n", opt.horizons[i]);
			exit(2);
		}
	if (nrows == 0)
		nrows = default_rows(rows);

	if (!opt.digits_only)
	{
		print_header(&opt);
		memset(done, 0, sizeof(done));
		for (r = 0; r < nrows; r++)
		{
			int			si,
						rr,
						hi,
						st;

			if (done[r])
				continue;
			for (rr = r; rr < nrows; rr++)
				if (!done[rr] && rows[rr].d == rows[r].d && rows[rr].k == rows[r].k)
					for (hi = 0; hi < opt.nhorizons; hi++)
						for (st = 0; st < NSTREAMS; st++)
							summary_init(&rows[rr].sum[hi][st], &opt, opt.horizons[hi]);

			/* Rows sharing (d, K) share their datasets. */
			for (si = 0; si < opt.seeds; si++)
			{
				int			seed = opt.seed_base + si;
				size_t		npts = opt.streams[STREAM_WINDOW] ? 2 * opt.n : opt.n;
				MixSpec		sp = mix_default_spec(rows[r].d, rows[r].k, npts);

				/* bench_highd's families: tight sd 0.5-1.5, loose 8-16 with Zipf 1 */
				if (opt.family && strcmp(opt.family, "tight") == 0)
				{
					sp.sd_lo = 0.5;
					sp.sd_hi = 1.5;
				}
				else if (opt.family && strcmp(opt.family, "loose") == 0)
				{
					sp.sd_lo = 8.0;
					sp.sd_hi = 16.0;
					sp.zipf = 1.0;
				}
				MixData		mx;
				double	   *lo = xmalloc(sizeof(double) * rows[r].d);
				double	   *up = xmalloc(sizeof(double) * rows[r].d);
				DpkBox		box;
				int			t;

				for (t = 0; t < rows[r].d; t++)
				{
					lo[t] = opt.sphere ? -1.0 : 0.0;
					up[t] = opt.sphere ? 1.0 : opt.box_upper;
				}
				box.d = rows[r].d;
				box.lower = lo;
				box.upper = up;

				/* The first N points are the same whether or not 2N are drawn. */
				mix_generate(&sp, mix_hash4(TAG_DATA, (uint64_t) rows[r].d,
											(uint64_t) rows[r].k, (uint64_t) seed),
							 &mx);
				if (opt.drift > 0.0)
					drift_rows(&mx, opt.drift, opt.box_upper,
							   mix_hash4(TAG_DATA, (uint64_t) rows[r].d, (uint64_t) seed, 0));
				if (opt.embed > 0.0)
					embed_rows(&mx, opt.embed,
							   mix_hash4(TAG_DATA, (uint64_t) rows[r].d, (uint64_t) seed, 1));
				else if (opt.sphere)
				{
					unit_rows(mx.points, mx.n, mx.d, 50.0);
					unit_rows(mx.centers, (size_t) mx.k, mx.d, 50.0);
				}

				for (rr = r; rr < nrows; rr++)
				{
					if (done[rr] || rows[rr].d != rows[r].d || rows[rr].k != rows[r].k)
						continue;
					for (hi = 0; hi < opt.nhorizons; hi++)
						for (st = 0; st < NSTREAMS; st++)
							if (opt.streams[st])
								run_stream(&mx, &box, &rows[rr], &rows[rr].sum[hi][st],
										   opt.horizons[hi], st, seed, &opt);
				}
				mix_free(&mx);
				free(lo);
				free(up);
			}

			for (st = 0; st < NSTREAMS; st++)
				for (hi = 0; hi < opt.nhorizons; hi++)
					for (rr = r; rr < nrows; rr++)
						if (!done[rr] && rows[rr].d == rows[r].d && rows[rr].k == rows[r].k &&
							opt.streams[st])
							print_summary(&rows[rr], opt.horizons[hi], st,
										  &rows[rr].sum[hi][st], &opt);
			for (rr = r; rr < nrows; rr++)
				if (rows[rr].d == rows[r].d && rows[rr].k == rows[r].k)
					done[rr] = true;
		}
		printf("# mixtures time %.1f s\n", (now_ms() - t_start) / 1e3);
		fflush(stdout);
	}

	if (opt.digits_only && (opt.digits || opt.mnist || opt.glove))
		print_config(&opt);
	if (opt.digits)
	{
		RealSet		set = {"digits", opt.digits, 64, 0.0, 16.0, -1.0, false, TAG_DIGITS,
		opt.digits_eps, opt.ndigits_eps, opt.digits_horizon, 20};

		run_real(&opt, &set);
	}
	if (opt.mnist)
	{
		RealSet		set = {"mnist", opt.mnist, 784, 0.0, 1.0, -1.0, false, TAG_MNIST,
		opt.mnist_eps, opt.nmnist_eps, opt.mnist_horizon, 5};

		run_real(&opt, &set);
	}
	if (opt.glove)
	{
		int			v;

		for (v = 0; v < N_GLOVE_VARIANTS; v++)
		{
			const GloveVariant *gv = &glove_variants[v];
			RealSet		set = {gv->name, opt.glove, 100, gv->lo, gv->hi, gv->bound, gv->unit,
				TAG_GLOVE + (uint64_t) v, opt.glove_eps, opt.nglove_eps,
			opt.glove_horizon, 5};

			if (opt.glove_set != NULL && strcmp(opt.glove_set, gv->name) != 0)
				continue;

			run_real(&opt, &set);
		}
	}
	printf("# total time %.1f s\n", (now_ms() - t_start) / 1e3);
	return 0;
}
