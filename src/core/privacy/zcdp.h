/*
 * zcdp.h
 *		Zero-concentrated DP accounting of the discrete Gaussian mechanism.
 *
 * Canonne, Kamath and Steinke (2020), "The Discrete Gaussian for
 * Differential Privacy" (CKS): adding N_Z(0, sigma^2) to an integer query of
 * l2 sensitivity Delta is rho-zCDP with rho = Delta^2 / (2 sigma^2) (their
 * Theorem on the discrete Gaussian's Renyi divergence, D_alpha <= alpha
 * mu^2 / (2 sigma^2) for an integer shift mu; over independent coordinates
 * the divergences add, so a vector query costs ||shift||_2^2 / (2 sigma^2)).
 * zCDP composes additively, also adaptively.  A rho-zCDP mechanism is
 * (epsilon, delta)-DP for
 *
 *	 delta = inf_{alpha > 1} exp((alpha - 1)(alpha rho - epsilon)) / (alpha - 1)
 *								* (1 - 1/alpha)^alpha
 *
 * (CKS, the improved conversion from concentrated to approximate DP); the
 * functions below evaluate it and invert it.  Plain C, doubles only: this is
 * accounting, never sampling.
 */
#ifndef DPK_ZCDP_H
#define DPK_ZCDP_H

/*
 * The delta of a rho-zCDP mechanism at epsilon (the infimum above, at most 1);
 * *alpha_out (may be NULL) gets the minimising alpha.
 */
double		dpk_zcdp_delta(double rho, double epsilon, double *alpha_out);

/*
 * The largest rho whose delta at epsilon is at most delta (0 < delta < 1,
 * epsilon > 0), by bisection; the value returned satisfies the bound (it is
 * the lower end of the final bracket, within 1e-12 relative of the supremum).
 */
double		dpk_zcdp_rho(double epsilon, double delta);

/* The smallest epsilon at which a rho-zCDP mechanism is (epsilon, delta)-DP. */
double		dpk_zcdp_epsilon(double rho, double delta);

/* The sigma^2 giving rho for an l2 sensitivity whose square is delta2_sq. */
double		dpk_zcdp_sigma2(double delta2_sq, double rho);

/* Whether delta is a valid approximate-DP delta: 0 (pure epsilon) or in (0, 1). */
int			dpk_zcdp_delta_valid(double delta);

#endif
