/*
 * adaptive_lift.h
 *		RESEARCH MEASUREMENT, NOT SHIPPED: bench_highd_live --adaptive-lift R
 *		[--adaptive-epoch a], insert-only streams of projected tables lifting
 *		by cells.
 *
 * A table's lifting sums take every row at the box's sensitivity, sqrt(d)
 * U / 2 about the box's middle.  Here the sums of the rows inserted after
 * step a are kept again, each row x of projected cell c entering as
 * clip_R(x - ref(c)) (scaled down to l2 norm R if longer), ref(c) fixed for
 * the step and read only from released output: after each release t >= a,
 * the rows of step t + 1 take as ref(c) the release's K centre whose
 * projection is nearest to cell c's projected middle.  One row then moves
 * the new sums S1 by at most R, so their noise is drawn at sensitivity R:
 * at release t independent Gaussian noise per cell and coordinate of
 * variance dpk_live_projected_sum_var(t) (R / (sqrt(d) / 2))^2 / 0.8, the
 * table's own lifting-sum variance rescaled to the clip and to 0.8 of the
 * sum budget (the other 0.2 would keep the table's sums for releases 1..a;
 * by default not modelled: those releases use the table's sums as shipped;
 * --adaptive-epoch-share X draws their lifted cells' sum noise at X of the
 * budget instead, variance / X, so the references come from releases as
 * noisy as they would be).  --adaptive-s1-share X sets S1's share (0.8):
 * 1 with share 1 for releases 1..a is the split where the table's sums
 * stop taking rows after step a, so that a row enters one of the two
 * counters only (parallel composition on an insert-only stream).
 *
 * Release t > a lifts cell c from
 *	 mean_c = (noisy S1[c] + sum_{s=a+1..t} ref_{s-1}(c) (C_s(c) - C_{s-1}(c)))
 *			  / (C_t(c) - C_a(c)),
 * C_s the table's released noisy counts of release s (so a release is
 * computed at every step from a on), i.e. from the rows inserted after
 * step a only (exact on an insert-only stream).  The hook: before
 * dpk_live_cluster_projected, the lifting sum of every cell whose noisy
 * C_t - C_a is at least 1 is replaced by mean_c times its noisy count C_t
 * in lifting units, so the release's count-weighted lift divides back to
 * mean_c; other cells keep the table's sum.  The release still weighs and
 * screens its cells by the table's sum variance (it is not told the new
 * one).  Nothing un-noised enters the release but S1 under its noise: the
 * choice of cells and the weights read noisy counts, ref reads released
 * centres.  The clipped fraction and the check of the table's noise
 * (--verbose) read true data and are printed, never used.
 */
#ifndef DPK_BENCH_ADAPTIVE_LIFT_H
#define DPK_BENCH_ADAPTIVE_LIFT_H


typedef struct AdaptLift
{
	double		r;				/* clip radius, normalized units */
	int			a;				/* epoch 0: steps 1..a */
	uint64_t	seed;			/* of S1's noise */
	int			seed_no;		/* the run's seed, for --verbose */
	double		share0;			/* sum budget of releases 1..a (1: as shipped) */
	double		share1;			/* S1's share of the sum budget (0.8) */
	uint32_t	step;			/* the step whose rows are being inserted */
	uint64_t	ncells;			/* cells a copy */
	size_t		total;			/* copies * ncells */
	double	   *s1;				/* total * d: clipped offsets, true */
	double	   *s1u;			/* total * d: the same unclipped (diagnostics) */
	double	   *wtrue;			/* total * d: ref times true count steps (diag.) */
	double	   *ntrue_prev;		/* total: true counts at the last release (diag.) */
	double	   *ntrue_a;		/* total: true counts at release a (diag.) */
	double	   *wref;			/* total * d: sum of ref times noisy count steps */
	double	   *cprev;			/* total: noisy counts of the last release */
	double	   *ca;				/* total: noisy counts of release a */
	int		   *refidx;			/* total: the centre each cell refers to */
	double	   *cen;			/* k * d: released centres, normalized - 1/2 */
	bool		have_ref;
	long		clip_step,		/* rows of the current step clipped */
				rows_step,
				clip_all,		/* since step a + 1 */
				rows_all;
} AdaptLift;

