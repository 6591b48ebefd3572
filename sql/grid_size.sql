-- dp_grid_size: RUGNIK and EUGkM rules on public inputs
SELECT round(m::numeric, 6) AS m, cells_per_dim, cells FROM dp_grid_size(100000, 1, 6, 2);
SELECT round(m::numeric, 6) AS m, cells_per_dim, cells FROM dp_grid_size(100000, 1, 8, 3);
SELECT round(m::numeric, 6) AS m, cells_per_dim, cells FROM dp_grid_size(100000, 0.1, 6, 5);
SELECT round(m::numeric, 6) AS m, cells_per_dim, cells FROM dp_grid_size(100000, 1, 6, 2, 'eugkm');
SELECT round(m::numeric, 6) AS m, cells_per_dim, cells FROM dp_grid_size(100000, 1, 6, 2, 'EUGkM');
-- RUGNIK's grid grows with k, EUGkM's does not
SELECT k, (SELECT cells_per_dim FROM dp_grid_size(1e5, 0.5, k, 2)) AS rugnik,
          (SELECT cells_per_dim FROM dp_grid_size(1e5, 0.5, k, 2, 'eugkm')) AS eugkm
FROM unnest(ARRAY[1, 4, 16, 64]) AS k;
-- the root really solves xi(m) = 0 (relative residual)
SELECT abs(m ^ 3 - rho * sqrt(6) * m - rho * sqrt(1e5 / 3) * 6) / m ^ 3 < 1e-12 AS root_ok
FROM dp_grid_size(100000, 1, 6, 2), (SELECT (1.0 / 2) * sqrt(8 * 1e5 / 3) AS rho) r;
-- extremes: never NaN, 0 or a hang; at least one cell
SELECT n, eps, k, d, m > 0 AND m < 'infinity' AS m_ok, cells_per_dim >= 1 AS per_dim_ok
FROM (VALUES (1, 1e-4, 1, 64), (1e12, 100, 10000, 1), (1e12, 1e-4, 1, 64),
             (1, 100, 10000, 1), (0, 1, 1, 1)) AS v(n, eps, k, d),
     LATERAL dp_grid_size(n, eps, k, d);
-- high dimension: grids collapse to one or two cells per dimension
SELECT cells_per_dim, cells FROM dp_grid_size(100000, 1, 10, 16);
