/*
 * release_noise.h
 *		A release's Gaussian noise drawn by parallel workers (release_noise.c).
 */
#ifndef DPK_RELEASE_NOISE_H
#define DPK_RELEASE_NOISE_H

#include "live_reach.h"

/*
 * The split a release's worker installs as dpk_live_noise_split: cells of
 * an (epsilon, delta) table's release drawn by up to
 * dpk_release_noise_workers parallel workers.
 */
extern const DpkNoiseSplit dpk_release_noise_split;

/* Workers a release may use: the caller's max_parallel_workers_per_gather. */
extern int	dpk_release_noise_workers;

#endif
