/*
 * test_counter.c
 *		Cell maps and the continual counters' tree noise.
 */
#include <math.h>
#include <string.h>

#include "cellmap.h"
#include "live_core.h"
#include "counter.h"
#include "dpk_mem.h"
#include "noise.h"
#include "tree_estimator.h"
#include "unit.h"

/*
 * One tree node's noise re-derived from the nonce layout of counter.c's
 * node_nonce (level, node height, node index LE, cell id LE in 6 bytes):
 * the count's discrete Laplace draw, then the sums' vector draw.  Adds
 * sign times it to out[0..d].
 */
static void
ref_node_noise(DpkStream *s, const uint8_t key[DPK_KEY_BYTES], int level, uint64_t cell,
			   int node_level, uint32_t node_index, int d, DpkScale cs, DpkScale ss,
			   bool sums, int sign, int64_t *out)
{
	uint8_t		nonce[DPK_NONCE_BYTES];
	int			i;

	nonce[0] = (uint8_t) level;
	nonce[1] = (uint8_t) node_level;
	for (i = 0; i < 4; i++)
		nonce[2 + i] = (uint8_t) (node_index >> (8 * i));
	for (i = 0; i < 6; i++)
		nonce[6 + i] = (uint8_t) (cell >> (8 * i));
	if (!dpk_stream_reseed(s, key, nonce))
	{
		fprintf(stderr, "test_counter: cannot reseed a stream\n");
		exit(1);
	}
	out[0] += sign * dpk_discrete_laplace(s, cs);
	if (sums)
		dpk_vector_noise(s, ss, d, sign, out + 1);
}

