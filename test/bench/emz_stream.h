/*
 * emz_stream.h
 *		Baseline of a differentially private streaming clustering of the
 *		kind the seed paper compares itself with (Epasto, Mukherjee, Zhong,
 *		"Differentially Private Clustering in Data Streams", ICML 2023:
 *		"EMZ23"): an offline DP summary of every block of the stream,
 *		merge-and-reduce of the summaries, and a non-private clustering of
 *		what is kept at every release.  Benchmark only: never shipped.
 *
 * What is taken from the paper's framework:
 *	 - the stream is cut into blocks fixed in advance (here: the rows of one
 *	   release's batch, so release t sees every row up to t; with one row
 *	   per time step a block of B rows would make a release lag up to B
 *	   rows behind);
 *	 - each block is summarised once, when it is complete, by an offline DP
 *	   coreset algorithm used as a black box; a row is in exactly one
 *	   block, so the blocks compose in parallel and every block spends the
 *	   whole eps, and the sequence of all releases is eps-DP (event level)
 *	   because everything after the block summaries is post-processing;
 *	 - the summaries are merged and reduced on a binary tree (the classic
 *	   merge-and-reduce of insertion-only streaming coresets): bucket l
 *	   holds the summary of 2^l consecutive blocks or nothing; a new block
 *	   enters at level 0 and, like a binary counter's carry, two summaries
 *	   of one level are merged (their union) and reduced into one of the
 *	   next level;
 *	 - at every release the union of the occupied buckets (at most
 *	   floor(log2 t) + 1 summaries) is clustered by a non-private weighted
 *	   k-means into K centres.
 * Where the paper leaves a choice, or this baseline takes the simplest
 * reading:
 *	 - the black box: the plain uniform grid (EUGkM / RUGNIK kind) on the
 *	   declared box, m cells per dimension by RUGNIK's rule for the block's
 *	   size (N / T rows, public like the live table's size hint) at eps and
 *	   K, Laplace(1/eps) (the library's discrete Laplace) on every cell's
 *	   count, negative counts set to 0, every cell of positive count one
 *	   point at its centre weighted by that count (the "plain grid" of the
 *	   one-shot benchmarks).  The paper plugs in the coresets of Ghazi,
 *	   Kumar, Manurangsi (2020) or Kaplan, Stemmer (2018), which have no
 *	   practical implementation; in low d the noisy grid is the DP coreset
 *	   in use;
 *	 - the paper's refinement that bounds the additive error (a DP
 *	   bicriteria solution from heavy hitters of the stream, and a separate
 *	   merge-and-reduce in each ring around its centres) is left out: one
 *	   merge-and-reduce over the whole box;
 *	 - the reduce: a weighted k-means (k-means++ seeding, Lloyd) of the
 *	   union into EMZ_SIZE_PER_K * K points, each weighted by the weight
 *	   assigned to it, when the union holds more points than that (the
 *	   "coreset by clustering" of streaming k-means); a union no larger is
 *	   kept as it is;
 *	 - deletions: the paper's algorithm handles insertion-only streams and
 *	   a block's summary cannot forget a row, so this baseline runs on
 *	   insert streams only (a window stream that deletes whole blocks could
 *	   drop expired summaries, but that is not the general delete of a row).
 * Without noise (eps <= 0 or infinite) the grid has
 * floor(EMZ_NOISELESS_CELLS^(1/d)) cells per dimension.
 */
#ifndef EMZ_STREAM_H
#define EMZ_STREAM_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EMZ_SIZE_PER_K 10
#define EMZ_MAX_CELLS 4194304.0
#define EMZ_NOISELESS_CELLS 65536.0
#define EMZ_LEVELS 33

/* A weighted point set in box coordinates: one bucket of the tree. */
typedef struct EmzSummary
{
	int			n;
	double	   *x;				/* n * d */
	double	   *w;				/* n */
} EmzSummary;

typedef struct EmzStream
{
	int			d;
	int			m;				/* grid cells per dimension of a block */
	int			size;			/* points a reduce keeps */
	int			restarts;		/* k-means restarts of a reduce */
	double		eps;			/* <= 0 or infinite: noiseless */
	uint64_t	key;
	uint32_t	blocks;			/* blocks summarised so far */
	DpkDenseHist open;			/* true counts of the block being filled */
	EmzSummary	bucket[EMZ_LEVELS];
} EmzStream;

/*
 * A baseline for d dimensions and K centres at budget eps, whose blocks
 * hold about block_rows rows (the public size the grid is chosen for);
 * restarts: k-means restarts of every reduce.
 */
static inline void
emz_init(EmzStream *e, int d, int k, double eps, double block_rows, int restarts,
		 uint64_t key)
{
	bool		noisy = eps > 0.0 && isfinite(eps);
	int			max_per_dim = (int) floor(pow(noisy ? EMZ_MAX_CELLS : EMZ_NOISELESS_CELLS,
											   1.0 / d) + 1e-9);

	memset(e, 0, sizeof(*e));
	e->d = d;
	e->eps = noisy ? eps : 0.0;
	e->key = key;
	e->size = EMZ_SIZE_PER_K * k;
	e->restarts = restarts;
	e->m = noisy ? dpk_grid_cells_per_dim(DPK_RULE_RUGNIK,
										  dpk_grid_m(DPK_RULE_RUGNIK, fmax(block_rows, 1.0),
													 eps, k, d),
										  fmax(block_rows, 1.0), eps, k, d, max_per_dim)
		: max_per_dim;
	dpk_hist_init(&e->open, d, e->m, false);
}

