/*
 * privacy_test.c
 *		Empirical check of event-level epsilon-DP under continual observation.
 *
 * What runs.  The live mechanism of src/live_core.c as a release makes it:
 * at each release t = 1..T (T = 8) the noisy counted level of the true state
 * after t's changes, and at t = 2, 4, 8 dpk_live_noisy_histogram followed by
 * dpk_live_cluster with the k-means seed read from the stream right after the
 * histogram, as release.c does.  d = 2, k = 2, box [0, 10]^2, counted level 3
 * (8 x 8 cells), epsilon = 2, sum_share = 0.5 (so the counts hold epsilon 1).
 * Stream A: 300 points of two clusters, 160 before release 1 and 20 before
 * each later one.  Stream B = A plus one extra point (4.95, 8.70), in a cell
 * A leaves empty.  Three neighbouring pairs (scenarios):
 *   ins2      extra point inserted at release 2, insert_only
 *   ins2del5  inserted at release 2, deleted at release 5, insert_only = false
 *             (both streams also delete ten base points at release 6)
 *   ins1      inserted at release 1, insert_only
 * One run = one key: dpk_key_from_seed(r) for A, dpk_key_from_seed(2^40 + r)
 * for B, r = 1..R, so all 2R runs are independent.  Every run reads the
 * extra point's cell at every release through dpk_cell_noise (exactly what
 * the histogram adds to that cell; checked equal in every full release).
 * One run in ten (ins2 and ins2del5 only) is a full run that also makes the
 * whole histogram and the clustering at t = 2, 4, 8: a full release costs
 * about a millisecond, so level and centre events get R / 10 samples.
 *
 * What is checked.  For every event E of a fixed family, P[E|A] and P[E|B]
 * are estimated from the runs, and the test fails when
 *     lo(P[E|A]) > e^L hi(P[E|B])   or   lo(P[E|B]) > e^L hi(P[E|A]),
 * lo/hi being Chernoff (binomial KL) confidence bounds.  All intervals of all
 * events hold together with probability >= 1 - 1e-6 (Bonferroni over the 2 x
 * events intervals, both sides), so a mechanism that meets its bound fails
 * with probability <= 1e-6.  Equivalently P[E|A] <= e^L P[E|B] + slack with
 * slack = (P^_A - lo_A) + e^L (hi_B - P^_B), and vice versa.  The keys are
 * fixed, so a given build always gives the same verdict; DPK_PRIVACY_KEYS=N
 * shifts every key seed by N for a fresh sample.
 *
 * The bound L is NOT simply epsilon: it is the privacy loss the mechanism's
 * own analysis gives for the quantities the event reads, for this pair of
 * streams.  The noisy counts of all releases are a linear function of the
 * noisy tree nodes used by releases 1..T; B shifts node u of the extra
 * point's cell by delta_u (signed number of B's extra events in u's
 * interval), so for any event on counts only
 *     L_count = sum_u |delta_u| / b_count <= epsilon (1 - sum_share),
 * and for an event that also reads the in-cell sums (the centres), whose
 * vector (cube) noise pays for the largest coordinate of a shift,
 *     L = L_count + sum_u |delta_u| max(rel_1, .., rel_d) / b_sum <= epsilon.
 * Both inequalities against the claimed budgets are checked as well.  With
 * T = 8 (h = 4 tree levels) no release reads node (1, 2], and with deletions
 * the root gets +1 - 1, so ins2 moves 3 of the h nodes the sensitivity pays
 * for (L_count = 0.75), ins2del5 3 of 2h (0.375), ins1 all h (1.0 = the whole
 * count budget).  Checking against epsilon = 2 instead would be far too weak:
 * even halving the count noise would keep every count event below e^epsilon.
 *
 * Events (both directions of the inequality are tested for each):
 *  - node events: each moved node's noisy value is read off two releases
 *    (e.g. node (4, 5] = release 5 - release 4); "every moved node at least
 *    |delta| + a above (at least a below) its A value", a = 0, 1, 3, has
 *    likelihood ratio EXACTLY e^L_count (discrete Laplace tails): these
 *    events are tight.  Their exact probabilities are printed and checked
 *    against the sample too.
 *  - the noisy count of the extra point's cell: "> c_A + a at t1 AND at t2"
 *    and "<= c_A + a at both", (t1, t2) = (2, 4), (3, 4), (4, 8), five
 *    offsets a; and "> c_A + a (<= c_A + a) at every release 1..T".
 *  - rel.level at t = 2, 4, 8 equal to each value, and jointly at (4, 8)
 *    (bound L_count: the level is post-processing of the counts).
 *  - the smaller and the larger first coordinate of the two k = 2 centres
 *    at t = 4 and 8 in each tenth of the box (bound L_count + L_sum).
 *
 * How strong it is.  DPK_PRIVACY_WEAKEN=W runs the mechanism at epsilon 2W
 * (every noise scale divided by W) while the checker keeps epsilon 2; the
 * tight node events then have log ratio W L_count.  Quick mode (R = 20000):
 * W = 1 certifies at most about 0.7 of the bound on any event; W = 2 fails
 * in every scenario (certified log ratio about 1.7 L_count for ins1 and ins2,
 * 1.3 L_count for ins2del5); W = 1.5 fails for ins1 and ins2 only.  Long mode
 * (R = 500000, a few minutes): W = 1 certifies at most about 0.94 of the
 * bound; W = 1.1 fails for ins1 and ins2, just (1.03 of the bound).
 * What it cannot show: it is a finite sample of a finite event family on
 * three neighbouring pairs, not a proof.  Only the counts are tested tightly.
 * The level and centre events have ratios near 1 under the mechanism and
 * fewer samples: they fail only for a leak that moves such an output's
 * probability by more than e^L plus the slack (e.g. an output computed from
 * true instead of noisy counts with a large effect), not for a subtle one.
 * The sums are never isolated, cells other than the extra point's are not
 * examined on their own, and the noise is ChaCha20 keyed by
 * dpk_key_from_seed: the test takes distinct keys as independent.
 *
 * Usage: privacy_test [quick|long]; env DPK_PRIVACY_RUNS overrides R,
 * DPK_PRIVACY_WEAKEN and DPK_PRIVACY_KEYS as above.  Exit status and the
 * last line ("privacy_test: N passed, M failed") as for the unit tests.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cellmap.h"
#include "live_core.h"
#include "counter.h"
#include "dpk_mem.h"
#include "grid.h"
#include "kmeans.h"
#include "noise.h"
#include "../unit/unit.h"

#define HORIZON		8
#define DIM			2
#define KCLUST		2
#define LEVEL		3
#define EPSILON		2.0
#define CONFIDENCE	1e-6		/* overall probability of a false failure */
#define BUCKETS		10
#define B_SEED_OFFSET (UINT64_C(1) << 40)
#define MAX_NODES	64
#define MAX_EVENTS	256
#define FULL_SHARE	10			/* full releases in 1 of this many runs */
#define MIN_HITS	100			/* hits for an observed ratio to be summarised */

