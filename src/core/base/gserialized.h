/*
 * gserialized.h
 *		The X/Y of a PostGIS point read from its serialized form (plain C,
 *		no PostgreSQL or PostGIS headers).
 */
#ifndef DPK_GSERIALIZED_H
#define DPK_GSERIALIZED_H

#include <stddef.h>
#include <stdint.h>

/* What a serialized geometry or geography holds. */
typedef enum DpkGserStatus
{
	DPK_GSER_POINT,				/* a non-empty 2-D point */
	DPK_GSER_NOT_POINT,			/* another geometry type */
	DPK_GSER_EMPTY,				/* POINT EMPTY */
	DPK_GSER_ZM,				/* a point with Z and/or M */
	DPK_GSER_MALFORMED			/* shorter than its header says */
} DpkGserStatus;

/*
 * Read a serialized PostGIS value: b points at the bytes after the varlena
 * header (3 bytes of SRID, 1 byte of flags, then the optional extended
 * flags and bounding box, then the geometry), len is their number.  Both
 * layouts PostGIS writes are read (version 1 of PostGIS 2, version 2 of
 * PostGIS 3).  *srid is set whenever len holds the header (0: unknown);
 * x and y only for DPK_GSER_POINT.  Reads bytes one by one: b needs no
 * alignment (short varlena headers leave it at any address).
 */
DpkGserStatus dpk_gser_point(const uint8_t *b, size_t len, int32_t *srid,
							 double *x, double *y);

/*
 * The SRID, point-only restriction and dimensions a PostGIS column type
 * modifier declares (-1: none).  *srid is 0 when the modifier gives none.
 */
void		dpk_gser_typmod(int32_t typmod, int32_t *srid, int *geomtype,
							int *has_z, int *has_m);

#endif
