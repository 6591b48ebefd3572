/*
 * test_store_format.c
 *		Persistent formats and their versions: the padded cell-map form
 *		(format 2) against the plain one (format 1), and the exactness and
 *		sampler-version checks of a live configuration's noise scales.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cellmap.h"
#include "live_core.h"
#include "counter.h"
#include "dpk_mem.h"
#include "tree_estimator.h"
#include "unit.h"

/* A small map: cells 3, 17 and 4096 of a d = 2 grid with counts and sums. */
static void
sample_map(DpkCellMap *m)
{
	int64_t		rel[2] = {5, 700};
	int64_t		rel2[2] = {1023, 0};

	dpk_cellmap_init(m, 2);
	dpk_cellmap_add_point(m, 3, rel, +1);
	dpk_cellmap_add_point(m, 3, rel2, +1);
	dpk_cellmap_add_point(m, 17, rel, -1);
	dpk_cellmap_add_point(m, 4096, rel2, +1);
	dpk_cellmap_add_point(m, 9, rel, +1);
	dpk_cellmap_add_point(m, 9, rel, -1);	/* all zero: not serialised */
}

/* Padded and plain forms carry the same counters; the padded size is set by pad_to. */
static void
test_padded_roundtrip(void)
{
	DpkCellMap	m,
				a,
				b;
	size_t		la,
				lb,
				lc;
	uint8_t    *pa,
			   *pb,
			   *pc;

	sample_map(&m);
	pa = dpk_cellmap_serialize(&m, &la);
	pb = dpk_cellmap_serialize_padded(&m, 10, &lb);
	pc = dpk_cellmap_serialize_padded(&m, 1, &lc);
	CHECK(la == 24 + 3 * 4 * 8, "plain size %zu", la);
	CHECK(lb == 32 + 10 * 4 * 8, "padded size %zu (10 entries)", lb);
	CHECK(lc == 32 + 3 * 4 * 8, "padding never drops cells: %zu", lc);

	dpk_cellmap_init(&a, 2);
	dpk_cellmap_init(&b, 2);
	CHECK(dpk_cellmap_merge_serialized(&a, pa, la, +1), "plain form rejected");
	CHECK(dpk_cellmap_merge_serialized(&b, pb, lb, +1), "padded form rejected");
	CHECK(dpk_cellmap_equal(&a, &m) && dpk_cellmap_equal(&b, &m), "contents differ");
	CHECK(b.n == 3, "padding entries became cells (%zu cells)", b.n);
	CHECK(dpk_cellmap_merge_serialized(&b, pc, lc, -1), "padded form rejected");
	CHECK(dpk_cellmap_find(&b, 3)[0] == 0 && dpk_cellmap_find(&b, 4096)[1] == 0,
		  "merge with sign -1 does not cancel");

	/* two different maps with the same row bound serialise to the same size */
	{
		DpkCellMap	spread,
					one;
		int64_t		rel[2] = {0, 0};
		size_t		ls,
					lo;
		int			i;

		dpk_cellmap_init(&spread, 2);
		dpk_cellmap_init(&one, 2);
		for (i = 0; i < 50; i++)
		{
			dpk_cellmap_add_point(&spread, (uint64_t) i * 7, rel, +1);
			dpk_cellmap_add_point(&one, 5, rel, +1);
		}
		dpk_free(dpk_cellmap_serialize_padded(&spread, 50, &ls));
		dpk_free(dpk_cellmap_serialize_padded(&one, 50, &lo));
		CHECK(ls == lo, "size tells the cells apart: %zu vs %zu", ls, lo);
		dpk_cellmap_free(&spread);
		dpk_cellmap_free(&one);
	}

	/* malformed buffers: truncated, wrong padding count, wrong dimension */
	{
		DpkCellMap	c3;

		CHECK(!dpk_cellmap_merge_serialized(&a, pb, lb - 8, +1), "truncated padded form accepted");
		pb[24] ^= 1;			/* padding count 10 -> 11 (little-endian low byte) */
		CHECK(!dpk_cellmap_merge_serialized(&a, pb, lb, +1), "wrong padding count accepted");
		pb[24] ^= 1;
		dpk_cellmap_init(&c3, 3);
		CHECK(!dpk_cellmap_merge_serialized(&c3, pb, lb, +1), "wrong dimension accepted");
		dpk_cellmap_free(&c3);
	}
	dpk_free(pa);
	dpk_free(pb);
	dpk_free(pc);
	dpk_cellmap_free(&m);
	dpk_cellmap_free(&a);
	dpk_cellmap_free(&b);
}

