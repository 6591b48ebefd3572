/*
 * privacy_test.c
 *		Empirical check of event-level epsilon-DP under continual observation.
 *
 * What runs.  The live mechanism of src/core/live/live_core.c as a release makes it:
 * at each release t = 1..T (T = 8) the noisy counted level of the true state
 * after t's changes, and at t = 2, 4, 8 dpk_live_noisy_histogram followed by
 * dpk_live_cluster with the k-means seed read from the stream right after the
 * histogram, as release.c does.  d = 2, k = 2, box [0, 10]^2, counted level 3
 * (8 x 8 cells), epsilon = 2, sum_share = 0.3 (the d = 2 default since 0.3:
 * the counts hold epsilon 1.4).
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
 *    (bound L_count + L_sum: the level is chosen by the cost of each
 *    candidate level's centres, and those centres sit at the noisy in-cell
 *    means, so the level reads the noisy sums as well as the counts).
 *  - the smaller and the larger first coordinate of the two k = 2 centres
 *    at t = 4 and 8 in each tenth of the box (bound L_count + L_sum).
 *
 * The other mechanisms (suites after the scenarios above; each event's
 * bound is the loss of exactly the quantities it reads, all Bonferroni'd
 * together with the scenarios' events):
 *  - cell T=8, T=64 (and T=1024 in long mode): one live cell over releases
 *    1..T under the worst neighbouring pair, an insertion and its later
 *    deletion chosen to move the most tree nodes the releases use (T = 8:
 *    insert at 1, delete at 8, 5 of the 2h = 8 nodes the sensitivity pays
 *    for), insert_delete accounting; only the releases needed to read each
 *    moved node are computed.  Events: the moved nodes' count noise (exact
 *    tails), the cube noise on the in-cell sums (every moved node's sum
 *    noise aligned with its shift, where the density ratio is exactly
 *    exp(||shift||_inf / b)), both, and pairs of releases.
 *  - cell share T=64, T=256 (and T=1024 in long mode): the share-tree
 *    counter (privacy_share.h): one cell, insert at 2 and delete at T - 1
 *    (every level's node moves, loss exactly epsilon), each moved node's
 *    noisy value alone (exact tails, log ratio 1 / b_v), all of them, and
 *    pairs of its least-squares releases.
 *  - highd live: a projected table (d = 8, 2 copies, d_hat 4, worst pair at
 *    T = 8, the extra point at a corner of the box so its lifting sums and
 *    squared norm are the largest): each copy's count of the point's cell,
 *    copy 0's d lifting sums (cube, aligned events), the norm counter
 *    (exact tails), read with dpk_cell_noise as dpk_live_noisy_projected
 *    adds it (checked equal in 1 run of 10, which also makes the release at
 *    T with dpk_live_cluster_projected: centre events, bound the whole loss).
 *  - highd fallback: the same at d = 6 with an epsilon so large that the sum
 *    scale is below d/4 and the lifting sums take the per-coordinate Laplace
 *    fallback; the point has every lifting coordinate 1, so "every
 *    coordinate past its shift" reaches the claimed ||s||_inf / b exactly.
 *  - hd l1: a projected table in metric positions whose box has one wide
 *    side (d = 6, sides 10, 2, 2, 3, 3, 5; dpk_live_use_box gives sum_l1 >
 *    0, the sums' share 0.5 and one discrete Laplace per coordinate of the
 *    lifting sums at the l1 sensitivity), one copy, worst pair at T = 8,
 *    the extra point a corner mapped as the trigger maps it.  Bound of the
 *    sums: sum_u |delta_u| ||q||_1 / b_sum (checked within the sums' share
 *    and, with the counts and the norm counter, within epsilon).  Tight
 *    events with exact probabilities: each moved node's widest sum past its
 *    shift (well sampled), every coordinate of a node's sums past its shift
 *    (the node's whole l1 loss), the widest sum of every node, node 0's
 *    count and sums together; counts, norm and centres as above.
 *  - regions ins, regions insdel (privacy_regions.h): lifting sums keyed
 *    by public regions (live_regions.c), a projected pure table (d = 6,
 *    dhat 4, level 1, k = 2, the 3-ary tree at T = 8) driven as release.c
 *    drives it: dpk_live_noisy_projected_box (counts alone), then
 *    dpk_regions_release.
 *    B adds one row at a corner of the box (inserted at 2; or inserted at
 *    2 and deleted at 4), whose region flips between the maps.  At T = 8
 *    every release lies in the first top-level node, whose region sums
 *    are over the complete nodes of [1, t] (dpk_regions_decompose).
 *  - signed regions ins, signed regions insdel: the same table with the
 *    5-ary tree at T = 10 (top-level nodes of 5 steps), B's row inserted
 *    at 9 (or at 7 and deleted at 9): releases 6..10 sum the signed digits
 *    (dpk_regions_nodes), with nodes reaching past t and nodes not yet
 *    open, all keyed by the map of the top-level node holding t; release 9
 *    less release 8 reads exactly the draw of the unopened node (0, 9).  Events read one k-block centre's sum vector
 *    (lifting sums and count, recovered exactly from the released centre
 *    and size) less A's rows in the regions it owns: the cube's aligned
 *    events on the nodes (1,1) (release 3) and (0,2) (release 2 less
 *    release 1) are tight; also the first coordinates and sizes of the
 *    centres.  Bound: the moved count nodes the releases up to the last
 *    one read, plus each moved node of the read releases' complete nodes
 *    at U/2 / b_sum (one region each).  Every centre is also checked
 *    against the nodes' sums and noise, every node read complete and
 *    keyed by the map of its rule.
 *  - cube noise, Laplace fallback: dpk_vector_noise on its own.
 *  - oneshot low-d, oneshot high-d: dpk_lowd_cluster and
 *    dpk_highd_oneshot_cluster on 150 points plus one in an empty corner:
 *    the noisy N (exact tails, bound its share of epsilon), the grid size
 *    (bound the same share), centres and noisy sizes (bound epsilon).
 *
 * How strong it is.  DPK_PRIVACY_WEAKEN=W runs the mechanism at epsilon 2W
 * (every noise scale divided by W) while the checker keeps epsilon 2; the
 * tight node events then have log ratio W L_count.  Quick mode (R = 20000):
 * W = 1 certifies at most about 0.7 of the bound on any event; W = 2 fails
 * in every scenario (certified log ratio about 1.7 L_count for ins1 and ins2,
 * 1.3 L_count for ins2del5); W = 1.5 fails for ins1 and ins2 only.  Long mode
 * (R = 500000, a few minutes): W = 1 certifies at most about 0.94 of the
 * bound; W = 1.1 fails for ins1 and ins2, just (1.03 of the bound).
 * What it cannot show: it is a finite sample of a finite event family on a
 * few neighbouring pairs, not a proof.  The scenarios test only the counts
 * tightly (the suites add tight events on the sums and the norm counter).
 * The level and centre events have ratios near 1 under the mechanism and
 * fewer samples: they fail only for a leak that moves such an output's
 * probability by more than e^L plus the slack (e.g. an output computed from
 * true instead of noisy counts with a large effect), not for a subtle one.
 * Cells other than the extra point's are not examined on their own, and
 * the noise is ChaCha20 keyed by
 * dpk_key_from_seed: the test takes distinct keys as independent.
 *
 * Two weakened modes must fail (CI runs both): DPK_PRIVACY_WEAKEN=2 (every
 * mechanism at twice its epsilon) and DPK_PRIVACY_WEAKEN=deletes (streams
 * with deletions noised at the insert_only sensitivity, i.e. the factor 2
 * for deletions dropped; it halves the count and sum noise of ins2del5 and
 * of the worst pairs, whose node events then have twice their bound).
 * The suites' power: the cube-noise and fallback events on their own and the
 * T = 8 worst pair are tight and well sampled (hd l1 at W = 2: each
 * node's widest sum certifies about 0.47 against its bound 0.30; the
 * every-coordinate events, at 2^-6 of the runs, only gross errors); with
 * more moved nodes (T =
 * 64, 1024) the all-nodes events get rare (about 2^-n) and catch only
 * gross errors in quick mode; the one-shot and centre events have ratios
 * near 1 and catch only leaks far beyond epsilon.  The regions suites'
 * tight events (R / 2 runs) certify about 0.66 of their bound at W = 1 and
 * fail with the region sum noise alone at half its scale (about 1.9
 * against 1.40); the signed suites' (R / 4 runs) about 0.70, and with the
 * draws of nodes not yet open left out they fail at 5.4.  At W = 2 and
 * with deletions noised as inserts, signed regions insdel fails (R7 - R6
 * and R9 - R8, about 2.6 against 1.9 and 2.1); signed regions ins, whose
 * reads hold two moved nodes, does not.
 *
 * Usage: privacy_test [quick|long]; env DPK_PRIVACY_RUNS overrides R (the
 * suites run R, R/2, R/4 or R/10 runs as they cost), DPK_PRIVACY_WEAKEN
 * and DPK_PRIVACY_KEYS as above.  Exit status and the
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
#include "coreset.h"
#include "live_core.h"
#include "counter.h"
#include "dpk_mem.h"
#include "grid.h"
#include "kmeans.h"
#include "noise.h"
#include "highd.h"
#include "lift.h"
#include "lowd.h"
#include "projection.h"
#include "tree_estimator.h"
#include "../unit/unit.h"
#include "privacy_common.h"

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
	int64_t		yw[HORIZON + 1];	/* the same as released: the nodes combined by
									 * the table's estimator (tree_estimator.h) */
	int			level[HORIZON + 1];
	double		c0lo[HORIZON + 1];	/* smaller / larger first coordinate of */
	double		c0hi[HORIZON + 1];	/* the k = 2 centres, normalized to [0, 1] */
} Obs;