/* Releases at which the clustering is run and recorded. */
static const int cluster_at[] = {2, 4, 8};

#define NCLUSTER ((int) (sizeof(cluster_at) / sizeof(cluster_at[0])))

typedef struct Scenario
{
	const char *name;
	bool		insert_only;
	uint32_t	insert_at;		/* release from which B holds the extra point */
	uint32_t	delete_at;		/* release from which it is gone again; 0 never */
	uint32_t	base_delete_at; /* release at which 10 base points leave; 0 never */
	bool		full;			/* also run the whole release (levels, centres) */
} Scenario;

static const Scenario scenarios[] = {
	{"ins2", true, 2, 0, 0, true},
	{"ins2del5", false, 2, 5, 6, true},
	{"ins1", true, 1, 0, 0, false},
};

#define NSCEN ((int) (sizeof(scenarios) / sizeof(scenarios[0])))

/* What one run publishes that the events read. */
typedef struct Obs
{
	int64_t		y[HORIZON + 1]; /* noisy count of the extra point's cell; y[0] = 0 */
	int			level[HORIZON + 1];
	double		c0lo[HORIZON + 1];	/* smaller / larger first coordinate of */
	double		c0hi[HORIZON + 1];	/* the k = 2 centres, normalized to [0, 1] */
} Obs;

typedef enum
{
	EV_NODES_UP, EV_NODES_DOWN, EV_PAIR_GT, EV_PAIR_LE, EV_ALL_GT, EV_ALL_LE,
	EV_LEVEL, EV_LEVEL2, EV_CENTRE_LO, EV_CENTRE_HI
} EventKind;

typedef struct Event
{
	EventKind	kind;
	int			t1,
				t2,
				a,
				b;
	bool		with_sums;		/* reads the sums: bound L_count + L_sum */
	bool		full;			/* read off full runs only */
	bool		exact;			/* exact probabilities known */
	double		exact_a,
				exact_b;
	long		na,
				nb;
	char		name[48];
} Event;

/* A tree node used by some release, and how to read it off the releases. */
typedef struct Node
{
	int			level;
	uint32_t	index;
	int			t_plus;			/* node = release t_plus - release t_minus */
	int			t_minus;
	int			delta;			/* B's shift of the node's true value */
} Node;

typedef struct Ctx
{
	const Scenario *sc;
	DpkLiveConfig nominal;		/* what the checker assumes */
	DpkLiveConfig mech;			/* what runs (epsilon x weaken) */
	DpkBox		box;
	double		lower[DIM],
				upper[DIM];
	DpkCellMap	state_a[HORIZON + 1];
	DpkCellMap	state_b[HORIZON + 1];
	uint64_t	cell;			/* cell of the extra point */
	int64_t		rel[DIM];		/* its fixed-point offsets */
	int64_t		ca[HORIZON + 1];	/* A's true count of that cell */
	Node		nodes[MAX_NODES];
	int			nnodes;
	double		l_count,
				l_sum;
	Event		ev[MAX_EVENTS];
	int			nev;
} Ctx;

