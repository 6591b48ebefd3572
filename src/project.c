/*
 * project.c
 *		Random projections, lifting by original-space sums, boosting by copies,
 *		and the high-dimensional one-shot pipeline (paper 000, section 5;
 *		DESIGN §7).
 */
#include "project.h"

#include <math.h>
#include <string.h>

#include <cblas.h>

#include "dpk_mem.h"
#include "kmeans.h"
#include "rugnik.h"

/* Rows normalized and projected per chunk (bounds the scratch memory). */
#define DPK_PROJ_CHUNK 4096

/* ---- a plain seeded generator for the public projection matrices ---- */

typedef struct ProjRng
{
	uint64_t	s[4];
	double		spare;
	int			have_spare;
} ProjRng;

/* splitmix64 step, used to expand seeds. */
static uint64_t
proj_splitmix64(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* Seed xoshiro256** from a 64-bit seed. */
static void
proj_rng_init(ProjRng *r, uint64_t seed)
{
	uint64_t	sm = seed ^ UINT64_C(0x70726F6A65637421);
	int			i;

	for (i = 0; i < 4; i++)
		r->s[i] = proj_splitmix64(&sm);
	if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0)
		r->s[0] = 1;
	r->have_spare = 0;
	r->spare = 0.0;
}

static inline uint64_t
proj_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** next output. */
static uint64_t
proj_rng_next(ProjRng *r)
{
	uint64_t   *s = r->s;
	uint64_t	result = proj_rotl(s[1] * 5, 7) * 9;
	uint64_t	t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = proj_rotl(s[3], 45);
	return result;
}

/* Uniform in (0, 1): 53 random bits, offset by half a step so never 0. */
static double
proj_rng_uniform(ProjRng *r)
{
	return ((double) (proj_rng_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Standard normal by Box-Muller (both values used). */
static double
proj_rng_normal(ProjRng *r)
{
	double		u1,
				u2,
				rad;

	if (r->have_spare)
	{
		r->have_spare = 0;
		return r->spare;
	}
	u1 = proj_rng_uniform(r);
	u2 = proj_rng_uniform(r);
	rad = sqrt(-2.0 * log(u1));
	r->spare = rad * sin(2.0 * M_PI * u2);
	r->have_spare = 1;
	return rad * cos(2.0 * M_PI * u2);
}

/* ---- projections ---- */

/* Draw and orthonormalise the matrix of seed (see project.h). */
void
dpk_projection_init(DpkProjection *p, int d, int dhat, uint64_t seed,
					double half_width)
{
	ProjRng		rng;
	int			i,
				ii,
				j;

	p->d = d;
	p->dhat = dhat;
	p->seed = seed;
	p->half_width = half_width;
	p->mat = dpk_alloc(sizeof(double) * (size_t) dhat * d);
	p->offset = dpk_alloc(sizeof(double) * (size_t) dhat);

	proj_rng_init(&rng, seed);
	for (i = 0; i < dhat; i++)
	{
		double	   *row = p->mat + (size_t) i * d;
		int			attempt;

		for (attempt = 0; attempt < 16; attempt++)
		{
			double		norm = 0.0;

			for (j = 0; j < d; j++)
				row[j] = proj_rng_normal(&rng);
			/* modified Gram-Schmidt against the rows before, while rank allows */
			if (i < d)
				for (ii = 0; ii < i; ii++)
				{
					const double *prev = p->mat + (size_t) ii * d;
					double		dot = 0.0;

					for (j = 0; j < d; j++)
						dot += row[j] * prev[j];
					for (j = 0; j < d; j++)
						row[j] -= dot * prev[j];
				}
			for (j = 0; j < d; j++)
				norm += row[j] * row[j];
			norm = sqrt(norm);
			if (norm > 1e-6)
			{
				for (j = 0; j < d; j++)
					row[j] /= norm;
				break;
			}
			/* a degenerate draw (probability ~0): draw the row again */
		}
	}
	for (i = 0; i < dhat; i++)
	{
		double		o = 0.0;

		for (j = 0; j < d; j++)
			o += p->mat[(size_t) i * d + j];
		p->offset[i] = 0.5 * o;
	}
}

/* Free a projection. */
void
dpk_projection_free(DpkProjection *p)
{
	dpk_free(p->mat);
	dpk_free(p->offset);
	p->mat = NULL;
	p->offset = NULL;
}

/* Seed of copy r (see project.h). */
uint64_t
dpk_projection_copy_seed(uint64_t seed, int r)
{
	uint64_t	st = seed ^ (UINT64_C(0xC2B2AE3D27D4EB4F) * (uint64_t) (r + 1));

	return proj_splitmix64(&st);
}

/* Project normalized points with dgemm (see project.h). */
void
dpk_project_batch(const DpkProjection *p, const double *u, size_t n, double *t)
{
	int			d = p->d,
				dhat = p->dhat;
	double		w = p->half_width;
	double		inv = 1.0 / (2.0 * w);
	size_t		done = 0;

	while (done < n)
	{
		size_t		rows = n - done;
		size_t		i;
		int			j;
		double	   *out = t + done * dhat;

		if (rows > (size_t) (1 << 20))
			rows = (size_t) (1 << 20);
		dpk_check_interrupts();
		/* out = u P^T: (rows x d) times (d x dhat) */
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int) rows, dhat, d,
					1.0, u + done * d, d, p->mat, d, 0.0, out, dhat);
		for (i = 0; i < rows; i++)
			for (j = 0; j < dhat; j++)
			{
				double		v = (out[i * dhat + j] - p->offset[j] + w) * inv;

				out[i * dhat + j] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
			}
		done += rows;
	}
}

/* Normalize then project raw points through a bounded scratch. */
void
dpk_project_points(const DpkProjection *p, const DpkBox *box, const double *x,
				   size_t n, double *t)
{
	int			d = p->d;
	double	   *u = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * d);
	size_t		done = 0;

	while (done < n)
	{
		size_t		rows = n - done < DPK_PROJ_CHUNK ? n - done : DPK_PROJ_CHUNK;
		size_t		i;

		for (i = 0; i < rows; i++)
			dpk_box_normalize(box, x + (done + i) * d, u + i * d);
		dpk_project_batch(p, u, rows, t + done * p->dhat);
		done += rows;
	}
	dpk_free(u);
}