typedef enum
{
	EV_NODES_UP, EV_NODES_DOWN, EV_PAIR_GT, EV_PAIR_LE, EV_ALL_GT, EV_ALL_LE,
	EV_WPAIR_GT, EV_WPAIR_LE, EV_WALL_GT, EV_WALL_LE,
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
	double		lw_count,		/* the same over every node the estimator's */
				lw_sum;			/* releases 1..T use (and the signed ones) */
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

	/*
	 * the cube noise's density ratio for a shift is exp(||shift||_inf / b);
	 * the noise is drawn for offsets about the cell's middle (grid.h), or
	 * from its corner in tables attached before trigger format 5
	 */
	for (v = 0; v < DIM; v++)
	{
		double		shift = (double) cx->rel[v] -
			(cx->nominal.centred_offsets ? DPK_REL_CENTRE : 0);

		if (fabs(shift) > relmax)
			relmax = fabs(shift);
	}
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

	/*
	 * The estimator's releases read more nodes (children, ancestors'
	 * children): the loss of an event on them is the same sum over every
	 * node any of them (or a signed release) uses.
	 */
	{
		Node		all[4 * MAX_NODES];
		int			nall = 0,
					a;

		for (u = 0; u < cx->nnodes; u++)
			all[nall++] = cx->nodes[u];
		for (t = 1; t <= HORIZON; t++)
		{
			DpkTreeWeights w;

			dpk_tree_release_weights((DpkTreeEstimator) cx->mech.estimator, cx->mech.arity,
									 cx->mech.horizon, (uint32_t) t, &w);
			for (a = 0; a < w.n; a++)
			{
				for (v = 0; v < nall; v++)
					if (all[v].level == w.level[a] && all[v].index == w.index[a])
						break;
				if (v == nall && nall < 4 * MAX_NODES)
				{
					all[nall].level = w.level[a];
					all[nall].index = w.index[a];
					nall++;
				}
			}
			dpk_tree_weights_free(&w);
		}
		cx->lw_count = cx->lw_sum = 0.0;
		for (v = 0; v < nall; v++)
		{
			int			delta = (node_holds(&all[v], cx->sc->insert_at) ? 1 : 0) -
				(cx->sc->delete_at && node_holds(&all[v], cx->sc->delete_at) ? 1 : 0);

			cx->lw_count += abs(delta) / b_count;
			cx->lw_sum += abs(delta) * relmax / b_sum;
		}
		CHECK(cx->lw_count <= cx->nominal.epsilon * (1.0 - cx->nominal.sum_share) + 1e-12 &&
			  cx->lw_count + cx->lw_sum <= cx->nominal.epsilon + 1e-12,
			  "%s: the estimator's loss %g above the budget", cx->sc->name,
			  cx->lw_count + cx->lw_sum);
	}
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
		case EV_WPAIR_GT:
			snprintf(e->name, sizeof(e->name), "w: y%d>cA%+d & y%d>cA%+d", t1, a, t2, a);
			break;
		case EV_WPAIR_LE:
			snprintf(e->name, sizeof(e->name), "w: y%d<=cA%+d & y%d<=cA%+d", t1, a, t2, a);
			break;
		case EV_WALL_GT:
			snprintf(e->name, sizeof(e->name), "w: all t: y>cA%+d", a);
			break;
		case EV_WALL_LE:
			snprintf(e->name, sizeof(e->name), "w: all t: y<=cA%+d", a);
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
	for (i = 0; i < 3; i++)
		for (j = 1; j < 4; j++)
		{
			add_event(cx, EV_WPAIR_GT, pairs[i][0], pairs[i][1], offs[j], 0, false);
			add_event(cx, EV_WPAIR_LE, pairs[i][0], pairs[i][1], offs[j], 0, false);
		}
	add_event(cx, EV_WALL_GT, 0, 0, -1, 0, false);
	add_event(cx, EV_WALL_GT, 0, 0, 0, 0, false);
	add_event(cx, EV_WALL_LE, 0, 0, 0, 0, false);
	add_event(cx, EV_WALL_LE, 0, 0, 1, 0, false);
	if (!cx->sc->full)
		return;
	for (i = 0; i < NCLUSTER; i++)
		for (v = 0; v <= LEVEL; v++)
			add_event(cx, EV_LEVEL, cluster_at[i], 0, v, 0, true);
	for (v = 0; v <= LEVEL; v++)
		for (w = 0; w <= LEVEL; w++)
			add_event(cx, EV_LEVEL2, 4, 8, v, w, true);
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
		case EV_WPAIR_GT:
			return o->yw[e->t1] > cx->ca[e->t1] + e->a && o->yw[e->t2] > cx->ca[e->t2] + e->a;
		case EV_WPAIR_LE:
			return o->yw[e->t1] <= cx->ca[e->t1] + e->a &&
				o->yw[e->t2] <= cx->ca[e->t2] + e->a;
		case EV_WALL_GT:
			for (t = 1; t <= HORIZON; t++)
				if (!(o->yw[t] > cx->ca[t] + e->a))
					return false;
			return true;
		case EV_WALL_LE:
			for (t = 1; t <= HORIZON; t++)
				if (!(o->yw[t] <= cx->ca[t] + e->a))
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

		dpk_cell_noise(&s, &(DpkCellKey) {key, cx->mech.level, cx->cell},
					   (uint32_t) t,
					   &(DpkCellScales) {DIM, cs, ss, DPK_SUMS_NONE}, noise);
		o->y[t] = (v ? v[0] : 0) + noise[0];
		{
			DpkTreeWeights w;
			int64_t		tmp[1 + DIM];
			__int128	acc[1 + DIM];

			dpk_tree_release_weights((DpkTreeEstimator) cx->mech.estimator, cx->mech.arity,
									 cx->mech.horizon, (uint32_t) t, &w);
			dpk_cell_noise_weighted(&s,
									&(DpkCellKey) {key, cx->mech.level, cx->cell},
									&w,
									&(DpkCellScales) {DIM, cs, ss, DPK_SUMS_NONE},
									v, noise, &(DpkNoiseScratch) {tmp, acc});
			o->yw[t] = noise[0];
			dpk_tree_weights_free(&w);
		}
		if (full && i < NCLUSTER && cluster_at[i] == t)
		{
			DpkDenseHist h;
			DpkLiveRelease rel;
			const double *c;
			double		u0,
						u1;

			dpk_live_noisy_histogram(&cx->mech, key, &states[t], (uint32_t) t, &s, &h);
			if (h.count[cx->cell] != o->yw[t])
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

/* Monotonic time in seconds. */
static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- judging one event ---- */

/* Overall statistics of the verdicts, printed at the end. */
static double g_tail;
static double g_max_obs = 0.0,
			g_max_cert = 0.0,
			g_max_cert_rel = 0.0;
static char g_max_obs_name[96] = "-",
			g_max_cert_name[96] = "-";

/*
 * Check one event: P[E|A] and P[E|B] from na and nb hits in n runs each,
 * against the loss bound `bound`; exact probabilities (when known) must lie
 * in the intervals.  Prints a line unless the event was never seen.
 */
static void
judge(const char *label, const char *name, double bound, long na, long nb, long n,
	  bool exact, double exact_a, double exact_b)
{
	double		pa = (double) na / n,
				pb = (double) nb / n;
	double		loa,
				hia,
				lob,
				hib,
				cert = 0.0,
				obs = 0.0;
	bool		ok;

	kl_interval(na, n, g_tail, &loa, &hia);
	kl_interval(nb, n, g_tail, &lob, &hib);
	if (loa > 0.0 && hib > 0.0)
		cert = fmax(cert, log(loa / hib));
	if (lob > 0.0 && hia > 0.0)
		cert = fmax(cert, log(lob / hia));
	ok = loa <= exp(bound) * hib && lob <= exp(bound) * hia;
	if (na > 0 && nb > 0)
		obs = log(pa / pb);
	if (na >= MIN_HITS && nb >= MIN_HITS && fabs(obs) > g_max_obs)
	{
		g_max_obs = fabs(obs);
		snprintf(g_max_obs_name, sizeof(g_max_obs_name), "[%s] %s", label, name);
	}
	if (cert > g_max_cert)
	{
		g_max_cert = cert;
		snprintf(g_max_cert_name, sizeof(g_max_cert_name), "[%s] %s", label, name);
	}
	if (bound > 0.0)
		g_max_cert_rel = fmax(g_max_cert_rel, cert / bound);
	if (na == 0 && nb == 0)
	{
		/* never seen: trivially consistent, not printed */
		CHECK(ok, "[%s] %s", label, name);
		return;
	}
	printf("[%s] %-34s %6.3f %8.5f [%.5f,%.5f] %8.5f [%.5f,%.5f] %7.3f %6.3f ",
		   label, name, bound, pa, loa, hia, pb, lob, hib,
		   (na > 0 && nb > 0) ? obs : NAN, cert);
	if (exact)
		printf("%7.3f", log(exact_a / exact_b));
	else
		printf("%7s", "");
	printf("  %s\n", ok ? "ok" : "FAIL");
	CHECK(ok, "[%s] %s: P_A %.5f [%.5f, %.5f], P_B %.5f [%.5f, %.5f], certified "
		  "|ln ratio| %.3f > bound %.3f", label, name, pa, loa, hia, pb, lob, hib, cert,
		  bound);
	if (exact)
	{
		/* The sampler and the reading agree with the exact law. */
		CHECK(exact_a >= loa && exact_a <= hia && exact_b >= lob && exact_b <= hib,
			  "[%s] %s: exact (%.5f, %.5f) outside the intervals", label, name,
			  exact_a, exact_b);
	}
}

static void
judge_header(const char *label)
{
	printf("[%s] %-34s %6s %8s %-19s %8s %-19s %7s %6s %7s  %s\n", label, "event", "L",
		   "P_A", "  [lo, hi]", "P_B", "  [lo, hi]", "ln A/B", "cert", "exact", "verdict");
}

/* ---- more mechanisms: a generic event list ---- */

#define MAX_GEV 96
#define MAX_MOVED 48
#define MAX_READ 256
#define HD_DIM_MAX 8

/*
 * Epsilon of the hd l1 suite: each moved node's sums then cost about 0.75,
 * enough for its tight events to catch twice the claimed loss in quick mode.
 */
#define HD_L1_EPS 12.0

/* An event of a suite: its loss bound and hits under A and under B. */
typedef struct GEvent
{
	char		name[48];
	double		bound;
	long		na,
				nb,
				n;
	bool		exact;
	double		exact_a,
				exact_b;
} GEvent;

typedef struct Suite
{
	char		label[24];
	GEvent		ev[MAX_GEV];
	int			nev;
	long		runs;
	double		seconds;
} Suite;

/* Register an event with loss bound `bound`; returns its index. */
static int
gev_add(Suite *s, double bound, const char *fmt, int a, int b)
{
	GEvent	   *e;

	if (s->nev == MAX_GEV)
	{
		CHECK(false, "[%s] too many events", s->label);
		return MAX_GEV - 1;
	}
	e = &s->ev[s->nev];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), fmt, a, b);
	e->bound = bound;
	return s->nev++;
}

/* Count one run's outcome of event i under A and under B. */
static void
gev_hit(Suite *s, int i, bool in_a, bool in_b)
{
	s->ev[i].na += in_a;
	s->ev[i].nb += in_b;
	s->ev[i].n++;
}

static void
suite_judge(const Suite *s)
{
	int			i;

	printf("\n[%s] %ld + %ld runs in %.1f s\n", s->label, s->runs, s->runs, s->seconds);
	judge_header(s->label);
	for (i = 0; i < s->nev; i++)
		judge(s->label, s->ev[i].name, s->ev[i].bound, s->ev[i].na, s->ev[i].nb,
			  s->ev[i].n, s->ev[i].exact, s->ev[i].exact_a, s->ev[i].exact_b);
}

/*
 * A moved tree node of a one-cell stream: B = A plus one point inserted at
 * release `ins` (deleted again at `del`, 0 never) shifts node (level, index)
 * by delta; its noise is read as release tp minus release tm (tm = 0: none).
 */
typedef struct LNode
{
	int			level;
	uint32_t	index;
	int			delta;
	uint32_t	tp,
				tm;
} LNode;

/* The signed node list of release t (t = 0: empty). */
static int
decomp(uint32_t t, int *lv, uint32_t *ix, int *sg)
{
	return t == 0 ? 0 : dpk_tree_decompose(t, lv, ix, sg);
}

/* Is the signed decomposition of a minus that of b exactly +node? */
static bool
differs_by(uint32_t a, uint32_t b, int level, uint32_t index)
{
	int			la[34],
				sa[34],
				lb[34],
				sb[34],
				na,
				nb,
				i,
				j,
				found = 0;
	uint32_t	ia[34],
				ib[34];

	na = decomp(a, la, ia, sa);
	nb = decomp(b, lb, ib, sb);
	/* every node of a must be matched in b except the one, with +1 */
	for (i = 0; i < na; i++)
	{
		bool		matched = false;

		for (j = 0; j < nb && !matched; j++)
			if (la[i] == lb[j] && ia[i] == ib[j] && sa[i] == sb[j])
				matched = true;
		if (!matched)
		{
			if (la[i] == level && ia[i] == index && sa[i] == 1)
				found++;
			else
				return false;
		}
	}
	for (j = 0; j < nb; j++)
	{
		bool		matched = false;

		for (i = 0; i < na && !matched; i++)
			if (la[i] == lb[j] && ia[i] == ib[j] && sa[i] == sb[j])
				matched = true;
		if (!matched)
		{
			if (lb[j] == level && ib[j] == index && sb[j] == -1)
				found++;
			else
				return false;
		}
	}
	return found == 1;
}

/*
 * The nodes that releases 1..T use: used[l][i] for node (l, i), l < h,
 * 1 <= i <= T (one allocation; free used[0]).
 */
static bool **
used_nodes(uint32_t T, int *h_out)
{
	int			h = dpk_tree_height(T),
				l,
				a;
	bool	  **used = malloc(sizeof(bool *) * h);
	bool	   *all = calloc((size_t) h * (T + 2), sizeof(bool));
	uint32_t	t;

	if (!used || !all)
		abort();
	for (l = 0; l < h; l++)
		used[l] = all + (size_t) l * (T + 2);
	for (t = 1; t <= T; t++)
	{
		int			lv[34],
					sg[34],
					n;
		uint32_t	ix[34];

		n = decomp(t, lv, ix, sg);
		for (a = 0; a < n; a++)
			if (lv[a] < h && ix[a] <= T + 1)
				used[lv[a]][ix[a]] = true;
	}
	*h_out = h;
	return used;
}

/*
 * The used nodes whose value B shifts (B = A plus one point from release
 * ins until release del, 0 never): the used nodes holding ins but not del,
 * delta +1, and those holding del but not ins, delta -1.  With `read`,
 * each also gets a pair of releases reading it off (*readable: all found).
 */
