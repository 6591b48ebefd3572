/*
 * seed_mp.h
 *		Baseline of the seed paper's continual algorithm (Dupré la Tour,
 *		Henzinger, Saulpic, "Differential Privacy for Clustering Under
 *		Continual Observation"), low-dimensional form: a continual histogram
 *		over every level of a fixed hierarchical decomposition, a
 *		Mettu-Plaxton-style selection of k' centres from the noisy counts,
 *		and a non-private weighted k-means of those centres (the coreset) at
 *		every release.  Benchmark only: never shipped, its noise is not the
 *		extension's (doubles from a hash, not the integer samplers).
 *
 * Where the paper's text gives the details, they are followed:
 *	 - levels i = 1..L; the net point z of a level-i cell has value
 *	   val(z) = 2^(-2i) * |N^1(z) ∩ P|; the children of z are the level-(i+1)
 *	   net points within N^4(z) = B(z, 4 * 2^-i);
 *	 - the counts come from a continual histogram: one binary tree counter
 *	   (Dwork et al., Chan et al.) per cell, floor(log2 T) + 1 tree levels,
 *	   Laplace noise on every tree node, the count at t the true count plus
 *	   the noise of the dyadic nodes of [1, t];  every row is in one cell
 *	   per level, so eps is split evenly over the L levels (eps / L per
 *	   level's histogram) and each level's counter spends it over its tree
 *	   levels: node scale L * (floor(log2 T) + 1) * s / eps, s = 1 when rows
 *	   are only inserted, s = 2 when a row may also be deleted (its insert
 *	   and delete both count);
 *	 - the selected centres are a coreset, clustered by a non-private
 *	   weighted k-means at every release.
 * Where the extracted text lost the details, the simplest faithful reading
 * is taken:
 *	 - the nets Z_i are the centres of the cells of the level-i grid on the
 *	   normalized box [0,1]^d (side 2^-i) and N^1(z) is the cell itself (so
 *	   each row is in exactly one set per level, the histogram's b = L);
 *	   L = ceil(log2 N) as in the paper (N the size hint), capped so that
 *	   a level has at most SEED_MAX_LEVEL_CELLS cells (L = 11 at d = 2);
 *	 - the selection (Mettu-Plaxton's successive selection): k' times, take
 *	   the net point of largest value among the "isolated" ones (no selected
 *	   centre within ISO * 2^-level of it, ISO = 4, the children's radius),
 *	   then descend to its isolated child of largest value while one exists
 *	   down to level L and its noisy count is at least max(1, 3 sigma)
 *	   (sigma: the standard deviation of a noisy count at t; Mettu and
 *	   Plaxton stop a ball's growth at a value threshold; without this stop
 *	   the descent follows noise through the levels whose cells hold fewer
 *	   rows than the noise, drifting up to 8 cells of the first such level),
 *	   and select the net point reached;
 *	 - k' = SEED_KPRIME_PER_K * K (a coreset of 10 points per centre);
 *	 - the coreset weights, as the paper counts a cluster (a union of
 *	   cells of the decomposition): each selected centre's Voronoi region
 *	   is covered by the coarsest cells inside it (a box is inside a convex
 *	   region when its corners are), recursing into cells that cross a
 *	   boundary down to level w, where such a cell goes to the centre
 *	   nearest its middle; the weight is the sum of those cells' noisy
 *	   counts, negative sums set to 0 (post-processing of the histogram,
 *	   like the selection).  w is the finest level at which the boundary
 *	   cells of one region (about 2d (2^(wd) / k')^((d-1)/d)) sum noise of
 *	   standard deviation at most 25 % of an average weight N / k' (N: the
 *	   table's size hint, which the live table's level uses too); at least
 *	   level 1, and L when noiseless.
 */
#ifndef SEED_MP_H
#define SEED_MP_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SEED_ISO 4.0
#define SEED_CHILD 4.0
#define SEED_KPRIME_PER_K 10
#define SEED_MAX_LEVEL_CELLS 4194304

typedef struct SeedMP
{
	int			d;
	int			L;				/* levels 1..L */
	int			kprime;
	int			wlevel;			/* level of the coreset weights */
	uint32_t	T;
	double		scale;			/* Laplace scale of a tree node; 0: noiseless */
	double		count_sd;		/* sd of a noisy count at the last release */
	uint64_t	key;
	int64_t    *count[32];		/* count[l]: true counts of the level-l cells */
	double	   *noisy[32];		/* noisy counts at the last release */
	size_t		ncells[32];
} SeedMP;