/* Allocate the sums of a table of cfg; r_box in box units over the box's width. */
static void
adapt_init(AdaptLift *al, const DpkLiveConfig *cfg, double r_box, double width, int a,
		   uint64_t seed)
{
	memset(al, 0, sizeof(*al));
	al->r = r_box / width;
	al->a = a;
	al->seed = seed;
	al->ncells = dpk_live_copy_cells(cfg);
	al->total = (size_t) cfg->copies * al->ncells;
	al->s1 = calloc(al->total * cfg->d, sizeof(double));
	al->s1u = calloc(al->total * cfg->d, sizeof(double));
	al->wtrue = calloc(al->total * cfg->d, sizeof(double));
	al->ntrue_prev = calloc(al->total, sizeof(double));
	al->ntrue_a = calloc(al->total, sizeof(double));
	al->wref = calloc(al->total * cfg->d, sizeof(double));
	al->cprev = calloc(al->total, sizeof(double));
	al->ca = calloc(al->total, sizeof(double));
	al->refidx = calloc(al->total, sizeof(int));
	al->cen = calloc((size_t) cfg->k * cfg->d, sizeof(double));
	if (!al->s1 || !al->s1u || !al->wtrue || !al->ntrue_prev || !al->ntrue_a || !al->wref || !al->cprev || !al->ca || !al->refidx || !al->cen)
	{
		fprintf(stderr, "bench_highd_live: --adaptive-lift: out of memory\n");
		exit(1);
	}
}

/* Free what adapt_init allocated. */
static void
adapt_free(AdaptLift *al)
{
	free(al->s1);
	free(al->s1u);
	free(al->wtrue);
	free(al->ntrue_prev);
	free(al->ntrue_a);
	free(al->wref);
	free(al->cprev);
	free(al->ca);
	free(al->refidx);
	free(al->cen);
}

/*
 * One inserted row: u its normalized point (as the table's state gets it),
 * t its projections (copies * dhat).  From step a + 1 on it adds
 * clip_R(u - 1/2 - ref(c)) to S1 of its cell c in every copy.
 */
static void
adapt_add_row(AdaptLift *al, const DpkLiveConfig *cfg, const double *u, const double *t)
{
	int			d = cfg->d,
				r,
				j;
	int64_t		idx[64];

	if (al->step <= (uint32_t) al->a)
		return;
	for (r = 0; r < cfg->copies; r++)
	{
		size_t		c = (size_t) r * al->ncells +
			dpk_grid_cell(cfg->dhat, 1 << cfg->level, t + (size_t) r * cfg->dhat, idx, NULL);
		const double *ref = al->cen + (size_t) al->refidx[c] * d;
		double		n2 = 0.0,
					f;

		for (j = 0; j < d; j++)
			n2 += (u[j] - 0.5 - ref[j]) * (u[j] - 0.5 - ref[j]);
		f = n2 > al->r * al->r ? al->r / sqrt(n2) : 1.0;
		if (r == 0)
		{
			al->clip_step += f < 1.0;
			al->rows_step++;
			al->clip_all += f < 1.0;
			al->rows_all++;
		}
		for (j = 0; j < d; j++)
		{
			al->s1[c * d + j] += f * (u[j] - 0.5 - ref[j]);
			al->s1u[c * d + j] += u[j] - 0.5 - ref[j];
		}
	}
}

/*
 * Release t <= a at share0 of the sum budget: the noise of every cell whose
 * sum the table drew (its lifted cells, or all of a table without lifted
 * sums) scaled by 1 / sqrt(share0), the true sums read back from the state.
 */
static void
adapt_epoch0_noise(const AdaptLift *al, const DpkLiveConfig *cfg, const DpkBox *box,
				   const DpkCellMap *map, uint32_t t, const double *count, double *sum)
{
	int			d = cfg->d,
				j;
	size_t		c;
	uint8_t    *lifted = xmalloc(al->total);
	double		f = 1.0 / sqrt(al->share0);

	if (dpk_live_lifts_sums(cfg))
	{
		uint8_t    *reach = dpk_live_reach_mask(cfg, box);

		dpk_live_lifted_cells(cfg, reach, t, count, dpk_live_lifted_cap(cfg), lifted);
		if (reach)
			dpk_free(reach);
	}
	else
		memset(lifted, 1, al->total);
	for (c = 0; c < al->total; c++)
		if (lifted[c])
		{
			const int64_t *v = dpk_cellmap_find(map, c);

			for (j = 0; j < d; j++)
			{
				double		truth = v ? (double) v[1 + j] : 0.0;

				sum[c * d + j] = truth + (sum[c * d + j] - truth) * f;
			}
		}
	free(lifted);
}

