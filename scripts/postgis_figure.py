#!/usr/bin/env python3
"""SVG of one release of a PostGIS point table (scripts/postgis-figure.sh):
noisy histogram cells shaded by their noisy count, the true points, and the
private centres sized by their noisy size.  Reads points.txt, box.txt,
cells.txt and centres.txt (space-separated, from psql) in the given folder;
plain Python, no plotting library."""
import sys


def rows(path):
    with open(path) as f:
        return [[float(v) for v in line.split()] for line in f if line.strip()]


def main():
    folder, out, eps, k = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    points = rows(folder + "/points.txt")
    x0, y0, x1, y1 = rows(folder + "/box.txt")[0]
    cells = rows(folder + "/cells.txt")
    centres = rows(folder + "/centres.txt")

    width = 900.0
    margin = 20.0
    scale = (width - 2 * margin) / (x1 - x0)
    height = (y1 - y0) * scale + 2 * margin + 40

    def px(x):
        return margin + (x - x0) * scale

    def py(y):
        return margin + (y1 - y) * scale

    top = max([c[4] for c in cells] + [1.0])
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="sans-serif" font-size="13">'
           % (width, height, width, height),
           '<rect width="100%" height="100%" fill="white"/>']
    for cx0, cy0, cx1, cy1, n in cells:
        if n <= 0:
            continue
        svg.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#2b6cb0" '
                   'fill-opacity="%.3f" stroke="#2b6cb0" stroke-opacity="0.25" stroke-width="0.5"/>'
                   % (px(cx0), py(cy1), (cx1 - cx0) * scale, (cy1 - cy0) * scale,
                      0.08 + 0.62 * min(1.0, n / top)))
    svg.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#555" '
               'stroke-width="1"/>' % (px(x0), py(y1), (x1 - x0) * scale, (y1 - y0) * scale))
    for x, y in points:
        svg.append('<circle cx="%.1f" cy="%.1f" r="1.3" fill="#333" fill-opacity="0.55"/>'
                   % (px(x), py(y)))
    big = max([c[2] for c in centres] + [1.0])
    for x, y, n in centres:
        r = 5 + 9 * (n / big) ** 0.5
        svg.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="#e53e3e" fill-opacity="0.85" '
                   'stroke="white" stroke-width="2"/>' % (px(x), py(y), r))
    svg.append('<text x="%.1f" y="%.1f">%d US airports (lower 48, EPSG:5070): true points (grey), '
               'noisy cells (blue, darker = more), private centres (red, k = %s, &#949; = %s)</text>'
               % (margin, height - 14, len(points), k, eps))
    svg.append('</svg>')
    with open(out, "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
