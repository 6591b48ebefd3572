/*
 * cpu.h
 *		What the CPU can run, asked once per caller's file.
 *
 * Kernels written for AVX2 (four doubles a vector) run only where the CPU
 * has it; the scalar forms beside them give the same values.
 */
#ifndef DPK_CPU_H
#define DPK_CPU_H

#if defined(__GNUC__) && defined(__x86_64__)
/* Whether the CPU has AVX2 (asked once, then remembered). */
static inline int
dpk_cpu_has_avx2(void)
{
	static int	known = -1;
	int			k = __atomic_load_n(&known, __ATOMIC_RELAXED);

	if (k < 0)
	{
		__builtin_cpu_init();
		k = __builtin_cpu_supports("avx2") ? 1 : 0;
		__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	}
	return k;
}
#endif

#endif							/* DPK_CPU_H */
