-- dpkmeans 0.6 -> 0.7
\echo Use "ALTER EXTENSION dpkmeans UPDATE TO '0.7'" to load this file. \quit