/*
 * A dense histogram of noisy counters (doubles holding integers, some
 * cells all zero) serialises byte for byte as the map holding every cell
 * did, in both forms; read back header first and then in pieces of a few
 * entries (the padding unread), it gives the same map as the whole buffer.
 */
static void
test_dense_and_pieces(void)
{
	enum
	{
		D = 3, NCELLS = 40
	};
	double		count[NCELLS],
				sum[NCELLS * D];
	DpkDenseCells h = {D, NCELLS, count, sum};
	DpkCellMap	m,
				whole,
				pieces;
	uint64_t	c,
				n;
	uint64_t	rng = 12345;
	int			j,
				form;
	size_t		head;

	dpk_cellmap_init(&m, D);
	for (c = 0; c < NCELLS; c++)
	{
		int64_t    *v = dpk_cellmap_get(&m, c);
		bool		zero = c % 7 == 3 || c == NCELLS - 1;	/* the last one too */

		count[c] = zero ? 0.0 : floor(unit_normal(&rng) * 50.0);
		v[0] = (int64_t) count[c];
		for (j = 0; j < D; j++)
		{
			/* a cell with count 0 but a non-zero sum is kept */
			sum[c * D + j] = zero ? 0.0 : floor(unit_normal(&rng) * 1e6);
			v[1 + j] = (int64_t) sum[c * D + j];
		}
	}
	count[5] = 0.0;
	dpk_cellmap_get(&m, 5)[0] = 0;
	for (form = 0; form < 2; form++)
	{
		bool		padded = form == 1;
		size_t		lm,
					ld = dpk_cellmap_dense_len(&h, padded);
		uint8_t    *pm = padded ? dpk_cellmap_serialize_padded(&m, m.n, &lm)
			: dpk_cellmap_serialize(&m, &lm);
		uint8_t    *pd = dpk_alloc(ld);
		uint64_t	i;

		dpk_cellmap_dense_serialize_to(&h, padded, pd);
		CHECK(ld == lm && memcmp(pd, pm, lm) == 0,
			  "dense %s form differs from the map's (%zu against %zu bytes)",
			  padded ? "padded" : "plain", ld, lm);

		dpk_cellmap_init(&whole, D);
		dpk_cellmap_init(&pieces, D);
		CHECK(dpk_cellmap_merge_serialized(&whole, pd, ld, +1), "dense form rejected");
		CHECK(dpk_cellmap_serialized_header(pd, 32, ld, D, &head, &n), "header rejected");
		CHECK(n == NCELLS - 7, "%llu cells, not %d", (unsigned long long) n, NCELLS - 7);
		for (i = 0; i < n; i += 4)
			dpk_cellmap_merge_entries(&pieces, pd + head + i * (2 + D) * 8,
									  n - i < 4 ? n - i : 4, +1);
		CHECK(dpk_cellmap_equal(&whole, &pieces) && dpk_cellmap_equal(&whole, &m),
			  "pieces give another map");
		CHECK(!dpk_cellmap_serialized_header(pd, 32, ld - 8, D, &head, &n),
			  "wrong length accepted");
		CHECK(!dpk_cellmap_serialized_header(pd, 32, ld, D + 1, &head, &n),
			  "wrong dimension accepted");
		dpk_cellmap_free(&whole);
		dpk_cellmap_free(&pieces);
		dpk_free(pm);
		dpk_free(pd);
	}
	dpk_cellmap_free(&m);
}

/*
 * Live scales: every node scale must be representable (or the configuration
 * is refused), and a table attached under sampler version 1 may go on only
 * where version 2 draws the same rational.
 */
