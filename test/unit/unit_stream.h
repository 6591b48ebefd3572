/*
 * unit_stream.h
 *		Noise streams for the unit tests of the plain-C core.
 */
#ifndef DPK_UNIT_STREAM_H
#define DPK_UNIT_STREAM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noise.h"

/* A noise stream opened from a fixed seed (tests only); exits if it cannot be. */
static inline void
unit_open_stream(DpkStream *s, uint64_t seed)
{
	uint8_t		key[DPK_KEY_BYTES];
	uint8_t		nonce[DPK_NONCE_BYTES] = {0};

	memset(s, 0, sizeof(*s));
	dpk_key_from_seed(seed, key);
	if (!dpk_stream_open(s, key, nonce))
	{
		fprintf(stderr, "cannot open the noise stream\n");
		exit(1);
	}
}

#endif