/* Cells per dimension at level l. */
static inline int64_t
seed_side(int l)
{
	return (int64_t) 1 << l;
}

/*
 * A baseline for d dimensions, L levels (capped so that a level has at
 * most SEED_MAX_LEVEL_CELLS cells), K centres, budget eps (<= 0 or
 * infinite: noiseless), horizon T; deletes: rows may be deleted.
 */
static inline void
seed_init(SeedMP *s, int d, int L, int k, double eps, uint32_t T, bool deletes,
		  double size_hint, uint64_t key)
{
	int			l,
				tree_levels = 0;

	memset(s, 0, sizeof(*s));
	while (L > 1 && pow(2.0, (double) L * d) > SEED_MAX_LEVEL_CELLS)
		L--;
	if (L < 1)
		L = 1;
	s->d = d;
	s->L = L;
	s->T = T;
	s->key = key;
	s->kprime = SEED_KPRIME_PER_K * k;
	while (((uint32_t) 1 << tree_levels) <= T)
		tree_levels++;			/* floor(log2 T) + 1 */
	s->scale = (eps > 0.0 && isfinite(eps))
		? (double) L * tree_levels * (deletes ? 2.0 : 1.0) / eps : 0.0;
	/* a count sums about tree_levels / 2 Laplace nodes of variance 2 scale^2 */
	for (s->wlevel = L; s->wlevel > 1; s->wlevel--)
	{
		double		cells = pow(2.0, (double) s->wlevel * d) / s->kprime;
		double		boundary = 2.0 * d * pow(cells, (d - 1.0) / d);
		double		sd = s->scale * sqrt(2.0 * (tree_levels / 2.0) * boundary);

		if (sd <= 0.25 * size_hint / s->kprime)
			break;
	}
	for (l = 1; l <= L; l++)
	{
		s->ncells[l] = (size_t) 1 << (l * d);
		s->count[l] = calloc(s->ncells[l], sizeof(int64_t));
		s->noisy[l] = malloc(sizeof(double) * s->ncells[l]);
		if (!s->count[l] || !s->noisy[l])
		{
			fprintf(stderr, "seed_mp: out of memory\n");
			exit(1);
		}
	}
}

static inline void
seed_free(SeedMP *s)
{
	int			l;

	for (l = 1; l <= s->L; l++)
	{
		free(s->count[l]);
		free(s->noisy[l]);
	}
}

/* Index of the level-l cell of normalized position u. */
static inline size_t
seed_cell(int d, int l, const double *u)
{
	int64_t		n = seed_side(l);
	size_t		c = 0;
	int			j;

	for (j = d - 1; j >= 0; j--)
	{
		int64_t		i = (int64_t) floor(u[j] * (double) n);

		i = i < 0 ? 0 : (i >= n ? n - 1 : i);
		c = c * (size_t) n + (size_t) i;
	}
	return c;
}

/* Centre of the level-l cell c, normalized. */
static inline void
seed_cell_centre(int d, int l, size_t c, double *u)
{
	int64_t		n = seed_side(l);
	int			j;

	for (j = 0; j < d; j++)
	{
		u[j] = ((double) (c % (size_t) n) + 0.5) / (double) n;
		c /= (size_t) n;
	}
}

/* Insert (+1) or delete (-1) rows [from, to) of pts in every level. */
static inline void
seed_apply(SeedMP *s, const DpkBox *box, const double *pts, size_t from, size_t to,
		   int sign)
{
	double		u[16];
	size_t		i;
	int			l;

	for (i = from; i < to; i++)
	{
		dpk_box_normalize(box, pts + i * s->d, u);
		for (l = 1; l <= s->L; l++)
			s->count[l][seed_cell(s->d, l, u)] += sign;
	}
}

/* Laplace(scale) drawn from a hash of the key and the node's name. */
static inline double
seed_node_noise(const SeedMP *s, int l, size_t cell, int h, uint32_t j)
{
	uint64_t	r = mix_hash4(s->key, ((uint64_t) l << 56) | cell,
							  ((uint64_t) h << 32) | j, 0x73656564);
	double		u = ((double) (r >> 11) + 0.5) * (1.0 / 9007199254740992.0) - 0.5;

	return -s->scale * (u < 0 ? -1.0 : 1.0) * log(1.0 - 2.0 * fabs(u));
}