/* Pseudo-inverse of the projection, clamped into the unit cube. */
void
dpk_project_back(const DpkProjection *p, const double *t, double *u)
{
	int			d = p->d,
				dhat = p->dhat,
				i,
				j;
	double		w = p->half_width;

	for (j = 0; j < d; j++)
		u[j] = 0.5;
	for (i = 0; i < dhat; i++)
	{
		double		y = (2.0 * t[i] - 1.0) * w;

		for (j = 0; j < d; j++)
			u[j] += p->mat[(size_t) i * d + j] * y;
	}
	for (j = 0; j < d; j++)
		u[j] = u[j] < 0.0 ? 0.0 : (u[j] > 1.0 ? 1.0 : u[j]);
}

/* ---- lifting ---- */

/* Centred fixed-point contribution of a point (see project.h). */
int64_t
dpk_lift_quantize(int d, const double *u, int64_t *q)
{
	int64_t		norm = 0;
	int			j;

	for (j = 0; j < d; j++)
	{
		double		v = u[j] < 0.0 ? 0.0 : (u[j] > 1.0 ? 1.0 : u[j]);
		int64_t		r = (int64_t) llround((v - 0.5) * DPK_LIFT_UNITS);

		q[j] = r;
		norm += r * r;
	}
	return norm;
}

/* Per-centre totals of cell statistics. */
static void
lift_totals(int d, int k, size_t ncells, const double *count, const double *sum,
			const double *sumnorm, const int *assign, double *cnt, double *tot,
			double *norm, double *cells)
{
	size_t		c;
	int			j;

	memset(cnt, 0, sizeof(double) * k);
	memset(tot, 0, sizeof(double) * (size_t) k * d);
	if (norm)
		memset(norm, 0, sizeof(double) * k);
	if (cells)
		memset(cells, 0, sizeof(double) * k);
	for (c = 0; c < ncells; c++)
	{
		int			a = assign[c];

		if (a < 0 || a >= k)
			continue;
		cnt[a] += count[c];
		for (j = 0; j < d; j++)
			tot[(size_t) a * d + j] += sum[c * d + j];
		if (norm && sumnorm)
			norm[a] += sumnorm[c];
		if (cells)
			cells[a] += 1.0;
	}
}