static int
moved_nodes_used(uint32_t T, bool **used, int h, uint32_t ins, uint32_t del, LNode *out,
				 int max, bool read, bool *readable)
{
	int			n = 0,
				l,
				u;

	*readable = true;
	for (l = 0; l < h; l++)
	{
		uint32_t	ii = ((ins - 1) >> l) + 1,
					id = del ? ((del - 1) >> l) + 1 : 0;

		if (ii != id && ii <= T + 1 && used[l][ii] && n < max)
		{
			out[n].level = l;
			out[n].index = ii;
			out[n].delta = 1;
			n++;
		}
		if (del && ii != id && id <= T + 1 && used[l][id] && n < max)
		{
			out[n].level = l;
			out[n].index = id;
			out[n].delta = -1;
			n++;
		}
	}
	for (u = 0; u < n && read; u++)
	{
		bool		found = false;
		uint32_t	tp,
					tm;
		int64_t		w = (int64_t) 4 << out[u].level;

		out[u].tp = out[u].tm = 0;
		for (tp = 1; tp <= T && !found; tp++)
		{
			int64_t		lo = (int64_t) tp - w,
						hi = (int64_t) tp + w;

			for (tm = (uint32_t) (lo < 0 ? 0 : lo); (int64_t) tm <= hi && tm <= T && !found; tm++)
				if (tm != tp && differs_by(tp, tm, out[u].level, out[u].index))
				{
					out[u].tp = tp;
					out[u].tm = tm;
					found = true;
				}
		}
		if (!found)
			*readable = false;
	}
	return n;
}

/* moved_nodes_used for a horizon, with the pairs reading each node. */
static int
moved_nodes(uint32_t T, uint32_t ins, uint32_t del, LNode *out, int max, bool *readable)
{
	int			h,
				n;
	bool	  **used = used_nodes(T, &h);

	n = moved_nodes_used(T, used, h, ins, del, out, max, true, readable);
	free(used[0]);
	free(used);
	return n;
}

/*
 * The insertion and later deletion (ins < del <= T) that move the most
 * used nodes (each by 1, so the most loss); the first such pair.
 */
static void
worst_pair(uint32_t T, uint32_t *ins, uint32_t *del)
{
	LNode		nodes[MAX_MOVED];
	uint32_t	i,
				j;
	int			best = -1,
				h;
	bool		readable;
	bool	  **used = used_nodes(T, &h);

	for (i = 1; i < T; i++)
		for (j = i + 1; j <= T; j++)
		{
			int			m = moved_nodes_used(T, used, h, i, j, nodes, MAX_MOVED, false,
											 &readable);

			if (m > best)
			{
				best = m;
				*ins = i;
				*del = j;
			}
		}
	free(used[0]);
	free(used);
}

/* The releases a node list is read from, sorted and distinct (with 0 left out). */
static int
read_releases(const LNode *nodes, int n, const uint32_t *extra, int nextra, uint32_t *out)
{
	int			m = 0,
				i,
				j;
	uint32_t	cand[2 * MAX_MOVED + 16];

	for (i = 0; i < n; i++)
	{
		cand[m++] = nodes[i].tp;
		if (nodes[i].tm)
			cand[m++] = nodes[i].tm;
	}
	for (i = 0; i < nextra; i++)
		cand[m++] = extra[i];
	for (i = 1; i < m; i++)
		for (j = i; j > 0 && cand[j] < cand[j - 1]; j--)
		{
			uint32_t	x = cand[j];

			cand[j] = cand[j - 1];
			cand[j - 1] = x;
		}
	n = 0;
	for (i = 0; i < m; i++)
		if (n == 0 || cand[i] != out[n - 1])
			out[n++] = cand[i];
	return n;
}

/* Index of release t in a sorted list (-1: absent). */
static int
rel_index(const uint32_t *ts, int n, uint32_t t)
{
	int			i;

	for (i = 0; i < n; i++)
		if (ts[i] == t)
			return i;
	return -1;
}

/* P[N >= j] of a discrete Laplace with parameter q = e^{-1/b}, j >= 0 (N symmetric). */
static double
dl_tail(double q, int j)
{
	return pow(q, j) / (1.0 + q);
}

/*
 * The tight events of nodes read one by one with discrete Laplace noise of
 * ratio q: every node at least |delta| + offs[a] above its A value (and at
 * most -offs[a]), a = 0..2.  Their probabilities under A and B are products
 * of tails, and the log ratio is exactly L = sum |delta| / b.
 */
static void
node_tail_events(Suite *s, double L, double q, const LNode *nodes, int n, const int *offs,
				 const char *what, int *ev_up, int *ev_down)
{
	char		fmt_up[48],
				fmt_down[48];
	int			a,
				u;

	snprintf(fmt_up, sizeof(fmt_up), "%s nodes >= A+|d|+%%d%%.0d", what);
	snprintf(fmt_down, sizeof(fmt_down), "%s nodes <= A-%%d%%.0d", what);
	for (a = 0; a < 3; a++)
	{
		GEvent	   *up,
				   *down;

		ev_up[a] = gev_add(s, L, fmt_up, offs[a], 0);
		ev_down[a] = gev_add(s, L, fmt_down, offs[a], 0);
		up = &s->ev[ev_up[a]];
		down = &s->ev[ev_down[a]];
		up->exact = down->exact = true;
		up->exact_a = up->exact_b = down->exact_a = down->exact_b = 1.0;
		for (u = 0; u < n; u++)
		{
			int			m = abs(nodes[u].delta);

			up->exact_a *= dl_tail(q, m + offs[a]);
			up->exact_b *= dl_tail(q, offs[a]);
			down->exact_a *= dl_tail(q, offs[a]);
			down->exact_b *= dl_tail(q, m + offs[a]);
		}
	}
}

/*
 * The cube mechanism's tight event for one node: with s the node's shift,
 * ||v - s||_inf + ||s||_inf = ||v||_inf (v and s aligned), and
 * ||v - s||_inf >= floor; on it the density ratio of B to A is exactly
 * exp(||s||_inf / b).
 */
static bool
cube_aligned(const int64_t *v, const int64_t *s, int d, int64_t floor_)
{
	int64_t		nv = 0,
				nvs = 0,
				ns = 0;
	int			j;

	for (j = 0; j < d; j++)
	{
		int64_t		a = v[j] < 0 ? -v[j] : v[j],
					b = v[j] - s[j] < 0 ? s[j] - v[j] : v[j] - s[j],
					c = s[j] < 0 ? -s[j] : s[j];

		nv = a > nv ? a : nv;
		nvs = b > nvs ? b : nvs;
		ns = c > ns ? c : ns;
	}
	return nvs + ns == nv && nvs >= floor_;
}

/* ---- suite: one live cell at horizon T, counts and cube sums ---- */

/*
 * One cell of the low-d live mechanism over releases 1..T: A leaves it
 * empty, B holds one point (fixed-point offsets rel) from release ins until
 * release del (the insertion and later deletion that move the most tree
 * nodes, insert_delete accounting).  Each read release is exactly
 * true value + dpk_cell_noise, as dpk_live_noisy_histogram makes it.
 */
typedef struct CellSuite
{
	Suite		s;
	uint32_t	T;
	uint32_t	ins,
				del;
	DpkLiveConfig nominal,
				mech;
	LNode		nodes[MAX_MOVED];
	int			nnodes;
	uint32_t	ts[MAX_READ];
	int			nts;
	int64_t		rel[DIM];
	double		l_count,
				l_sum;
	int			ev_up[3],
				ev_down[3],
				ev_cube[2],
				ev_joint,
				ev_pair[4],
				ev_sub[2];
	int			nsub;			/* the first nsub moved nodes, for ev_sub */
	double		l_sub;
	uint32_t	pair[2][2];
} CellSuite;

static void
cell_suite_setup(CellSuite *cs, uint32_t T, double weaken, bool weaken_deletes)
{
	static const int offs[3] = {0, 1, 3};
	bool		readable;
	double		b_count,
				b_sum,
				q;
	int			i,
				u;
	uint32_t	extra[4];

	memset(cs, 0, sizeof(*cs));
	snprintf(cs->s.label, sizeof(cs->s.label), "cell T=%u", T);
	cs->T = T;
	worst_pair(T, &cs->ins, &cs->del);
	dpk_live_defaults(&cs->nominal, DIM, KCLUST, EPSILON, T, false);
	cs->nominal.level = LEVEL;
	/* the binary tree of tables attached before the k-ary trees */
	cs->nominal.arity = DPK_TREE_ARITY_BINARY;
	/* ... which draw their sums' noise for offsets from the cell's corner */
	cs->nominal.centred_offsets = false;
	/* reads nodes off signed releases: the per-node noise, estimator aside */
	cs->nominal.estimator = DPK_TREE_SIGNED;
	cs->mech = cs->nominal;
	cs->mech.epsilon = EPSILON * weaken;
	if (weaken_deletes)
		cs->mech.insert_only = true;
	cs->nnodes = moved_nodes(T, cs->ins, cs->del, cs->nodes, MAX_MOVED, &readable);
	CHECK(readable && cs->nnodes > 0, "[%s] moved nodes not readable", cs->s.label);
	cs->rel[0] = 1000;			/* near the top of the cell: the largest shift */
	cs->rel[1] = 700;
	cs->pair[0][0] = T / 4;
	cs->pair[0][1] = T / 2;
	cs->pair[1][0] = T - 1;
	cs->pair[1][1] = T;
	extra[0] = T / 4;
	extra[1] = T / 2;
	extra[2] = T - 1;
	extra[3] = T;
	cs->nts = read_releases(cs->nodes, cs->nnodes, extra, 4, cs->ts);

	b_count = dpk_scale_value(dpk_live_count_scale(&cs->nominal));
	b_sum = dpk_scale_value(dpk_live_sum_scale(&cs->nominal));
	for (u = 0; u < cs->nnodes; u++)
	{
		cs->l_count += abs(cs->nodes[u].delta) / b_count;
		cs->l_sum += abs(cs->nodes[u].delta) * 1000.0 / b_sum;
	}
	CHECK(cs->l_count <= EPSILON * (1.0 - cs->nominal.sum_share) + 1e-12 &&
		  cs->l_count + cs->l_sum <= EPSILON + 1e-12, "[%s] loss above the budget",
		  cs->s.label);
	printf("[%s] worst pair: insert at %u, delete at %u: %d moved nodes of the 2h = %d the "
		   "sensitivity pays for; L_count = %.4f, L_sum = %.4f; %d releases read\n",
		   cs->s.label, cs->ins, cs->del, cs->nnodes,
		   2 * dpk_tree_height(T), cs->l_count, cs->l_sum, cs->nts);

	q = exp(-1.0 / dpk_scale_value(dpk_live_count_scale(&cs->mech)));
	node_tail_events(&cs->s, cs->l_count, q, cs->nodes, cs->nnodes, offs, "moved",
					 cs->ev_up, cs->ev_down);
	/* with many moved nodes the all-node events are rare: also the first 3 */
	cs->nsub = cs->nnodes < 3 ? cs->nnodes : 3;
	for (u = 0; u < cs->nsub; u++)
		cs->l_sub += abs(cs->nodes[u].delta) / b_count;
	for (i = 0; i < 2; i++)
	{
		GEvent	   *e;

		cs->ev_sub[i] = gev_add(&cs->s, cs->l_sub, i ? "first %d moved nodes <= A%.0d"
								: "first %d moved nodes >= A+|d|%.0d", cs->nsub, 0);
		e = &cs->s.ev[cs->ev_sub[i]];
		e->exact = true;
		e->exact_a = e->exact_b = 1.0;
		for (u = 0; u < cs->nsub; u++)
		{
			int			m = abs(cs->nodes[u].delta);

			e->exact_a *= dl_tail(q, i ? 0 : m);
			e->exact_b *= dl_tail(q, i ? m : 0);
		}
	}
	cs->ev_cube[0] = gev_add(&cs->s, cs->l_sum, "sums: every moved node aligned%.0d%.0d", 0, 0);
	cs->ev_cube[1] = gev_add(&cs->s, cs->l_sum, "sums: aligned, |v-s|>=b%.0d%.0d", 0, 0);
	cs->ev_joint = gev_add(&cs->s, cs->l_count + cs->l_sum,
						   "counts up & sums aligned%.0d%.0d", 0, 0);
	for (i = 0; i < 2; i++)
	{
		cs->ev_pair[2 * i] = gev_add(&cs->s, cs->l_count, "y%d>0 & y%d>0",
									 (int) cs->pair[i][0], (int) cs->pair[i][1]);
		cs->ev_pair[2 * i + 1] = gev_add(&cs->s, cs->l_count, "y%d<=0 & y%d<=0",
										 (int) cs->pair[i][0], (int) cs->pair[i][1]);
	}
}

