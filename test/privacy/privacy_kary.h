/*
 * privacy_kary.h
 *		The privacy test's suite of the k-ary counter tree (new pure tables):
 *		one live cell over releases 1..T, included by privacy_test.c after
 *		its event and node machinery.
 *
 * A leaves the cell empty; B holds one point from release ins until release
 * del (insert_delete accounting).  The pair is the one that moves the most
 * nodes any release reads (signed digits or least-squares weights): with
 * ins and del in different top-level nodes every one of the 2h nodes the
 * sensitivity pays for moves by 1, and the loss over them is exactly the
 * count budget (when every position up to T lies in one top node, as for
 * the 3-ary tree at T = 64, 2h - 2 of them).  Node values are read as differences of two signed
 * releases whose digit sets differ by exactly that node (true value +
 * dpk_cell_noise_weighted with the digits' +-1 weights, as a release
 * makes it); the least-squares releases of the default estimator are read
 * at two pairs of releases.
 *
 * Events: every readable moved node at least |delta| + a past its A value
 * (and at most -a), a = 0, 1, 3, with likelihood ratio exactly e^L (L = the
 * read nodes' sum of |delta| / b, discrete Laplace tails); the
 * least-squares releases of a pair both above (both at most) 0, bound the
 * loss over every moved node any release reads.  DPK_PRIVACY_WEAKEN=2
 * halves the node scale and DPK_PRIVACY_WEAKEN=deletes takes the
 * insert_only sensitivity (h instead of 2h): the tight events then have
 * log ratio 2L and fail.
 */

/* Index of the level-l node of the arity-k tree holding position p. */
static uint32_t
kary_index(int k, int level, uint32_t p)
{
	uint64_t	w = 1;
	int			j;

	for (j = 0; j < level; j++)
		w *= (uint64_t) k;
	return (uint32_t) (((uint64_t) p - 1) / w + 1);
}

/*
 * Whether signed release tp minus signed release tm is exactly node
 * (level, index) with coefficient +1.
 */
static bool
kary_differs_by(int k, uint32_t tp, uint32_t tm, int level, uint32_t index)
{
	int			lv[2 * DPK_TREE_MAX_SIGNED],
				sg[2 * DPK_TREE_MAX_SIGNED];
	uint32_t	ix[2 * DPK_TREE_MAX_SIGNED];
	int			np = dpk_tree_signed_decompose(k, tp, lv, ix, sg),
				nm = tm ? dpk_tree_signed_decompose(k, tm, lv + np, ix + np, sg + np) : 0,
				a,
				b;

	for (a = np; a < np + nm; a++)
		sg[a] = -sg[a];
	for (a = 0; a < np + nm; a++)
	{
		int			c = 0;

		for (b = 0; b < np + nm; b++)
			if (lv[b] == lv[a] && ix[b] == ix[a])
				c += sg[b];
		if (c != ((lv[a] == level && ix[a] == index) ? 1 : 0))
			return false;
	}
	for (a = 0; a < np; a++)
		if (lv[a] == level && ix[a] == index)
			return true;
	return false;
}

typedef struct KarySuite
{
	Suite		s;
	uint32_t	T;
	int			k,
				h;
	uint32_t	ins,
				del;
	DpkLiveConfig nominal,
				mech;
	LNode		nodes[MAX_MOVED];	/* the readable moved nodes */
	int			nnodes,
				nmoved;			/* moved nodes any release reads */
	uint32_t	ts[MAX_READ];
	int			nts;
	double		l_read,
				l_all;
	int			ev_up[3],
				ev_down[3],
				ev_pair[4];
	uint32_t	pair[2][2];
	DpkTreeWeights w[4];		/* least-squares weights of the pair releases */
} KarySuite;