/* Lift centres (see project.h). */
void
dpk_lift_centers(int d, int k, size_t ncells, const double *count,
				 const double *sum, const int *assign, double min_count,
				 const double *fallback, double *centers, double *sizes)
{
	double	   *cnt = dpk_alloc(sizeof(double) * k);
	double	   *tot = dpk_alloc(sizeof(double) * (size_t) k * d);
	int			a,
				j;

	lift_totals(d, k, ncells, count, sum, NULL, assign, cnt, tot, NULL, NULL);
	for (a = 0; a < k; a++)
	{
		double	   *c = centers + (size_t) a * d;

		if (cnt[a] >= min_count && cnt[a] > 0.0)
			for (j = 0; j < d; j++)
			{
				double		v = 0.5 + tot[(size_t) a * d + j] / cnt[a];

				c[j] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
			}
		else
			for (j = 0; j < d; j++)
				c[j] = fallback ? fallback[(size_t) a * d + j] : 0.5;
		if (sizes)
			sizes[a] = cnt[a] > 0.0 ? cnt[a] : 0.0;
	}
	dpk_free(cnt);
	dpk_free(tot);
}

/* Private cost score of a partition (see project.h). */
double
dpk_lift_cost(int d, int k, size_t ncells, const double *count, const double *sum,
			  const double *sumnorm, const int *assign, double sum_var,
			  double min_count)
{
	double	   *cnt = dpk_alloc(sizeof(double) * k);
	double	   *tot = dpk_alloc(sizeof(double) * (size_t) k * d);
	double	   *norm = dpk_alloc(sizeof(double) * k);
	double	   *cells = dpk_alloc(sizeof(double) * k);
	double		cost = 0.0;
	int			a,
				j;

	lift_totals(d, k, ncells, count, sum, sumnorm, assign, cnt, tot, norm, cells);
	for (a = 0; a < k; a++)
	{
		double		s2 = 0.0;

		if (!(cnt[a] >= min_count && cnt[a] > 0.0))
			continue;
		for (j = 0; j < d; j++)
			s2 += tot[(size_t) a * d + j] * tot[(size_t) a * d + j];
		s2 -= d * sum_var * cells[a];
		if (s2 < 0.0)
			s2 = 0.0;
		cost += (sumnorm ? norm[a] : 0.0) - s2 / cnt[a];
	}
	dpk_free(cnt);
	dpk_free(tot);
	dpk_free(norm);
	dpk_free(cells);
	return cost;
}

/* ---- the one-shot pipeline ---- */

/* Defaults; the measurements behind them are in test/bench/out/highd.txt. */
void
dpk_highd_defaults(DpkHighdConfig *cfg, double epsilon, int k)
{
	cfg->epsilon = epsilon;
	cfg->k = k;
	cfg->public_n = -1.0;
	cfg->n_share = 0.05;
	cfg->dhat = 0;
	cfg->copies = 3;
	cfg->half_width = 0.75;
	cfg->lift_share = 0.5;
	cfg->lift_count_share = -1.0;
	cfg->lift_mode = DPK_LIFT_CLUSTER;
	cfg->norm_share = 0.0;
	cfg->refine_steps = 0;
	cfg->refine_share = 0.3;
	cfg->grid_scale = 1.0;
	cfg->threshold_sigmas = 2.0;
	cfg->max_cells = 1048576.0;
	cfg->max_lift_values = 16777216.0;
	cfg->proj_seed = UINT64_C(0x64706B6D65616E73);
	cfg->restarts = 5;
	cfg->max_iter = 100;
}

/* Projected dimension for d and k (see project.h). */
int
dpk_highd_dhat(int d, int k)
{
	(void) k;
	return d < 4 ? d : 4;
}

/* Index of the projected centre nearest to t (ties: lowest index). */
static int
nearest_center(const double *t, const double *pc, int k, int dhat)
{
	int			best = 0,
				j,
				i;
	double		bd = INFINITY;

	for (j = 0; j < k; j++)
	{
		double		s = 0.0;

		for (i = 0; i < dhat; i++)
		{
			double		diff = t[i] - pc[(size_t) j * dhat + i];

			s += diff * diff;
		}
		if (s < bd)
		{
			bd = s;
			best = j;
		}
	}
	return best;
}

/* Work of one copy, kept for the best copy. */
typedef struct CopyOut
{
	double	   *centers;		/* k * d normalized */
	double	   *sizes;			/* k */
	double	   *pcenters;		/* k * dhat projected */
	int			coreset_size;
	double		score;
} CopyOut;

static void
copy_out_init(CopyOut *o, int k, int d, int dhat)
{
	o->centers = dpk_alloc(sizeof(double) * (size_t) k * d);
	o->sizes = dpk_alloc(sizeof(double) * k);
	o->pcenters = dpk_alloc(sizeof(double) * (size_t) k * dhat);
	o->coreset_size = 0;
	o->score = INFINITY;
}