static void
test_live_scales(void)
{
	DpkLiveConfig cfg;
	double		largest;

	dpk_live_defaults(&cfg, 2, 4, 1.0, 1024, false);
	CHECK(dpk_live_scales_representable(&cfg, &largest), "d = 2, epsilon = 1 refused");
	CHECK(dpk_live_sampler_compatible(&cfg, 1), "ordinary table not version-1 compatible");
	CHECK(dpk_live_sampler_compatible(&cfg, 2), "current version not compatible");
	CHECK(!dpk_live_sampler_compatible(&cfg, 3), "unknown version accepted");

	/*
	 * d = 64, epsilon = 0.001: the norm counter needs 7.38e12 (capped by
	 * v1); version-1 tables are on the binary tree
	 */
	dpk_live_defaults(&cfg, 64, 4, 0.001, 1024, false);
	dpk_live_use_projection(&cfg, 7);
	cfg.arity = DPK_TREE_ARITY_BINARY;
	CHECK(dpk_live_scales_representable(&cfg, &largest), "d = 64, epsilon = 0.001 refused");
	CHECK(largest > 7e12, "largest scale %g", largest);
	CHECK(dpk_scale_value(dpk_live_norm_scale(&cfg)) >=
		  dpk_live_norm_sensitivity(&cfg) / (cfg.epsilon * cfg.norm_share),
		  "norm scale %g below sensitivity / share %g", dpk_scale_value(dpk_live_norm_scale(&cfg)),
		  dpk_live_norm_sensitivity(&cfg) / (cfg.epsilon * cfg.norm_share));
	CHECK(!dpk_live_sampler_compatible(&cfg, 1), "capped version-1 table accepted");

	/* far too small an epsilon: no exact representation */
	dpk_live_defaults(&cfg, 2, 4, 1e-300, 1024, false);
	CHECK(!dpk_live_scales_representable(&cfg, &largest), "epsilon 1e-300 accepted");
}

/*
 * Reading a serialised map into an empty one allocates once: the map is
 * sized for its cells up front, not doubled from 64 slots (each doubling
 * zeroes and copies 1 + d values a slot; at d = 384 and 4096 cells that
 * was most of a dp_histogram call).  Contents are as before.
 */
static size_t reserve_allocs;

/* malloc, counted (test_reserve). */
static void *
counting_alloc(size_t size)
{
	reserve_allocs++;
	return malloc(size);
}

static void
test_reserve(void)
{
	DpkCellMap	m,
				r;
	int64_t		rel[2] = {1, 2};
	uint8_t    *buf;
	size_t		len,
				cap;
	uint64_t	c;
	dpk_alloc_fn saved;

	dpk_cellmap_init(&m, 2);
	for (c = 0; c < 5000; c++)
		dpk_cellmap_add_point(&m, c * 7, rel, +1);
	buf = dpk_cellmap_serialize_padded(&m, 6000, &len);
	dpk_cellmap_init(&r, 2);
	dpk_cellmap_reserve(&r, 5000);
	cap = r.cap;
	CHECK(cap == 8192, "reserve(5000): %zu slots, not 8192", cap);
	dpk_cellmap_reserve(&r, 10);
	CHECK(r.cap == cap, "reserve shrank the map to %zu slots", r.cap);
	dpk_cellmap_free(&r);

	dpk_cellmap_init(&r, 2);
	saved = dpk_alloc_hook;
	dpk_alloc_hook = counting_alloc;
	reserve_allocs = 0;
	CHECK(dpk_cellmap_merge_serialized(&r, buf, len, +1), "padded form rejected");
	dpk_alloc_hook = saved;
	CHECK(reserve_allocs == 2, "merging 5000 cells into an empty map allocated %zu times, not 2",
		  reserve_allocs);
	CHECK(r.cap == 8192, "a merged map of 5000 cells has %zu slots, not 8192", r.cap);
	CHECK(dpk_cellmap_equal(&r, &m), "contents differ after a reserved merge");
	/* a merge into a fuller map keeps its cells */
	CHECK(dpk_cellmap_merge_serialized(&r, buf, len, -1), "padded form rejected");
	CHECK(dpk_cellmap_find(&r, 7 * 4999)[0] == 0 && r.n == 5000, "merge with -1 lost cells");
	dpk_cellmap_free(&r);
	dpk_cellmap_free(&m);
	dpk_free(buf);
}

int
main(void)
{
	test_reserve();
	test_padded_roundtrip();
	test_dense_and_pieces();
	test_live_scales();
	UNIT_DONE("test_store_format");
}