/* Nodes any release 1..T reads (signed digits or least squares): used[l][i]. */
static bool **
kary_used(int k, uint32_t T, int h, uint32_t imax)
{
	bool	  **used = malloc(sizeof(bool *) * h);
	bool	   *all = calloc((size_t) h * (imax + 1), sizeof(bool));
	uint32_t	t;
	int			l,
				a,
				e;

	if (!used || !all)
		abort();
	for (l = 0; l < h; l++)
		used[l] = all + (size_t) l * (imax + 1);
	for (t = 1; t <= T; t++)
		for (e = 0; e < 2; e++)
		{
			DpkTreeWeights w;

			dpk_tree_release_weights(e ? DPK_TREE_LOCAL_BLUE : DPK_TREE_SIGNED, k, T, t, &w);
			for (a = 0; a < w.n; a++)
				if (w.level[a] < h && w.index[a] <= imax)
					used[w.level[a]][w.index[a]] = true;
				else
					CHECK(false, "k=%d T=%u: node (%d, %u) outside the tree", k, T,
						  w.level[a], w.index[a]);
			dpk_tree_weights_free(&w);
		}
	return used;
}

/* Moved nodes of the pair (ins, del) that some release reads. */
static int
kary_moved(int k, int h, bool **used, uint32_t imax, uint32_t ins, uint32_t del,
		   LNode *out)
{
	int			n = 0,
				l;

	for (l = 0; l < h; l++)
	{
		uint32_t	ii = kary_index(k, l, ins),
					id = kary_index(k, l, del);

		if (ii == id)
			continue;
		if (ii <= imax && used[l][ii] && n < MAX_MOVED)
			out[n++] = (LNode) {l, ii, 1, 0, 0};
		if (id <= imax && used[l][id] && n < MAX_MOVED)
			out[n++] = (LNode) {l, id, -1, 0, 0};
	}
	return n;
}

