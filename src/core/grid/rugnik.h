/*
 * rugnik.h
 *		Grid-size rules for uniform-grid DP k-means.
 *
 * RUGNIK ("On the Optimal Number of Grids for Differentially Private
 * Non-Interactive K-Means Clustering"; doc/design.md, section "Papers"):
 * the number of cells per dimension m minimising
 * the bound h(m) on the k-means cost deviation is the unique positive root of
 *		xi(m) = m^(d/2+2) - rho K^(1/d) m - rho sqrt(N/3) K^(2/d),
 *		rho = (eps/d) sqrt(8N/3).
 * EUGkM (Su et al.): m = (N eps / 10)^(2/(2+d)).
 */
#ifndef DPK_RUGNIK_H
#define DPK_RUGNIK_H

typedef enum DpkGridRule
{
	DPK_RULE_RUGNIK,
	DPK_RULE_EUGKM
} DpkGridRule;

/* The real-valued m of a rule; n, eps > 0, k, d >= 1. */
double		dpk_grid_m(DpkGridRule rule, double n, double eps, double k, int d);

/*
 * The integer cells per dimension actually used for a real m: for RUGNIK the
 * one of floor(m), ceil(m) with the lower bound h, for EUGkM the nearest
 * integer; at least 1 and at most max_per_dim.
 */
int			dpk_grid_cells_per_dim(DpkGridRule rule, double m, double n,
								   double eps, double k, int d, int max_per_dim);

/* RUGNIK's bound h(m) (up to the factor d r^2 / K), for tests and choices. */
double		dpk_rugnik_bound(double m, double n, double eps, double k, int d);

/*
 * The epsilon to feed the RUGNIK rule when each cell count carries noise of
 * variance var: the rule's derivation uses only the Laplace(1/eps) variance
 * 2/eps^2, so eps_eff = sqrt(2 / var).
 */
double		dpk_rugnik_eps_for_variance(double var);

#endif
