/*
 * test_highd_rows.c
 *		A high-dimensional one-shot whose rows are read a chunk at a time is
 *		the one-shot of the array of them.
 *
 * dp_kmeans at 6 columns or more keeps its rows up to work_mem and the rest
 * in a temporary file, and the one-shot's passes read them through a
 * reader (highd.h, dpk_highd_oneshot_cluster_rows).  On the same key it
 * must give dpk_highd_oneshot_cluster's centres, sizes and coreset bit for
 * bit: pure and Gaussian, k-means and k-median, with and without a norm
 * bound (with delta the SimHash tree seed and the refinement steps), raw
 * rows and metric positions, rows outside the box included.  The same with
 * what the passes keep per row (projections, labels, sign patterns) in
 * memory only up to a budget and the rest in temporary files
 * (highd_column.h): budgets of none, a few chunks and most of the rows.
 * The SimHash tree built from its codes' histogram is the tree the rows'
 * split built before (a reference copy of that split here): the same
 * leaves, noisy node counts and draws.  The joint k-means in two passes
 * releases what it released in three (doc/decisions/080).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpk_mem.h"
#include "highd.h"
#include "noise.h"
#include "unit.h"
#include "unit_stream.h"

enum
{
	D = 16, N = 20000, K = 5
};

/* The array a reader reads, and what it saw. */
typedef struct ArrayRows
{
	const double *x;
	int			d;
	size_t		next;			/* the row after the last read */
	size_t		reads;
	size_t		out_of_order;	/* reads not at row 0 or the next row */
} ArrayRows;

/* read for DpkHighdRows: rows from .. from + rows - 1 of the array. */
static void
array_read(void *arg, size_t from, size_t rows, double *out)
{
	ArrayRows  *a = arg;

	if (from != 0 && from != a->next)
		a->out_of_order++;
	memcpy(out, a->x + from * a->d, sizeof(double) * rows * a->d);
	a->next = from + rows;
	a->reads++;
}

/* Temporary files of stdio behind a DpkHighdSpill, and what went through them. */
typedef struct FileSpill
{
	size_t		opened;
	size_t		closed;
	uint64_t	written;
} FileSpill;

/* open of a DpkHighdSpill: tmpfile(). */
static void *
file_open(void *arg)
{
	FileSpill  *fs = arg;
	FILE	   *f = tmpfile();

	if (!f)
	{
		perror("tmpfile");
		exit(1);
	}
	fs->opened++;
	return f;
}

/* The FileSpill of the running check (write and close have no arg). */
static FileSpill *current_spill;

/* write of a DpkHighdSpill. */
static void
file_write(void *file, uint64_t offset, const void *data, size_t bytes)
{
	if (fseeko(file, (off_t) offset, SEEK_SET) != 0 || fwrite(data, 1, bytes, file) != bytes)
	{
		perror("write");
		exit(1);
	}
	current_spill->written += bytes;
}

/* read of a DpkHighdSpill. */
static void
file_read(void *file, uint64_t offset, void *data, size_t bytes)
{
	if (fseeko(file, (off_t) offset, SEEK_SET) != 0 || fread(data, 1, bytes, file) != bytes)
	{
		fprintf(stderr, "short read at %llu\n", (unsigned long long) offset);
		exit(1);
	}
}

/* close of a DpkHighdSpill. */
static void
file_close(void *file)
{
	fclose(file);
	current_spill->closed++;
}

/* n points in [0, 100]^D around K centres, 2 % of them outside the box. */
static double *
make_points(size_t n, uint64_t seed)
{
	double	   *x = dpk_alloc(sizeof(double) * n * D);
	uint64_t	st = seed * 2654435761u + 1;
	size_t		i;
	int			j;

	for (i = 0; i < n; i++)
	{
		int			g = (int) (unit_uniform(&st) * K);
		bool		out = unit_uniform(&st) < 0.02;

		for (j = 0; j < D; j++)
			x[i * D + j] = out ? -20.0 + 140.0 * unit_uniform(&st)
				: 10.0 + 18.0 * ((g + j) % K) + 6.0 * (unit_uniform(&st) - 0.5);
	}
	return x;
}

