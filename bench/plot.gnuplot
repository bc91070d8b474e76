# SPDX-License-Identifier: GPL-2.0
#
# Two panels from the benchmark's plot data (report.c writes them):
# ns per operation by implementation and n, and false-positive rate
# against bits/key with the formulas.
#   gnuplot -e "datadir='DIR'; out='results.png'" plot.gnuplot
if (!exists("datadir")) datadir = "."
if (!exists("out")) out = "results.png"

set terminal pngcairo size 1600,700 font "DejaVu Sans,11" noenhanced
set output out
set multiplot layout 1,2 title "kbloom benchmark" font ",14"

set title "Median ns per operation against keys in the filter\n(8-byte keys, 10 bits/key)"
set logscale xy
set autoscale xfix
unset xlabel
set ylabel "ns per operation (log)"
set format x "%.0s%c"
set grid xtics ytics mytics
set key below horizontal maxrows 3 font ",10"
set offsets graph 0.08, graph 0.08, 0, 0
speed = datadir."/speed.dat"
set style line 1 lc rgb "#1f4e9a" lw 2 pt 7 ps 1.3
set style line 2 lc rgb "#3f86d6" lw 2 pt 5 ps 1.3
set style line 3 lc rgb "#7fb8f0" lw 3 pt 9 ps 1.5
set style line 4 lc rgb "#1a7f6e" lw 2 pt 11 ps 1.3
set style line 5 lc rgb "#4fc1a6" lw 2 pt 13 ps 1.3
set style line 6 lc rgb "#777777" lw 2 dt 3 pt 4 ps 1.3
set style line 7 lc rgb "#d9730d" lw 2 pt 7 ps 1.3
set style line 8 lc rgb "#f0a44b" lw 2 pt 5 ps 1.3
set style line 9 lc rgb "#c0392b" lw 2 pt 7 ps 1.3
set style line 10 lc rgb "#e57373" lw 2 pt 5 ps 1.3
set style line 11 lc rgb "#000000" lw 2 dt 2 pt 6 ps 1.3
# report.c writes 11 blocks in this order: kbloom add, check, check batch,
# add into a full filter, add batch, the xxh64 + one load floor, libbloom
# add, check, BPF map add, check, the random-load limit.
plot for [i=0:10] speed index i using 1:2 with linespoints ls (i + 1) \
	title columnheader(1)

set title "False-positive rate against bits per key\n(measured points; lines: formulas)"
unset logscale x
set logscale y
set xrange [5.5:20.5]
set xlabel "bits per key (what each filter really used)"
set ylabel "false-positive rate, % (log)"
set format x "%g"
set format y "%g"
set key inside top right font ",10"
fp = datadir."/fp.dat"
plot fp index 3 using 1:($2 * 100) with lines lc rgb "#1f4e9a" lw 2 \
	title columnheader(1), \
     fp index 4 using 1:($2 * 100) with lines lc rgb "#888888" lw 2 dt 2 \
	title columnheader(1), \
     fp index 0 using 1:($2 * 100) with points lc rgb "#1f4e9a" pt 7 ps 1.8 \
	title columnheader(1), \
     fp index 1 using 1:($2 * 100) with points lc rgb "#d9730d" pt 5 ps 1.6 \
	title columnheader(1), \
     fp index 2 using 1:($2 * 100) with points lc rgb "#c0392b" pt 9 ps 1.8 \
	title columnheader(1)
unset multiplot