static void
copy_out_free(CopyOut *o)
{
	dpk_free(o->centers);
	dpk_free(o->sizes);
	dpk_free(o->pcenters);
}

/* Everything one copy needs that is the same for every copy. */
typedef struct HighdPlan
{
	const DpkBox *box;
	const double *points;
	size_t		n;
	const DpkHighdConfig *cfg;
	int			d;
	int			k;
	int			dhat;
	int			m;				/* projected cells per dimension */
	DpkScale	count_scale;
	double		count_var;
	DpkScale	lift_count_scale;
	double		lift_count_var;
	DpkScale	sum_scale;
	double		sum_var;		/* fixed-point units squared */
	DpkScale	norm_scale;
	double		norm_var;
	bool		have_lift_count;
	bool		have_sum;
	bool		have_norm;
} HighdPlan;

/* Smallest count whose lifted mean we trust over the fallback. */
static double
lift_min_count(double count_var, double sum_var_norm)
{
	double		mc = 3.0 * sqrt(count_var);

	/* the mean's noise per coordinate, sd_sum / count, below 1/4 box */
	if (4.0 * sqrt(sum_var_norm) > mc)
		mc = 4.0 * sqrt(sum_var_norm);
	return mc > 1.0 ? mc : 1.0;
}

/* Run copy r: project, noisy grid, projected k-means, lift, score. */
static void
run_copy(const HighdPlan *pl, int r, DpkStream *s, CopyOut *out)
{
	const DpkHighdConfig *cfg = pl->cfg;
	int			d = pl->d,
				k = pl->k,
				dhat = pl->dhat;
	DpkProjection proj;
	DpkDenseHist h;
	int64_t    *csum = NULL;	/* cell mode: ncells * d */
	int64_t    *cnorm = NULL;	/* cell mode: ncells */
	double	   *u = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * d);
	double	   *t = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * dhat);
	int64_t    *q = dpk_alloc(sizeof(int64_t) * d);
	double	   *zeros = dpk_alloc0(sizeof(double) * dhat);
	double	   *ones = dpk_alloc(sizeof(double) * dhat);
	double	   *fallback = dpk_alloc(sizeof(double) * (size_t) k * d);
	DpkBox		unit = {dhat, zeros, ones};
	DpkCoreset	cs;
	double		threshold;
	size_t		done,
				i;
	int			j;
	bool		cell_mode = cfg->lift_mode == DPK_LIFT_CELL;

	for (j = 0; j < dhat; j++)
		ones[j] = 1.0;
	dpk_projection_init(&proj, d, dhat, dpk_projection_copy_seed(cfg->proj_seed, r),
						cfg->half_width);
	dpk_hist_init(&h, dhat, pl->m, false);
	if (cell_mode)
	{
		csum = dpk_alloc0(sizeof(int64_t) * h.ncells * d);
		cnorm = dpk_alloc0(sizeof(int64_t) * h.ncells);
	}

	/* Pass 1: projected cell counts (and original-space sums per cell). */
	for (done = 0; done < pl->n; done += DPK_PROJ_CHUNK)
	{
		size_t		rows = pl->n - done < DPK_PROJ_CHUNK ? pl->n - done : DPK_PROJ_CHUNK;

		dpk_check_interrupts();
		for (i = 0; i < rows; i++)
			dpk_box_normalize(pl->box, pl->points + (done + i) * d, u + i * d);
		dpk_project_batch(&proj, u, rows, t);
		for (i = 0; i < rows; i++)
		{
			uint64_t	cell = dpk_grid_cell(dhat, pl->m, t + i * dhat, NULL, NULL);

			h.count[cell]++;
			if (cell_mode)
			{
				cnorm[cell] += dpk_lift_quantize(d, u + i * d, q);
				for (j = 0; j < d; j++)
					csum[cell * d + j] += q[j];
			}
		}
	}

	/* Noise on every cell, occupied or not. */
	dpk_hist_add_noise(&h, s, pl->count_scale, pl->count_scale);
	if (cell_mode)
	{
		uint64_t	c;

		for (c = 0; c < h.ncells; c++)
		{
			if ((c & 1023) == 0)
				dpk_check_interrupts();
			if (pl->have_sum)
				for (j = 0; j < d; j++)
					csum[c * d + j] += dpk_discrete_laplace(s, pl->sum_scale);
			if (pl->have_norm)
				cnorm[c] += dpk_discrete_laplace(s, pl->norm_scale);
		}
	}

	/* Coreset of the projected grid and k-means in projected space. */
	threshold = dpk_coreset_threshold(sqrt(pl->count_var), cfg->threshold_sigmas,
									  (double) h.ncells);
	dpk_coreset_from_hist(&h, &unit, threshold, 0.0, &cs);
	out->coreset_size = cs.n;
	if (cs.n > 0)
		dpk_kmeans(cs.points, cs.weights, cs.n, dhat, k, cfg->restarts,
				   cfg->max_iter, dpk_stream_u64(s), out->pcenters, NULL);
	else
		for (j = 0; j < k * dhat; j++)
			out->pcenters[j] = 0.5;
	dpk_coreset_free(&cs);
	for (j = 0; j < k; j++)
		dpk_project_back(&proj, out->pcenters + (size_t) j * dhat,
						 fallback + (size_t) j * d);

	if (!pl->have_sum)
	{
		/* no lifting budget: the pseudo-inverse of the projected centres */
		memcpy(out->centers, fallback, sizeof(double) * (size_t) k * d);
		for (j = 0; j < k; j++)
			out->sizes[j] = 0.0;
		out->score = 0.0;
	}
	else if (!cell_mode)
	{
		/* Pass 2: one noisy (count, sum) per projected cluster. */
		int64_t    *kc = dpk_alloc0(sizeof(int64_t) * k);
		int64_t    *ks = dpk_alloc0(sizeof(int64_t) * (size_t) k * d);
		double	   *cnt = dpk_alloc(sizeof(double) * k);
		double	   *sum = dpk_alloc(sizeof(double) * (size_t) k * d);
		int		   *assign = dpk_alloc(sizeof(int) * k);
		double		sum_var_norm = pl->sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS);
		double		min_count;

		for (done = 0; done < pl->n; done += DPK_PROJ_CHUNK)
		{
			size_t		rows = pl->n - done < DPK_PROJ_CHUNK ? pl->n - done : DPK_PROJ_CHUNK;

			dpk_check_interrupts();
			for (i = 0; i < rows; i++)
				dpk_box_normalize(pl->box, pl->points + (done + i) * d, u + i * d);
			dpk_project_batch(&proj, u, rows, t);
			for (i = 0; i < rows; i++)
			{
				int			a = nearest_center(t + i * dhat, out->pcenters, k, dhat);

				kc[a]++;
				dpk_lift_quantize(d, u + i * d, q);
				for (j = 0; j < d; j++)
					ks[(size_t) a * d + j] += q[j];
			}
		}
		for (j = 0; j < k; j++)
		{
			int			jj;

			cnt[j] = (double) (kc[j] + dpk_discrete_laplace(s, pl->lift_count_scale));
			for (jj = 0; jj < d; jj++)
				sum[(size_t) j * d + jj] =
					(double) (ks[(size_t) j * d + jj] + dpk_discrete_laplace(s, pl->sum_scale))
					/ DPK_LIFT_UNITS;
			assign[j] = j;
		}
		min_count = lift_min_count(pl->lift_count_var, sum_var_norm);
		dpk_lift_centers(d, k, (size_t) k, cnt, sum, assign, min_count, fallback,
						 out->centers, out->sizes);
		out->score = dpk_lift_cost(d, k, (size_t) k, cnt, sum, NULL, assign,
								   sum_var_norm, min_count);
		dpk_free(kc);
		dpk_free(ks);
		dpk_free(cnt);
		dpk_free(sum);
		dpk_free(assign);
	}
	else
	{
		/* Cell mode: cells above the threshold, each to its nearest centre. */
		double	   *cnt = dpk_alloc(sizeof(double) * h.ncells);
		double	   *sum = dpk_alloc(sizeof(double) * h.ncells * d);
		double	   *norm = dpk_alloc(sizeof(double) * h.ncells);
		int		   *assign = dpk_alloc(sizeof(int) * h.ncells);
		int64_t    *idx = dpk_alloc(sizeof(int64_t) * dhat);
		double	   *tc = dpk_alloc(sizeof(double) * dhat);
		double		unit2 = (double) DPK_LIFT_UNITS * DPK_LIFT_UNITS;
		double		sum_var_norm = pl->sum_var / unit2;
		double		min_count;
		uint64_t	c;

		for (c = 0; c < h.ncells; c++)
		{
			cnt[c] = (double) h.count[c];
			for (j = 0; j < d; j++)
				sum[c * d + j] = (double) csum[c * d + j] / DPK_LIFT_UNITS;
			norm[c] = (double) cnorm[c] / unit2;
			if (!(cnt[c] > threshold))
			{
				assign[c] = -1;
				continue;
			}
			dpk_grid_cell_coords(dhat, pl->m, c, idx);
			for (j = 0; j < dhat; j++)
				tc[j] = ((double) idx[j] + 0.5) / pl->m;
			assign[c] = nearest_center(tc, out->pcenters, k, dhat);
		}
		min_count = lift_min_count(pl->count_var, sum_var_norm);
		dpk_lift_centers(d, k, h.ncells, cnt, sum, assign, min_count, fallback,
						 out->centers, out->sizes);
		out->score = dpk_lift_cost(d, k, h.ncells, cnt, sum,
								   pl->have_norm ? norm : NULL, assign,
								   sum_var_norm, min_count);
		dpk_free(cnt);
		dpk_free(sum);
		dpk_free(norm);
		dpk_free(assign);
		dpk_free(idx);
		dpk_free(tc);
	}

	dpk_hist_free(&h);
	dpk_free(csum);
	dpk_free(cnorm);
	dpk_free(u);
	dpk_free(t);
	dpk_free(q);
	dpk_free(zeros);
	dpk_free(ones);
	dpk_free(fallback);
	dpk_projection_free(&proj);
}