/* Two releases with the same N, coreset, centres and sizes, bit for bit. */
static bool
same_release(const DpkOneshotResult *a, const DpkOneshotResult *b)
{
	return a->coreset_size == b->coreset_size && a->noisy_n == b->noisy_n &&
		memcmp(a->centers, b->centers, sizeof(double) * K * D) == 0 &&
		memcmp(a->sizes, b->sizes, sizeof(double) * K) == 0;
}

/*
 * FNV-1a of a release's bytes (centres, sizes, noisy N, coreset size) and
 * the stream's next word.
 */
static uint64_t
release_digest(const DpkOneshotResult *r, int d, DpkStream *s)
{
	uint64_t	h = UINT64_C(1469598103934665603),
				next = dpk_stream_u64(s);
	int			c = r->coreset_size;
	const unsigned char *parts[] = {(const void *) r->centers, (const void *) r->sizes,
		(const void *) &r->noisy_n, (const void *) &c, (const void *) &next};
	const size_t lens[] = {sizeof(double) * K * d, sizeof(double) * K, sizeof(double),
	sizeof(int), sizeof(uint64_t)};
	size_t		p,
				i;

	for (p = 0; p < 5; p++)
		for (i = 0; i < lens[p]; i++)
			h = (h ^ parts[p][i]) * UINT64_C(1099511628211);
	return h;
}

/*
 * The one-shot of the N rows of x on seed's stream into *res, and, as a
 * digest (release_digest), the same one-shot with the joint k-means held to
 * three passes (no bytes for the groups' sums: its parts summed row by row,
 * as before doc/decisions/080): the two passes must give the same bits and
 * leave the stream where three leave it.  Compared in the same run, so the
 * bits are this CPU's either way.  Returns whether they are equal.
 */
static bool
release_as_three_passes(const DpkBox *box, const double *x, const DpkHighdConfig *cfg,
						uint64_t seed, DpkOneshotResult *res)
{
	DpkHighdConfig three = *cfg;
	DpkOneshotResult ref = {0};
	DpkStream	s;
	uint64_t	h,
				h3;

	unit_open_stream(&s, seed);
	dpk_highd_oneshot_cluster(box, x, N, cfg, &s, res);
	h = release_digest(res, box->d, &s);
	dpk_stream_close(&s);
	three.joint_group_bytes = 0.0;
	unit_open_stream(&s, seed);
	dpk_highd_oneshot_cluster(box, x, N, &three, &s, &ref);
	h3 = release_digest(&ref, box->d, &s);
	dpk_stream_close(&s);
	dpk_oneshot_result_free(&ref);
	return h == h3;
}