/* One run on one stream: the read releases' noisy count and sums of the cell. */
static void
cell_suite_run(const CellSuite *cs, bool is_b, const uint8_t key[DPK_KEY_BYTES],
			   int64_t (*val)[1 + DIM])
{
	DpkStream	st = {0};
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	DpkScale	csc = dpk_live_count_scale(&cs->mech),
				ssc = dpk_live_sum_scale(&cs->mech);
	int			i,
				j;

	if (!dpk_stream_open(&st, key, nonce))
		exit(2);
	for (i = 0; i < cs->nts; i++)
	{
		uint32_t	t = cs->ts[i];
		bool		holds = is_b && t >= cs->ins && (cs->del == 0 || t < cs->del);

		dpk_cell_noise(&st, &(DpkCellKey) {key, cs->mech.level, 42}, t,
					   &(DpkCellScales) {DIM, csc, ssc, DPK_SUMS_VECTOR},
					   val[i]);
		if (holds)
		{
			val[i][0] += 1;
			for (j = 0; j < DIM; j++)
				val[i][1 + j] += cs->rel[j];
		}
	}
	dpk_stream_close(&st);
}

/* The events of one run (A's true values are all zero). */
static void
cell_suite_eval(const CellSuite *cs, int64_t (*val)[1 + DIM], bool *hit)
{
	static const int offs[3] = {0, 1, 3};
	bool		up[3] = {true, true, true},
				down[3] = {true, true, true},
				sub_up = true,
				sub_down = true,
				cube = true,
				cube_far = true;
	int			u,
				i,
				j;
	int64_t		b_sum = (int64_t) ceil(dpk_scale_value(dpk_live_sum_scale(&cs->nominal)));

	for (u = 0; u < cs->nnodes; u++)
	{
		const LNode *nd = &cs->nodes[u];
		int			ip = rel_index(cs->ts, cs->nts, nd->tp),
					im = nd->tm ? rel_index(cs->ts, cs->nts, nd->tm) : -1;
		int64_t		v[1 + DIM],
					s[DIM];
		int64_t		sign = nd->delta > 0 ? 1 : -1;

		for (j = 0; j <= DIM; j++)
			v[j] = val[ip][j] - (im >= 0 ? val[im][j] : 0);
		for (i = 0; i < 3; i++)
		{
			if (v[0] * sign < abs(nd->delta) + offs[i])
				up[i] = false;
			if (v[0] * sign > -offs[i])
				down[i] = false;
		}
		if (u < cs->nsub && v[0] * sign < abs(nd->delta))
			sub_up = false;
		if (u < cs->nsub && v[0] * sign > 0)
			sub_down = false;
		for (j = 0; j < DIM; j++)
			s[j] = nd->delta * cs->rel[j];
		if (!cube_aligned(v + 1, s, DIM, 0))
			cube = false;
		if (!cube_aligned(v + 1, s, DIM, b_sum))
			cube_far = false;
	}
	for (i = 0; i < 3; i++)
	{
		hit[cs->ev_up[i]] = up[i];
		hit[cs->ev_down[i]] = down[i];
	}
	hit[cs->ev_sub[0]] = sub_up;
	hit[cs->ev_sub[1]] = sub_down;
	hit[cs->ev_cube[0]] = cube;
	hit[cs->ev_cube[1]] = cube && cube_far;
	hit[cs->ev_joint] = up[0] && cube;
	for (i = 0; i < 2; i++)
	{
		int			a = rel_index(cs->ts, cs->nts, cs->pair[i][0]),
					b = rel_index(cs->ts, cs->nts, cs->pair[i][1]);

		hit[cs->ev_pair[2 * i]] = val[a][0] > 0 && val[b][0] > 0;
		hit[cs->ev_pair[2 * i + 1]] = val[a][0] <= 0 && val[b][0] <= 0;
	}
}

static void
cell_suite_go(CellSuite *cs, long runs, uint64_t key_base)
{
	int64_t		(*va)[1 + DIM] = malloc(sizeof(*va) * MAX_READ);
	int64_t		(*vb)[1 + DIM] = malloc(sizeof(*vb) * MAX_READ);
	bool		ha[MAX_GEV],
				hb[MAX_GEV];
	double		t0 = now_seconds();
	long		r;
	int			i;

	for (r = 1; r <= runs; r++)
	{
		uint8_t		key[DPK_KEY_BYTES];

		dpk_key_from_seed(key_base + ((uint64_t) 1 << 44) + (uint64_t) r, key);
		cell_suite_run(cs, false, key, va);
		dpk_key_from_seed(key_base + ((uint64_t) 1 << 44) + B_SEED_OFFSET + (uint64_t) r, key);
		cell_suite_run(cs, true, key, vb);
		cell_suite_eval(cs, va, ha);
		cell_suite_eval(cs, vb, hb);
		for (i = 0; i < cs->s.nev; i++)
			gev_hit(&cs->s, i, ha[i], hb[i]);
	}
	cs->s.runs = runs;
	cs->s.seconds = now_seconds() - t0;
	free(va);
	free(vb);
}

#include "privacy_kary.h"
#include "privacy_share.h"

/* ---- suite: a projected (high-d) live table ---- */

/*
 * A live table in projected mode (dpk_live_use_projection, then copies,
 * shares and level set here): A holds NBASE_HD base points from release 1
 * on, B also the extra point u from release ins until release del.  The
 * extra point's cell in every copy (count and d lifting sums) and the norm
 * counter are read at the read releases exactly as dpk_live_noisy_projected
 * computes them (checked equal in every full run); a full run also makes
 * the whole release at T and records the centres.
 */
#define NBASE_HD 40

typedef struct HdSuite
{
	Suite		s;
	int			d;
	uint32_t	T;
	uint32_t	ins,
				del;
	bool		fallback;		/* the sums take the Laplace fallback */
	bool		l1;				/* per-coordinate sums at the box's l1 bound */
	int			wide;			/* l1: the coordinate of the widest side */
	DpkLiveConfig nominal,
				mech;
	DpkBox		box;
	double		lower[64],
				upper[64];
	double		u[64];			/* the extra point, normalized */
	int64_t		q[64];			/* its lifting contribution */
	int64_t		qnorm;
	uint64_t	cell[4];		/* its cell in each copy */
	DpkCellMap	state_a,
				state_b;
	LNode		nodes[MAX_MOVED];
	int			nnodes;
	uint32_t	ts[MAX_READ];
	int			nts;
	double		l_count1,		/* one copy's count */
				l_sum1,			/* one copy's sums */
				l_norm;
	int			ev_up[2],
				ev_down,
				ev_both,
				ev_cube,
				ev_norm[2],
				ev_joint,
				ev_fb_up[MAX_MOVED],
				ev_fb_down[MAX_MOVED],
				ev_centre[2][5],
				ev_l1_up[MAX_MOVED],
				ev_l1_down[MAX_MOVED],
				ev_w1_up[MAX_MOVED],
				ev_w1_down[MAX_MOVED],
				ev_wide_up,
				ev_wide_down;
	long		mismatch;
} HdSuite;

/* Add one normalized point to a projected state (as the triggers do). */
static void
hd_add(const HdSuite *hs, DpkCellMap *state, const double *u, int sign)
{
	double		t[4 * 16];
	int			r;

	for (r = 0; r < hs->nominal.copies; r++)
	{
		DpkProjection p;

		dpk_projection_init(&p, hs->d, hs->nominal.dhat,
							dpk_projection_copy_seed(hs->nominal.proj_seed, r),
							hs->nominal.half_width);
		dpk_project_batch(&p, u, 1, t + r * hs->nominal.dhat);
		dpk_projection_free(&p);
	}
	dpk_live_add_projected(&hs->nominal, state, u, t, sign);
}

/*
 * The exact-probability tail events of the moved nodes (offset a): every
 * moved node's count past its A value by |delta| + a (likelihood ratio
 * exactly e^L_count) and every moved node's norm counter past it by |delta|
 * times the point's quantized squared norm (+ a scale's worth when a = 1).
 */
static void
hd_node_tail_events(HdSuite *hs, const char *count_fmt, double qc, double qn, int a)
{
	double		off = a ? 1.0 + floor(dpk_scale_value(dpk_live_norm_scale(&hs->nominal))) : 0.0;
	GEvent	   *e;
	int			i;

	hs->ev_up[a] = gev_add(&hs->s, hs->l_count1, count_fmt, a, 0);
	e = &hs->s.ev[hs->ev_up[a]];
	e->exact = true;
	e->exact_a = e->exact_b = 1.0;
	for (i = 0; i < hs->nnodes; i++)
	{
		e->exact_a *= dl_tail(qc, abs(hs->nodes[i].delta) + a);
		e->exact_b *= dl_tail(qc, a);
	}
	hs->ev_norm[a] = gev_add(&hs->s, hs->l_norm, "norm nodes >= A+|d|q2+%d%.0d", (int) off, 0);
	e = &hs->s.ev[hs->ev_norm[a]];
	e->exact = true;
	e->exact_a = e->exact_b = 1.0;
	for (i = 0; i < hs->nnodes; i++)
	{
		e->exact_a *= pow(qn, abs(hs->nodes[i].delta) * (double) hs->qnorm + off) / (1.0 + qn);
		e->exact_b *= pow(qn, off) / (1.0 + qn);
	}
}

/*
 * The neighbouring streams of a high-d suite, once hs->nominal, hs->u (the
 * extra point), hs->ins and hs->del are set: the extra point's cell in each
 * copy; A and B with NBASE_HD base points of two tight groups (moved to
 * metric positions of hs->box when `metric`), B with the extra point too;
 * the tree nodes the pair moves and the releases that read them.
 */
static void
hd_streams(HdSuite *hs, const char *label, int copies, bool metric, uint64_t st)
{
	int			d = hs->d,
				i,
				j,
				r;
	bool		readable;
	uint32_t	extra[1];
	int64_t		idx[16];

	for (r = 0; r < copies; r++)
	{
		DpkProjection p;
		double		t[16];

		dpk_projection_init(&p, d, hs->nominal.dhat,
							dpk_projection_copy_seed(hs->nominal.proj_seed, r),
							hs->nominal.half_width);
		dpk_project_batch(&p, hs->u, 1, t);
		hs->cell[r] = dpk_grid_cell(hs->nominal.dhat, 1 << hs->nominal.level, t, idx, NULL);
		dpk_projection_free(&p);
	}
	dpk_cellmap_init(&hs->state_a, d);
	dpk_cellmap_init(&hs->state_b, d);
	for (i = 0; i < NBASE_HD; i++)
	{
		double		v[64];

		for (j = 0; j < d; j++)
			v[j] = (i % 2 ? 0.25 : 0.7) + 0.1 * (unif(&st) - 0.5);
		if (metric)
		{
			dpk_box_to_metric(&hs->box, v);
			dpk_box_ball_clamp(d, hs->nominal.ball, v);	/* the trigger's */
		}
		hd_add(hs, &hs->state_a, v, 1);
		hd_add(hs, &hs->state_b, v, 1);
	}
	hd_add(hs, &hs->state_b, hs->u, 1);

	hs->nnodes = moved_nodes(hs->T, hs->ins, hs->del, hs->nodes, MAX_MOVED, &readable);
	CHECK(readable && hs->nnodes > 0, "[%s] moved nodes not readable", label);
	extra[0] = hs->T;
	hs->nts = read_releases(hs->nodes, hs->nnodes, extra, 1, hs->ts);
}

