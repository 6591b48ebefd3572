/*
 * highd_tree.c
 *		Seeding a high-d one-shot release from a SimHash tree in the original
 *		space (see highd.h): sign patterns about the ball's middle, nodes
 *		kept on noisy counts, the leaves crossed with the joint partition
 *		and those cells' noisy means as a coreset.
 *
 * After "Practical Differentially Private Clustering" (Chang, Ghazi, Kumar,
 * Manurangsi, 2021).  Rows around a few directions share their leading
 * sign patterns, which a projection to a few dimensions mixes; the leaves
 * separate them in the original space, the projected parts keep apart
 * small tight clusters the tree drops or merges, and the refinement steps
 * that follow move the centres (doc/decisions/042-simhash-tree-seed.md).
 */
#include "highd.h"

#include <math.h>
#include <string.h>

#include "dpk_mem.h"
#include "highd_int.h"
#include "kmeans.h"

/* The public seed of the tree's hyperplanes (apart from the copies'). */
#define TREE_SEED_TAG UINT64_C(0x73696d68617368)

/*
 * A node of the tree: the rows whose code starts with prefix (as many bits
 * as the node's depth), and its noisy count.
 */
typedef struct TreeNode
{
	uint64_t	prefix;
	double		noisy;
} TreeNode;

/* Every row's sign pattern over the tree's levels (see highd.h). */
uint64_t *
dpk_highd_tree_codes(const DpkHighdPlan *pl)
{
	int			levels = pl->eps.tree_levels;
	DpkProjection proj;
	uint64_t   *code = dpk_alloc0(sizeof(uint64_t) * (pl->n ? pl->n : 1));
	double	   *u = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * pl->d);
	double	   *t = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * levels);
	size_t		done,
				i;
	int			l;

	/* t = (P v + w) / 2w: its side of 1/2 is the side of the hyperplane */
	dpk_projection_init(&proj, pl->d, levels, pl->cfg->proj_seed ^ TREE_SEED_TAG, 1.0);
	for (done = 0; done < pl->n; done += DPK_PROJ_CHUNK)
	{
		size_t		rows;
		const double *uc = dpk_highd_load_chunk(pl, done, u, &rows);

		dpk_project_batch(&proj, uc, rows, t);
		for (i = 0; i < rows; i++)
			for (l = 0; l < levels; l++)
				if (t[i * levels + l] >= 0.5)
					code[done + i] |= UINT64_C(1) << l;
	}
	dpk_projection_free(&proj);
	dpk_free(u);
	dpk_free(t);
	return code;
}

/* Split rows perm[start .. end) by bit `bit` of their code (see highd.h). */
size_t
dpk_highd_tree_split(size_t *perm, const uint64_t *code, size_t start, size_t end, int bit)
{
	size_t		a = start,
				e = end;

	while (a < e)
	{
		if ((code[perm[a]] >> bit) & 1)
		{
			size_t		tmp = perm[a];

			perm[a] = perm[--e];
			perm[e] = tmp;
		}
		else
			a++;
	}
	return a;
}

/*
 * The exact count of the rows whose code starts (bits 0 .. depth - 1) with
 * prefix: a sum over the codes' histogram (2^levels values).
 */
static int64_t
prefix_count(const int64_t *hist, int levels, uint64_t prefix, int depth)
{
	uint64_t	j,
				ext = UINT64_C(1) << (levels - depth);
	int64_t		c = 0;

	for (j = 0; j < ext; j++)
		c += hist[prefix | (j << depth)];
	return c;
}

/*
 * The SimHash tree of a plan (dpk_highd_tree_leaves's rule and draws) from
 * the histogram of its rows' codes: one pass over the rows computes every
 * code (kept in codes, a column of uint32, when not NULL) and counts it;
 * a node at depth t is the rows whose code starts with its t-bit prefix, so
 * its exact count is a sum over the histogram and nothing per row is kept.
 * Nodes are visited level by level in the order of the rows' split (the
 * child with the bit clear first).  Returns the number of leaves;
 * *leaf_of_code (dpk_alloc'd, 2^levels) gets the leaf of every code (-1:
 * none); prefix_noisy (NULL or 2^(levels + 1)) at 2^t + prefix the noisy
 * count of every node counted at depth t, NaN elsewhere.
 */