/* ---- deterministic base data ---- */

static uint64_t
splitmix(uint64_t *s)
{
	uint64_t	z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double
unif(uint64_t *s)
{
	return ((double) (splitmix(s) >> 11) + 0.5) / 9007199254740992.0;
}

/* 300 points of two Gaussian clusters in [0, 10]^2: 160 at release 1, 20 at each later one. */
#define NBASE 300
static double base_pts[NBASE][DIM];
static int	base_t[NBASE];

static void
make_base(void)
{
	uint64_t	s = 20240611;
	int			i;

	for (i = 0; i < NBASE; i++)
	{
		double		r = sqrt(-2.0 * log(unif(&s))),
					th = 2.0 * M_PI * unif(&s);
		bool		first = (i % 3) != 0;

		base_pts[i][0] = (first ? 2.5 : 7.0) + 0.8 * r * cos(th);
		base_pts[i][1] = (first ? 3.0 : 7.5) + 0.8 * r * sin(th);
		base_t[i] = i < 160 ? 1 : 2 + (i - 160) / 20;
	}
}

/* Extra point: between the clusters, near the top corner of its cell. */
static const double extra_pt[DIM] = {4.95, 8.70};

static uint64_t
point_cell(const Ctx *cx, const double *x, int64_t *rel)
{
	double		u[DIM];
	int64_t		idx[DIM];

	dpk_box_normalize(&cx->box, x, u);
	return dpk_grid_cell(DIM, 1 << LEVEL, u, idx, rel);
}

/* ---- the tree nodes and the loss bound of a scenario ---- */

/* Signed coefficients of release t over the node list (adds nodes it meets). */
static void
release_coefs(Ctx *cx, uint32_t t, int *coef, bool add)
{
	int			lv[34],
				sg[34],
				n,
				a,
				u;
	uint32_t	ix[34];

	memset(coef, 0, MAX_NODES * sizeof(int));
	if (t == 0)
		return;
	n = dpk_tree_decompose(t, lv, ix, sg);
	for (a = 0; a < n; a++)
	{
		for (u = 0; u < cx->nnodes; u++)
			if (cx->nodes[u].level == lv[a] && cx->nodes[u].index == ix[a])
				break;
		if (u == cx->nnodes)
		{
			if (!add || cx->nnodes == MAX_NODES)
				continue;
			cx->nodes[u].level = lv[a];
			cx->nodes[u].index = ix[a];
			cx->nnodes++;
		}
		coef[u] += sg[a];
	}
}

/* Does node u's interval ((i-1) 2^j, i 2^j] hold release r? */
static bool
node_holds(const Node *nd, uint32_t r)
{
	uint64_t	lo = (uint64_t) (nd->index - 1) << nd->level,
				hi = (uint64_t) nd->index << nd->level;

	return r > lo && r <= hi;
}

static void
setup_nodes(Ctx *cx)
{
	int			coef[HORIZON + 1][MAX_NODES];
	int			t,
				t0,
				u,
				v;
	double		b_count = dpk_scale_value(dpk_live_count_scale(&cx->nominal));
	double		b_sum = dpk_scale_value(dpk_live_sum_scale(&cx->nominal));
	double		relmax = 0.0;
	int			moved = 0;
	bool		consistent = true;

	cx->nnodes = 0;
	for (t = 1; t <= HORIZON; t++)
		release_coefs(cx, (uint32_t) t, coef[t], true);
	memset(coef[0], 0, sizeof(coef[0]));

	/* Each node as the difference of two releases (t_minus = 0: none). */
	for (u = 0; u < cx->nnodes; u++)
	{
		bool		found = false;

		for (t = 1; t <= HORIZON && !found; t++)
			for (t0 = 0; t0 < t && !found; t0++)
			{
				bool		unit = true;

				for (v = 0; v < cx->nnodes; v++)
					if (coef[t][v] - coef[t0][v] != (v == u ? 1 : 0))
						unit = false;
				if (unit)
				{
					cx->nodes[u].t_plus = t;
					cx->nodes[u].t_minus = t0;
					found = true;
				}
			}
		CHECK(found, "%s: node (%d,%u) is not a difference of two releases",
			  cx->sc->name, cx->nodes[u].level, cx->nodes[u].index);
		if (!found)
			cx->nodes[u].t_plus = cx->nodes[u].t_minus = 0;
		cx->nodes[u].delta = (node_holds(&cx->nodes[u], cx->sc->insert_at) ? 1 : 0) -
			(cx->sc->delete_at && node_holds(&cx->nodes[u], cx->sc->delete_at) ? 1 : 0);
		if (cx->nodes[u].delta != 0)
			moved++;
	}

	/* The shifts reproduce B - A on the true counts of every release. */
	for (t = 1; t <= HORIZON; t++)
	{
		const int64_t *va = dpk_cellmap_find(&cx->state_a[t], cx->cell),
				   *vb = dpk_cellmap_find(&cx->state_b[t], cx->cell);
		int64_t		diff = (vb ? vb[0] : 0) - (va ? va[0] : 0),
					lin = 0;

		for (u = 0; u < cx->nnodes; u++)
			lin += coef[t][u] * cx->nodes[u].delta;
		if (lin != diff)
			consistent = false;
	}
	CHECK(consistent, "%s: node shifts do not reproduce B - A", cx->sc->name);

	/* the cube noise's density ratio for a shift is exp(||shift||_inf / b) */
	for (v = 0; v < DIM; v++)
		if ((double) cx->rel[v] > relmax)
			relmax = (double) cx->rel[v];
	cx->l_count = 0.0;
	cx->l_sum = 0.0;
	for (u = 0; u < cx->nnodes; u++)
	{
		cx->l_count += abs(cx->nodes[u].delta) / b_count;
		cx->l_sum += abs(cx->nodes[u].delta) * relmax / b_sum;
	}
	CHECK(cx->l_count <= cx->nominal.epsilon * (1.0 - cx->nominal.sum_share) + 1e-12,
		  "%s: count loss %g above the count budget", cx->sc->name, cx->l_count);
	CHECK(cx->l_count + cx->l_sum <= cx->nominal.epsilon + 1e-12,
		  "%s: loss %g above epsilon", cx->sc->name, cx->l_count + cx->l_sum);
	CHECK(moved > 0, "%s: the extra point moves no node", cx->sc->name);
}

/* Node u's noisy value minus A's true value, read off the releases. */
static int64_t
node_noise(const Ctx *cx, const Obs *o, const Node *nd)
{
	return (o->y[nd->t_plus] - o->y[nd->t_minus]) -
		(cx->ca[nd->t_plus] - cx->ca[nd->t_minus]);
}

/* ---- events ---- */

static Event *
add_event(Ctx *cx, EventKind kind, int t1, int t2, int a, int b, bool with_sums)
{
	Event	   *e;

	if (cx->nev == MAX_EVENTS)
	{
		CHECK(false, "too many events");
		return NULL;
	}
	e = &cx->ev[cx->nev++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->t1 = t1;
	e->t2 = t2;
	e->a = a;
	e->b = b;
	e->with_sums = with_sums;
	e->full = kind >= EV_LEVEL;
	switch (kind)
	{
		case EV_NODES_UP:
			snprintf(e->name, sizeof(e->name), "moved nodes >= A+|d|+%d", a);
			break;
		case EV_NODES_DOWN:
			snprintf(e->name, sizeof(e->name), "moved nodes <= A-%d", a);
			break;
		case EV_PAIR_GT:
			snprintf(e->name, sizeof(e->name), "y%d>cA%+d & y%d>cA%+d", t1, a, t2, a);
			break;
		case EV_PAIR_LE:
			snprintf(e->name, sizeof(e->name), "y%d<=cA%+d & y%d<=cA%+d", t1, a, t2, a);
			break;
		case EV_ALL_GT:
			snprintf(e->name, sizeof(e->name), "all t: y>cA%+d", a);
			break;
		case EV_ALL_LE:
			snprintf(e->name, sizeof(e->name), "all t: y<=cA%+d", a);
			break;
		case EV_LEVEL:
			snprintf(e->name, sizeof(e->name), "level(t=%d)=%d", t1, a);
			break;
		case EV_LEVEL2:
			snprintf(e->name, sizeof(e->name), "level(t=%d,%d)=(%d,%d)", t1, t2, a, b);
			break;
		case EV_CENTRE_LO:
			snprintf(e->name, sizeof(e->name), "min c0(t=%d) in [%.1f,%.1f)", t1,
					 a / (double) BUCKETS, (a + 1) / (double) BUCKETS);
			break;
		case EV_CENTRE_HI:
			snprintf(e->name, sizeof(e->name), "max c0(t=%d) in [%.1f,%.1f)", t1,
					 a / (double) BUCKETS, (a + 1) / (double) BUCKETS);
			break;
	}
	return e;
}

/* Exact probabilities of the node events under the scale that actually runs. */
static void
node_event_exact(const Ctx *cx, Event *e)
{
	double		q = exp(-1.0 / dpk_scale_value(dpk_live_count_scale(&cx->mech)));
	double		pa = 1.0,
				pb = 1.0;
	int			u;

	for (u = 0; u < cx->nnodes; u++)
	{
		int			m = abs(cx->nodes[u].delta);

		if (m == 0)
			continue;
		/* P[N >= j] = q^j / (1 + q) for j >= 0; N symmetric. */
		if (e->kind == EV_NODES_UP)
		{
			pa *= pow(q, m + e->a) / (1.0 + q);
			pb *= pow(q, e->a) / (1.0 + q);
		}
		else
		{
			pa *= pow(q, e->a) / (1.0 + q);
			pb *= pow(q, e->a + m) / (1.0 + q);
		}
	}
	e->exact = true;
	e->exact_a = pa;
	e->exact_b = pb;
}

static void
setup_events(Ctx *cx)
{
	static const int pairs[][2] = {{2, 4}, {3, 4}, {4, 8}};
	static const int offs[] = {-4, -1, 0, 2, 5};
	int			i,
				j,
				a,
				v,
				w;

	cx->nev = 0;
	for (a = 0; a <= 3; a += (a == 0 ? 1 : 2))
	{
		node_event_exact(cx, add_event(cx, EV_NODES_UP, 0, 0, a, 0, false));
		node_event_exact(cx, add_event(cx, EV_NODES_DOWN, 0, 0, a, 0, false));
	}
	for (i = 0; i < 3; i++)
		for (j = 0; j < 5; j++)
		{
			add_event(cx, EV_PAIR_GT, pairs[i][0], pairs[i][1], offs[j], 0, false);
			add_event(cx, EV_PAIR_LE, pairs[i][0], pairs[i][1], offs[j], 0, false);
		}
	add_event(cx, EV_ALL_GT, 0, 0, -1, 0, false);
	add_event(cx, EV_ALL_GT, 0, 0, 0, 0, false);
	add_event(cx, EV_ALL_LE, 0, 0, 0, 0, false);
	add_event(cx, EV_ALL_LE, 0, 0, 1, 0, false);
	if (!cx->sc->full)
		return;
	for (i = 0; i < NCLUSTER; i++)
		for (v = 0; v <= LEVEL; v++)
			add_event(cx, EV_LEVEL, cluster_at[i], 0, v, 0, false);
	for (v = 0; v <= LEVEL; v++)
		for (w = 0; w <= LEVEL; w++)
			add_event(cx, EV_LEVEL2, 4, 8, v, w, false);
	for (i = 1; i < NCLUSTER; i++)
		for (j = 0; j < BUCKETS; j++)
		{
			add_event(cx, EV_CENTRE_LO, cluster_at[i], 0, j, 0, true);
			add_event(cx, EV_CENTRE_HI, cluster_at[i], 0, j, 0, true);
		}
}

static int
bucket(double u)
{
	int			b = (int) floor(u * BUCKETS);

	return b < 0 ? 0 : (b >= BUCKETS ? BUCKETS - 1 : b);
}

static bool
holds(const Ctx *cx, const Event *e, const Obs *o)
{
	int			t,
				u;

	switch (e->kind)
	{
		case EV_NODES_UP:
		case EV_NODES_DOWN:
			for (u = 0; u < cx->nnodes; u++)
			{
				const Node *nd = &cx->nodes[u];
				int64_t		z;

				if (nd->delta == 0)
					continue;
				z = node_noise(cx, o, nd) * (nd->delta > 0 ? 1 : -1);
				if (e->kind == EV_NODES_UP ? z < abs(nd->delta) + e->a : z > -e->a)
					return false;
			}
			return true;
		case EV_PAIR_GT:
			return o->y[e->t1] > cx->ca[e->t1] + e->a && o->y[e->t2] > cx->ca[e->t2] + e->a;
		case EV_PAIR_LE:
			return o->y[e->t1] <= cx->ca[e->t1] + e->a && o->y[e->t2] <= cx->ca[e->t2] + e->a;
		case EV_ALL_GT:
			for (t = 1; t <= HORIZON; t++)
				if (!(o->y[t] > cx->ca[t] + e->a))
					return false;
			return true;
		case EV_ALL_LE:
			for (t = 1; t <= HORIZON; t++)
				if (!(o->y[t] <= cx->ca[t] + e->a))
					return false;
			return true;
		case EV_LEVEL:
			return o->level[e->t1] == e->a;
		case EV_LEVEL2:
			return o->level[e->t1] == e->a && o->level[e->t2] == e->b;
		case EV_CENTRE_LO:
			return bucket(o->c0lo[e->t1]) == e->a;
		case EV_CENTRE_HI:
			return bucket(o->c0hi[e->t1]) == e->a;
	}
	return false;
}

/* ---- streams and runs ---- */

static void
setup_states(Ctx *cx)
{
	DpkCellMap	a,
				b;
	int			t,
				i;
	int64_t		rel[DIM];

	cx->cell = point_cell(cx, extra_pt, cx->rel);
	dpk_cellmap_init(&a, DIM);
	dpk_cellmap_init(&b, DIM);
	for (t = 1; t <= HORIZON; t++)
	{
		for (i = 0; i < NBASE; i++)
		{
			int			sign = 0;

			if (base_t[i] == t)
				sign = 1;
			else if (cx->sc->base_delete_at == (uint32_t) t && i % 16 == 0 && i < 160)
				sign = -1;		/* ten early base points leave */
			if (sign == 0)
				continue;
			{
				uint64_t	c = point_cell(cx, base_pts[i], rel);

				dpk_cellmap_add_point(&a, c, rel, sign);
				dpk_cellmap_add_point(&b, c, rel, sign);
			}
		}
		if (cx->sc->insert_at == (uint32_t) t)
			dpk_cellmap_add_point(&b, cx->cell, cx->rel, 1);
		if (cx->sc->delete_at == (uint32_t) t)
			dpk_cellmap_add_point(&b, cx->cell, cx->rel, -1);
		dpk_cellmap_init(&cx->state_a[t], DIM);
		dpk_cellmap_merge(&cx->state_a[t], &a, 1);
		dpk_cellmap_init(&cx->state_b[t], DIM);
		dpk_cellmap_merge(&cx->state_b[t], &b, 1);
		{
			const int64_t *v = dpk_cellmap_find(&a, cx->cell);

			cx->ca[t] = v ? v[0] : 0;
		}
	}
	cx->ca[0] = 0;
	dpk_cellmap_free(&a);
	dpk_cellmap_free(&b);
}

/*
 * One run of the mechanism over releases 1..T on one stream with one key.
 * The extra point's cell gets exactly what dpk_live_noisy_histogram adds to
 * it (dpk_cell_noise at the counted level; its count noise is the first draw
 * of each node, so the sums need not be drawn).  A full run also makes the
 * whole noisy histogram and the clustering at the releases of cluster_at[],
 * and counts in *mismatch the releases where the histogram's entry for the
 * cell differs from the single-cell value.
 */
static void
run_stream(const Ctx *cx, const DpkCellMap *states, const uint8_t key[DPK_KEY_BYTES],
		   bool full, Obs *o, long *mismatch)
{
	DpkStream	s = {0};
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	DpkScale	cs = dpk_live_count_scale(&cx->mech),
				ss = dpk_live_sum_scale(&cx->mech);
	int			t,
				i = 0;

	memset(o, 0, sizeof(*o));
	if (!dpk_stream_open(&s, key, nonce))
	{
		fprintf(stderr, "privacy_test: cannot open a stream\n");
		exit(2);
	}
	for (t = 1; t <= HORIZON; t++)
	{
		const int64_t *v = dpk_cellmap_find(&states[t], cx->cell);
		int64_t		noise[1 + DIM];

		dpk_cell_noise(&s, key, cx->mech.level, cx->cell, (uint32_t) t, DIM, cs, ss,
					   DPK_SUMS_NONE, noise);
		o->y[t] = (v ? v[0] : 0) + noise[0];
		if (full && i < NCLUSTER && cluster_at[i] == t)
		{
			DpkDenseHist h;
			DpkLiveRelease rel;
			const double *c;
			double		u0,
						u1;

			dpk_live_noisy_histogram(&cx->mech, key, &states[t], (uint32_t) t, &s, &h);
			if (h.count[cx->cell] != o->y[t])
				(*mismatch)++;
			dpk_live_cluster(&cx->mech, &cx->box, &h, (uint32_t) t, dpk_stream_u64(&s), &rel);
			c = rel.centers + (size_t) dpk_live_block(KCLUST) * DIM;
			u0 = (c[0] - cx->lower[0]) / (cx->upper[0] - cx->lower[0]);
			u1 = (c[DIM] - cx->lower[0]) / (cx->upper[0] - cx->lower[0]);
			o->level[t] = rel.level;
			o->c0lo[t] = fmin(u0, u1);
			o->c0hi[t] = fmax(u0, u1);
			dpk_live_release_free(&rel);
			dpk_hist_free(&h);
			i++;
		}
	}
	dpk_stream_close(&s);
}

/* ---- confidence bounds ---- */

/* KL divergence of Bernoulli(p) from Bernoulli(q). */
static double
kl(double p, double q)
{
	double		r = 0.0;

	if (p > 0.0)
		r += p * log(p / q);
	if (p < 1.0)
		r += (1.0 - p) * log((1.0 - p) / (1.0 - q));
	return r;
}

/*
 * Chernoff bounds for a binomial proportion: [lo, hi] = {p : n KL(k/n, p) <=
 * ln(1 / tail)} misses the true p with probability <= 2 tail.
 */
static void
kl_interval(long k, long n, double tail, double *lo, double *hi)
{
	double		ph = (double) k / (double) n,
				lim = log(1.0 / tail) / (double) n,
				a,
				b;
	int			it;

	a = ph;
	b = 1.0;
	for (it = 0; it < 100; it++)
	{
		double		m = 0.5 * (a + b);

		if (kl(ph, m) > lim)
			b = m;
		else
			a = m;
	}
	*hi = ph >= 1.0 ? 1.0 : b;
	a = 0.0;
	b = ph;
	for (it = 0; it < 100; it++)
	{
		double		m = 0.5 * (a + b);

		if (kl(ph, m) > lim)
			a = m;
		else
			b = m;
	}
	*lo = ph <= 0.0 ? 0.0 : a;
}

/* ---- main ---- */

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
	static Ctx	ctx[NSCEN];
	bool		longmode = argc > 1 && strcmp(argv[1], "long") == 0;
	long		runs = longmode ? 500000 : 20000;
	double		weaken = 1.0;
	double		t_start = now_seconds();
	double		tail;
	double		max_obs = 0.0,
				max_cert = 0.0,
				max_cert_rel = 0.0;
	const char *max_obs_name = "-",
			   *max_cert_name = "-";
	int			total_events = 0,
				sc,
				i;
	uint64_t	key_base = 0;
	long		r;

	if (argc > 1 && !longmode && strcmp(argv[1], "quick") != 0)
	{
		fprintf(stderr, "usage: privacy_test [quick|long]\n");
		return 2;
	}
	if (getenv("DPK_PRIVACY_RUNS"))
		runs = atol(getenv("DPK_PRIVACY_RUNS"));
	if (getenv("DPK_PRIVACY_WEAKEN"))
		weaken = atof(getenv("DPK_PRIVACY_WEAKEN"));
	if (getenv("DPK_PRIVACY_KEYS"))
		key_base = strtoull(getenv("DPK_PRIVACY_KEYS"), NULL, 10);
	if (runs < 100 || !(weaken > 0.0))
	{
		fprintf(stderr, "privacy_test: bad DPK_PRIVACY_RUNS or DPK_PRIVACY_WEAKEN\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);	/* keep failures next to their line */
	dpk_blas_single_thread();
	make_base();

	printf("privacy_test: %s mode, R = %ld runs per stream, epsilon = %g, T = %d, d = %d, "
		   "k = %d, level = %d, confidence 1 - %g, keys from %llu\n",
		   longmode ? "long" : "quick", runs, EPSILON, HORIZON, DIM, KCLUST, LEVEL, CONFIDENCE,
		   (unsigned long long) key_base + 1);
	if (weaken != 1.0)
		printf("privacy_test: WEAKENED: the mechanism runs at epsilon %g (noise / %g); "
			   "checked against epsilon %g\n", EPSILON * weaken, weaken, EPSILON);

	for (sc = 0; sc < NSCEN; sc++)
	{
		Ctx		   *cx = &ctx[sc];

		cx->sc = &scenarios[sc];
		dpk_live_defaults(&cx->nominal, DIM, KCLUST, EPSILON, HORIZON, cx->sc->insert_only);
		cx->nominal.level = LEVEL;
		cx->mech = cx->nominal;
		cx->mech.epsilon = EPSILON * weaken;
		cx->lower[0] = cx->lower[1] = 0.0;
		cx->upper[0] = cx->upper[1] = 10.0;
		cx->box.d = DIM;
		cx->box.lower = cx->lower;
		cx->box.upper = cx->upper;
		setup_states(cx);
		setup_nodes(cx);
		setup_events(cx);
		total_events += cx->nev;
	}
	/* Two intervals per event, each missing on either side with prob. tail. */
	tail = CONFIDENCE / (4.0 * total_events);

	for (sc = 0; sc < NSCEN; sc++)
	{
		Ctx		   *cx = &ctx[sc];
		double		t0 = now_seconds();
		long		full_runs,
					mismatch;
		int			u;

		printf("\n[%s] extra point in cell %llu (rel %lld,%lld), insert at %u, delete at %u, "
			   "insert_only %s\n", cx->sc->name, (unsigned long long) cx->cell,
			   (long long) cx->rel[0], (long long) cx->rel[1], cx->sc->insert_at,
			   cx->sc->delete_at, cx->sc->insert_only ? "yes" : "no");
		printf("[%s] A's true count of that cell, t = 1..%d:", cx->sc->name, HORIZON);
		for (i = 1; i <= HORIZON; i++)
			printf(" %lld", (long long) cx->ca[i]);
		printf("\n[%s] moved nodes:", cx->sc->name);
		for (u = 0; u < cx->nnodes; u++)
			if (cx->nodes[u].delta != 0)
				printf(" (%u..%u]%+d = y%d-y%d", (cx->nodes[u].index - 1) << cx->nodes[u].level,
					   cx->nodes[u].index << cx->nodes[u].level, cx->nodes[u].delta,
					   cx->nodes[u].t_plus, cx->nodes[u].t_minus);
		printf("\n[%s] node scale b_count = %.4f (runs at %.4f), b_sum = %.1f; "
			   "L_count = %.4f (count budget %.4f), L_count + L_sum = %.4f (epsilon %g)\n",
			   cx->sc->name, dpk_scale_value(dpk_live_count_scale(&cx->nominal)),
			   dpk_scale_value(dpk_live_count_scale(&cx->mech)),
			   dpk_scale_value(dpk_live_sum_scale(&cx->nominal)), cx->l_count,
			   EPSILON * (1.0 - cx->nominal.sum_share), cx->l_count + cx->l_sum, EPSILON);

		full_runs = cx->sc->full ? runs / FULL_SHARE : 0;
		mismatch = 0;
		for (r = 1; r <= runs; r++)
		{
			uint8_t		key[DPK_KEY_BYTES];
			bool		full = r <= full_runs;
			Obs			oa,
						ob;

			dpk_key_from_seed(key_base + (uint64_t) r, key);
			run_stream(cx, cx->state_a, key, full, &oa, &mismatch);
			dpk_key_from_seed(key_base + B_SEED_OFFSET + (uint64_t) r, key);
			run_stream(cx, cx->state_b, key, full, &ob, &mismatch);
			for (i = 0; i < cx->nev; i++)
			{
				if (cx->ev[i].full && !full)
					continue;
				if (holds(cx, &cx->ev[i], &oa))
					cx->ev[i].na++;
				if (holds(cx, &cx->ev[i], &ob))
					cx->ev[i].nb++;
			}
		}
		CHECK(mismatch == 0, "[%s] %ld releases where the histogram's cell differs from "
			  "dpk_cell_noise", cx->sc->name, mismatch);

		printf("[%s] %ld + %ld runs (%ld + %ld of them full releases) in %.1f s\n",
			   cx->sc->name, runs, runs, full_runs, full_runs, now_seconds() - t0);
		printf("[%s] %-28s %6s %8s %-19s %8s %-19s %7s %6s %7s  %s\n", cx->sc->name, "event", "L",
			   "P_A", "  [lo, hi]", "P_B", "  [lo, hi]", "ln A/B", "cert", "exact", "verdict");
		for (i = 0; i < cx->nev; i++)
		{
			Event	   *e = &cx->ev[i];
			long		n = e->full ? full_runs : runs;
			double		bound = cx->l_count + (e->with_sums ? cx->l_sum : 0.0);
			double		pa = (double) e->na / n,
						pb = (double) e->nb / n;
			double		loa,
						hia,
						lob,
						hib,
						cert = 0.0,
						obs = 0.0;
			bool		ok;

			kl_interval(e->na, n, tail, &loa, &hia);
			kl_interval(e->nb, n, tail, &lob, &hib);
			if (loa > 0.0 && hib > 0.0)
				cert = fmax(cert, log(loa / hib));
			if (lob > 0.0 && hia > 0.0)
				cert = fmax(cert, log(lob / hia));
			ok = loa <= exp(bound) * hib && lob <= exp(bound) * hia;
			if (e->na > 0 && e->nb > 0)
				obs = log(pa / pb);
			if (e->na >= MIN_HITS && e->nb >= MIN_HITS)
			{
				if (fabs(obs) > max_obs)
				{
					max_obs = fabs(obs);
					max_obs_name = e->name;
				}
			}
			if (cert > max_cert)
			{
				max_cert = cert;
				max_cert_name = e->name;
			}
			if (bound > 0.0)
				max_cert_rel = fmax(max_cert_rel, cert / bound);
			if (e->na == 0 && e->nb == 0)
			{
				/* never seen: trivially consistent, not printed */
				CHECK(ok, "[%s] %s", cx->sc->name, e->name);
				continue;
			}
			printf("[%s] %-28s %6.3f %8.5f [%.5f,%.5f] %8.5f [%.5f,%.5f] %7.3f %6.3f ",
				   cx->sc->name, e->name, bound, pa, loa, hia, pb, lob, hib,
				   (e->na > 0 && e->nb > 0) ? obs : NAN, cert);
			if (e->exact)
				printf("%7.3f", log(e->exact_a / e->exact_b));
			else
				printf("%7s", "");
			printf("  %s\n", ok ? "ok" : "FAIL");
			CHECK(ok, "[%s] %s: P_A %.5f [%.5f, %.5f], P_B %.5f [%.5f, %.5f], certified "
				  "|ln ratio| %.3f > bound %.3f", cx->sc->name, e->name, pa, loa, hia, pb,
				  lob, hib, cert, bound);
			if (e->exact)
			{
				/* The sampler and the node reading agree with the exact law. */
				CHECK(e->exact_a >= loa && e->exact_a <= hia && e->exact_b >= lob &&
					  e->exact_b <= hib,
					  "[%s] %s: exact (%.5f, %.5f) outside the intervals", cx->sc->name,
					  e->name, e->exact_a, e->exact_b);
			}
		}
	}

	printf("\nprivacy_test: %d events, %ld runs per stream, %.1f s\n", total_events, runs,
		   now_seconds() - t_start);
	printf("privacy_test: max observed |ln P_A/P_B| %.3f (%s; events with >= %d hits each)\n",
		   max_obs, max_obs_name, MIN_HITS);
	printf("privacy_test: max certified |ln P_A/P_B| %.3f (%s); max certified / bound %.2f "
		   "(fails above 1)\n", max_cert, max_cert_name, max_cert_rel);
	for (sc = 0; sc < NSCEN; sc++)
		for (i = 1; i <= HORIZON; i++)
		{
			dpk_cellmap_free(&ctx[sc].state_a[i]);
			dpk_cellmap_free(&ctx[sc].state_b[i]);
		}
	UNIT_DONE("privacy_test");
}
