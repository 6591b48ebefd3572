-- dpkmeans 0.7 -> 0.8
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.8'" to load this file. \quit