static int
tree_build(const DpkHighdPlan *pl, DpkStream *s, DpkHighdColumn *codes, int **leaf_of_code,
		   double *min_node, double *prefix_noisy)
{
	int			levels = pl->eps.tree_levels,
				nleaves = 0,
				l;
	uint64_t	ncodes,
				c;
	int64_t    *hist;
	int		   *leaf;
	DpkProjection proj;
	double	   *u,
			   *t;
	uint32_t   *cbuf;
	TreeNode   *cur,
			   *next;
	size_t		ncur = 1,
				done,
				i;
	double		sum_var = pl->sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS),
				mn = pl->cfg->ball > 0.0
				? pl->cfg->tree_node * sqrt(pl->d * sum_var) / pl->cfg->ball : 1.0,
				branch;

	if (levels < 1 || levels > DPK_HIGHD_TREE_MAX_LEVELS)
		dpk_fail("a SimHash tree has 1 to 20 levels");
	ncodes = UINT64_C(1) << levels;
	mn = fmax(1.0, floor(fmin(mn, pl->noisy_n / (2.0 * pl->k))));
	branch = 3.0 * mn;
	*min_node = mn;

	/* every row's code, counted (dpk_highd_tree_codes's bits) */
	hist = dpk_alloc0(sizeof(int64_t) * ncodes);
	u = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * pl->d);
	t = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * levels);
	cbuf = dpk_alloc(sizeof(uint32_t) * DPK_PROJ_CHUNK);
	dpk_projection_init(&proj, pl->d, levels, pl->cfg->proj_seed ^ TREE_SEED_TAG, 1.0);
	for (done = 0; done < pl->n; done += DPK_PROJ_CHUNK)
	{
		size_t		rows;
		const double *uc = dpk_highd_load_chunk(pl, done, u, &rows);
		uint32_t   *cc = codes ? dpk_highd_column_slot(codes, done, rows, cbuf) : cbuf;

		dpk_project_batch(&proj, uc, rows, t);
		for (i = 0; i < rows; i++)
		{
			uint32_t	code = 0;

			for (l = 0; l < levels; l++)
				if (t[i * levels + l] >= 0.5)
					code |= UINT32_C(1) << l;
			cc[i] = code;
			hist[code]++;
		}
		if (codes)
			dpk_highd_column_put(codes, done, rows, cc);
	}
	dpk_projection_free(&proj);
	dpk_free(u);
	dpk_free(t);
	dpk_free(cbuf);

	leaf = dpk_alloc(sizeof(int) * ncodes);
	for (c = 0; c < ncodes; c++)
		leaf[c] = -1;
	if (prefix_noisy)
		for (c = 0; c < 2 * ncodes; c++)
			prefix_noisy[c] = NAN;
	cur = dpk_alloc(sizeof(TreeNode));
	cur[0].prefix = 0;
	cur[0].noisy = pl->noisy_n;
	for (l = 0; ncur > 0; l++)
	{
		size_t		nnext = 0,
					q;

		dpk_check_interrupts();
		next = dpk_alloc(sizeof(TreeNode) * 2 * ncur);
		for (q = 0; q < ncur; q++)
		{
			TreeNode	nd = cur[q];
			int			kept = 0,
						b;

			if (l < levels && nd.noisy >= branch)
			{
				for (b = 0; b < 2; b++)
				{
					TreeNode	ch;

					ch.prefix = nd.prefix | ((uint64_t) b << l);
					ch.noisy = (double) prefix_count(hist, levels, ch.prefix, l + 1) +
						(double) dpk_noise_draw(s, &pl->tree_count_scale);
					if (prefix_noisy)
						prefix_noisy[(UINT64_C(1) << (l + 1)) + ch.prefix] = ch.noisy;
					if (ch.noisy >= mn)
					{
						next[nnext++] = ch;
						kept++;
					}
				}
				if (kept > 0)
					continue;
			}
			/* a leaf (rows not in a kept child of an earlier split stay -1) */
			for (c = 0; c < (UINT64_C(1) << (levels - l)); c++)
				leaf[nd.prefix | (c << l)] = nleaves;
			nleaves++;
		}
		dpk_free(cur);
		cur = next;
		ncur = nnext;
	}
	dpk_free(cur);
	dpk_free(hist);
	*leaf_of_code = leaf;
	return nleaves;
}

/* The tree's leaves (see highd.h). */
int
dpk_highd_tree_leaves(const DpkHighdPlan *pl, DpkStream *s, int *leaf_of_row,
					  double *min_node, double *node_noisy)
{
	int			levels = pl->eps.tree_levels,
				nleaves,
				l;
	DpkHighdColumn codes;
	const uint32_t *code;
	int		   *leaf;
	double	   *prefix_noisy = NULL;
	size_t		i;

	if (node_noisy && levels >= 1 && levels <= DPK_HIGHD_TREE_MAX_LEVELS)
		prefix_noisy = dpk_alloc(sizeof(double) * (UINT64_C(2) << levels));
	dpk_highd_column_init(&codes, pl->n, sizeof(uint32_t), NULL);
	nleaves = tree_build(pl, s, &codes, &leaf, min_node, prefix_noisy);
	code = (const uint32_t *) codes.mem;
	for (i = 0; i < pl->n; i++)
	{
		leaf_of_row[i] = leaf[code[i]];
		for (l = 0; node_noisy && l < levels; l++)
			node_noisy[i * levels + l] =
				prefix_noisy[(UINT64_C(1) << (l + 1)) + (code[i] & ((UINT32_C(2) << l) - 1))];
	}
	dpk_highd_column_free(&codes);
	dpk_free(leaf);
	if (prefix_noisy)
		dpk_free(prefix_noisy);
	return nleaves;
}

