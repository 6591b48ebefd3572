/*
 * privacy_share.h
 *		The privacy test's suite of the share-tree counter (share_tree.h):
 *		one cell over releases 1..T, included by privacy_test.c after its
 *		event machinery.
 *
 * What runs.  One cell (level 3, cell 42) counted by the share tree of
 * horizon T with a counter budget of EPSILON and insert_delete accounting:
 * a row is two events, each moving one node per level by 1, so the
 * full-budget scale is 2 / EPSILON and node v gets 2 DEN / (s_v EPSILON)
 * (dpk_share_node_scales).  A leaves the cell empty; B holds one point from
 * release ins = 2 until release del = T - 1, which lie in different nodes
 * at every level (the top-level blocks differ): all 2h nodes move, by +1
 * (ins's) and -1 (del's), and the loss over them is exactly EPSILON (the
 * shares of the nodes holding either position sum to DEN).
 *
 * What is read.  The moved nodes' final noisy values (true value + the
 * draw a release uses, dpk_share_node_noise), of which every release is a
 * function: for the first runs each release read is also recomputed from
 * the final noisy values of its nodes (sum num y / den, rounded), which
 * must give the published integer.  And four releases as published
 * (dpk_cell_noise_share at the table's weights).
 *
 * Events.  Each moved node alone at least 1 beyond its A value in B's
 * direction (log ratio exactly 1 / b_v: tight and well sampled); every
 * moved node at least 1 + a beyond (and every one at most -a), a = 0, 1,
 * 3 (log ratio exactly EPSILON); two pairs of releases both above (both at
 * most) 0 (bound EPSILON).  DPK_PRIVACY_WEAKEN=2 halves every node scale
 * and DPK_PRIVACY_WEAKEN=deletes takes the insert_only scale 1 / EPSILON:
 * the single-node events then have log ratio 2 / b_v and fail.
 */
#include "share_tree.h"

typedef struct ShareSuite
{
	Suite		s;
	uint32_t	T;
	DpkShareTree st;
	uint32_t	ins,
				del;
	int			nmoved;
	LNode		moved[2 * DPK_SHARE_MAX_LEVELS];
	DpkScale	mech_scale[2 * DPK_SHARE_MAX_LEVELS];	/* of each moved node */
	double		l_all;
	int			ev_node[2 * DPK_SHARE_MAX_LEVELS],
				ev_up[3],
				ev_down[3],
				ev_pair[4];
	uint32_t	pair[2][2];
	DpkShareWeights w[4];		/* weights of the pair releases */
	DpkCellScales *sc[4];		/* the mechanism's node scales of each */
} ShareSuite;

/* The node scales of weights w at the full-budget count scale b. */
static DpkCellScales *
share_scales(const DpkShareWeights *w, double b)
{
	DpkCellScales *sc = malloc(sizeof(DpkCellScales) * (w->n > 0 ? w->n : 1));

	if (!sc)
		abort();
	dpk_share_node_scales(w, b, b, 0, DPK_SUMS_NONE, sc);
	return sc;
}