/*
 * What a release's heavy cells' lifted means miss (--verbose; reads true
 * data, printed only): sums over the cells above 5 count sds, weighted by
 * their true counts, of squared errors in normalized units against the true
 * mean of every row of the cell.
 */
typedef struct AdaptDiag
{
	long		replaced;		/* cells lifted from the adaptive means */
	long		heavy_kept;		/* kept at the table's sums, count > 3 sds */
	double		emp_sd;			/* the table's sum noise sd, measured */
	double		w,				/* true rows of the cells below */
				table,			/* the table's sum / noisy count */
				adapt,			/* the adaptive mean */
				noise,			/* S1's noise / (C_t - C_a) */
				clip,			/* the clipping's bias, exact counts */
				sub;			/* rows after step a against all rows */
} AdaptDiag;

/* Squared distance of two d-vectors, b scaled by fb. */
static double
adapt_dist2(int d, const double *a, const double *b, double fb)
{
	double		e2 = 0.0;
	int			j;

	for (j = 0; j < d; j++)
		e2 += (a[j] - fb * b[j]) * (a[j] - fb * b[j]);
	return e2;
}

/*
 * The diagnostics of cell c (see AdaptDiag): v its true state (count, sums
 * in lifting units), tsum its table sum, mean its adaptive mean, noise
 * S1's noise drawn, den its noisy C_t - C_a; work holds 2 d values.
 */
static void
adapt_diag(const AdaptLift *al, int d, size_t c, const int64_t *v, double count,
		   const double *tsum, const double *mean, const double *noise, double den,
		   double *work, AdaptDiag *dg)
{
	double		n = (double) v[0],
				na = n - al->ntrue_a[c],
				*tmean = work,
				*amean = work + d,
				e2 = 0.0;
	int			j;

	if (!(n > 0) || !(na > 0))
		return;
	for (j = 0; j < d; j++)
	{
		tmean[j] = (double) v[1 + j] / DPK_LIFT_UNITS / n;
		amean[j] = (al->s1u[c * d + j] + al->wtrue[c * d + j]) / na;
		e2 += (al->s1[c * d + j] - al->s1u[c * d + j]) * (al->s1[c * d + j] - al->s1u[c * d + j]);
	}
	dg->w += n;
	dg->table += n * adapt_dist2(d, tmean, tsum, 1.0 / DPK_LIFT_UNITS / count);
	dg->adapt += n * adapt_dist2(d, tmean, mean, 1.0);
	dg->noise += n * adapt_dist2(d, noise, noise, 0.0) / (den * den);
	dg->clip += n * e2 / (na * na);
	dg->sub += n * adapt_dist2(d, tmean, amean, 1.0);
}

/*
 * Release t >= a, its noisy counts and lifting sums (lifting units) drawn:
 * the noisy counts steps times the references, and from t > a each cell's
 * sum replaced by the adaptive mean times its noisy count (see above);
 * dg the diagnostics (see AdaptDiag; emp_sd checks
 * dpk_live_projected_sum_var on the cells above 5 count sds).
 */
