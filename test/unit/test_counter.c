/*
 * test_counter.c
 *		Cell maps and the continual counters' tree noise.
 */
#include <math.h>
#include <string.h>

#include "continual.h"
#include "counter.h"
#include "dpk_mem.h"
#include "noise.h"
#include "unit.h"

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

		dpk_cell_noise(&s, key, 5, 12345, 700, 3, cs, ss, DPK_SUMS_VECTOR, a);
		dpk_cell_noise(&s, key, 5, 999, 3, 3, cs, ss, DPK_SUMS_VECTOR, c);
		dpk_cell_noise(&s, key, 5, 12345, 700, 3, cs, ss, DPK_SUMS_VECTOR, b);
		CHECK(memcmp(a, b, sizeof(a)) == 0, "same node, same noise across calls");
		dpk_stream_close(&s);
		CHECK(dpk_stream_open(&s, key2, nonce), "reopen");
		dpk_cell_noise(&s, key, 5, 12345, 700, 3, cs, ss, DPK_SUMS_VECTOR, b);
		CHECK(memcmp(a, b, sizeof(a)) == 0, "same node, same noise after reopening");
		dpk_cell_noise(&s, key2, 5, 12345, 700, 3, cs, ss, DPK_SUMS_VECTOR, c);
		CHECK(memcmp(a, c, sizeof(a)) != 0, "another key, other noise");

		/*
		 * Releases share nodes: 1024 = [1,1024] and 1023 = [1,1024] - [1024],
		 * so noise(1023) - noise(1024) is minus the noise of node [1024].
		 */
		{
			int64_t		n1023[1],
						n1024[1],
						n1[1];

			dpk_cell_noise(&s, key, 2, 7, 1023, 0, cs, ss, DPK_SUMS_NONE, n1023);
			dpk_cell_noise(&s, key, 2, 7, 1024, 0, cs, ss, DPK_SUMS_NONE, n1024);
			dpk_cell_noise(&s, key, 2, 7, 1, 0, cs, ss, DPK_SUMS_NONE, n1);
			CHECK(n1023[0] != n1024[0] || n1024[0] == 0, "different releases differ");
			(void) n1;
		}
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

				dpk_cell_noise(&s, key, 3, (uint64_t) c, ts[a], 0, cs, cs, DPK_SUMS_NONE, v);
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
		dpk_cell_noise(&s, key, 4, 77, 1000, 8, cs, vs, DPK_SUMS_VECTOR, x);
		dpk_cell_noise(&s, key, 4, 78, 1000, 8, cs, vs, DPK_SUMS_VECTOR, z);
		dpk_cell_noise(&s, key, 4, 77, 1000, 8, cs, vs, DPK_SUMS_VECTOR, y);
		CHECK(memcmp(x, y, sizeof(x)) == 0, "vector sums: same node, same noise");
		dpk_cell_noise(&s, key, 4, 77, 1000, 8, cs, vs, DPK_SUMS_NONE, z);
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
				dpk_cell_noise(&s, key, 4, (uint64_t) c, ts[a], 8, cs, vs, DPK_SUMS_VECTOR, x);
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

		dpk_live_defaults(&cfg, 2, 6, 1.0, 1024, false);
		CHECK(dpk_live_count_sensitivity(&cfg) == 22.0, "count sensitivity 2h");
		CHECK(dpk_live_sum_sensitivity(&cfg) == 22.0 * DPK_REL_UNITS,
			  "sum sensitivity: l-infinity, no factor d");
		CHECK(fabs(dpk_scale_value(dpk_live_count_scale(&cfg)) - 44.0) < 1e-5, "count scale");
		dpk_live_defaults(&cfg, 2, 6, 1.0, 1024, true);
		CHECK(dpk_live_count_sensitivity(&cfg) == 11.0, "insert_only drops the factor 2");
	}

	UNIT_DONE("test_counter");
}