/* One configuration: the array against the reader over it. */
static void
check_config(double delta, DpkObjective objective, double norm_bound, bool metric,
			 uint64_t seed)
{
	double		lo[D],
				hi[D];
	DpkBox		box = {D, lo, hi};
	double	   *x = make_points(N, seed);
	DpkHighdConfig cfg;
	DpkOneshotResult whole = {0},
				read = {0};
	ArrayRows	a = {x, D, 0, 0, 0};
	DpkHighdRows rows = {array_read, &a, NULL};
	DpkStream	s;
	size_t		chunks = (N + DPK_PROJ_CHUNK - 1) / DPK_PROJ_CHUNK;
	/* the joint mode (no tree) of k-means */
	bool		joint = objective == DPK_OBJECTIVE_KMEANS && !(norm_bound > 0.0 && delta > 0.0);
	int			j,
				b;
	/* no row in memory; two chunks of ints, none of projections; most */
	static const size_t budgets[] = {0, 40000, 200000};

	for (j = 0; j < D; j++)
	{
		lo[j] = 0.0;
		hi[j] = 100.0;
	}
	dpk_highd_defaults(&cfg, 1.0, K);
	dpk_highd_use_delta(&cfg, delta);
	cfg.objective = objective;
	if (norm_bound > 0.0)
		dpk_highd_use_ball(&cfg, &box, norm_bound);
	if (metric)
		dpk_highd_metric_points(&box, &cfg, x, N);

	CHECK(release_as_three_passes(&box, x, &cfg, seed, &whole),
		  "delta %g, objective %d, norm bound %g, metric %d: released differently from "
		  "three passes", delta, (int) objective, norm_bound, (int) metric);

	unit_open_stream(&s, seed);
	dpk_highd_oneshot_cluster_rows(&box, &rows, N, &cfg, &s, &read);
	dpk_stream_close(&s);

	CHECK(same_release(&whole, &read),
		  "delta %g, objective %d, norm bound %g, metric %d: rows read in chunks "
		  "released differently (N %g / %g, coreset %d / %d)",
		  delta, (int) objective, norm_bound, (int) metric, whole.noisy_n, read.noisy_n,
		  (int) whole.coreset_size, (int) read.coreset_size);
	CHECK(a.reads >= chunks, "delta %g, objective %d: %zu chunks read, fewer than one pass",
		  delta, (int) objective, a.reads);
	/* the joint k-means: two passes, nothing kept per row */
	CHECK(!joint || a.reads == 2 * chunks, "delta %g, metric %d: the joint k-means read "
		  "%zu chunks, not two passes of %zu", delta, (int) metric, a.reads, chunks);
	CHECK(a.out_of_order == 0, "delta %g, objective %d: %zu reads out of order", delta,
		  (int) objective, a.out_of_order);

	for (b = 0; b < (int) (sizeof(budgets) / sizeof(budgets[0])); b++)
	{
		FileSpill	fs = {0, 0, 0};
		DpkHighdSpill spill = {file_open, file_write, file_read, file_close, &fs, budgets[b]};
		DpkHighdRows srows = {array_read, &a, &spill};
		DpkOneshotResult spilled = {0};

		current_spill = &fs;
		unit_open_stream(&s, seed);
		dpk_highd_oneshot_cluster_rows(&box, &srows, N, &cfg, &s, &spilled);
		dpk_stream_close(&s);
		CHECK(same_release(&whole, &spilled),
			  "delta %g, objective %d, norm bound %g, metric %d: per-row values in files "
			  "beyond %zu bytes released differently (N %g / %g, coreset %d / %d)",
			  delta, (int) objective, norm_bound, (int) metric, budgets[b],
			  whole.noisy_n, spilled.noisy_n, (int) whole.coreset_size,
			  (int) spilled.coreset_size);
		/*
		 * the projections (and with the tree its codes and cells) in files;
		 * none for the joint k-means
		 */
		CHECK(joint ? fs.opened == 0 :
			  b == 2 || (fs.opened >= (norm_bound > 0.0 && delta > 0.0 &&
									   objective == DPK_OBJECTIVE_KMEANS ? 3u : 1u) &&
						 fs.written >= (uint64_t) N * sizeof(int) / 2),
			  "delta %g, objective %d, budget %zu: %zu files, %llu bytes written",
			  delta, (int) objective, budgets[b], fs.opened, (unsigned long long) fs.written);
		CHECK(fs.closed == fs.opened, "budget %zu: %zu files left open of %zu", budgets[b],
			  fs.opened - fs.closed, fs.opened);
		dpk_oneshot_result_free(&spilled);
	}
	dpk_oneshot_result_free(&whole);
	dpk_oneshot_result_free(&read);
	dpk_free(x);
}

/*
 * Above DPK_PROJ_EXACT_MAX_D (24 columns: the 16 of make_points and the
 * first 8 again) the joint k-means keeps its first pass's projections in a
 * column: in memory, and beyond a budget of none in one file, the release
 * the same as three passes' and two passes read.
 */