static void
hd_suite_setup(HdSuite *hs, const char *label, int d, int copies, uint32_t T, bool deletes,
			   double eps, double sum_share, double norm_share, const double *u,
			   double weaken, bool weaken_deletes)
{
	int			i,
				j,
				w;
	double		b_count,
				b_sum,
				b_norm,
				qmax = 0.0;

	memset(hs, 0, sizeof(*hs));
	snprintf(hs->s.label, sizeof(hs->s.label), "%s", label);
	hs->d = d;
	hs->T = T;
	dpk_live_defaults(&hs->nominal, d, KCLUST, eps, T, !deletes);
	dpk_live_use_projection(&hs->nominal, 4242);
	hs->nominal.copies = copies;
	hs->nominal.sum_share = sum_share;
	hs->nominal.norm_share = norm_share;
	hs->nominal.level = 1;
	/* the binary tree (privacy_kary.h tests the k-ary one) */
	hs->nominal.arity = DPK_TREE_ARITY_BINARY;
	/* reads nodes off signed releases: the per-node noise, estimator aside */
	hs->nominal.estimator = DPK_TREE_SIGNED;
	hs->mech = hs->nominal;
	hs->mech.epsilon = eps * weaken;
	if (weaken_deletes && deletes)
		hs->mech.insert_only = true;
	hs->fallback = !dpk_cube_noise_usable(dpk_live_sum_scale(&hs->nominal), d);
	for (j = 0; j < d; j++)
	{
		hs->lower[j] = 0.0;
		hs->upper[j] = 10.0;
		hs->u[j] = u[j];
	}
	hs->box.d = d;
	hs->box.lower = hs->lower;
	hs->box.upper = hs->upper;
	if (deletes)
		worst_pair(T, &hs->ins, &hs->del);
	else
	{
		hs->ins = T;			/* the last release: 2 moved nodes at T = 2^k */
		hs->del = 0;
	}

	hs->qnorm = dpk_lift_quantize(d, hs->u, hs->q);
	for (j = 0; j < d; j++)
		qmax = fmax(qmax, fabs((double) hs->q[j]));
	hd_streams(hs, label, copies, false, 777);

	b_count = dpk_scale_value(dpk_live_count_scale(&hs->nominal));
	b_sum = dpk_scale_value(dpk_live_sum_scale(&hs->nominal));
	b_norm = dpk_scale_value(dpk_live_norm_scale(&hs->nominal));
	for (i = 0; i < hs->nnodes; i++)
	{
		int			m = abs(hs->nodes[i].delta);

		hs->l_count1 += m / b_count;
		hs->l_sum1 += m * qmax / b_sum;
		if (norm_share > 0.0)
			hs->l_norm += m * (double) hs->qnorm / b_norm;
	}
	CHECK(copies * (hs->l_count1 + hs->l_sum1) + hs->l_norm <= eps + 1e-9,
		  "[%s] loss %g above epsilon %g", label,
		  copies * (hs->l_count1 + hs->l_sum1) + hs->l_norm, eps);
	printf("[%s] d = %d, dhat = %d, %d copies, level %d, T = %u, insert at %u, delete at "
		   "%u, %d moved nodes; sums: %s (b_sum = %.3f, d/4 = %.2f); per copy L_count = "
		   "%.4f, L_sum = %.4f; L_norm = %.4f; total %.4f of epsilon %g\n", label, d,
		   hs->nominal.dhat, copies, hs->nominal.level, T, hs->ins, hs->del, hs->nnodes,
		   hs->fallback ? "Laplace fallback" : "cube", b_sum, d / 4.0, hs->l_count1,
		   hs->l_sum1, hs->l_norm, copies * (hs->l_count1 + hs->l_sum1) + hs->l_norm, eps);

	if (hs->fallback)
	{
		/* per node: every coordinate past its shift (or below), exact */
		double		ql = exp(-1.0 / dpk_scale_value(dpk_vector_l1_scale(dpk_live_sum_scale(&hs->mech), d)));

		for (i = 0; i < hs->nnodes && i < MAX_MOVED; i++)
		{
			GEvent	   *e;
			double		li = abs(hs->nodes[i].delta) * qmax / b_sum;

			hs->ev_fb_up[i] = gev_add(&hs->s, li, "node %d: every sum >= shift%.0d", i, 0);
			hs->ev_fb_down[i] = gev_add(&hs->s, li, "node %d: every sum <= 0%.0d", i, 0);
			e = &hs->s.ev[hs->ev_fb_up[i]];
			e->exact = true;
			e->exact_a = e->exact_b = 1.0;
			for (j = 0; j < d; j++)
			{
				int			sj = (int) llabs(hs->q[j]) * abs(hs->nodes[i].delta);

				e->exact_a *= dl_tail(ql, sj);
				e->exact_b *= dl_tail(ql, 0);
			}
			e = &hs->s.ev[hs->ev_fb_down[i]];
			e->exact = true;
			e->exact_a = e->exact_b = 1.0;
			for (j = 0; j < d; j++)
			{
				int			sj = (int) llabs(hs->q[j]) * abs(hs->nodes[i].delta);

				e->exact_a *= dl_tail(ql, 0);
				e->exact_b *= dl_tail(ql, sj);
			}
		}
		return;
	}

	{
		double		qc = exp(-1.0 / dpk_scale_value(dpk_live_count_scale(&hs->mech)));
		double		qn = exp(-1.0 / dpk_scale_value(dpk_live_norm_scale(&hs->mech)));
		int			a;

		for (a = 0; a < 2; a++)
			hd_node_tail_events(hs, "copy 0 count nodes >= A+|d|+%d%.0d", qc, qn, a);
		hs->ev_down = gev_add(&hs->s, hs->l_count1, "copy 0 count nodes <= A%.0d%.0d", 0, 0);
		hs->ev_both = gev_add(&hs->s, copies * hs->l_count1, "every copy's count nodes >= A+|d|%.0d%.0d", 0, 0);
		hs->ev_cube = gev_add(&hs->s, hs->l_sum1, "copy 0 sums: nodes aligned%.0d%.0d", 0, 0);
		hs->ev_joint = gev_add(&hs->s, hs->l_count1 + hs->l_sum1 + hs->l_norm,
							   "copy 0 count & sums & norm%.0d%.0d", 0, 0);
		for (i = 0; i < 2; i++)
			for (w = 0; w < 5; w++)
				hs->ev_centre[i][w] = gev_add(&hs->s, copies * (hs->l_count1 + hs->l_sum1) + hs->l_norm,
											  i ? "max c0(T) bucket %d%.0d" : "min c0(T) bucket %d%.0d",
											  w, 0);
	}
}

/*
 * A projected table in metric positions whose box has one wide side
 * (dpk_live_use_box: 4 projected dimensions, sum_l1 > 0, the sums' share
 * DPK_LIVE_L1_SUM_SHARE, one discrete Laplace per coordinate of the lifting
 * sums at the l1 sensitivity), one copy, deletions, the worst pair at T.
 * The extra point is a corner of the box, mapped as the trigger maps it
 * (normalized, then dpk_box_to_metric), so its contribution q nearly
 * reaches the l1 bound.  A moved node's sums shift by delta_u q: "every
 * coordinate past its shift" has likelihood ratio exactly
 * exp(|delta_u| ||q||_1 / b_sum), the loss the l1 accounting claims; the
 * widest coordinate of every node at once, exp(sum_u |delta_u| |q_w| /
 * b_sum).  Counts, the norm counter and centres as in the suite above.
 */
static void
hd_l1_suite_setup(HdSuite *hs, const char *label, int d, const double *lower,
				  const double *upper, double norm_bound, uint32_t T, double eps,
				  double weaken, bool weaken_deletes)
{
	int			i,
				j,
				a,
				w;
	double		b_count,
				b_sum,
				b_norm,
				l1q = 0.0,
				l_wide = 0.0,
				x[64];
	double		qc,
				qs,
				qn;
	GEvent	   *e;

	memset(hs, 0, sizeof(*hs));
	snprintf(hs->s.label, sizeof(hs->s.label), "%s", label);
	hs->d = d;
	hs->T = T;
	hs->l1 = true;
	for (j = 0; j < d; j++)
	{
		hs->lower[j] = lower[j];
		hs->upper[j] = upper[j];
	}
	hs->box.d = d;
	hs->box.lower = hs->lower;
	hs->box.upper = hs->upper;
	dpk_live_defaults(&hs->nominal, d, KCLUST, eps, T, false);
	dpk_live_use_projection(&hs->nominal, 4242);
	/* a new table's choices for its box, the per-coordinate sums among them */
	dpk_live_use_ball(&hs->nominal, &hs->box, norm_bound);
	CHECK((norm_bound > 0.0) == (hs->nominal.ball > 0.0), "[%s] ball %g for norm bound %g",
		  label, hs->nominal.ball, norm_bound);
	dpk_live_use_box(&hs->nominal, &hs->box);
	hs->nominal.level = 1;
	hs->nominal.arity = DPK_TREE_ARITY_BINARY;
	hs->nominal.estimator = DPK_TREE_SIGNED;
	CHECK(hs->nominal.sum_l1 > 0.0 && hs->nominal.copies == 1 &&
		  dpk_live_sum_noise(&hs->nominal).coords,
		  "[%s] the box does not take per-coordinate sums", label);
	hs->mech = hs->nominal;
	hs->mech.epsilon = eps * weaken;
	if (weaken_deletes)
		hs->mech.insert_only = true;
	worst_pair(T, &hs->ins, &hs->del);

	/* the corner lower_0, upper_1, lower_2, ... in its metric position */
	for (j = 0; j < d; j++)
		x[j] = j % 2 ? upper[j] : lower[j];
	dpk_box_normalize(&hs->box, x, hs->u);
	dpk_box_to_metric(&hs->box, hs->u);
	/* with a ball: the corner moved onto it, as the trigger moves it */
	dpk_box_ball_clamp(d, hs->nominal.ball, hs->u);
	hs->qnorm = dpk_lift_quantize(d, hs->u, hs->q);
	for (j = 0; j < d; j++)
	{
		l1q += fabs((double) hs->q[j]);
		if (llabs(hs->q[j]) > llabs(hs->q[hs->wide]))
			hs->wide = j;
	}
	CHECK(l1q <= hs->nominal.sum_l1 && l1q >= 0.9 * hs->nominal.sum_l1,
		  "[%s] the corner's ||q||_1 = %g against sum_l1 %g", label, l1q, hs->nominal.sum_l1);
	hd_streams(hs, label, 1, true, 778);

	b_count = dpk_scale_value(dpk_live_count_scale(&hs->nominal));
	b_sum = dpk_scale_value(dpk_live_sum_scale(&hs->nominal));
	b_norm = dpk_scale_value(dpk_live_norm_scale(&hs->nominal));
	for (i = 0; i < hs->nnodes; i++)
	{
		int			m = abs(hs->nodes[i].delta);

		hs->l_count1 += m / b_count;
		hs->l_sum1 += m * l1q / b_sum;
		hs->l_norm += m * (double) hs->qnorm / b_norm;
		l_wide += m * fabs((double) hs->q[hs->wide]) / b_sum;
	}
	CHECK(hs->l_count1 + hs->l_sum1 + hs->l_norm <= eps + 1e-9, "[%s] loss %g above epsilon %g",
		  label, hs->l_count1 + hs->l_sum1 + hs->l_norm, eps);
	CHECK(hs->l_count1 <= eps * (1.0 - hs->nominal.sum_share - hs->nominal.norm_share) + 1e-9 &&
		  hs->l_sum1 <= eps * hs->nominal.sum_share + 1e-9,
		  "[%s] counts %g or sums %g above their shares", label, hs->l_count1, hs->l_sum1);
	printf("[%s] d = %d, dhat = %d, 1 copy, level %d, T = %u, insert at %u, delete at %u, "
		   "%d moved nodes; sums per coordinate at sum_l1 = %g (corner ||q||_1 = %g, "
		   "b_sum = %.3f, share %g); L_count = %.4f, L_sum = %.4f (widest coordinate %.4f), "
		   "L_norm = %.4f; total %.4f of epsilon %g\n", label, d, hs->nominal.dhat,
		   hs->nominal.level, T, hs->ins, hs->del, hs->nnodes, hs->nominal.sum_l1, l1q, b_sum,
		   hs->nominal.sum_share, hs->l_count1, hs->l_sum1, l_wide, hs->l_norm,
		   hs->l_count1 + hs->l_sum1 + hs->l_norm, eps);

	qc = exp(-1.0 / dpk_scale_value(dpk_live_count_scale(&hs->mech)));
	qs = exp(-1.0 / dpk_scale_value(dpk_live_sum_scale(&hs->mech)));
	qn = exp(-1.0 / dpk_scale_value(dpk_live_norm_scale(&hs->mech)));
	for (a = 0; a < 2; a++)
		hd_node_tail_events(hs, "count nodes >= A+|d|+%d%.0d", qc, qn, a);
	hs->ev_down = gev_add(&hs->s, hs->l_count1, "count nodes <= A%.0d%.0d", 0, 0);
	/*
	 * per node: every coordinate of the sums past its shift, or at most 0
	 * (the whole l1 loss of the node, rarer); its widest coordinate alone
	 * (well sampled)
	 */
	for (i = 0; i < hs->nnodes && i < MAX_MOVED; i++)
	{
		int			m = abs(hs->nodes[i].delta);
		double		li = m * l1q / b_sum,
					lw = m * fabs((double) hs->q[hs->wide]) / b_sum;

		hs->ev_w1_up[i] = gev_add(&hs->s, lw, "node %d: widest sum >= shift%.0d", i, 0);
		hs->ev_w1_down[i] = gev_add(&hs->s, lw, "node %d: widest sum <= 0%.0d", i, 0);
		e = &hs->s.ev[hs->ev_w1_up[i]];
		e->exact = true;
		e->exact_a = dl_tail(qs, (int) llabs(hs->q[hs->wide]) * m);
		e->exact_b = dl_tail(qs, 0);
		e = &hs->s.ev[hs->ev_w1_down[i]];
		e->exact = true;
		e->exact_a = dl_tail(qs, 0);
		e->exact_b = dl_tail(qs, (int) llabs(hs->q[hs->wide]) * m);

		hs->ev_l1_up[i] = gev_add(&hs->s, li, "node %d: every sum >= shift%.0d", i, 0);
		hs->ev_l1_down[i] = gev_add(&hs->s, li, "node %d: every sum <= 0%.0d", i, 0);
		e = &hs->s.ev[hs->ev_l1_up[i]];
		e->exact = true;
		e->exact_a = e->exact_b = 1.0;
		for (j = 0; j < d; j++)
		{
			e->exact_a *= dl_tail(qs, (int) llabs(hs->q[j]) * m);
			e->exact_b *= dl_tail(qs, 0);
		}
		e = &hs->s.ev[hs->ev_l1_down[i]];
		e->exact = true;
		e->exact_a = e->exact_b = 1.0;
		for (j = 0; j < d; j++)
		{
			e->exact_a *= dl_tail(qs, 0);
			e->exact_b *= dl_tail(qs, (int) llabs(hs->q[j]) * m);
		}
	}
	/* the widest coordinate of every moved node at once */
	hs->ev_wide_up = gev_add(&hs->s, l_wide, "every node: widest sum >= shift%.0d%.0d", 0, 0);
	hs->ev_wide_down = gev_add(&hs->s, l_wide, "every node: widest sum <= 0%.0d%.0d", 0, 0);
	e = &hs->s.ev[hs->ev_wide_up];
	e->exact = true;
	e->exact_a = e->exact_b = 1.0;
	for (i = 0; i < hs->nnodes; i++)
	{
		e->exact_a *= dl_tail(qs, (int) llabs(hs->q[hs->wide]) * abs(hs->nodes[i].delta));
		e->exact_b *= dl_tail(qs, 0);
	}
	e = &hs->s.ev[hs->ev_wide_down];
	e->exact = true;
	e->exact_a = e->exact_b = 1.0;
	for (i = 0; i < hs->nnodes; i++)
	{
		e->exact_a *= dl_tail(qs, 0);
		e->exact_b *= dl_tail(qs, (int) llabs(hs->q[hs->wide]) * abs(hs->nodes[i].delta));
	}
	/* node 0's count and sums together: its whole loss, exact */
	{
		int			m = abs(hs->nodes[0].delta);

		hs->ev_joint = gev_add(&hs->s, m / b_count + m * l1q / b_sum,
							   "node 0: count <= A, every sum <= 0%.0d%.0d", 0, 0);
		e = &hs->s.ev[hs->ev_joint];
		e->exact = true;
		e->exact_a = dl_tail(qc, 0);
		e->exact_b = dl_tail(qc, m);
		for (j = 0; j < d; j++)
		{
			e->exact_a *= dl_tail(qs, 0);
			e->exact_b *= dl_tail(qs, (int) llabs(hs->q[j]) * m);
		}
	}
	for (i = 0; i < 2; i++)
		for (w = 0; w < 5; w++)
			hs->ev_centre[i][w] = gev_add(&hs->s, hs->l_count1 + hs->l_sum1 + hs->l_norm,
										  i ? "max c0(T) bucket %d%.0d" : "min c0(T) bucket %d%.0d",
										  w, 0);
}