static void
adapt_sums(AdaptLift *al, const DpkLiveConfig *cfg, const DpkCellMap *map, uint32_t t,
		   const double *count, double *sum, AdaptDiag *dg)
{
	int			d = cfg->d,
				j;
	size_t		c;
	double		csd = sqrt(dpk_live_projected_count_var(cfg, t)),
				s1sd = sqrt(dpk_live_projected_sum_var(cfg, t) / al->share1) *
		al->r / (sqrt((double) d) / 2.0),
				e2 = 0.0,
				en = 0.0;
	double	   *mean = xmalloc(sizeof(double) * d),
			   *noise = xmalloc(sizeof(double) * d),
			   *work = xmalloc(sizeof(double) * 2 * d);
	MixRng		g;

	memset(dg, 0, sizeof(*dg));
	for (c = 0; c < al->total; c++)
	{
		const int64_t *v = dpk_cellmap_find(map, c);
		double		n = v ? (double) v[0] : 0.0;

		if (count[c] > 5.0 * csd)
		{
			for (j = 0; j < d; j++)
			{
				double		e = sum[c * d + j] / DPK_LIFT_UNITS -
					(v ? (double) v[1 + j] / DPK_LIFT_UNITS : 0.0);

				e2 += e * e;
			}
			en += d;
		}
		/* the true counts of the step, for the diagnostics */
		if (t > (uint32_t) al->a)
			for (j = 0; j < d; j++)
				al->wtrue[c * d + j] += al->cen[(size_t) al->refidx[c] * d + j] *
					(n - al->ntrue_prev[c]);
		al->ntrue_prev[c] = n;
		if (t == (uint32_t) al->a)
			al->ntrue_a[c] = n;
	}
	dg->emp_sd = en > 0 ? sqrt(e2 / en) : NAN;
	if (t == (uint32_t) al->a)
	{
		memcpy(al->ca, count, sizeof(double) * al->total);
		memcpy(al->cprev, count, sizeof(double) * al->total);
		free(mean);
		free(noise);
		free(work);
		return;
	}
	for (c = 0; c < al->total; c++)
	{
		const double *ref = al->cen + (size_t) al->refidx[c] * d;
		double		step = count[c] - al->cprev[c];

		for (j = 0; j < d; j++)
			al->wref[c * d + j] += ref[j] * step;
	}
	memcpy(al->cprev, count, sizeof(double) * al->total);
	mix_rng_seed(&g, mix_hash4(al->seed, t, 0, 0));
	for (c = 0; c < al->total; c++)
	{
		double		den = count[c] - al->ca[c];
		const int64_t *v;

		if (!(den >= 1.0))
		{
			dg->heavy_kept += count[c] > 3.0 * csd;
			continue;
		}
		for (j = 0; j < d; j++)
		{
			noise[j] = s1sd * mix_rng_normal(&g);
			mean[j] = (al->s1[c * d + j] + noise[j] + al->wref[c * d + j]) / den;
		}
		if (count[c] > 5.0 * csd && (v = dpk_cellmap_find(map, c)) != NULL)
			adapt_diag(al, d, c, v, count[c], sum + c * d, mean, noise, den, work, dg);
		for (j = 0; j < d; j++)
			sum[c * d + j] = mean[j] * count[c] * DPK_LIFT_UNITS;
		dg->replaced++;
	}
	free(mean);
	free(noise);
	free(work);
}

/*
 * After release t >= a: its K centres (box coordinates) become the
 * references of the rows of step t + 1, each cell taking the centre whose
 * projection is nearest to the cell's projected middle.
 */
static void
adapt_refs(AdaptLift *al, const DpkLiveConfig *cfg, const DpkBox *box,
		   const DpkProjection *proj, const double *centers)
{
	int			d = cfg->d,
				k = cfg->k,
				dhat = cfg->dhat,
				m = 1 << cfg->level,
				r,
				i,
				j;
	double	   *u = xmalloc(sizeof(double) * d),
			   *pc = xmalloc(sizeof(double) * (size_t) k * dhat);
	int64_t		idx[64];
	uint64_t	c;

	for (r = 0; r < cfg->copies; r++)
	{
		for (i = 0; i < k; i++)
		{
			dpk_box_normalize(box, centers + (size_t) i * d, u);
			if (cfg->box_metric)
				dpk_box_to_metric(box, u);
			dpk_box_ball_clamp(d, cfg->ball, u);
			if (r == 0)
				for (j = 0; j < d; j++)
					al->cen[(size_t) i * d + j] = u[j] - 0.5;
			dpk_project_rows(&proj[r], u, 1, pc + (size_t) i * dhat);
		}
		for (c = 0; c < al->ncells; c++)
		{
			double		best = INFINITY;

			dpk_grid_cell_coords(dhat, m, c, idx);
			for (i = 0; i < k; i++)
			{
				double		e2 = 0.0;

				for (j = 0; j < dhat; j++)
				{
					double		e = (idx[j] + 0.5) / m - pc[(size_t) i * dhat + j];

					e2 += e * e;
				}
				if (e2 < best)
				{
					best = e2;
					al->refidx[(size_t) r * al->ncells + c] = i;
				}
			}
		}
	}
	al->have_ref = true;
	free(u);
	free(pc);
}

#endif
