/*
 * real_cost.c
 *		Normalized k-means cost of centres released by the extension on a real
 *		table (test/bench/bench_real.sh drives it).
 *
 * Input: ROWS, a CSV of the table's rows in the order they were inserted
 * (d numbers per line), and CENTRES, lines "label,t,start,end,c_1,...,c_d":
 * one centre of a release of kind `label` (live, oneshot, ...) made at step
 * t when the table held rows [start, end) of ROWS.  For every (label, t) it
 * prints the cost of its centres on those true rows divided by a non-private
 * k-means cost of the same rows (k = the number of centres; the lower of
 * dpk_kmeans with 10 restarts and Lloyd warm-started from the previous
 * step's reference), then per label the geometric mean and the worst over
 * the steps t >= --from, and the ratio of each label to the first one at
 * the same step (e.g. live / one-shot).
 */
#define BENCH_PROG "real_cost"
#include "bench_common.h"

#define MAX_LABELS 8
#define MAX_STEPS 4096

/* One release's centres. */
typedef struct Release
{
	int			label;
	int			t;
	long		start;
	long		end;
	int			k;
	double	   *c;				/* k * d */
	double		ratio;
} Release;

static void
usage(void)
{
	fprintf(stderr, "usage: real_cost --rows ROWS.csv --centres CENTRES.csv --d D [--from T0]\n");
	exit(2);
}

/* The release (label, t) in rel[0..n), appended when new. */
static Release *
release_for(Release *rel, int *n, int label, int t, long start, long end)
{
	int			i;

	for (i = 0; i < *n; i++)
		if (rel[i].label == label && rel[i].t == t)
			return &rel[i];
	if (*n == MAX_STEPS * MAX_LABELS)
	{
		fprintf(stderr, BENCH_PROG ": too many releases\n");
		exit(2);
	}
	rel[*n].label = label;
	rel[*n].t = t;
	rel[*n].start = start;
	rel[*n].end = end;
	rel[*n].k = 0;
	rel[*n].c = NULL;
	return &rel[(*n)++];
}

/* Read CENTRES into rel; returns the number of releases, labels in names. */
static int
read_centres(const char *path, int d, Release *rel, char names[MAX_LABELS][32], int *nlabels)
{
	FILE	   *f = fopen(path, "r");
	char	   *line = NULL;
	size_t		cap = 0;
	int			n = 0;

	if (!f)
	{
		fprintf(stderr, BENCH_PROG ": cannot read %s\n", path);
		exit(2);
	}
	*nlabels = 0;
	while (getline(&line, &cap, f) > 0)
	{
		char	   *p = line,
				   *comma = strchr(line, ',');
		int			label,
					t,
					j;
		long		start,
					end;
		Release    *r;

		if (!comma)
			continue;
		*comma = '\0';
		for (label = 0; label < *nlabels; label++)
			if (strcmp(names[label], p) == 0)
				break;
		if (label == *nlabels)
		{
			if (*nlabels == MAX_LABELS)
				continue;
			snprintf(names[(*nlabels)++], 32, "%s", p);
		}
		p = comma + 1;
		t = (int) strtol(p, &p, 10);
		start = strtol(p + 1, &p, 10);
		end = strtol(p + 1, &p, 10);
		r = release_for(rel, &n, label, t, start, end);
		r->c = realloc(r->c, sizeof(double) * (r->k + 1) * d);
		if (!r->c)
			abort();
		for (j = 0; j < d; j++)
			r->c[r->k * d + j] = strtod(p + 1, &p);
		r->k++;
	}
	free(line);
	fclose(f);
	return n;
}

/* Releases by step, then label. */
static int
cmp_release(const void *a, const void *b)
{
	const Release *x = a,
			   *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->label - y->label;
}