/*
 * The noisy counts of every cell at release t: the true count plus the
 * noise of the binary tree's dyadic nodes covering [1, t] (node (h, j)
 * covers [j 2^h + 1, (j + 1) 2^h]).
 */
static inline void
seed_noisy_counts(SeedMP *s, uint32_t t)
{
	int			l,
				h;
	size_t		c;

	s->count_sd = s->scale * sqrt(2.0 * __builtin_popcount(t));
	for (l = 1; l <= s->L; l++)
		for (c = 0; c < s->ncells[l]; c++)
		{
			double		v = (double) s->count[l][c];

			if (s->scale > 0.0)
				for (h = 31; h >= 0; h--)
					if (t & ((uint32_t) 1 << h))
						v += seed_node_noise(s, l, c, h, (t >> h) - 1);
			s->noisy[l][c] = v;
		}
}

static inline double
seed_dist2(int d, const double *a, const double *b)
{
	double		s = 0.0;
	int			j;

	for (j = 0; j < d; j++)
		s += (a[j] - b[j]) * (a[j] - b[j]);
	return s;
}

/* Is a level-l net point at u isolated from the n selected centres sel? */
static inline bool
seed_isolated(int d, int l, const double *u, const double *sel, int n)
{
	double		r = SEED_ISO / (double) seed_side(l);
	int			i;

	for (i = 0; i < n; i++)
		if (seed_dist2(d, u, sel + (size_t) i * d) <= r * r)
			return false;
	return true;
}

/* Order of (level, cell) pairs by decreasing value, for the selection. */
typedef struct SeedCand
{
	double		val;
	int			l;
	size_t		c;
} SeedCand;