static void
check_wide(uint64_t seed)
{
	enum
	{
		W = 24
	};
	double		lo[W],
				hi[W];
	DpkBox		box = {W, lo, hi};
	double	   *x16 = make_points(N, seed),
			   *x = dpk_alloc(sizeof(double) * N * W);
	DpkHighdConfig cfg;
	ArrayRows	a = {x, W, 0, 0, 0};
	FileSpill	fs = {0, 0, 0};
	DpkHighdSpill spill = {file_open, file_write, file_read, file_close, &fs, 0};
	DpkHighdRows rows = {array_read, &a, &spill};
	DpkOneshotResult whole = {0},
				spilled = {0};
	DpkStream	s;
	size_t		i;
	int			j;

	for (j = 0; j < W; j++)
	{
		lo[j] = 0.0;
		hi[j] = 100.0;
	}
	for (i = 0; i < N; i++)
		for (j = 0; j < W; j++)
			x[i * W + j] = x16[i * D + j % D];
	dpk_highd_defaults(&cfg, 1.0, K);
	CHECK(release_as_three_passes(&box, x, &cfg, seed, &whole),
		  "d = %d: released differently from three passes", W);

	current_spill = &fs;
	unit_open_stream(&s, seed);
	dpk_highd_oneshot_cluster_rows(&box, &rows, N, &cfg, &s, &spilled);
	dpk_stream_close(&s);
	CHECK(whole.noisy_n == spilled.noisy_n &&
		  memcmp(whole.centers, spilled.centers, sizeof(double) * K * W) == 0 &&
		  memcmp(whole.sizes, spilled.sizes, sizeof(double) * K) == 0,
		  "d = %d: projections in a file released differently", W);
	CHECK(a.reads == 2 * ((N + DPK_PROJ_CHUNK - 1) / DPK_PROJ_CHUNK),
		  "d = %d: %zu chunks read, not two passes", W, a.reads);
	CHECK(fs.opened == 1 && fs.closed == 1 && fs.written == (uint64_t) N * 2 * 4 * sizeof(double),
		  "d = %d: %zu files (%zu closed), %llu bytes written; one file of the projections "
		  "expected", W, fs.opened, fs.closed, (unsigned long long) fs.written);
	dpk_oneshot_result_free(&whole);
	dpk_oneshot_result_free(&spilled);
	dpk_free(x16);
	dpk_free(x);
}

/* A node of the reference tree: rows perm[start .. end), its noisy count. */
typedef struct RefNode
{
	size_t		start,
				end;
	double		noisy;
} RefNode;

/*
 * The SimHash tree as the rows' split built it (the rule of
 * dpk_highd_tree_leaves, one permutation of the rows): the reference.
 */