static inline void
emz_free(EmzStream *e)
{
	int			l;

	dpk_hist_free(&e->open);
	for (l = 0; l < EMZ_LEVELS; l++)
	{
		free(e->bucket[l].x);
		free(e->bucket[l].w);
	}
}

/* Insert rows [from, to) of pts into the block being filled. */
static inline void
emz_insert(EmzStream *e, const DpkBox *box, const double *pts, size_t from, size_t to)
{
	dpk_hist_add_points(&e->open, box, pts + from * e->d, to - from);
}

/* The union of summaries a and b (both freed; a takes the result). */
static inline void
emz_union(int d, EmzSummary *a, EmzSummary *b)
{
	EmzSummary	u;

	u.n = a->n + b->n;
	u.x = xmalloc(sizeof(double) * ((size_t) u.n * d + 1));
	u.w = xmalloc(sizeof(double) * ((size_t) u.n + 1));
	memcpy(u.x, a->x, sizeof(double) * a->n * d);
	memcpy(u.x + (size_t) a->n * d, b->x, sizeof(double) * b->n * d);
	memcpy(u.w, a->w, sizeof(double) * a->n);
	memcpy(u.w + a->n, b->w, sizeof(double) * b->n);
	free(a->x);
	free(a->w);
	free(b->x);
	free(b->w);
	memset(b, 0, sizeof(*b));
	*a = u;
}

/*
 * Reduce a summary to at most e->size points: a weighted k-means of it,
 * each centre weighted by the weight assigned to it (centres that get
 * none are dropped).  Post-processing: no data is read.
 */
static inline void
emz_reduce(const EmzStream *e, EmzSummary *s, uint64_t seed)
{
	int			d = e->d,
				i,
				n = 0;
	double	   *c,
			   *w;

	if (s->n <= e->size)
		return;
	c = xmalloc(sizeof(double) * e->size * d);
	w = xmalloc(sizeof(double) * e->size);
	dpk_kmeans(&(DpkPoints) {s->x, s->w, s->n, d},
			   &(DpkClusterOpts) {e->size, e->restarts, 300, seed},
			   &(DpkClusterOut) {c, w});
	for (i = 0; i < e->size; i++)
		if (w[i] > 0.0)
		{
			memmove(c + (size_t) n * d, c + (size_t) i * d, sizeof(double) * d);
			w[n++] = w[i];
		}
	free(s->x);
	free(s->w);
	s->n = n;
	s->x = c;
	s->w = w;
}

/*
 * Close the block being filled: its DP summary (noisy grid, negative
 * counts to 0, positive cells at their centres), entered into the
 * merge-and-reduce tree at level 0 with carries; a new block starts empty.
 */
static inline void
emz_close_block(EmzStream *e, const DpkBox *box)
{
	DpkCoreset	cs;
	EmzSummary	leaf;
	uint64_t	c;
	int			l;

	if (e->eps > 0.0)
	{
		DpkStream	s = {0};

		open_seed_stream(&s, mix_hash4(e->key, e->blocks, 0x656d7a, 0));
		dpk_hist_add_noise(&e->open, &s, dpk_scale_from_double(1.0 / e->eps),
						   (DpkScale) {1, 1});
		dpk_stream_close(&s);
	}
	for (c = 0; c < e->open.ncells; c++)
		if (e->open.count[c] < 0)
			e->open.count[c] = 0;
	dpk_coreset_from_hist(&e->open, box, 0.0, 0.0, &cs);
	memset(e->open.count, 0, sizeof(int64_t) * e->open.ncells);
	leaf.n = cs.n;
	leaf.x = xmalloc(sizeof(double) * ((size_t) cs.n * e->d + 1));
	leaf.w = xmalloc(sizeof(double) * ((size_t) cs.n + 1));
	memcpy(leaf.x, cs.points, sizeof(double) * cs.n * e->d);
	memcpy(leaf.w, cs.weights, sizeof(double) * cs.n);
	dpk_coreset_free(&cs);
	e->blocks++;
	for (l = 0; l < EMZ_LEVELS - 1 && e->bucket[l].x != NULL; l++)
	{
		emz_union(e->d, &leaf, &e->bucket[l]);
		emz_reduce(e, &leaf, mix_hash4(e->key, e->blocks, (uint64_t) l, 1));
	}
	e->bucket[l] = leaf;		/* occupied (x != NULL) even when empty */
}

/*
 * Release: a weighted k-means of the union of the occupied buckets into k
 * centres (box coordinates).  Returns the number of points clustered.
 */
static inline int
emz_release(const EmzStream *e, int k, int restarts, uint64_t seed, double *centres)
{
	int			d = e->d,
				l,
				n = 0;
	double	   *x,
			   *w;

	for (l = 0; l < EMZ_LEVELS; l++)
		n += e->bucket[l].n;
	x = xmalloc(sizeof(double) * ((size_t) n * d + 1));
	w = xmalloc(sizeof(double) * ((size_t) n + 1));
	n = 0;
	for (l = 0; l < EMZ_LEVELS; l++)
	{
		memcpy(x + (size_t) n * d, e->bucket[l].x, sizeof(double) * e->bucket[l].n * d);
		memcpy(w + n, e->bucket[l].w, sizeof(double) * e->bucket[l].n);
		n += e->bucket[l].n;
	}
	dpk_kmeans(&(DpkPoints) {x, w, n, d}, &(DpkClusterOpts) {k, restarts, 300, seed},
			   &(DpkClusterOut) {centres, NULL});
	free(x);
	free(w);
	return n;
}

#endif							/* EMZ_STREAM_H */