/* Values read in one run: per read release, per copy (1 + d), then the norm. */
typedef struct HdObs
{
	int64_t		v[MAX_READ][4][1 + 64];
	int64_t		norm[MAX_READ];
	double		c0lo,
				c0hi;
	bool		full;
} HdObs;

static void
hd_suite_run(HdSuite *hs, bool is_b, const uint8_t key[DPK_KEY_BYTES], bool full, HdObs *o)
{
	DpkStream	st = {0};
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	const DpkLiveConfig *cfg = &hs->mech;
	DpkScale	csc = dpk_live_count_scale(cfg),
				ssc = dpk_live_sum_scale(cfg),
				nsc = dpk_live_norm_scale(cfg);
	uint64_t	ncells = dpk_live_copy_cells(cfg);
	int			i,
				r,
				j,
				d = hs->d;

	if (!dpk_stream_open(&st, key, nonce))
		exit(2);
	o->full = full;
	for (i = 0; i < hs->nts; i++)
	{
		uint32_t	t = hs->ts[i];
		bool		holds = is_b && t >= hs->ins && (hs->del == 0 || t < hs->del);
		const DpkCellMap *state = holds ? &hs->state_b : &hs->state_a;
		const int64_t *nv = dpk_cellmap_find(state, DPK_LIVE_NORM_CELL(cfg));
		int64_t		noise[1];

		for (r = 0; r < cfg->copies; r++)
		{
			const int64_t *tv = dpk_cellmap_find(state, (uint64_t) r * ncells + hs->cell[r]);

			dpk_cell_noise(&st,
						   &(DpkCellKey) {key, cfg->level + 32 * r, hs->cell[r]},
						   t,
						   &(DpkCellScales) {d, csc, ssc, hs->l1 ? DPK_SUMS_COORDS : DPK_SUMS_VECTOR},
						   o->v[i][r]);
			for (j = 0; tv && j <= d; j++)
				o->v[i][r][j] += tv[j];
		}
		dpk_cell_noise(&st, &(DpkCellKey) {key, 255, 0}, t,
					   &(DpkCellScales) {0, nsc, csc, DPK_SUMS_NONE}, noise);
		o->norm[i] = noise[0] + (nv ? nv[0] : 0);
		if (full)
		{
			uint64_t	total = (uint64_t) cfg->copies * ncells;
			double	   *count = malloc(sizeof(double) * total);
			double	   *sum = malloc(sizeof(double) * total * d);
			double		sumnorm;
			bool		same;

			dpk_live_noisy_projected(cfg, key, state, t, &st, count, sum, &sumnorm);
			same = sumnorm == (double) o->norm[i];
			for (r = 0; r < cfg->copies; r++)
			{
				uint64_t	c = (uint64_t) r * ncells + hs->cell[r];

				same = same && count[c] == (double) o->v[i][r][0];
				for (j = 0; j < d; j++)
					same = same && sum[c * d + j] == (double) o->v[i][r][1 + j];
			}
			if (!same)
				hs->mismatch++;
			if (t == hs->T)
			{
				DpkLiveRelease rel;
				const double *c;
				double		u0,
							u1;

				dpk_live_cluster_projected(cfg, &hs->box, count, sum, sumnorm, t,
										   dpk_stream_u64(&st), &rel);
				c = rel.centers + (size_t) dpk_live_block(KCLUST) * d;
				u0 = (c[0] - hs->lower[0]) / (hs->upper[0] - hs->lower[0]);
				u1 = (c[d] - hs->lower[0]) / (hs->upper[0] - hs->lower[0]);
				o->c0lo = fmin(u0, u1);
				o->c0hi = fmax(u0, u1);
				dpk_live_release_free(&rel);
			}
			free(count);
			free(sum);
		}
	}
	dpk_stream_close(&st);
}

/*
 * A moved node's sums v (its d sums, A's true change subtracted) against
 * the extra point's shift delta q_j: whether every coordinate lies at or
 * past its shift (*up) or at or below 0 on the shift's side (*down); for
 * coordinate w >= 0 the same alone (*w_up, *w_down).
 */
static void
sums_past_shift(const HdSuite *hs, const LNode *nd, const int64_t *v, int w, bool *up,
				bool *down, bool *w_up, bool *w_down)
{
	int			j;

	*up = *down = true;
	for (j = 0; j < hs->d; j++)
	{
		int64_t		sj = nd->delta * hs->q[j],
					z = v[j] * (sj >= 0 ? 1 : -1),
					shift = sj < 0 ? -sj : sj;

		if (z < shift)
			*up = false;
		if (z > 0)
			*down = false;
		if (j == w)
		{
			*w_up = z >= shift;
			*w_down = z <= 0;
		}
	}
}

/* The events of one run; A's true values are subtracted when nodes are read. */
static void
hd_suite_eval(const HdSuite *hs, const HdObs *o, bool *hit)
{
	const DpkLiveConfig *cfg = &hs->nominal;
	int			d = hs->d,
				u,
				j,
				r,
				a;
	bool		up[2] = {true, true},
				down = true,
				both = true,
				cube = true,
				norm[2] = {true, true},
				wide_up = true,
				wide_down = true;
	uint64_t	ncells = dpk_live_copy_cells(cfg);
	int64_t		noff = 1 + (int64_t) floor(dpk_scale_value(dpk_live_norm_scale(cfg)));

	for (u = 0; u < hs->nnodes; u++)
	{
		const LNode *nd = &hs->nodes[u];
		int			ip = rel_index(hs->ts, hs->nts, nd->tp),
					im = nd->tm ? rel_index(hs->ts, hs->nts, nd->tm) : -1;
		int64_t		sign = nd->delta > 0 ? 1 : -1,
					m = abs(nd->delta);
		int64_t		v[4][1 + 64],
					s[64],
					nv;
		const int64_t *na = dpk_cellmap_find(&hs->state_a, DPK_LIVE_NORM_CELL(cfg));

		/* node value minus A's true change over it (A is constant from 1 on) */
		for (r = 0; r < cfg->copies; r++)
		{
			const int64_t *ta = dpk_cellmap_find(&hs->state_a, (uint64_t) r * ncells + hs->cell[r]);

			for (j = 0; j <= d; j++)
				v[r][j] = o->v[ip][r][j] - (im >= 0 ? o->v[im][r][j] : 0) -
					(im >= 0 || !ta ? 0 : ta[j]);
		}
		nv = o->norm[ip] - (im >= 0 ? o->norm[im] : 0) - (im >= 0 || !na ? 0 : na[0]);
		if (hs->fallback)
		{
			bool		fu,
						fd;

			sums_past_shift(hs, nd, v[0] + 1, -1, &fu, &fd, NULL, NULL);
			hit[hs->ev_fb_up[u]] = fu;
			hit[hs->ev_fb_down[u]] = fd;
			continue;
		}
		for (a = 0; a < 2; a++)
		{
			if (v[0][0] * sign < m + a)
				up[a] = false;
			if (nv * sign < m * hs->qnorm + (a ? noff : 0))
				norm[a] = false;
		}
		if (v[0][0] * sign > 0)
			down = false;
		for (r = 0; r < cfg->copies; r++)
			if (v[r][0] * sign < m)
				both = false;
		if (hs->l1)
		{
			/* every coordinate of the node's sums past its shift, or below 0 */
			bool		lu,
						ld,
						wu = true,
						wd = true;

			sums_past_shift(hs, nd, v[0] + 1, hs->wide, &lu, &ld, &wu, &wd);
			wide_up = wide_up && wu;
			wide_down = wide_down && wd;
			hit[hs->ev_w1_up[u]] = wu;
			hit[hs->ev_w1_down[u]] = wd;
			hit[hs->ev_l1_up[u]] = lu;
			hit[hs->ev_l1_down[u]] = ld;
			if (u == 0)
				hit[hs->ev_joint] = ld && v[0][0] * sign <= 0;
			continue;
		}
		for (j = 0; j < d; j++)
			s[j] = nd->delta * hs->q[j];
		if (!cube_aligned(v[0] + 1, s, d, 0))
			cube = false;
	}
	if (hs->fallback)
		return;
	if (hs->l1)
	{
		hit[hs->ev_wide_up] = wide_up;
		hit[hs->ev_wide_down] = wide_down;
	}
	for (a = 0; a < 2; a++)
	{
		hit[hs->ev_up[a]] = up[a];
		hit[hs->ev_norm[a]] = norm[a];
	}
	hit[hs->ev_down] = down;
	if (!hs->l1)
	{
		hit[hs->ev_both] = both;
		hit[hs->ev_cube] = cube;
		hit[hs->ev_joint] = up[0] && cube && norm[0];
	}
	for (a = 0; a < 5; a++)
	{
		hit[hs->ev_centre[0][a]] = o->full && (int) fmin(4.0, fmax(0.0, floor(o->c0lo * 5))) == a;
		hit[hs->ev_centre[1][a]] = o->full && (int) fmin(4.0, fmax(0.0, floor(o->c0hi * 5))) == a;
	}
}