/*
 * One private Lloyd step in the original space: every point to its nearest
 * centre (normalized coordinates), one noisy (count, sum) per centre, lift.
 */
static void
refine_step(const HighdPlan *pl, DpkScale count_scale, double count_var,
			DpkScale sum_scale, double sum_var, DpkStream *s, double *centers,
			double *sizes)
{
	int			d = pl->d,
				k = pl->k;
	double	   *u = dpk_alloc(sizeof(double) * DPK_PROJ_CHUNK * d);
	int		   *a = dpk_alloc(sizeof(int) * DPK_PROJ_CHUNK);
	int64_t    *q = dpk_alloc(sizeof(int64_t) * d);
	int64_t    *kc = dpk_alloc0(sizeof(int64_t) * k);
	int64_t    *ks = dpk_alloc0(sizeof(int64_t) * (size_t) k * d);
	double	   *cnt = dpk_alloc(sizeof(double) * k);
	double	   *sum = dpk_alloc(sizeof(double) * (size_t) k * d);
	double	   *prev = dpk_alloc(sizeof(double) * (size_t) k * d);
	int		   *ident = dpk_alloc(sizeof(int) * k);
	double		sum_var_norm = sum_var / ((double) DPK_LIFT_UNITS * DPK_LIFT_UNITS);
	size_t		done,
				i;
	int			j,
				jj;

	for (done = 0; done < pl->n; done += DPK_PROJ_CHUNK)
	{
		size_t		rows = pl->n - done < DPK_PROJ_CHUNK ? pl->n - done : DPK_PROJ_CHUNK;

		dpk_check_interrupts();
		for (i = 0; i < rows; i++)
			dpk_box_normalize(pl->box, pl->points + (done + i) * d, u + i * d);
		dpk_kmeans_cost(u, NULL, (int) rows, d, centers, k, a);
		for (i = 0; i < rows; i++)
		{
			kc[a[i]]++;
			dpk_lift_quantize(d, u + i * d, q);
			for (j = 0; j < d; j++)
				ks[(size_t) a[i] * d + j] += q[j];
		}
	}
	for (j = 0; j < k; j++)
	{
		cnt[j] = (double) (kc[j] + dpk_discrete_laplace(s, count_scale));
		for (jj = 0; jj < d; jj++)
			sum[(size_t) j * d + jj] =
				(double) (ks[(size_t) j * d + jj] + dpk_discrete_laplace(s, sum_scale))
				/ DPK_LIFT_UNITS;
		ident[j] = j;
	}
	memcpy(prev, centers, sizeof(double) * (size_t) k * d);
	dpk_lift_centers(d, k, (size_t) k, cnt, sum, ident,
					 lift_min_count(count_var, sum_var_norm), prev, centers, sizes);
	dpk_free(u);
	dpk_free(a);
	dpk_free(q);
	dpk_free(kc);
	dpk_free(ks);
	dpk_free(cnt);
	dpk_free(sum);
	dpk_free(prev);
	dpk_free(ident);
}