static void
kary_suite_setup(KarySuite *ks, uint32_t T, int arity, double weaken, bool weaken_deletes)
{
	static const int offs[3] = {0, 1, 3};
	LNode		moved[MAX_MOVED];
	uint32_t	imax,
				i,
				j,
				extra[4];
	bool	  **used;
	int			best = -1,
				u,
				a;
	double		b_count,
				q;

	memset(ks, 0, sizeof(*ks));
	ks->T = T;
	dpk_live_defaults(&ks->nominal, DIM, KCLUST, EPSILON, T, false);
	if (arity > 0)
		ks->nominal.arity = arity;
	ks->nominal.level = LEVEL;
	ks->k = ks->nominal.arity;
	ks->h = dpk_live_tree_levels(&ks->nominal);
	snprintf(ks->s.label, sizeof(ks->s.label), "cell %d-ary T=%u", ks->k, T);
	ks->mech = ks->nominal;
	ks->mech.epsilon = EPSILON * weaken;
	if (weaken_deletes)
		ks->mech.insert_only = true;
	CHECK(ks->k > 2, "[%s] not a k-ary tree", ks->s.label);

	/* the pair moving the most read nodes */
	imax = (uint32_t) ks->k * T + 2 * (uint32_t) ks->k + 2;
	used = kary_used(ks->k, T, ks->h, imax);
	for (i = 1; i < T; i++)
		for (j = i + 1; j <= T; j++)
		{
			int			m = kary_moved(ks->k, ks->h, used, imax, i, j, moved);

			if (m > best)
			{
				best = m;
				ks->ins = i;
				ks->del = j;
			}
		}
	ks->nmoved = kary_moved(ks->k, ks->h, used, imax, ks->ins, ks->del, moved);
	free(used[0]);
	free(used);

	/* each moved node read off two signed releases t and t - k^level */
	for (u = 0; u < ks->nmoved; u++)
	{
		uint32_t	span = 1,
					tp;

		for (a = 0; a < moved[u].level; a++)
			span *= (uint32_t) ks->k;
		for (tp = span; tp <= T; tp++)
			if (kary_differs_by(ks->k, tp, tp - span, moved[u].level, moved[u].index))
			{
				moved[u].tp = tp;
				moved[u].tm = tp - span;
				ks->nodes[ks->nnodes++] = moved[u];
				break;
			}
	}
	b_count = dpk_scale_value(dpk_live_count_scale(&ks->nominal));
	for (u = 0; u < ks->nmoved; u++)
		ks->l_all += abs(moved[u].delta) / b_count;
	for (u = 0; u < ks->nnodes; u++)
		ks->l_read += abs(ks->nodes[u].delta) / b_count;
	/*
	 * At most the 2h nodes the sensitivity pays for; fewer when every
	 * position up to T shares the top node (3-ary, T = 64: 8 of 10).
	 */
	CHECK(ks->nmoved <= 2 * ks->h && ks->nmoved >= 2 * ks->h - 2,
		  "[%s] the worst pair moves %d nodes of 2h = %d", ks->s.label, ks->nmoved,
		  2 * ks->h);
	CHECK(ks->l_all <= EPSILON * (1.0 - ks->nominal.sum_share) + 1e-12,
		  "[%s] loss %g above the count budget", ks->s.label, ks->l_all);
	CHECK(ks->nnodes >= ks->h, "[%s] only %d moved nodes readable", ks->s.label, ks->nnodes);

	ks->pair[0][0] = ks->ins;
	ks->pair[0][1] = T / 2 > ks->ins ? T / 2 : ks->ins + 1;
	ks->pair[1][0] = T - 1;
	ks->pair[1][1] = T;
	for (a = 0; a < 4; a++)
		dpk_tree_release_weights(DPK_TREE_LOCAL_BLUE, ks->k, T, ks->pair[a / 2][a % 2],
								 &ks->w[a]);
	extra[0] = 1;
	extra[1] = 1;
	extra[2] = 1;
	extra[3] = 1;
	ks->nts = read_releases(ks->nodes, ks->nnodes, extra, 1, ks->ts);
	printf("[%s] worst pair: insert at %u, delete at %u: %d moved nodes (the 2h = %d the "
		   "sensitivity pays for), %d read off signed releases; L_read = %.4f, L_all = "
		   "%.4f\n", ks->s.label, ks->ins, ks->del, ks->nmoved, 2 * ks->h, ks->nnodes,
		   ks->l_read, ks->l_all);

	q = exp(-1.0 / dpk_scale_value(dpk_live_count_scale(&ks->mech)));
	node_tail_events(&ks->s, ks->l_read, q, ks->nodes, ks->nnodes, offs, "read",
					 ks->ev_up, ks->ev_down);
	for (a = 0; a < 2; a++)
	{
		ks->ev_pair[2 * a] = gev_add(&ks->s, ks->l_all, "lsq y%d>0 & y%d>0",
									 (int) ks->pair[a][0], (int) ks->pair[a][1]);
		ks->ev_pair[2 * a + 1] = gev_add(&ks->s, ks->l_all, "lsq y%d<=0 & y%d<=0",
										 (int) ks->pair[a][0], (int) ks->pair[a][1]);
	}
}

/* True count of the cell at release t under A (0) or B. */
static int64_t
kary_truth(const KarySuite *ks, bool is_b, uint32_t t)
{
	return is_b && t >= ks->ins && t < ks->del ? 1 : 0;
}

/*
 * One run on one stream: the signed releases read (val) and the four
 * least-squares releases (lsq) of the cell, as a release adds them.
 */