int
main(void)
{
	uint8_t		key[DPK_KEY_BYTES],
				key2[DPK_KEY_BYTES];
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};
	DpkStream	s = {0};
	uint32_t	t;
	int			bad = 0;

	/* The signed decomposition covers exactly [1, t] with few, in-tree nodes. */
	for (t = 1; t <= 70000; t++)
	{
		int			lv[34],
					sg[34];
		uint32_t	ix[34];
		int			n = dpk_tree_decompose(t, lv, ix, sg);
		int			a;
		int64_t		covered = 0;
		int64_t		first_ok = 1;
		int			maxn = (int) ceil((log2((double) t) + 1.0) / 2.0) + 1;

		for (a = 0; a < n; a++)
		{
			int64_t		lo = ((int64_t) ix[a] - 1) << lv[a];
			int64_t		hi = (int64_t) ix[a] << lv[a];

			covered += sg[a] * (hi - lo);
			/* signed interval sums telescope to (0, t] */
			if (lv[a] >= dpk_tree_height(t))
				first_ok = 0;
			if (ix[a] < 1)
				first_ok = 0;
		}
		if (covered != (int64_t) t || !first_ok || n > maxn || n < 1)
			bad++;
	}
	CHECK(bad == 0, "%d decompositions wrong", bad);
	{
		int			lv[34],
					sg[34];
		uint32_t	ix[34];
		int			n = dpk_tree_decompose(1023, lv, ix, sg);

		CHECK(n == 2 && lv[0] == 10 && ix[0] == 1 && sg[0] == 1 &&
			  lv[1] == 0 && ix[1] == 1024 && sg[1] == -1, "1023 = [1,1024] - [1024]");
		CHECK(dpk_tree_nodes(1024) == 1 && dpk_tree_nodes(1) == 1, "powers of two: one node");
		CHECK(dpk_tree_height(1024) == 11 && dpk_tree_height(1) == 1 && dpk_tree_height(1000) == 11,
			  "tree height");
	}

	/* Exact membership: the signed count of nodes containing release s is 1 for s <= t, 0 beyond. */
	bad = 0;
	for (t = 1; t <= 2048; t++)
	{
		int			lv[34],
					sg[34];
		uint32_t	ix[34];
		int			n = dpk_tree_decompose(t, lv, ix, sg);
		uint32_t	r;

		for (r = 1; r <= 2 * t + 2; r++)
		{
			int			m = 0,
						a;

			for (a = 0; a < n; a++)
				if (r > ((ix[a] - 1) << lv[a]) && r <= (ix[a] << lv[a]))
					m += sg[a];
			if (m != (r <= t ? 1 : 0))
				bad++;
		}
	}
	CHECK(bad == 0, "%d memberships wrong", bad);

	/* The same node always carries the same noise; another key differs. */
	dpk_key_from_seed(11, key);
	dpk_key_from_seed(12, key2);
	CHECK(dpk_stream_open(&s, key, nonce), "open");
	{
		DpkScale	cs = dpk_scale_from_double(22.0),
					ss = dpk_scale_from_double(45056.0);
		int64_t		a[4],
					b[4],
					c[4];

		dpk_cell_noise(&s, &(DpkCellKey) {key, 5, 12345}, 700,
					   &(DpkCellScales) {3, cs, ss, DPK_SUMS_VECTOR}, a);
		dpk_cell_noise(&s, &(DpkCellKey) {key, 5, 999}, 3,
					   &(DpkCellScales) {3, cs, ss, DPK_SUMS_VECTOR}, c);
		dpk_cell_noise(&s, &(DpkCellKey) {key, 5, 12345}, 700,
					   &(DpkCellScales) {3, cs, ss, DPK_SUMS_VECTOR}, b);
		CHECK(memcmp(a, b, sizeof(a)) == 0, "same node, same noise across calls");
		dpk_stream_close(&s);
		CHECK(dpk_stream_open(&s, key2, nonce), "reopen");
		dpk_cell_noise(&s, &(DpkCellKey) {key, 5, 12345}, 700,
					   &(DpkCellScales) {3, cs, ss, DPK_SUMS_VECTOR}, b);
		CHECK(memcmp(a, b, sizeof(a)) == 0, "same node, same noise after reopening");
		dpk_cell_noise(&s, &(DpkCellKey) {key2, 5, 12345}, 700,
					   &(DpkCellScales) {3, cs, ss, DPK_SUMS_VECTOR}, c);
		CHECK(memcmp(a, c, sizeof(a)) != 0, "another key, other noise");
	}

	/*
	 * Releases share their tree nodes' noise.  ref_node_noise re-derives one
	 * node's noise from the nonce layout documented in counter.c, apart from
	 * dpk_cell_noise; every release must be the signed sum of those nodes,
	 * so two releases that share a node carry the same noise for it (a node
	 * drawn afresh per release, e.g. with t in its nonce, fails here).
	 */
	{
		DpkScale	cs = dpk_scale_from_double(22.0),
					ss = dpk_scale_from_double(45056.0);
		int64_t		r4[4],
					r5[4],
					r1023[4],
					r1024[4],
					nd[4];
		int			j,
					same = 0,
					cells_checked = 0;
		uint32_t	tt;
		bool		eq;

		/* release 5 = (0,4] + (4,5], release 4 = (0,4]: their difference is (4,5] */
		dpk_cell_noise(&s, &(DpkCellKey) {key, 5, 12345}, 4,
					   &(DpkCellScales) {3, cs, ss, DPK_SUMS_VECTOR}, r4);
		dpk_cell_noise(&s, &(DpkCellKey) {key, 5, 12345}, 5,
					   &(DpkCellScales) {3, cs, ss, DPK_SUMS_VECTOR}, r5);
		memset(nd, 0, sizeof(nd));
		ref_node_noise(&s, key, 5, 12345, 0, 5, 3, cs, ss, true, 1, nd);
		eq = true;
		for (j = 0; j < 4; j++)
			eq = eq && r5[j] - r4[j] == nd[j];
		CHECK(eq, "release 5 - release 4 = node (4,5]'s noise, count and sums");
		memset(nd, 0, sizeof(nd));
		ref_node_noise(&s, key, 5, 12345, 2, 1, 3, cs, ss, true, 1, nd);
		CHECK(memcmp(r4, nd, sizeof(nd)) == 0, "release 4 = node (0,4]'s noise");

		/* 1023 = (0,1024] - (1023,1024]: release 1024 - release 1023 is that node */
		dpk_cell_noise(&s, &(DpkCellKey) {key, 2, 7}, 1023,
					   &(DpkCellScales) {3, cs, ss, DPK_SUMS_VECTOR}, r1023);
		dpk_cell_noise(&s, &(DpkCellKey) {key, 2, 7}, 1024,
					   &(DpkCellScales) {3, cs, ss, DPK_SUMS_VECTOR}, r1024);
		memset(nd, 0, sizeof(nd));
		ref_node_noise(&s, key, 2, 7, 0, 1024, 3, cs, ss, true, 1, nd);
		eq = true;
		for (j = 0; j < 4; j++)
			eq = eq && r1024[j] - r1023[j] == nd[j];
		CHECK(eq, "release 1024 - release 1023 = node (1023,1024]'s noise");

		/* Every release 1..2048 of several cells is the signed sum of its nodes. */
		bad = 0;
		for (tt = 1; tt <= 2048; tt++)
		{
			int64_t		rel[4],
						sum[4] = {0, 0, 0, 0};
			int			lv[34],
						sg[34];
			uint32_t	ix[34];
			int			n = dpk_tree_decompose(tt, lv, ix, sg),
						a;
			uint64_t	cell = (uint64_t) (tt % 7) * 1000003 + 11;

			dpk_cell_noise(&s, &(DpkCellKey) {key, 3, cell}, tt,
						   &(DpkCellScales) {3, cs, ss, DPK_SUMS_VECTOR}, rel);
			for (a = 0; a < n; a++)
				ref_node_noise(&s, key, 3, cell, lv[a], ix[a], 3, cs, ss, true, sg[a], sum);
			if (memcmp(rel, sum, sizeof(sum)) != 0)
				bad++;
			/* the count alone (no sums drawn) is the same first draw of each node */
			dpk_cell_noise(&s, &(DpkCellKey) {key, 3, cell}, tt,
						   &(DpkCellScales) {0, cs, ss, DPK_SUMS_NONE}, rel);
			if (rel[0] != sum[0])
				bad++;
		}
		CHECK(bad == 0, "%d releases differ from the signed sum of their nodes' noise", bad);

		/*
		 * Distinct nodes, cells and levels get unrelated noise: node (4,5]
		 * and node (5,6] agree about as often as two independent draws.
		 */
		for (j = 0; j < 2000; j++)
		{
			int64_t		a5[1] = {0},
						a6[1] = {0};

			ref_node_noise(&s, key, 4, (uint64_t) j, 0, 5, 0, cs, ss, false, 1, a5);
			ref_node_noise(&s, key, 4, (uint64_t) j, 0, 6, 0, cs, ss, false, 1, a6);
			same += a5[0] == a6[0];
			cells_checked++;
		}
		/* P[two independent draws of scale 22 agree] = tanh(1/44) ~ 0.023 */
		CHECK(same < cells_checked / 10, "neighbouring nodes agree in %d of %d cells",
			  same, cells_checked);
		dpk_cell_noise(&s, &(DpkCellKey) {key, 4, 12345}, 5,
					   &(DpkCellScales) {3, cs, ss, DPK_SUMS_VECTOR}, nd);
		CHECK(memcmp(nd, r5, sizeof(nd)) != 0, "another level, other noise");
		dpk_cell_noise(&s, &(DpkCellKey) {key, 5, 12346}, 5,
					   &(DpkCellScales) {3, cs, ss, DPK_SUMS_VECTOR}, nd);
		CHECK(memcmp(nd, r5, sizeof(nd)) != 0, "another cell, other noise");
		dpk_cell_noise(&s, &(DpkCellKey) {key2, 5, 12345}, 5,
					   &(DpkCellScales) {3, cs, ss, DPK_SUMS_VECTOR}, nd);
		CHECK(memcmp(nd, r5, sizeof(nd)) != 0, "another key, other noise for release 5");
		dpk_cell_noise(&s, &(DpkCellKey) {key, 5, 12345}, 5,
					   &(DpkCellScales) {3, cs, ss, DPK_SUMS_VECTOR}, nd);
		CHECK(memcmp(nd, r5, sizeof(nd)) == 0, "release 5 re-derived: identical noise");
	}

	/* The measured per-counter error over many cells matches its formula. */
	{
		static const uint32_t ts[] = {1, 7, 100, 511, 1023, 1024};
		DpkScale	cs = dpk_scale_from_double(22.0);
		double		node_var = dpk_discrete_laplace_variance(cs);
		size_t		a;

		for (a = 0; a < sizeof(ts) / sizeof(ts[0]); a++)
		{
			int			cells = 20000,
						c;
			double		sum = 0,
						sum2 = 0,
						expect = node_var * dpk_tree_nodes(ts[a]),
						var;

			for (c = 0; c < cells; c++)
			{
				int64_t		v[1];

				dpk_cell_noise(&s, &(DpkCellKey) {key, 3, (uint64_t) c}, ts[a],
							   &(DpkCellScales) {0, cs, cs, DPK_SUMS_NONE}, v);
				sum += v[0];
				sum2 += (double) v[0] * v[0];
			}
			var = sum2 / cells - (sum / cells) * (sum / cells);
			/* Relative sd of a sample variance of Laplace-like sums is <= ~3.2/sqrt(n). */
			CHECK(fabs(var / expect - 1.0) < 0.07, "t=%u: variance %g, formula %g", ts[a], var, expect);
			CHECK(fabs(sum / cells) < 5 * sqrt(expect / cells), "t=%u: mean %g", ts[a], sum / cells);
			printf("counter noise t=%u: nodes %d, variance %.1f (formula %.1f)\n",
				   ts[a], dpk_tree_nodes(ts[a]), var, expect);
		}
	}

	/*
	 * Vector (cube) sums: deterministic per node, and over many cells each
	 * coordinate's variance is nodes x the cube variance, with the count's
	 * noise unchanged (still the first draw of every node).
	 */
	{
		static const uint32_t ts[] = {512, 1023};
		DpkScale	cs = dpk_scale_from_double(22.0),
					vs = dpk_scale_from_double(300.0);
		double		vvar = dpk_vector_noise_variance(vs, 8);
		size_t		a;
		int64_t		x[9],
					y[9],
					z[9];

		CHECK(dpk_cube_noise_usable(vs, 8), "cube usable at b = 300, d = 8");
		dpk_cell_noise(&s, &(DpkCellKey) {key, 4, 77}, 1000,
					   &(DpkCellScales) {8, cs, vs, DPK_SUMS_VECTOR}, x);
		dpk_cell_noise(&s, &(DpkCellKey) {key, 4, 78}, 1000,
					   &(DpkCellScales) {8, cs, vs, DPK_SUMS_VECTOR}, z);
		dpk_cell_noise(&s, &(DpkCellKey) {key, 4, 77}, 1000,
					   &(DpkCellScales) {8, cs, vs, DPK_SUMS_VECTOR}, y);
		CHECK(memcmp(x, y, sizeof(x)) == 0, "vector sums: same node, same noise");
		dpk_cell_noise(&s, &(DpkCellKey) {key, 4, 77}, 1000,
					   &(DpkCellScales) {8, cs, vs, DPK_SUMS_NONE}, z);
		CHECK(z[0] == x[0], "count noise independent of the sum noise kind");
		for (a = 0; a < sizeof(ts) / sizeof(ts[0]); a++)
		{
			int			cells = 6000,
						c,
						j;
			double		sum2 = 0,
						expect = vvar * dpk_tree_nodes(ts[a]),
						var;

			for (c = 0; c < cells; c++)
			{
				dpk_cell_noise(&s, &(DpkCellKey) {key, 4, (uint64_t) c}, ts[a],
							   &(DpkCellScales) {8, cs, vs, DPK_SUMS_VECTOR}, x);
				for (j = 1; j <= 8; j++)
					sum2 += (double) x[j] * x[j];
			}
			var = sum2 / (cells * 8.0);
			CHECK(fabs(var / expect - 1.0) < 0.07, "vector t=%u: variance %g, formula %g",
				  ts[a], var, expect);
			printf("vector sum noise t=%u d=8: nodes %d, variance %.0f (formula %.0f)\n",
				   ts[a], dpk_tree_nodes(ts[a]), var, expect);
		}
	}
	dpk_stream_close(&s);

	/* Cell maps: insert/delete cancel exactly; serialise and merge round-trip. */
	{
		DpkCellMap	m,
					m2,
					empty;
		int64_t		rel[2] = {3, 1000};
		uint64_t	c;
		uint8_t    *buf;
		size_t		len;

		dpk_cellmap_init(&m, 2);
		dpk_cellmap_init(&m2, 2);
		dpk_cellmap_init(&empty, 2);
		for (c = 0; c < 5000; c++)
			dpk_cellmap_add_point(&m, c * 7919 % 100003, rel, +1);
		buf = dpk_cellmap_serialize(&m, &len);
		CHECK(dpk_cellmap_merge_serialized(&m2, buf, len, +1), "merge");
		CHECK(dpk_cellmap_equal(&m, &m2), "round trip");
		CHECK(!dpk_cellmap_merge_serialized(&m2, buf, len - 1, +1), "truncated buffer refused");
		buf[8] = 3;
		CHECK(!dpk_cellmap_merge_serialized(&m2, buf, len, +1), "wrong dimension refused");
		dpk_free(buf);
		for (c = 0; c < 5000; c++)
			dpk_cellmap_add_point(&m, c * 7919 % 100003, rel, -1);
		CHECK(dpk_cellmap_equal(&m, &empty), "insert then delete cancels");
		CHECK(!dpk_cellmap_equal(&m2, &empty), "non-empty differs from empty");
		buf = dpk_cellmap_serialize(&m, &len);
		CHECK(len == 24, "cancelled map serialises empty (%zu bytes)", len);
		dpk_free(buf);
		dpk_cellmap_free(&m);
		dpk_cellmap_free(&m2);
		dpk_cellmap_free(&empty);
	}

	/* Sensitivities and scales of the live configuration. */
	{
		DpkLiveConfig cfg;

		/* the binary tree (tables attached before the k-ary trees): h = 11 */
		dpk_live_defaults(&cfg, 2, 6, 1.0, 1024, false);
		cfg.arity = DPK_TREE_ARITY_BINARY;
		CHECK(dpk_live_count_sensitivity(&cfg) == 22.0, "count sensitivity 2h");
		CHECK(dpk_live_sum_sensitivity(&cfg) == 22.0 * DPK_REL_CENTRE,
			  "sum sensitivity: l-infinity, no factor d, offsets about the middle");
		cfg.centred_offsets = false;
		CHECK(dpk_live_sum_sensitivity(&cfg) == 22.0 * DPK_REL_UNITS,
			  "sum sensitivity of a table attached before: offsets from the corner");
		/* d = 2: 70 % of epsilon on counts */
		CHECK(fabs(dpk_scale_value(dpk_live_count_scale(&cfg)) - 22.0 / 0.7) < 1e-5,
			  "count scale");
		dpk_live_defaults(&cfg, 2, 6, 1.0, 1024, true);
		cfg.arity = DPK_TREE_ARITY_BINARY;
		CHECK(dpk_live_count_sensitivity(&cfg) == 11.0, "insert_only drops the factor 2");

		/*
		 * The 13-ary tree a new table of horizon 1024 gets: 3 levels (digits
		 * -6..6 reach 6 (1 + 13 + 169) = 1098), so 2 x 3 with deletions.
		 */
		dpk_live_defaults(&cfg, 2, 6, 1.0, 1024, false);
		CHECK(cfg.arity == 13 && dpk_live_tree_levels(&cfg) == 3,
			  "T = 1024: arity %d, %d levels", cfg.arity, dpk_live_tree_levels(&cfg));
		CHECK(dpk_live_count_sensitivity(&cfg) == 6.0, "k-ary count sensitivity 2h");
		CHECK(dpk_live_sum_sensitivity(&cfg) == 6.0 * DPK_REL_CENTRE, "k-ary sum sensitivity");
		CHECK(fabs(dpk_scale_value(dpk_live_count_scale(&cfg)) - 6.0 / 0.7) < 1e-5,
			  "k-ary count scale");
	}

	UNIT_DONE("test_counter");
}