/* One-shot high-d k-means (see project.h). */
void
dpk_highd_oneshot_cluster(const DpkBox *box, const double *points, size_t n,
						  const DpkHighdConfig *cfg, DpkStream *s,
						  DpkOneshotResult *res)
{
	dpk_highd_oneshot_cluster_info(box, points, n, cfg, s, res, NULL);
}

/* Scale b = sensitivity / eps and its variance; eps <= 0 means unused. */
static bool
plan_scale(double sensitivity, double eps, DpkScale *scale, double *var)
{
	if (!(eps > 0.0))
	{
		scale->num = 1;
		scale->den = 1;
		*var = 0.0;
		return false;
	}
	*scale = dpk_scale_from_double(sensitivity / eps);
	*var = dpk_discrete_laplace_variance(*scale);
	return true;
}

/* One-shot high-d k-means with details (see project.h). */
void
dpk_highd_oneshot_cluster_info(const DpkBox *box, const double *points, size_t n,
							   const DpkHighdConfig *cfg, DpkStream *s,
							   DpkOneshotResult *res, DpkHighdInfo *info)
{
	HighdPlan	pl;
	int			d = box->d,
				k = cfg->k;
	int			copies = cfg->copies > 0 ? cfg->copies : 1;
	double		eps_rest = cfg->epsilon,
				eps_n = 0.0,
				eps_refine_total = 0.0,
				eps_refine = 0.0,
				eps_copy,
				eps_grid,
				eps_lift,
				eps_lc = 0.0,
				eps_ls,
				eps_ln = 0.0;
	double		noisy_n,
				m,
				max_cells,
				lcs;
	int			max_per_dim,
				r,
				j,
				best = 0;
	CopyOut		best_out,
				cur;
	DpkScale	rc_scale = {1, 1},
				rs_scale = {1, 1};
	double		rc_var = 0.0,
				rs_var = 0.0;
	double		*u;

	memset(&pl, 0, sizeof(pl));
	pl.box = box;
	pl.points = points;
	pl.n = n;
	pl.cfg = cfg;
	pl.d = d;
	pl.k = k;
	pl.dhat = cfg->dhat > 0 ? cfg->dhat : dpk_highd_dhat(d, k);

	/* Noisy N: sensitivity 1, only used to size the projected grid. */
	if (cfg->public_n >= 0.0)
		noisy_n = cfg->public_n;
	else
	{
		eps_n = cfg->epsilon * cfg->n_share;
		noisy_n = (double) n
			+ (double) dpk_discrete_laplace(s, dpk_scale_from_double(1.0 / eps_n));
		eps_rest -= eps_n;
	}
	if (noisy_n < 1.0)
		noisy_n = 1.0;

	/* Budget: refinement steps, then R copies of (grid, lifting). */
	if (cfg->refine_steps > 0 && cfg->refine_share > 0.0)
	{
		eps_refine_total = eps_rest * cfg->refine_share;
		eps_refine = eps_refine_total / cfg->refine_steps;
	}
	eps_copy = (eps_rest - eps_refine_total) / copies;
	eps_lift = eps_copy * cfg->lift_share;
	eps_grid = eps_copy - eps_lift;
	if (cfg->lift_mode == DPK_LIFT_CELL)
	{
		eps_ln = eps_lift * cfg->norm_share;
		eps_ls = eps_lift - eps_ln;
	}
	else
	{
		lcs = cfg->lift_count_share >= 0.0 ? cfg->lift_count_share
			: 1.0 / (1.0 + pow((double) d, 2.0 / 3.0));
		eps_lc = eps_lift * lcs;
		eps_ls = eps_lift - eps_lc;
	}

	/*
	 * Sensitivities of one point: 1 on the counts of a grid or a partition;
	 * d U / 2 on a sum vector of centred fixed-point coordinates; d U^2 / 4
	 * on a sum of squared norms.
	 */
	plan_scale(1.0, eps_grid, &pl.count_scale, &pl.count_var);
	pl.have_lift_count = plan_scale(1.0, eps_lc, &pl.lift_count_scale,
									&pl.lift_count_var);
	pl.have_sum = plan_scale(d * (DPK_LIFT_UNITS / 2.0), eps_ls, &pl.sum_scale,
							 &pl.sum_var);
	pl.have_norm = plan_scale(d * (DPK_LIFT_UNITS / 2.0) * (DPK_LIFT_UNITS / 2.0),
							  eps_ln, &pl.norm_scale, &pl.norm_var);
	if (cfg->lift_mode != DPK_LIFT_CELL && !pl.have_lift_count)
		pl.have_sum = false;
	if (eps_refine > 0.0)
	{
		double		rcs = cfg->lift_count_share >= 0.0 ? cfg->lift_count_share
			: 1.0 / (1.0 + pow((double) d, 2.0 / 3.0));

		plan_scale(1.0, eps_refine * rcs, &rc_scale, &rc_var);
		plan_scale(d * (DPK_LIFT_UNITS / 2.0), eps_refine * (1.0 - rcs), &rs_scale,
				   &rs_var);
	}

	/* Projected grid: RUGNIK at the count noise actually used, capped. */
	max_cells = cfg->max_cells;
	if (cfg->lift_mode == DPK_LIFT_CELL && cfg->max_lift_values / d < max_cells)
		max_cells = cfg->max_lift_values / d;
	max_per_dim = (int) floor(pow(max_cells, 1.0 / pl.dhat) + 1e-9);
	if (max_per_dim < 1)
		max_per_dim = 1;
	m = dpk_grid_m(DPK_RULE_RUGNIK, noisy_n, dpk_rugnik_eps_for_variance(pl.count_var),
				   k, pl.dhat);
	if (cfg->grid_scale == 1.0)
		pl.m = dpk_grid_cells_per_dim(DPK_RULE_RUGNIK, m, noisy_n,
									  dpk_rugnik_eps_for_variance(pl.count_var), k,
									  pl.dhat, max_per_dim);
	else
	{
		pl.m = (int) floor(m * cfg->grid_scale + 0.5);
		if (pl.m < 1)
			pl.m = 1;
		if (pl.m > max_per_dim)
			pl.m = max_per_dim;
	}

	/* The copies; keep the one with the lowest private score. */
	copy_out_init(&best_out, k, d, pl.dhat);
	copy_out_init(&cur, k, d, pl.dhat);
	for (r = 0; r < copies; r++)
	{
		run_copy(&pl, r, s, &cur);
		if (info && r < 16)
			info->score[r] = cur.score;
		if (info && info->copy_centers)
			memcpy(info->copy_centers + (size_t) r * k * d, cur.centers,
				   sizeof(double) * (size_t) k * d);
		if (r == 0 || cur.score < best_out.score)
		{
			CopyOut		tmp = best_out;

			best_out = cur;
			cur = tmp;
			best = r;
		}
	}

	for (j = 0; j < cfg->refine_steps && eps_refine > 0.0; j++)
		refine_step(&pl, rc_scale, rc_var, rs_scale, rs_var, s, best_out.centers,
					best_out.sizes);

	res->noisy_n = noisy_n;
	res->cells_per_dim = pl.m;
	res->cells = dpk_grid_cells(pl.dhat, pl.m);
	res->coreset_size = best_out.coreset_size;
	res->centers = dpk_alloc(sizeof(double) * (size_t) k * d);
	res->sizes = dpk_alloc(sizeof(double) * k);
	u = best_out.centers;
	for (j = 0; j < k; j++)
	{
		dpk_box_denormalize(box, u + (size_t) j * d, res->centers + (size_t) j * d);
		res->sizes[j] = best_out.sizes[j] > 0.0 ? best_out.sizes[j] : 0.0;
	}

	if (info)
	{
		info->dhat = pl.dhat;
		info->copies = copies;
		info->chosen = best;
		info->eps_n = eps_n;
		info->eps_grid = eps_grid;
		info->eps_lift_count = eps_lc;
		info->eps_lift_sum = eps_ls;
		info->eps_lift_norm = eps_ln;
		info->eps_refine = eps_refine;
		info->count_scale = dpk_scale_value(pl.count_scale);
		info->lift_count_scale = pl.have_lift_count ? dpk_scale_value(pl.lift_count_scale) : 0.0;
		info->sum_scale = pl.have_sum ? dpk_scale_value(pl.sum_scale) : 0.0;
		info->norm_scale = pl.have_norm ? dpk_scale_value(pl.norm_scale) : 0.0;
		info->refine_count_scale = eps_refine > 0.0 ? dpk_scale_value(rc_scale) : 0.0;
		info->refine_sum_scale = eps_refine > 0.0 ? dpk_scale_value(rs_scale) : 0.0;
	}
	copy_out_free(&best_out);
	copy_out_free(&cur);
}
