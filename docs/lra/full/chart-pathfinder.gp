# chart-pathfinder.svg and chart-pathfinder.png, written by attnzoo; rerun with `gnuplot chart-pathfinder.gp` in this folder.
$f0 << EOD
"full" 0.4192 50 7 0
EOD
$f1 << EOD
"local" 4.0628 50 1.90048 0
"bigbird" 2.4977 50 2.29658 0
EOD
$f2 << EOD
"linformer" 2.8621 50 2.09157 0
"performer" 3 50 2.32809 0
"linear" 4.172 50 1.85935 0
EOD
$f3 << EOD
"reformer" 1.9411 50 2.26988 0
"sinkhorn" 3.0333 49.975 2.17487 0.0353553
EOD
$f4 << EOD
"mixer" 8.1942 49.575 1.53665 0.601041
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-pathfinder.svg'
set title "Pathfinder on this CPU (preset full)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 128), log scale"
set ylabel "test accuracy (%): Pathfinder"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.232889:14.7496]
set yrange [45.974:53.176]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10)
set label 1 "full" at 0.4192,50 center offset char 0,2.16 front
set label 2 "local" at 4.0628,50 center offset char 0,1.0721 front
set label 3 "bigbird" at 2.4977,50 center offset char 0,1.1566 front
set label 4 "linformer" at 2.8621,50 center offset char 0,-1.11287 front
set label 5 "performer" at 3,50 center offset char 0,2.16333 front
set arrow from first 3,50.1127 to first 3,50.3194 nohead lw 0.8 lc rgb '#999999' back
set label 6 "linear" at 4.172,50 center offset char 0,-1.06333 front
set label 7 "reformer" at 1.9411,50 center offset char -5.40795,0 front
set label 8 "sinkhorn" at 3.0333,49.975 center offset char 0,-2.13064 front
set arrow from first 3.0333,49.8688 to first 3.0333,49.6621 nohead lw 0.8 lc rgb '#999999' back
set label 9 "mixer" at 8.1942,49.575 center offset char 0,0.994486 front
set arrow from graph 0, first 50 to graph 1, first 50 nohead dt 2 lc rgb '#888888'
set label 10 "chance (majority class)" at graph 0.01, first 50 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart-pathfinder.png'
set title "Pathfinder on this CPU (preset full)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 128), log scale"
set ylabel "test accuracy (%): Pathfinder"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.232889:14.7496]
set yrange [45.974:53.176]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10)
set label 1 "full" at 0.4192,50 center offset char 0,2.16 front
set label 2 "local" at 4.0628,50 center offset char 0,1.0721 front
set label 3 "bigbird" at 2.4977,50 center offset char 0,1.1566 front
set label 4 "linformer" at 2.8621,50 center offset char 0,-1.11287 front
set label 5 "performer" at 3,50 center offset char 0,2.16333 front
set arrow from first 3,50.1127 to first 3,50.3194 nohead lw 0.8 lc rgb '#999999' back
set label 6 "linear" at 4.172,50 center offset char 0,-1.06333 front
set label 7 "reformer" at 1.9411,50 center offset char -5.40795,0 front
set label 8 "sinkhorn" at 3.0333,49.975 center offset char 0,-2.13064 front
set arrow from first 3.0333,49.8688 to first 3.0333,49.6621 nohead lw 0.8 lc rgb '#999999' back
set label 9 "mixer" at 8.1942,49.575 center offset char 0,0.994486 front
set arrow from graph 0, first 50 to graph 1, first 50 nohead dt 2 lc rgb '#888888'
set label 10 "chance (majority class)" at graph 0.01, first 50 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle

unset output