static void
hd_suite_go(HdSuite *hs, long runs, uint64_t key_base)
{
	HdObs	   *oa = malloc(sizeof(HdObs)),
			   *ob = malloc(sizeof(HdObs));
	bool		ha[MAX_GEV],
				hb[MAX_GEV];
	double		t0 = now_seconds();
	long		r,
				nfull = 0;
	int			i;
	uint64_t	tag = (uint64_t) (hs->l1 ? 4 : hs->fallback ? 3 : 2) << 44;

	for (r = 1; r <= runs; r++)
	{
		uint8_t		key[DPK_KEY_BYTES];
		bool		full = r % FULL_SHARE == 0;

		memset(ha, 0, sizeof(ha));
		memset(hb, 0, sizeof(hb));
		dpk_key_from_seed(key_base + tag + (uint64_t) r, key);
		hd_suite_run(hs, false, key, full, oa);
		dpk_key_from_seed(key_base + tag + B_SEED_OFFSET + (uint64_t) r, key);
		hd_suite_run(hs, true, key, full, ob);
		hd_suite_eval(hs, oa, ha);
		hd_suite_eval(hs, ob, hb);
		nfull += full;
		for (i = 0; i < hs->s.nev; i++)
		{
			bool		centre = strstr(hs->s.ev[i].name, "c0(T)") != NULL;

			if (centre && !full)
				continue;
			gev_hit(&hs->s, i, ha[i], hb[i]);
		}
	}
	CHECK(hs->mismatch == 0, "[%s] %ld releases where dpk_live_noisy_projected differs from "
		  "the cells read", hs->s.label, hs->mismatch);
	printf("[%s] %ld full runs (whole noisy state, centres at T), %ld mismatches\n",
		   hs->s.label, 2 * nfull, hs->mismatch);
	hs->s.runs = runs;
	hs->s.seconds = now_seconds() - t0;
	free(oa);
	free(ob);
}

/* ---- suite: the vector noise on its own ---- */

/*
 * dpk_vector_noise of scale b for a d-vector whose neighbour differs by s:
 * A sees z, B sees s + z.  The claimed loss is ||s||_inf / b, reached on
 * the cube's aligned event; the Laplace fallback (b < d/4) reaches it on
 * "every coordinate past its shift" when all |s_j| are equal.
 */
typedef struct VecSuite
{
	Suite		s;
	int			d;
	double		b;
	int64_t		shift[8];
	bool		cube;
	double		weaken;
	int			ev[6];
} VecSuite;

static void
vec_suite_setup(VecSuite *vs, const char *label, int d, double b, const int64_t *shift,
				double weaken)
{
	DpkScale	sc = dpk_scale_from_double(b),
				mech = dpk_scale_from_double(b / weaken);
	double		l = 0.0;
	int			j,
				a;

	memset(vs, 0, sizeof(*vs));
	snprintf(vs->s.label, sizeof(vs->s.label), "%s", label);
	vs->d = d;
	vs->b = b;
	vs->weaken = weaken;
	for (j = 0; j < d; j++)
	{
		vs->shift[j] = shift[j];
		l = fmax(l, fabs((double) shift[j]));
	}
	l /= dpk_scale_value(sc);
	vs->cube = dpk_cube_noise_usable(sc, d);
	CHECK(vs->cube == dpk_cube_noise_usable(mech, d), "[%s] weakening changes the sampler",
		  label);
	printf("[%s] d = %d, b = %g: %s, shift ||s||_inf = %g, L = %.4f\n", label, d, b,
		   vs->cube ? "cube" : "Laplace fallback", l * dpk_scale_value(sc), l);
	if (vs->cube)
	{
		for (a = 0; a < 3; a++)
			vs->ev[a] = gev_add(&vs->s, l, "aligned, |v-s|_inf >= %d b%.0d", a, 0);
		vs->ev[3] = gev_add(&vs->s, l, "v_1 >= s_1 + b%.0d%.0d", 0, 0);
		vs->ev[4] = gev_add(&vs->s, l, "v_1 <= 0%.0d%.0d", 0, 0);
	}
	else
	{
		double		ql = exp(-1.0 / dpk_scale_value(dpk_vector_l1_scale(mech, d)));

		for (a = 0; a < 2; a++)
		{
			GEvent	   *e;

			vs->ev[a] = gev_add(&vs->s, l, "every v_j >= s_j + %d%.0d", 2 * a, 0);
			e = &vs->s.ev[vs->ev[a]];
			e->exact = true;
			e->exact_a = e->exact_b = 1.0;
			for (j = 0; j < d; j++)
			{
				e->exact_a *= dl_tail(ql, (int) llabs(shift[j]) + 2 * a);
				e->exact_b *= dl_tail(ql, 2 * a);
			}
		}
		vs->ev[2] = gev_add(&vs->s, l, "every v_j <= 0%.0d%.0d", 0, 0);
	}
}

static void
vec_suite_go(VecSuite *vs, long runs, uint64_t key_base, uint64_t tag)
{
	DpkScale	mech = dpk_scale_from_double(vs->b / vs->weaken);
	int64_t		bfloor = (int64_t) ceil(vs->b);
	double		t0 = now_seconds();
	long		r;
	int			i,
				j,
				a;

	for (r = 1; r <= runs; r++)
	{
		int64_t		v[2][8];
		bool		hit[2][8];
		int			w;

		for (w = 0; w < 2; w++)
		{
			DpkStream	st = {0};
			uint8_t		key[DPK_KEY_BYTES],
						nonce[DPK_NONCE_BYTES] = {0};

			dpk_key_from_seed(key_base + (tag << 44) + (w ? B_SEED_OFFSET : 0) + (uint64_t) r, key);
			if (!dpk_stream_open(&st, key, nonce))
				exit(2);
			memset(v[w], 0, sizeof(v[w]));
			dpk_vector_noise(&st, mech, vs->d, 1, v[w]);
			if (w)
				for (j = 0; j < vs->d; j++)
					v[w][j] += vs->shift[j];
			dpk_stream_close(&st);
			memset(hit[w], 0, sizeof(hit[w]));
			if (vs->cube)
			{
				for (a = 0; a < 3; a++)
					hit[w][a] = cube_aligned(v[w], vs->shift, vs->d, a * bfloor);
				hit[w][3] = v[w][0] >= vs->shift[0] + bfloor;
				hit[w][4] = v[w][0] <= 0;
			}
			else
			{
				for (a = 0; a < 2; a++)
				{
					hit[w][a] = true;
					for (j = 0; j < vs->d; j++)
						if (v[w][j] * (vs->shift[j] >= 0 ? 1 : -1) < llabs(vs->shift[j]) + 2 * a)
							hit[w][a] = false;
				}
				hit[w][2] = true;
				for (j = 0; j < vs->d; j++)
					if (v[w][j] * (vs->shift[j] >= 0 ? 1 : -1) > 0)
						hit[w][2] = false;
			}
		}
		for (i = 0; i < vs->s.nev; i++)
			gev_hit(&vs->s, i, hit[0][i], hit[1][i]);
	}
	vs->s.runs = runs;
	vs->s.seconds = now_seconds() - t0;
}

/* ---- suites: the one-shot mechanisms ---- */

/*
 * dp_kmeans on a data set A of NBASE_OS points (two clusters in [0,10]^d)
 * and on B = A plus one point in an empty corner: the low-d pipeline
 * (dpk_lowd_cluster) or the high-d one (dpk_highd_oneshot_cluster).
 * Events: the noisy N (exact discrete Laplace tails, bound its share
 * eps_n), the grid size it picks (bound eps_n: it depends on the noisy N
 * only), and the centres and noisy sizes (bound epsilon).
 */
#define NBASE_OS 150

typedef struct OsSuite
{
	Suite		s;
	bool		highd;
	int			d;
	double		eps,
				eps_n,
				weaken;
	double		pts[(NBASE_OS + 1) * 64];
	double		lower[64],
				upper[64];
	DpkBox		box;
	int			m0;
	int			ev_n[6],
				ev_m[7],
				ev_c[2][5],
				ev_size[3];
} OsSuite;

static void
os_suite_setup(OsSuite *os, const char *label, bool highd, int d, double eps, double weaken)
{
	uint64_t	st = 4711;
	int			i,
				j,
				a;
	double		q;

	memset(os, 0, sizeof(*os));
	snprintf(os->s.label, sizeof(os->s.label), "%s", label);
	os->highd = highd;
	os->d = d;
	os->eps = eps;
	os->weaken = weaken;
	if (highd)
	{
		DpkHighdConfig cfg;

		dpk_highd_defaults(&cfg, eps, KCLUST);
		os->eps_n = eps * cfg.n_share;
	}
	else
	{
		DpkLowdConfig cfg;

		dpk_lowd_defaults(&cfg, eps, KCLUST);
		os->eps_n = eps * cfg.n_share;
	}
	for (j = 0; j < d; j++)
	{
		os->lower[j] = 0.0;
		os->upper[j] = 10.0;
	}
	os->box.d = d;
	os->box.lower = os->lower;
	os->box.upper = os->upper;
	for (i = 0; i < NBASE_OS; i++)
		for (j = 0; j < d; j++)
		{
			double		r = sqrt(-2.0 * log(unif(&st))),
						th = 2.0 * M_PI * unif(&st);

			os->pts[i * d + j] = (i % 3 ? 2.5 : 6.0) + 0.7 * r * cos(th);
		}
	for (j = 0; j < d; j++)
		os->pts[NBASE_OS * d + j] = j == 0 ? 9.7 : 0.3;	/* the extra point */

	/* the grid the true N would give, for the grid-size events */
	{
		DpkOneshotResult res;
		DpkStream	s = {0};
		uint8_t		key[DPK_KEY_BYTES],
					nonce[DPK_NONCE_BYTES] = {0};

		dpk_key_from_seed(99, key);
		if (!dpk_stream_open(&s, key, nonce))
			exit(2);
		if (highd)
		{
			DpkHighdConfig cfg;

			dpk_highd_defaults(&cfg, eps, KCLUST);
			cfg.public_n = NBASE_OS;
			dpk_highd_oneshot_cluster(&os->box, os->pts, NBASE_OS, &cfg, &s, &res);
		}
		else
		{
			DpkLowdConfig cfg;

			dpk_lowd_defaults(&cfg, eps, KCLUST);
			cfg.public_n = NBASE_OS;
			dpk_lowd_cluster(&os->box, os->pts, NBASE_OS, &cfg, &s, &res);
		}
		os->m0 = res.cells_per_dim;
		dpk_oneshot_result_free(&res);
		dpk_stream_close(&s);
	}
	printf("[%s] d = %d, n = %d (+1), epsilon = %g, eps_n = %g, grid %d per dimension at "
		   "the true n\n", label, d, NBASE_OS, eps, os->eps_n, os->m0);

	q = exp(-1.0 / dpk_scale_value(dpk_scale_from_double(1.0 / (os->eps_n * weaken))));
	for (a = 0; a < 3; a++)
	{
		static const int offs[3] = {0, 10, 30};
		GEvent	   *e;

		os->ev_n[2 * a] = gev_add(&os->s, os->eps_n, "noisy n >= n_A + 1 + %d%.0d", offs[a], 0);
		e = &os->s.ev[os->ev_n[2 * a]];
		e->exact = true;
		e->exact_a = dl_tail(q, 1 + offs[a]);
		e->exact_b = dl_tail(q, offs[a]);
		os->ev_n[2 * a + 1] = gev_add(&os->s, os->eps_n, "noisy n <= n_A - %d%.0d", offs[a], 0);
		e = &os->s.ev[os->ev_n[2 * a + 1]];
		e->exact = true;
		e->exact_a = dl_tail(q, offs[a]);
		e->exact_b = dl_tail(q, offs[a] + 1);
	}
	for (a = 0; a < 7; a++)
		os->ev_m[a] = gev_add(&os->s, os->eps_n, "grid m = %d%.0d", os->m0 - 3 + a, 0);
	for (i = 0; i < 2; i++)
		for (a = 0; a < 5; a++)
			os->ev_c[i][a] = gev_add(&os->s, eps, i ? "max c0 bucket %d%.0d" : "min c0 bucket %d%.0d",
									 a, 0);
	for (a = 0; a < 3; a++)
		os->ev_size[a] = gev_add(&os->s, eps, "sum of sizes > n_A %+d%.0d", 20 * (a - 1), 0);
}