static void
share_suite_setup(ShareSuite *ss, uint32_t T, double weaken, bool weaken_deletes)
{
	static const int offs[3] = {0, 1, 3};
	double		b_nominal = 2.0 / EPSILON,
				b_mech = (weaken_deletes ? 1.0 : 2.0) / (EPSILON * weaken);
	DpkShareWeights one;
	int			shares_ins = 0,
				shares_del = 0;

	memset(ss, 0, sizeof(*ss));
	ss->T = T;
	CHECK(dpk_share_tree_init(&ss->st, T), "share tree at T = %u", T);
	snprintf(ss->s.label, sizeof(ss->s.label), "cell share T=%u", T);
	ss->ins = 2;
	ss->del = T - 1;
	for (int j = 0; j < ss->st.levels; j++)
	{
		uint32_t	ii = (ss->ins - 1) / ss->st.span[j] + 1,
					id = (ss->del - 1) / ss->st.span[j] + 1;

		CHECK(ii != id, "[%s] ins and del share the level-%d node", ss->s.label, j);
		ss->moved[ss->nmoved++] = (LNode) {j, ii, 1, 0, 0};
		ss->moved[ss->nmoved++] = (LNode) {j, id, -1, 0, 0};
		shares_ins += dpk_share_tree_node_share(&ss->st, j, ii);
		shares_del += dpk_share_tree_node_share(&ss->st, j, id);
	}
	CHECK(shares_ins == DPK_SHARE_DEN && shares_del == DPK_SHARE_DEN,
		  "[%s] the moved nodes' shares %d, %d of %d", ss->s.label, shares_ins, shares_del,
		  DPK_SHARE_DEN);

	/* each moved node's nominal loss 1 / b_v and its mechanism's scale */
	for (int u = 0; u < ss->nmoved; u++)
	{
		int			s_v = dpk_share_tree_node_share(&ss->st, ss->moved[u].level,
													ss->moved[u].index);
		int			lv = ss->moved[u].level;
		uint32_t	ix = ss->moved[u].index;
		double		lu;
		GEvent	   *e;
		double		q;

		one = (DpkShareWeights) {1, &lv, &ix, &s_v, NULL, NULL, DPK_TREE_WEIGHT_DEN};
		{
			DpkCellScales nom,
						mech;

			dpk_share_node_scales(&one, b_nominal, b_nominal, 0, DPK_SUMS_NONE, &nom);
			dpk_share_node_scales(&one, b_mech, b_mech, 0, DPK_SUMS_NONE, &mech);
			lu = 1.0 / dpk_scale_value(nom.count);
			ss->mech_scale[u] = mech.count;
		}
		ss->l_all += lu;
		q = exp(-1.0 / dpk_scale_value(ss->mech_scale[u]));
		ss->ev_node[u] = gev_add(&ss->s, lu, "node (%d,%d) >= A+|d|", lv, (int) ix);
		e = &ss->s.ev[ss->ev_node[u]];
		e->exact = true;
		e->exact_a = dl_tail(q, 1);
		e->exact_b = dl_tail(q, 0);
	}
	/* the scales are rounded up: the loss is EPSILON to the rounding */
	CHECK(ss->l_all <= EPSILON && ss->l_all > EPSILON * (1.0 - 1e-5),
		  "[%s] loss %.9f of the pair, budget %g", ss->s.label, ss->l_all, EPSILON);
	for (int a = 0; a < 3; a++)
	{
		GEvent	   *up,
				   *down;

		ss->ev_up[a] = gev_add(&ss->s, ss->l_all, "moved nodes >= A+|d|+%d%.0d", offs[a], 0);
		ss->ev_down[a] = gev_add(&ss->s, ss->l_all, "moved nodes <= A-%d%.0d", offs[a], 0);
		up = &ss->s.ev[ss->ev_up[a]];
		down = &ss->s.ev[ss->ev_down[a]];
		up->exact = down->exact = true;
		up->exact_a = up->exact_b = down->exact_a = down->exact_b = 1.0;
		for (int u = 0; u < ss->nmoved; u++)
		{
			double		q = exp(-1.0 / dpk_scale_value(ss->mech_scale[u]));

			up->exact_a *= dl_tail(q, 1 + offs[a]);
			up->exact_b *= dl_tail(q, offs[a]);
			down->exact_a *= dl_tail(q, offs[a]);
			down->exact_b *= dl_tail(q, 1 + offs[a]);
		}
	}
	ss->pair[0][0] = ss->ins;
	ss->pair[0][1] = T / 2;
	ss->pair[1][0] = T - 1;
	ss->pair[1][1] = T;
	for (int a = 0; a < 4; a++)
	{
		dpk_share_tree_weights(&ss->st, ss->pair[a / 2][a % 2], &ss->w[a]);
		ss->sc[a] = share_scales(&ss->w[a], b_mech);
	}
	for (int a = 0; a < 2; a++)
	{
		ss->ev_pair[2 * a] = gev_add(&ss->s, ss->l_all, "lsq y%d>0 & y%d>0",
									 (int) ss->pair[a][0], (int) ss->pair[a][1]);
		ss->ev_pair[2 * a + 1] = gev_add(&ss->s, ss->l_all, "lsq y%d<=0 & y%d<=0",
										 (int) ss->pair[a][0], (int) ss->pair[a][1]);
	}
	printf("[%s] %d levels, spans", ss->s.label, ss->st.levels);
	for (int j = 0; j < ss->st.levels; j++)
		printf(" %u", ss->st.span[j]);
	printf(", %d blocks; insert at %u, delete at %u: %d moved nodes, L_all = %.6f%s\n",
		   ss->st.blocks, ss->ins, ss->del, ss->nmoved, ss->l_all,
		   weaken != 1.0 || weaken_deletes ? " (nominal; WEAKENED in the mechanism)" : "");
}

/* True count of the cell at release t under A (0) or B. */
static int64_t
share_truth(const ShareSuite *ss, bool is_b, uint32_t t)
{
	return is_b && t >= ss->ins && t < ss->del ? 1 : 0;
}

/* True final content of node (level, index) under A or B. */
static int64_t
share_node_truth(const ShareSuite *ss, bool is_b, int level, uint32_t index)
{
	int64_t		x = 0;

	if (!is_b)
		return 0;
	if ((ss->ins - 1) / ss->st.span[level] + 1 == index)
		x += 1;
	if ((ss->del - 1) / ss->st.span[level] + 1 == index)
		x -= 1;
	return x;
}

