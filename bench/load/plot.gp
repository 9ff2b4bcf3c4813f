# gnuplot -e "dat='WORK/plot-ratio.dat'; dat2='WORK/plot-p99.dat'; out='bench/results-throughput.png'; out2='bench/results-p99.png'" bench/load/plot.gp
# Grouped bars per scenario, one bar per system: throughput relative to direct, and p99 latency.
set terminal pngcairo size 900,420 font ",10"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top right autotitle columnheader
set grid ytics
set output out
set title "Throughput relative to direct (same run; 1.0 = direct)"
set ylabel "proxy / direct"
plot for [i=2:4] dat using i:xtic(1)
set output out2
set title "p99 latency per scenario (ms)"
set ylabel "ms"
set logscale y
plot for [i=2:5] dat2 using i:xtic(1)