/* Seed a release from its SimHash tree (see highd.h). */
void
dpk_highd_tree_seed(const DpkHighdPlan *pl, DpkStream *s, DpkHighdOut *out)
{
	int			d = pl->d,
				k = pl->k,
				nl,
				ncells,
				nc = 0,
				i,
				j;
	DpkHighdColumn cell,
				code;
	int		   *leaf,
			   *cbuf;
	uint32_t   *dbuf;
	double		min_node,
				sum_var = pl->sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS),
				min_count;
	double	   *cnt,
			   *sum,
			   *pts,
			   *w,
			   *seed;
	int		   *assign;
	bool		cross;
	size_t		r,
				done;

	if (!pl->have_lift)
	{
		for (i = 0; i < k * d; i++)
			out->centers[i] = 0.5;
		return;
	}
	dpk_highd_column_init(&cell, pl->n, sizeof(int), dpk_highd_plan_spill(pl));
	dpk_highd_column_init(&code, pl->n, sizeof(uint32_t), dpk_highd_plan_spill(pl));
	dpk_highd_joint_parts(pl, s, &cell, out);
	nl = tree_build(pl, s, &code, &leaf, &min_node, NULL);
	/*
	 * A row's cell: its leaf (rows of dropped nodes: leaf nl) and its part;
	 * the leaf alone when the cells' sums would pass the public cap on
	 * lifting values (k large).
	 */
	cross = (double) (nl + 1) * k * (d + 1) <= pl->cfg->max_lift_values;
	ncells = cross ? (nl + 1) * k : nl + 1;
	cbuf = dpk_alloc(sizeof(int) * DPK_PROJ_CHUNK);
	dbuf = dpk_alloc(sizeof(uint32_t) * DPK_PROJ_CHUNK);
	for (done = 0; done < pl->n; done += DPK_PROJ_CHUNK)
	{
		size_t		rows = pl->n - done < DPK_PROJ_CHUNK ? pl->n - done : DPK_PROJ_CHUNK;
		int		   *cp = dpk_highd_column_get(&cell, done, rows, cbuf);
		const uint32_t *cd = dpk_highd_column_get(&code, done, rows, dbuf);

		dpk_check_interrupts();
		for (r = 0; r < rows; r++)
		{
			int			lf = leaf[cd[r]];

			cp[r] = (lf < 0 ? nl : lf) * (cross ? k : 1) + (cross ? cp[r] : 0);
		}
		dpk_highd_column_put(&cell, done, rows, cp);
	}
	dpk_highd_column_free(&code);
	dpk_free(cbuf);
	dpk_free(dbuf);
	dpk_free(leaf);
	cnt = dpk_alloc(sizeof(double) * ncells);
	sum = dpk_alloc(sizeof(double) * (size_t) ncells * d);
	dpk_highd_partition_stats(pl, &(DpkHighdPartition) {ncells, 0, NULL, NULL, NULL, NULL, NULL, &cell},
							  &pl->lift_count_scale, &pl->sum_scale, s, cnt, sum);
	dpk_highd_column_free(&cell);
	min_count = dpk_lift_min_count(pl->lift_count_var, sum_var);

	/* the coreset: every cell's noisy mean from the lift's least count on */
	pts = dpk_alloc(sizeof(double) * (size_t) ncells * d);
	w = dpk_alloc(sizeof(double) * ncells);
	for (i = 0; i < ncells; i++)
	{
		if (!(cnt[i] >= min_count && cnt[i] > 0.0))
			continue;
		for (j = 0; j < d; j++)
			pts[(size_t) nc * d + j] = 0.5 + sum[(size_t) i * d + j] / cnt[i];
		dpk_box_ball_clamp(d, pl->cfg->ball, pts + (size_t) nc * d);
		w[nc++] = cnt[i];
	}
	seed = dpk_alloc(sizeof(double) * (size_t) k * d);
	if (nc > 0)
		dpk_kmeans(&(DpkPoints) {pts, w, nc, d},
				   &(DpkClusterOpts) {k, pl->cfg->restarts, pl->cfg->max_iter, dpk_stream_u64(s)},
				   &(DpkClusterOut) {seed, NULL});
	else
		for (i = 0; i < k * d; i++)
			seed[i] = 0.5;

	/* every such cell to the centre nearest its noisy mean; each centre lifted */
	assign = dpk_alloc(sizeof(int) * ncells);
	for (i = 0, nc = 0; i < ncells; i++)
	{
		assign[i] = -1;
		if (cnt[i] >= min_count && cnt[i] > 0.0)
			assign[i] = dpk_highd_nearest(pts + (size_t) nc++ * d, seed, k, d);
	}
	dpk_lift_centers_weighted(&(DpkLiftCells) {d, k, (size_t) ncells, cnt, sum, assign},
							  &(DpkLiftRule) {sum_var, min_count, seed, NULL},
							  out->centers, out->sizes);
	out->tree_leaves = nl;
	dpk_free(cnt);
	dpk_free(sum);
	dpk_free(pts);
	dpk_free(w);
	dpk_free(seed);
	dpk_free(assign);
}
