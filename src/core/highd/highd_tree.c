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

/* A node of the tree: rows perm[start .. end) and its noisy count. */
typedef struct TreeNode
{
	size_t		start,
				end;
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

/* The tree's leaves (see highd.h). */
int
dpk_highd_tree_leaves(const DpkHighdPlan *pl, DpkStream *s, int *leaf_of_row,
					  double *min_node, double *node_noisy)
{
	int			levels = pl->eps.tree_levels,
				nleaves = 0,
				l;
	uint64_t   *code;
	size_t	   *perm = dpk_alloc(sizeof(size_t) * (pl->n ? pl->n : 1));
	TreeNode   *cur = dpk_alloc(sizeof(TreeNode)),
			   *next;
	size_t		ncur = 1,
				i;
	double		sum_var = pl->sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS),
				mn = pl->cfg->ball > 0.0
				? pl->cfg->tree_node * sqrt(pl->d * sum_var) / pl->cfg->ball : 1.0,
				branch;

	if (levels < 1 || levels > 62)
		dpk_fail("a SimHash tree has 1 to 62 levels");
	mn = fmax(1.0, floor(fmin(mn, pl->noisy_n / (2.0 * pl->k))));
	branch = 3.0 * mn;
	*min_node = mn;
	code = dpk_highd_tree_codes(pl);
	for (i = 0; i < pl->n; i++)
	{
		perm[i] = i;
		leaf_of_row[i] = -1;
	}
	if (node_noisy)
		for (i = 0; i < pl->n * (size_t) levels; i++)
			node_noisy[i] = NAN;
	cur[0].start = 0;
	cur[0].end = pl->n;
	cur[0].noisy = pl->noisy_n;
	for (l = 0; ncur > 0; l++)
	{
		size_t		nnext = 0,
					c;

		dpk_check_interrupts();
		next = dpk_alloc(sizeof(TreeNode) * 2 * ncur);
		for (c = 0; c < ncur; c++)
		{
			TreeNode	nd = cur[c];
			int			kept = 0,
						b;

			if (l < levels && nd.noisy >= branch)
			{
				TreeNode	ch[2];
				size_t		a = dpk_highd_tree_split(perm, code, nd.start, nd.end, l);

				ch[0].start = nd.start;
				ch[0].end = a;
				ch[1].start = a;
				ch[1].end = nd.end;
				for (b = 0; b < 2; b++)
				{
					size_t		q;

					ch[b].noisy = (double) (ch[b].end - ch[b].start) +
						(double) dpk_noise_draw(s, &pl->tree_count_scale);
					if (node_noisy)
						for (q = ch[b].start; q < ch[b].end; q++)
							node_noisy[perm[q] * levels + l] = ch[b].noisy;
					if (ch[b].noisy >= mn)
					{
						next[nnext++] = ch[b];
						kept++;
					}
				}
				if (kept > 0)
					continue;
			}
			/* a leaf (its rows not in a kept child of an earlier split stay -1) */
			for (i = nd.start; i < nd.end; i++)
				leaf_of_row[perm[i]] = nleaves;
			nleaves++;
		}
		dpk_free(cur);
		cur = next;
		ncur = nnext;
	}
	dpk_free(cur);
	dpk_free(perm);
	dpk_free(code);
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
	int		   *cell = dpk_alloc(sizeof(int) * (pl->n ? pl->n : 1)),
			   *leaf = dpk_alloc(sizeof(int) * (pl->n ? pl->n : 1));
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
	size_t		r;

	if (!pl->have_lift)
	{
		for (i = 0; i < k * d; i++)
			out->centers[i] = 0.5;
		dpk_free(cell);
		dpk_free(leaf);
		return;
	}
	dpk_highd_joint_parts(pl, s, cell, out);
	nl = dpk_highd_tree_leaves(pl, s, leaf, &min_node, NULL);
	/*
	 * A row's cell: its leaf (rows of dropped nodes: leaf nl) and its part;
	 * the leaf alone when the cells' sums would pass the public cap on
	 * lifting values (k large).
	 */
	cross = (double) (nl + 1) * k * (d + 1) <= pl->cfg->max_lift_values;
	ncells = cross ? (nl + 1) * k : nl + 1;
	for (r = 0; r < pl->n; r++)
		cell[r] = (leaf[r] < 0 ? nl : leaf[r]) * (cross ? k : 1) + (cross ? cell[r] : 0);
	cnt = dpk_alloc(sizeof(double) * ncells);
	sum = dpk_alloc(sizeof(double) * (size_t) ncells * d);
	dpk_highd_partition_stats(pl, &(DpkHighdPartition) {ncells, 0, NULL, NULL, NULL, NULL, cell},
							  &pl->lift_count_scale, &pl->sum_scale, s, cnt, sum);
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
	dpk_free(cell);
	dpk_free(leaf);
	dpk_free(cnt);
	dpk_free(sum);
	dpk_free(pts);
	dpk_free(w);
	dpk_free(seed);
	dpk_free(assign);
}
