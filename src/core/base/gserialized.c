/*
 * gserialized.c
 *		The X/Y of a PostGIS point read from its serialized form (see
 *		gserialized.h).  dpkmeans is never linked against PostGIS: the
 *		layout read here is PostGIS's on-disk format, stable across its
 *		releases (liblwgeom's gserialized.txt).
 */
#include "gserialized.h"

#include <string.h>

/* Flags byte: the first four bits are shared by both layouts. */
#define GFLAG_Z			0x01
#define GFLAG_M			0x02
#define GFLAG_BBOX		0x04
#define GFLAG_GEODETIC	0x08
#define G2FLAG_EXTENDED 0x10	/* layout 2 only (layout 1: read-only bit) */
#define GFLAG_VERSION	0x40	/* set in layout 2 */

#define POSTGIS_POINTTYPE 1

/* A native-endian uint32 at any address. */
static uint32_t
get_u32(const uint8_t *p)
{
	uint32_t	v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Read one serialized value (see gserialized.h). */
DpkGserStatus
dpk_gser_point(const uint8_t *b, size_t len, int32_t *srid, double *x, double *y)
{
	uint8_t		flags;
	size_t		off = 4;
	int32_t		s;

	*srid = 0;
	if (len < 4)
		return DPK_GSER_MALFORMED;
	/* 21 significant bits, sign-extended (PostGIS's own packing) */
	s = (int32_t) (((uint32_t) b[0] << 16) | ((uint32_t) b[1] << 8) | b[2]);
	s = (int32_t) ((uint32_t) s << 11) >> 11;
	*srid = s;
	flags = b[3];
	if ((flags & GFLAG_VERSION) && (flags & G2FLAG_EXTENDED))
		off += 8;
	if (flags & GFLAG_BBOX)
	{
		int			ndims = 2 + ((flags & GFLAG_Z) != 0) + ((flags & GFLAG_M) != 0);

		/* float4 min/max per dimension; geodetic boxes are 3-D (geocentric) */
		off += (flags & GFLAG_GEODETIC) ? 6 * 4 : (size_t) (2 * ndims * 4);
	}
	if (len < off + 8)
		return DPK_GSER_MALFORMED;
	if (get_u32(b + off) != POSTGIS_POINTTYPE)
		return DPK_GSER_NOT_POINT;
	if (get_u32(b + off + 4) == 0)
		return DPK_GSER_EMPTY;
	if (flags & (GFLAG_Z | GFLAG_M))
		return DPK_GSER_ZM;
	if (len < off + 8 + 2 * sizeof(double))
		return DPK_GSER_MALFORMED;
	memcpy(x, b + off + 8, sizeof(double));
	memcpy(y, b + off + 8 + sizeof(double), sizeof(double));
	return DPK_GSER_POINT;
}

/* A PostGIS type modifier's parts (see gserialized.h). */
void
dpk_gser_typmod(int32_t typmod, int32_t *srid, int *geomtype, int *has_z, int *has_m)
{
	if (typmod < 0)
	{
		*srid = 0;
		*geomtype = 0;
		*has_z = *has_m = 0;
		return;
	}
	/* bits 8-28: SRID (bit 28 its sign), 2-7: type, 1: Z, 0: M */
	*srid = ((typmod & 0x0FFFFF00) - (typmod & 0x10000000)) >> 8;
	*geomtype = (typmod & 0x000000FC) >> 2;
	*has_z = (typmod & 0x00000002) >> 1;
	*has_m = typmod & 0x00000001;
}