int
main(int argc, char **argv)
{
	const char *rows_path = NULL,
			   *centres_path = NULL;
	int			d = 0,
				from = 0,
				nrel,
				nlabels,
				i,
				l;
	double	   *x;
	size_t		nrows;
	int		   *cols;
	static Release rel[MAX_STEPS * MAX_LABELS];
	char		names[MAX_LABELS][32];
	BenchRef	ref;
	long		ref_start = -1,
				ref_end = -1;
	double		ref_cost = 0.0;
	int			ref_k = 0;

	for (i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--rows") == 0)
			rows_path = arg_value(argc, argv, &i);
		else if (strcmp(argv[i], "--centres") == 0)
			centres_path = arg_value(argc, argv, &i);
		else if (strcmp(argv[i], "--d") == 0)
			d = atoi(arg_value(argc, argv, &i));
		else if (strcmp(argv[i], "--from") == 0)
			from = atoi(arg_value(argc, argv, &i));
		else
			usage();
	}
	if (!rows_path || !centres_path || d < 1)
		usage();
	cols = xmalloc(sizeof(int) * d);
	for (i = 0; i < d; i++)
		cols[i] = i;
	nrows = bench_read_csv(rows_path, d, cols, &x);
	nrel = read_centres(centres_path, d, rel, names, &nlabels);
	qsort(rel, nrel, sizeof(Release), cmp_release);
	memset(&ref, 0, sizeof(ref));

	printf("# %zu rows, d = %d; ratio = k-means cost of the released centres on the true rows / non-private reference\n",
		   nrows, d);
	printf("%5s %8s %8s", "t", "rows", "ref_cost");
	for (l = 0; l < nlabels; l++)
		printf(" %10s", names[l]);
	for (l = 1; l < nlabels; l++)
		printf(" %6s/%-3.3s", names[l], names[0]);
	printf("\n");
	for (i = 0; i < nrel;)
	{
		int			j = i;
		double		by_label[MAX_LABELS];

		for (l = 0; l < nlabels; l++)
			by_label[l] = NAN;
		for (; j < nrel && rel[j].t == rel[i].t; j++)
		{
			Release    *r = &rel[j];

			if (r->end > (long) nrows || r->start < 0 || r->start >= r->end)
			{
				fprintf(stderr, BENCH_PROG ": release %s t=%d: rows [%ld, %ld) out of range\n",
						names[r->label], r->t, r->start, r->end);
				exit(2);
			}
			if (r->start != ref_start || r->end != ref_end || r->k != ref_k)
			{
				if (r->k != ref_k)
				{
					if (ref_k > 0)
						bench_ref_free(&ref);
					bench_ref_init(&ref, d, r->k, 4);
					ref_k = r->k;
				}
				ref_cost = bench_ref_cost(&ref, x + (size_t) r->start * d,
										  (size_t) (r->end - r->start), NULL, 100 + r->t);
				ref_start = r->start;
				ref_end = r->end;
			}
			r->ratio = dpk_kmeans_cost(x + (size_t) r->start * d, NULL,
									   (int) (r->end - r->start), d, r->c, r->k, NULL) / ref_cost;
			by_label[r->label] = r->ratio;
		}
		printf("%5d %8ld %8.3g", rel[i].t, rel[i].end - rel[i].start, ref_cost);
		for (l = 0; l < nlabels; l++)
			printf(" %10.4f", by_label[l]);
		for (l = 1; l < nlabels; l++)
			printf(" %10.4f", by_label[l] / by_label[0]);
		printf("\n");
		i = j;
	}
	/* summaries over t >= from */
	for (l = 0; l < nlabels; l++)
	{
		double		slog = 0.0,
					sratio = 0.0,
					worst = 0.0,
					worst_ratio = 0.0;
		int			m = 0,
					worst_t = 0,
					worst_ratio_t = 0;

		for (i = 0; i < nrel; i++)
		{
			int			o;

			if (rel[i].label != l || rel[i].t < from)
				continue;
			slog += log(rel[i].ratio);
			m++;
			if (rel[i].ratio > worst)
			{
				worst = rel[i].ratio;
				worst_t = rel[i].t;
			}
			for (o = 0; o < nrel; o++)
				if (rel[o].label == 0 && rel[o].t == rel[i].t)
				{
					double		q = rel[i].ratio / rel[o].ratio;

					sratio += log(q);
					if (q > worst_ratio)
					{
						worst_ratio = q;
						worst_ratio_t = rel[i].t;
					}
				}
		}
		if (m == 0)
			continue;
		printf("# %-10s t >= %d: %d releases, mean %.4f worst %.4f (t = %d)", names[l], from, m,
			   exp(slog / m), worst, worst_t);
		if (l > 0)
			printf("; / %s mean %.4f worst %.4f (t = %d)", names[0], exp(sratio / m), worst_ratio,
				   worst_ratio_t);
		printf("\n");
	}
	return 0;
}