static int
ref_tree_leaves(const DpkHighdPlan *pl, DpkStream *s, int *leaf_of_row, double *min_node,
				double *node_noisy)
{
	int			levels = pl->eps.tree_levels,
				nleaves = 0,
				l;
	uint64_t   *code = dpk_highd_tree_codes(pl);
	size_t	   *perm = dpk_alloc(sizeof(size_t) * (pl->n ? pl->n : 1));
	RefNode    *cur = dpk_alloc(sizeof(RefNode)),
			   *next;
	size_t		ncur = 1,
				i;
	double		sum_var = pl->sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS),
				mn = pl->cfg->ball > 0.0
				? pl->cfg->tree_node * sqrt(pl->d * sum_var) / pl->cfg->ball : 1.0,
				branch;

	mn = fmax(1.0, floor(fmin(mn, pl->noisy_n / (2.0 * pl->k))));
	branch = 3.0 * mn;
	*min_node = mn;
	for (i = 0; i < pl->n; i++)
	{
		perm[i] = i;
		leaf_of_row[i] = -1;
	}
	for (i = 0; i < pl->n * (size_t) levels; i++)
		node_noisy[i] = NAN;
	cur[0].start = 0;
	cur[0].end = pl->n;
	cur[0].noisy = pl->noisy_n;
	for (l = 0; ncur > 0; l++)
	{
		size_t		nnext = 0,
					c;

		next = dpk_alloc(sizeof(RefNode) * 2 * ncur);
		for (c = 0; c < ncur; c++)
		{
			RefNode		nd = cur[c];
			int			kept = 0,
						b;

			if (l < levels && nd.noisy >= branch)
			{
				RefNode		ch[2];
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

/*
 * The tree from its codes' histogram against the reference on the same
 * key: leaves, the least node count, every row's noisy node counts (NaN
 * alike) and the stream's next draw.
 */
static void
check_tree(size_t n, int levels, double norm_bound, double eps, uint64_t seed)
{
	double		lo[D],
				hi[D];
	DpkBox		box = {D, lo, hi};
	double	   *x = make_points(n, seed);
	DpkHighdConfig cfg;
	DpkHighdPlan pl;
	DpkStream	s;
	int		   *leaf = dpk_alloc(sizeof(int) * (n ? n : 1)),
			   *rleaf = dpk_alloc(sizeof(int) * (n ? n : 1));
	double	   *node = dpk_alloc(sizeof(double) * (n ? n : 1) * levels),
			   *rnode = dpk_alloc(sizeof(double) * (n ? n : 1) * levels),
				mn,
				rmn;
	int			nl,
				rnl,
				j;
	uint64_t	next,
				rnext;
	size_t		i,
				diff = 0;

	for (j = 0; j < D; j++)
	{
		lo[j] = 0.0;
		hi[j] = 100.0;
	}
	dpk_highd_defaults(&cfg, eps, K);
	dpk_highd_use_delta(&cfg, 1e-6);
	dpk_highd_use_ball(&cfg, &box, norm_bound);
	cfg.tree_depth = levels;
	dpk_highd_metric_points(&box, &cfg, x, n);

	unit_open_stream(&s, seed);
	dpk_highd_plan(&pl, &box, x, n, &cfg, &s);
	rnl = ref_tree_leaves(&pl, &s, rleaf, &rmn, rnode);
	rnext = dpk_stream_u64(&s);
	dpk_stream_close(&s);

	unit_open_stream(&s, seed);
	dpk_highd_plan(&pl, &box, x, n, &cfg, &s);
	nl = dpk_highd_tree_leaves(&pl, &s, leaf, &mn, node);
	next = dpk_stream_u64(&s);
	dpk_stream_close(&s);

	for (i = 0; i < n; i++)
	{
		diff += leaf[i] != rleaf[i];
		for (j = 0; j < levels; j++)
			diff += !(node[i * levels + j] == rnode[i * levels + j] ||
					  (isnan(node[i * levels + j]) && isnan(rnode[i * levels + j])));
	}
	CHECK(nl == rnl && mn == rmn && next == rnext && diff == 0,
		  "n %zu, %d levels, norm bound %g, epsilon %g: the tree from its histogram has %d "
		  "leaves (the split's %d), least node %g / %g, %zu values differ, next draw %s",
		  n, levels, norm_bound, eps, nl, rnl, mn, rmn, diff,
		  next == rnext ? "equal" : "differs");
	CHECK(rnl > 1 || n == 0, "n %zu, %d levels: the reference tree has %d leaves", n, levels,
		  rnl);
	dpk_free(leaf);
	dpk_free(rleaf);
	dpk_free(node);
	dpk_free(rnode);
	dpk_free(x);
}

int
main(void)
{
	printf("test_highd_rows:\n");
	check_config(0.0, DPK_OBJECTIVE_KMEANS, 0.0, false, 1);
	check_config(0.0, DPK_OBJECTIVE_KMEANS, 0.0, true, 2);
	check_config(1e-6, DPK_OBJECTIVE_KMEANS, 0.0, true, 3);
	check_config(0.0, DPK_OBJECTIVE_KMEDIAN, 0.0, false, 4);
	check_config(0.0, DPK_OBJECTIVE_KMEDIAN, 0.0, true, 5);
	check_config(1e-6, DPK_OBJECTIVE_KMEANS, 150.0, true, 6);
	check_config(1e-6, DPK_OBJECTIVE_KMEANS, 150.0, false, 7);
	check_config(0.0, DPK_OBJECTIVE_KMEANS, 150.0, true, 8);
	check_config(1e-6, DPK_OBJECTIVE_KMEDIAN, 150.0, true, 9);
	check_wide(21);
	check_wide(22);
	check_tree(N, DPK_HIGHD_BALL_TREE_DEPTH, 150.0, 1.0, 10);
	check_tree(N, DPK_HIGHD_BALL_TREE_DEPTH, 150.0, 50.0, 11);
	check_tree(N, 3, 150.0, 1.0, 12);
	check_tree(N, DPK_HIGHD_TREE_MAX_LEVELS, 60.0, 1e6, 13);
	check_tree(777, DPK_HIGHD_BALL_TREE_DEPTH, 100.0, 1.0, 14);
	check_tree(0, DPK_HIGHD_BALL_TREE_DEPTH, 150.0, 1.0, 15);
	UNIT_DONE("test_highd_rows");
}