static void
os_suite_go(OsSuite *os, long runs, uint64_t key_base, uint64_t tag)
{
	double		t0 = now_seconds();
	long		r;
	int			i,
				w,
				a;

	for (r = 1; r <= runs; r++)
	{
		bool		hit[2][MAX_GEV];

		for (w = 0; w < 2; w++)
		{
			DpkStream	st = {0};
			uint8_t		key[DPK_KEY_BYTES],
						nonce[DPK_NONCE_BYTES] = {0};
			DpkOneshotResult res;
			size_t		n = NBASE_OS + (w ? 1 : 0);
			double		u0,
						u1,
						total = 0.0;

			dpk_key_from_seed(key_base + (tag << 44) + (w ? B_SEED_OFFSET : 0) + (uint64_t) r, key);
			if (!dpk_stream_open(&st, key, nonce))
				exit(2);
			if (os->highd)
			{
				DpkHighdConfig cfg;

				dpk_highd_defaults(&cfg, os->eps * os->weaken, KCLUST);
				dpk_highd_oneshot_cluster(&os->box, os->pts, n, &cfg, &st, &res);
			}
			else
			{
				DpkLowdConfig cfg;

				dpk_lowd_defaults(&cfg, os->eps * os->weaken, KCLUST);
				dpk_lowd_cluster(&os->box, os->pts, n, &cfg, &st, &res);
			}
			dpk_stream_close(&st);
			memset(hit[w], 0, sizeof(hit[w]));
			for (a = 0; a < 3; a++)
			{
				static const int offs[3] = {0, 10, 30};

				hit[w][os->ev_n[2 * a]] = res.noisy_n >= NBASE_OS + 1 + offs[a];
				hit[w][os->ev_n[2 * a + 1]] = res.noisy_n <= NBASE_OS - offs[a];
			}
			for (a = 0; a < 7; a++)
				hit[w][os->ev_m[a]] = res.cells_per_dim == os->m0 - 3 + a;
			u0 = res.centers[0] / 10.0;
			u1 = res.centers[os->d] / 10.0;
			for (a = 0; a < 5; a++)
			{
				hit[w][os->ev_c[0][a]] = (int) fmin(4.0, fmax(0.0, floor(fmin(u0, u1) * 5))) == a;
				hit[w][os->ev_c[1][a]] = (int) fmin(4.0, fmax(0.0, floor(fmax(u0, u1) * 5))) == a;
			}
			for (i = 0; i < KCLUST; i++)
				total += res.sizes[i];
			for (a = 0; a < 3; a++)
				hit[w][os->ev_size[a]] = total > NBASE_OS + 20 * (a - 1);
			dpk_oneshot_result_free(&res);
		}
		for (i = 0; i < os->s.nev; i++)
			gev_hit(&os->s, i, hit[0][i], hit[1][i]);
	}
	os->s.runs = runs;
	os->s.seconds = now_seconds() - t0;
}

#include "privacy_regions.h"

/* ---- main ---- */

int
main(int argc, char **argv)
{
	static Ctx	ctx[NSCEN];
	bool		longmode = argc > 1 && strcmp(argv[1], "long") == 0;
	long		runs = longmode ? 500000 : 20000;
	double		weaken = 1.0;
	double		t_start = now_seconds();
	static CellSuite cells[3];
	static KarySuite karys[4];
	int			nkary = 0;
	static ShareSuite shares[3];
	int			nshare = 0;
	static HdSuite hds[4];
	static VecSuite vecs[2];
	static OsSuite oss[2];
	static RgSuite rgs[4];
	int			ncell = 0;
	bool		weaken_deletes = false;
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
	if (!privacy_settings("privacy_test", &runs, &weaken, &weaken_deletes, &key_base))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);	/* keep failures next to their line */
	make_base();

	printf("privacy_test: %s mode, R = %ld runs per stream, epsilon = %g, T = %d, d = %d, "
		   "k = %d, level = %d, confidence 1 - %g, keys from %llu\n",
		   longmode ? "long" : "quick", runs, EPSILON, HORIZON, DIM, KCLUST, LEVEL, CONFIDENCE,
		   (unsigned long long) key_base + 1);
	if (weaken != 1.0)
		printf("privacy_test: WEAKENED: the mechanism runs at epsilon %g (noise / %g); "
			   "checked against epsilon %g\n", EPSILON * weaken, weaken, EPSILON);
	if (weaken_deletes)
		printf("privacy_test: WEAKENED: streams with deletions run at the insert_only "
			   "sensitivity (no factor 2 for deletions)\n");

	for (sc = 0; sc < NSCEN; sc++)
	{
		Ctx		   *cx = &ctx[sc];

		cx->sc = &scenarios[sc];
		dpk_live_defaults(&cx->nominal, DIM, KCLUST, EPSILON, HORIZON, cx->sc->insert_only);
		cx->nominal.level = LEVEL;
		/* the binary tree of tables attached before the k-ary trees */
		cx->nominal.arity = DPK_TREE_ARITY_BINARY;
		cx->mech = cx->nominal;
		cx->mech.epsilon = EPSILON * weaken;
		if (weaken_deletes)
			cx->mech.insert_only = true;
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
	{
		/* the extra point near a corner: the largest lifting shifts */
		double		corner[64],
					near_mid[64];
		int			j;
		static const int64_t cube_shift[4] = {40, -25, 10, 0};
		static const int64_t fb_shift[6] = {1, 1, 1, 1, 1, 1};

		/* one wide side, five narrower ones of several widths */
		static const double l1_lo[6] = {0, 0, -1, 0, 5, 0},
					l1_hi[6] = {10, 2, 1, 3, 8, 5};

		/* a cube with a norm bound of 3 (0.3 in metric positions) */
		static const double ball_lo[8] = {0, 0, 0, 0, 0, 0, 0, 0},
					ball_hi[8] = {10, 10, 10, 10, 10, 10, 10, 10};

		for (j = 0; j < 64; j++)
		{
			corner[j] = j % 2 ? 0.999 : 0.001;
			near_mid[j] = 0.5 + 1.0 / DPK_LIFT_UNITS;
		}
		cell_suite_setup(&cells[ncell++], 8, weaken, weaken_deletes);
		cell_suite_setup(&cells[ncell++], 64, weaken, weaken_deletes);
		if (longmode)
			cell_suite_setup(&cells[ncell++], 1024, weaken, weaken_deletes);
		kary_suite_setup(&karys[nkary++], 64, 0, weaken, weaken_deletes);
		kary_suite_setup(&karys[nkary++], 256, 0, weaken, weaken_deletes);
		kary_suite_setup(&karys[nkary++], 64, 3, weaken, weaken_deletes);
		if (longmode)
			kary_suite_setup(&karys[nkary++], 1024, 0, weaken, weaken_deletes);
		share_suite_setup(&shares[nshare++], 64, weaken, weaken_deletes);
		share_suite_setup(&shares[nshare++], 256, weaken, weaken_deletes);
		if (longmode)
			share_suite_setup(&shares[nshare++], 1024, weaken, weaken_deletes);
		hd_suite_setup(&hds[0], "highd live", 8, 2, 8, true, 6.0, 0.45, 0.2, corner,
					   weaken, weaken_deletes);
		hd_suite_setup(&hds[1], "highd fallback", 6, 1, 8, false, 1600.0, 0.9, 0.0,
					   near_mid, weaken, weaken_deletes);
		CHECK(!hds[0].fallback && hds[1].fallback, "high-d suites: cube then fallback");
		hd_l1_suite_setup(&hds[2], "hd l1", 6, l1_lo, l1_hi, 0.0, 8, HD_L1_EPS, weaken,
						  weaken_deletes);
		hd_l1_suite_setup(&hds[3], "hd ball", 8, ball_lo, ball_hi, 3.0, 8, HD_L1_EPS, weaken,
						  weaken_deletes);
		vec_suite_setup(&vecs[0], "cube noise", 4, 64.0, cube_shift, weaken);
		vec_suite_setup(&vecs[1], "Laplace fallback", 6, 1.2, fb_shift, weaken);
		os_suite_setup(&oss[0], "oneshot low-d", false, 2, 1.0, weaken);
		os_suite_setup(&oss[1], "oneshot high-d", true, 8, 2.0, weaken);
		rg_suite_setup(&rgs[0], "regions ins", true, 4.0, 2, 0, RG_ARITY, RG_T, weaken,
					   weaken_deletes);
		rg_suite_setup(&rgs[1], "regions insdel", false, 8.0, 2, 4, RG_ARITY, RG_T, weaken,
					   weaken_deletes);
		rg_suite_setup(&rgs[2], "signed regions ins", true, 4.0, 9, 0, RG_SIGNED_ARITY,
					   RG_TMAX, weaken, weaken_deletes);
		rg_suite_setup(&rgs[3], "signed regions insdel", false, 8.0, 7, 9, RG_SIGNED_ARITY,
					   RG_TMAX, weaken, weaken_deletes);
		for (i = 0; i < ncell; i++)
			total_events += cells[i].s.nev;
		for (i = 0; i < nkary; i++)
			total_events += karys[i].s.nev;
		for (i = 0; i < nshare; i++)
			total_events += shares[i].s.nev;
		for (i = 0; i < 2; i++)
			total_events += hds[i].s.nev + vecs[i].s.nev + oss[i].s.nev;
		total_events += hds[2].s.nev + hds[3].s.nev;
		for (i = 0; i < 4; i++)
			total_events += rgs[i].s.nev;
	}
	/* Two intervals per event, each missing on either side with prob. tail. */
	g_tail = CONFIDENCE / (4.0 * total_events);

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
			  "the estimator's weighted nodes", cx->sc->name, mismatch);

		printf("[%s] %ld + %ld runs (%ld + %ld of them full releases) in %.1f s\n",
			   cx->sc->name, runs, runs, full_runs, full_runs, now_seconds() - t0);
		judge_header(cx->sc->name);
		for (i = 0; i < cx->nev; i++)
		{
			Event	   *e = &cx->ev[i];

			judge(cx->sc->name, e->name,
				  e->kind >= EV_WPAIR_GT ? cx->lw_count + (e->with_sums ? cx->lw_sum : 0.0)
				  : cx->l_count + (e->with_sums ? cx->l_sum : 0.0),
				  e->na, e->nb, e->full ? full_runs : runs, e->exact, e->exact_a, e->exact_b);
		}
	}

	/* the other mechanisms */
	for (i = 0; i < ncell; i++)
	{
		cell_suite_go(&cells[i], runs / (cells[i].T > 64 ? 10 : 1), key_base);
		suite_judge(&cells[i].s);
	}
	for (i = 0; i < nkary; i++)
	{
		kary_suite_go(&karys[i], runs / (karys[i].T > 256 ? 10 : 1), key_base);
		suite_judge(&karys[i].s);
	}
	for (i = 0; i < nshare; i++)
	{
		share_suite_go(&shares[i], runs / (shares[i].T > 256 ? 10 : 1), key_base);
		suite_judge(&shares[i].s);
	}
	for (i = 0; i < 4; i++)
	{
		hd_suite_go(&hds[i], runs, key_base);
		suite_judge(&hds[i].s);
	}
	for (i = 0; i < 2; i++)
	{
		vec_suite_go(&vecs[i], runs, key_base, 5 + (uint64_t) i);
		suite_judge(&vecs[i].s);
	}
	for (i = 0; i < 2; i++)
	{
		os_suite_go(&oss[i], runs / (i ? 10 : 4), key_base, 7 + (uint64_t) i);
		suite_judge(&oss[i].s);
	}
	for (i = 0; i < 4; i++)
	{
		rg_suite_go(&rgs[i], runs / (i < 2 ? 2 : 4), key_base, 10 + (uint64_t) i);
		suite_judge(&rgs[i].s);
	}

	printf("\nprivacy_test: %d events, %ld runs per stream, %.1f s\n", total_events, runs,
		   now_seconds() - t_start);
	printf("privacy_test: max observed |ln P_A/P_B| %.3f (%s; events with >= %d hits each)\n",
		   g_max_obs, g_max_obs_name, MIN_HITS);
	printf("privacy_test: max certified |ln P_A/P_B| %.3f (%s); max certified / bound %.2f "
		   "(fails above 1)\n", g_max_cert, g_max_cert_name, g_max_cert_rel);
	for (sc = 0; sc < NSCEN; sc++)
		for (i = 1; i <= HORIZON; i++)
		{
			dpk_cellmap_free(&ctx[sc].state_a[i]);
			dpk_cellmap_free(&ctx[sc].state_b[i]);
		}
	UNIT_DONE("privacy_test");
}