/* Restore the max-heap property below position i of h[0 .. n). */
static inline void
seed_sift_down(SeedCand *h, size_t n, size_t i)
{
	for (;;)
	{
		size_t		a = 2 * i + 1,
					b = a + 1,
					m = i;
		SeedCand	tmp;

		if (a < n && h[a].val > h[m].val)
			m = a;
		if (b < n && h[b].val > h[m].val)
			m = b;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

/*
 * The Mettu-Plaxton-style selection from the noisy counts of the last
 * seed_noisy_counts: fills sel (kprime * d, normalized) and returns how
 * many were selected (fewer when no net point is isolated any more).
 */
static inline int
seed_select(const SeedMP *s, double *sel)
{
	int			d = s->d,
				l,
				n = 0;
	size_t		ncand = 0,
				c,
				pos = 0;
	SeedCand   *cand;
	double		u[16],
				v[16],
				stop = fmax(1.0, 3.0 * s->count_sd);

	for (l = 1; l <= s->L; l++)
		ncand += s->ncells[l];
	cand = xmalloc(sizeof(SeedCand) * ncand);
	ncand = 0;
	for (l = 1; l <= s->L; l++)
		for (c = 0; c < s->ncells[l]; c++)
		{
			cand[ncand].val = s->noisy[l][c] / ((double) seed_side(l) * seed_side(l));
			cand[ncand].l = l;
			cand[ncand].c = c;
			ncand++;
		}
	/* a max-heap by value: a few pops per selection, not a full sort */
	for (pos = ncand / 2; pos-- > 0;)
		seed_sift_down(cand, ncand, pos);

	while (n < s->kprime)
	{
		int			lz;
		size_t		cz;

		/*
		 * isolation only grows, so a net point found not isolated is
		 * dropped; the one found isolated stays (it may stay isolated)
		 */
		while (ncand > 0)
		{
			seed_cell_centre(d, cand[0].l, cand[0].c, u);
			if (seed_isolated(d, cand[0].l, u, sel, n))
				break;
			cand[0] = cand[--ncand];
			seed_sift_down(cand, ncand, 0);
		}
		if (ncand == 0)
			break;
		lz = cand[0].l;
		cz = cand[0].c;
		seed_cell_centre(d, lz, cz, u);

		/* descend to the isolated child of largest value */
		while (lz < s->L)
		{
			int			lc = lz + 1;
			int64_t		side = seed_side(lc);
			double		r = SEED_CHILD / (double) seed_side(lz);
			int64_t		lo[16],
						hi[16],
						idx[16];
			double		best = -INFINITY;
			size_t		bestc = 0;
			int			j;
			bool		more = true;

			for (j = 0; j < d; j++)
			{
				lo[j] = (int64_t) floor((u[j] - r) * side);
				hi[j] = (int64_t) floor((u[j] + r) * side);
				lo[j] = lo[j] < 0 ? 0 : lo[j];
				hi[j] = hi[j] >= side ? side - 1 : hi[j];
				idx[j] = lo[j];
			}
			while (more)
			{
				size_t		cc = 0;

				for (j = d - 1; j >= 0; j--)
					cc = cc * (size_t) side + (size_t) idx[j];
				seed_cell_centre(d, lc, cc, v);
				if (seed_dist2(d, u, v) <= r * r && s->noisy[lc][cc] > best &&
					s->noisy[lc][cc] >= stop && seed_isolated(d, lc, v, sel, n))
				{
					best = s->noisy[lc][cc];
					bestc = cc;
				}
				for (j = 0; j < d; j++)
				{
					if (++idx[j] <= hi[j])
						break;
					idx[j] = lo[j];
				}
				more = j < d;
			}
			if (best == -INFINITY)
				break;
			lz = lc;
			cz = bestc;
			seed_cell_centre(d, lz, cz, u);
		}
		memcpy(sel + (size_t) n * d, u, sizeof(double) * d);
		n++;
	}
	free(cand);
	return n;
}

/* The selected centre nearest to the normalized point u. */
static inline int
seed_nearest(int d, const double *u, const double *sel, int n)
{
	double		best = INFINITY;
	int			i,
				at = 0;

	for (i = 0; i < n; i++)
	{
		double		dd = seed_dist2(d, u, sel + (size_t) i * d);

		if (dd < best)
		{
			best = dd;
			at = i;
		}
	}
	return at;
}

/*
 * Add the noisy count of the level-l cell c to the weight of the centre
 * whose region holds it, or recurse into its 2^d children when it crosses
 * a boundary (above level s->wlevel).
 */
static void
seed_weigh(const SeedMP *s, int l, size_t c, const double *sel, int n, double *w)
{
	int			d = s->d,
				j,
				m,
				owner = -1;
	double		u[16],
				v[16],
				half = 0.5 / (double) seed_side(l);
	int64_t		side = seed_side(l);
	size_t		rest = c;
	int64_t		idx[16];

	seed_cell_centre(d, l, c, u);
	for (m = 0; m < (1 << d); m++)
	{
		int			o;

		for (j = 0; j < d; j++)
			v[j] = u[j] + ((m >> j) & 1 ? half : -half);
		o = seed_nearest(d, v, sel, n);
		if (owner < 0)
			owner = o;
		else if (o != owner)
		{
			owner = -2;
			break;
		}
	}
	if (owner >= 0)
	{
		w[owner] += s->noisy[l][c];
		return;
	}
	if (l >= s->wlevel)
	{
		w[seed_nearest(d, u, sel, n)] += s->noisy[l][c];
		return;
	}
	for (j = 0; j < d; j++)
	{
		idx[j] = (int64_t) (rest % (size_t) side);
		rest /= (size_t) side;
	}
	for (m = 0; m < (1 << d); m++)
	{
		size_t		cc = 0;

		for (j = d - 1; j >= 0; j--)
			cc = cc * (size_t) (2 * side) + (size_t) (2 * idx[j] + ((m >> j) & 1));
		seed_weigh(s, l + 1, cc, sel, n, w);
	}
}

/*
 * Release t of the baseline: noisy counts, selection, coreset weights,
 * weighted k-means of the coreset into k centres (box coordinates).
 * Returns the coreset size.
 */
static inline int
seed_release(SeedMP *s, const DpkBox *box, uint32_t t, int k, int restarts,
			 uint64_t seed, double *centres)
{
	int			d = s->d,
				n,
				i;
	double	   *sel = xmalloc(sizeof(double) * s->kprime * d),
			   *pts = xmalloc(sizeof(double) * s->kprime * d),
			   *w = calloc(s->kprime, sizeof(double));
	size_t		c;

	seed_noisy_counts(s, t);
	n = seed_select(s, sel);
	for (c = 0; c < s->ncells[1]; c++)
		seed_weigh(s, 1, c, sel, n, w);
	for (i = 0; i < n; i++)
	{
		if (!(w[i] > 0.0))
			w[i] = 0.0;
		dpk_box_denormalize(box, sel + (size_t) i * d, pts + (size_t) i * d);
	}
	dpk_kmeans(&(DpkPoints) {pts, w, n, d}, &(DpkClusterOpts) {k, restarts, 300, seed},
			   &(DpkClusterOut) {centres, NULL});
	free(sel);
	free(pts);
	free(w);
	return n;
}

#endif							/* SEED_MP_H */