static void
kary_suite_run(const KarySuite *ks, bool is_b, const uint8_t key[DPK_KEY_BYTES],
			   int64_t *val, int64_t *lsq)
{
	DpkStream	st = {0};
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	DpkScale	csc = dpk_live_count_scale(&ks->mech);
	int64_t		noise[1],
				tmp[1],
				truth[1];
	__int128	acc[1];
	int			i;

	if (!dpk_stream_open(&st, key, nonce))
		exit(2);
	for (i = 0; i < ks->nts; i++)
	{
		DpkTreeWeights w;

		dpk_tree_release_weights(DPK_TREE_SIGNED, ks->k, ks->T, ks->ts[i], &w);
		truth[0] = kary_truth(ks, is_b, ks->ts[i]);
		dpk_cell_noise_weighted(&st, &(DpkCellKey) {key, ks->mech.level, 42},
								&w,
								&(DpkCellScales) {0, csc, csc, DPK_SUMS_NONE},
								truth, noise, &(DpkNoiseScratch) {tmp, acc});
		val[i] = noise[0];
		dpk_tree_weights_free(&w);
	}
	for (i = 0; i < 4; i++)
	{
		truth[0] = kary_truth(ks, is_b, ks->pair[i / 2][i % 2]);
		dpk_cell_noise_weighted(&st, &(DpkCellKey) {key, ks->mech.level, 42},
								&ks->w[i],
								&(DpkCellScales) {0, csc, csc, DPK_SUMS_NONE},
								truth, noise, &(DpkNoiseScratch) {tmp, acc});
		lsq[i] = noise[0];
	}
	dpk_stream_close(&st);
}

/* The events of one run (A's true values are all zero). */
static void
kary_suite_eval(const KarySuite *ks, const int64_t *val, const int64_t *lsq, bool *hit)
{
	static const int offs[3] = {0, 1, 3};
	bool		up[3] = {true, true, true},
				down[3] = {true, true, true};
	int			u,
				a;

	for (u = 0; u < ks->nnodes; u++)
	{
		const LNode *nd = &ks->nodes[u];
		int			ip = rel_index(ks->ts, ks->nts, nd->tp),
					im = nd->tm ? rel_index(ks->ts, ks->nts, nd->tm) : -1;
		int64_t		v = val[ip] - (im >= 0 ? val[im] : 0),
					sign = nd->delta > 0 ? 1 : -1;

		for (a = 0; a < 3; a++)
		{
			if (v * sign < abs(nd->delta) + offs[a])
				up[a] = false;
			if (v * sign > -offs[a])
				down[a] = false;
		}
	}
	for (a = 0; a < 3; a++)
	{
		hit[ks->ev_up[a]] = up[a];
		hit[ks->ev_down[a]] = down[a];
	}
	for (a = 0; a < 2; a++)
	{
		hit[ks->ev_pair[2 * a]] = lsq[2 * a] > 0 && lsq[2 * a + 1] > 0;
		hit[ks->ev_pair[2 * a + 1]] = lsq[2 * a] <= 0 && lsq[2 * a + 1] <= 0;
	}
}

static void
kary_suite_go(KarySuite *ks, long runs, uint64_t key_base)
{
	int64_t		va[MAX_READ],
				vb[MAX_READ],
				la[4],
				lb[4];
	bool		ha[MAX_GEV],
				hb[MAX_GEV];
	double		t0 = now_seconds();
	long		r;
	int			i;

	for (r = 1; r <= runs; r++)
	{
		uint8_t		key[DPK_KEY_BYTES];

		dpk_key_from_seed(key_base + ((uint64_t) 9 << 44) + (uint64_t) r, key);
		kary_suite_run(ks, false, key, va, la);
		dpk_key_from_seed(key_base + ((uint64_t) 9 << 44) + B_SEED_OFFSET + (uint64_t) r, key);
		kary_suite_run(ks, true, key, vb, lb);
		kary_suite_eval(ks, va, la, ha);
		kary_suite_eval(ks, vb, lb, hb);
		for (i = 0; i < ks->s.nev; i++)
			gev_hit(&ks->s, i, ha[i], hb[i]);
	}
	ks->s.runs = runs;
	ks->s.seconds = now_seconds() - t0;
	for (i = 0; i < 4; i++)
		dpk_tree_weights_free(&ks->w[i]);
}