/*
 * One run on one stream: the moved nodes' noisy values and the four
 * releases; with `cross`, each release also from its nodes' final noisy
 * values (returns the mismatches).
 */
static int
share_suite_run(const ShareSuite *ss, bool is_b, const uint8_t key[DPK_KEY_BYTES],
				bool cross, int64_t *node, int64_t *rel)
{
	DpkStream	st = {0};
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	const DpkCellKey ck = {key, 3, 42};
	int64_t		tmp[1],
				truth[1];
	__int128	acc[1];
	int			bad = 0;

	if (!dpk_stream_open(&st, key, nonce))
		exit(2);
	for (int u = 0; u < ss->nmoved; u++)
	{
		DpkCellScales sc = {0, ss->mech_scale[u], ss->mech_scale[u], DPK_SUMS_NONE};

		node[u] = share_node_truth(ss, is_b, ss->moved[u].level, ss->moved[u].index);
		dpk_share_node_noise(&st, &ck, ss->moved[u].level, ss->moved[u].index, &sc, &node[u]);
	}
	for (int a = 0; a < 4; a++)
	{
		uint32_t	t = ss->pair[a / 2][a % 2];

		truth[0] = share_truth(ss, is_b, t);
		dpk_cell_noise_share(&st, &ck, &ss->w[a], ss->sc[a], truth, &rel[a],
							 &(DpkNoiseScratch) {tmp, acc});
		if (cross)
		{
			__int128	sum = 0;
			int64_t		r;

			for (int v = 0; v < ss->w[a].n; v++)
			{
				int64_t		y = share_node_truth(ss, is_b, ss->w[a].level[v], ss->w[a].index[v]);

				dpk_share_node_noise(&st, &ck, ss->w[a].level[v], ss->w[a].index[v],
									 &ss->sc[a][v], &y);
				sum += (__int128) ss->w[a].num[v] * y;
			}
			bad += !dpk_round_exact(0, sum, ss->w[a].den, &r) || r != rel[a];
		}
	}
	dpk_stream_close(&st);
	return bad;
}

/* The events of one run (A's true values are all zero). */
static void
share_suite_eval(const ShareSuite *ss, const int64_t *node, const int64_t *rel, bool *hit)
{
	static const int offs[3] = {0, 1, 3};
	bool		up[3] = {true, true, true},
				down[3] = {true, true, true};

	for (int u = 0; u < ss->nmoved; u++)
	{
		int64_t		v = node[u] * (ss->moved[u].delta > 0 ? 1 : -1);

		hit[ss->ev_node[u]] = v >= 1;
		for (int a = 0; a < 3; a++)
		{
			if (v < 1 + offs[a])
				up[a] = false;
			if (v > -offs[a])
				down[a] = false;
		}
	}
	for (int a = 0; a < 3; a++)
	{
		hit[ss->ev_up[a]] = up[a];
		hit[ss->ev_down[a]] = down[a];
	}
	for (int a = 0; a < 2; a++)
	{
		hit[ss->ev_pair[2 * a]] = rel[2 * a] > 0 && rel[2 * a + 1] > 0;
		hit[ss->ev_pair[2 * a + 1]] = rel[2 * a] <= 0 && rel[2 * a + 1] <= 0;
	}
}

static void
share_suite_go(ShareSuite *ss, long runs, uint64_t key_base)
{
	int64_t		na[2 * DPK_SHARE_MAX_LEVELS],
				nb[2 * DPK_SHARE_MAX_LEVELS],
				ra[4],
				rb[4];
	bool		ha[MAX_GEV],
				hb[MAX_GEV];
	double		t0 = now_seconds();
	int			bad = 0;

	for (long r = 1; r <= runs; r++)
	{
		uint8_t		key[DPK_KEY_BYTES];

		dpk_key_from_seed(key_base + ((uint64_t) 11 << 44) + (uint64_t) r, key);
		bad += share_suite_run(ss, false, key, r <= 40, na, ra);
		dpk_key_from_seed(key_base + ((uint64_t) 11 << 44) + B_SEED_OFFSET + (uint64_t) r, key);
		bad += share_suite_run(ss, true, key, r <= 40, nb, rb);
		share_suite_eval(ss, na, ra, ha);
		share_suite_eval(ss, nb, rb, hb);
		for (int i = 0; i < ss->s.nev; i++)
			gev_hit(&ss->s, i, ha[i], hb[i]);
	}
	CHECK(bad == 0, "[%s] %d releases not the function of their nodes' final values",
		  ss->s.label, bad);
	ss->s.runs = runs;
	ss->s.seconds = now_seconds() - t0;
	for (int a = 0; a < 4; a++)
	{
		dpk_share_weights_free(&ss->w[a]);
		free(ss->sc[a]);
	}
}
