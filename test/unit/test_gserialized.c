/*
 * test_gserialized.c
 *		Reading a PostGIS point from its serialized bytes (gserialized.c):
 *		both layouts, bounding boxes, extended flags, SRIDs (negative too),
 *		empty, Z/M, other types, truncated values; type modifiers.
 */
#include <string.h>

#include "gserialized.h"
#include "unit.h"

/*
 * Serialize a value as PostGIS lays it out after the varlena header: SRID
 * (21 bits), flags, `pad` bytes (extended flags or bounding box), type,
 * count, then `ncoords` doubles.  Returns its length.
 */
static size_t
make(uint8_t *b, int32_t srid, uint8_t flags, size_t pad, uint32_t type, uint32_t count,
	 const double *coords, int ncoords)
{
	uint32_t	s = (uint32_t) srid & 0x1FFFFF;
	size_t		off = 0;

	b[off++] = (uint8_t) (s >> 16);
	b[off++] = (uint8_t) (s >> 8);
	b[off++] = (uint8_t) s;
	b[off++] = flags;
	memset(b + off, 0x7f, pad);
	off += pad;
	memcpy(b + off, &type, 4);
	memcpy(b + off + 4, &count, 4);
	off += 8;
	memcpy(b + off, coords, ncoords * sizeof(double));
	return off + ncoords * sizeof(double);
}

/* Points read back exactly from every layout PostGIS writes. */
static void
test_points(void)
{
	uint8_t		buf[128];
	double		xy[2] = {-73.98765432101234, 40.75};
	double		xyz[3] = {1, 2, 3};
	double		x,
				y;
	int32_t		srid;
	size_t		len;

	/* layout 2 (PostGIS 3), no box */
	len = make(buf, 4326, 0x40, 0, 1, 1, xy, 2);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_POINT, "v2 point");
	CHECK(srid == 4326 && x == xy[0] && y == xy[1], "v2 point: srid %d x %g y %g", srid, x, y);
	/* layout 1 (PostGIS 2) */
	len = make(buf, 3857, 0x00, 0, 1, 1, xy, 2);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_POINT && srid == 3857 &&
		  x == xy[0] && y == xy[1], "v1 point");
	/* layout 1's read-only bit (0x10) is not the extended flags of layout 2 */
	len = make(buf, 3857, 0x10, 0, 1, 1, xy, 2);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_POINT && x == xy[0],
		  "v1 read-only point");
	/* layout 2 with extended flags (8 bytes) */
	len = make(buf, 32633, 0x50, 8, 1, 1, xy, 2);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_POINT && srid == 32633 &&
		  x == xy[0] && y == xy[1], "v2 extended point");
	/* a planar box: 2 dimensions x min/max x float4 */
	len = make(buf, 4326, 0x44, 16, 1, 1, xy, 2);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_POINT && x == xy[0] &&
		  y == xy[1], "v2 point with a box");
	/* extended flags then box */
	len = make(buf, 4326, 0x54, 24, 1, 1, xy, 2);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_POINT && x == xy[0] &&
		  y == xy[1], "v2 point with extended flags and a box");
	/* geodetic (geography) box: geocentric, 6 float4 */
	len = make(buf, 4326, 0x4C, 24, 1, 1, xy, 2);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_POINT && x == xy[0] &&
		  y == xy[1], "geography point with a box");
	len = make(buf, 4326, 0x0C, 24, 1, 1, xy, 2);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_POINT && x == xy[0] &&
		  y == xy[1], "v1 geography point with a box");
	/* unknown and negative SRIDs (21 bits, sign-extended) */
	len = make(buf, 0, 0x40, 0, 1, 1, xy, 2);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_POINT && srid == 0, "srid 0");
	len = make(buf, -2, 0x40, 0, 1, 1, xy, 2);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_POINT && srid == -2,
		  "negative srid: %d", srid);
	len = make(buf, 999999, 0x40, 0, 1, 1, xy, 2);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_POINT && srid == 999999,
		  "largest srid: %d", srid);
	/* unaligned: the same bytes one past an 8-byte boundary */
	len = make(buf + 1, 4326, 0x40, 0, 1, 1, xy, 2);
	CHECK(dpk_gser_point(buf + 1, len, &srid, &x, &y) == DPK_GSER_POINT && x == xy[0] &&
		  y == xy[1], "unaligned point");
	(void) xyz;
}

/* What is not a plain 2-D point is told apart. */
static void
test_non_points(void)
{
	uint8_t		buf[128];
	double		xy[4] = {1, 2, 3, 4};
	double		x = 0,
				y = 0;
	int32_t		srid;
	size_t		len;

	len = make(buf, 4326, 0x40, 0, 1, 0, xy, 0);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_EMPTY && srid == 4326, "empty");
	len = make(buf, 4326, 0x41, 0, 1, 1, xy, 3);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_ZM, "point z");
	len = make(buf, 4326, 0x42, 0, 1, 1, xy, 3);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_ZM, "point m");
	len = make(buf, 4326, 0x47, 32, 1, 1, xy, 4);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_ZM, "point zm with a box");
	len = make(buf, 4326, 0x41, 0, 1, 0, xy, 0);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_EMPTY, "point z empty");
	len = make(buf, 4326, 0x40, 0, 2, 2, xy, 4);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_NOT_POINT, "linestring");
	len = make(buf, 4326, 0x40, 0, 4, 1, xy, 0);
	CHECK(dpk_gser_point(buf, len, &srid, &x, &y) == DPK_GSER_NOT_POINT, "multipoint");
	len = make(buf, 4326, 0x40, 0, 1, 1, xy, 2);
	CHECK(dpk_gser_point(buf, len - 1, &srid, &x, &y) == DPK_GSER_MALFORMED, "truncated");
	CHECK(dpk_gser_point(buf, 3, &srid, &x, &y) == DPK_GSER_MALFORMED, "no header");
	len = make(buf, 4326, 0x44, 16, 1, 1, xy, 2);
	CHECK(dpk_gser_point(buf, 4 + 16 + 4, &srid, &x, &y) == DPK_GSER_MALFORMED,
		  "box but no type");
}

/* Type modifiers as PostGIS stores them (values read from pg_attribute). */
static void
test_typmod(void)
{
	int32_t		srid;
	int			t,
				z,
				m;

	dpk_gser_typmod(987396, &srid, &t, &z, &m);	/* geometry(Point,3857) */
	CHECK(srid == 3857 && t == 1 && !z && !m, "geometry(Point,3857): %d %d %d %d", srid, t, z, m);
	dpk_gser_typmod(1107460, &srid, &t, &z, &m);	/* geography(Point,4326) */
	CHECK(srid == 4326 && t == 1 && !z && !m, "geography(Point,4326)");
	dpk_gser_typmod(7, &srid, &t, &z, &m);	/* geometry(PointZM) */
	CHECK(srid == 0 && t == 1 && z && m, "geometry(PointZM)");
	dpk_gser_typmod(-1, &srid, &t, &z, &m);
	CHECK(srid == 0 && t == 0 && !z && !m, "no modifier");
	dpk_gser_typmod((int32_t) ((0x1FFFFE << 8) | (1 << 2)) & 0x1FFFFFFF, &srid, &t, &z, &m);
	CHECK(srid == -2 && t == 1, "negative srid in a modifier: %d", srid);
}

int
main(void)
{
	test_points();
	test_non_points();
	test_typmod();
	UNIT_DONE("test_gserialized");
}
