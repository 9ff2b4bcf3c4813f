# gnuplot -e "dat='WORK/plot-startup.dat'; out='bench/results-startup.png'" bench/load/plot-startup.gp
# Intercepted requests per second in each second after a fresh start (scenario s), one line per proxy.
set terminal pngcairo size 900,420 font ",10"
set output out
set title "Intercepted HTTPS, 1 KiB, from a fresh start (one hey run per second, same machine)"
set xlabel "second after ready"
set ylabel "requests/s"
set key top left autotitle columnheader
set grid
set yrange [0:*]
plot for [i=2:3] dat using 1:i with linespoints
