# chart-image.svg and chart-image.png, written by attnzoo; rerun with `gnuplot chart-image.gp` in this folder.
$f0 << EOD
"full" 0.4192 83.705 7 0.120208
EOD
$f1 << EOD
"local" 4.0628 84.005 1.90048 0.26163
"bigbird" 2.4977 84.09 2.29658 0.0848528
EOD
$f2 << EOD
"linformer" 2.8621 86.91 2.09157 0.0707107
"performer" 3 82.57 2.32809 0.155563
"linear" 4.172 83.185 1.85935 0.247487
EOD
$f3 << EOD
"reformer" 1.9411 82.555 2.26988 0.544472
"sinkhorn" 3.0333 83.985 2.17487 0.176777
EOD
$f4 << EOD
"mixer" 8.1942 84.52 1.53665 0.0848528
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-image.svg'
set title "Image on this CPU (preset full)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 128), log scale"
set ylabel "test accuracy (%): Image"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.232889:14.7496]
set yrange [0.762315:96.2184]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10)
set label 1 "full" at 0.4192,83.705 center offset char 0,2.16 front
set label 2 "local" at 4.0628,84.005 center offset char 0,1.0721 front
set label 3 "bigbird" at 2.4977,84.09 center offset char -4.91863,1.1566 front
set label 4 "linformer" at 2.8621,86.91 center offset char 0,1.11287 front
set label 5 "performer" at 3,82.57 center offset char 0,-1.16333 front
set label 6 "linear" at 4.172,83.185 center offset char 4.24374,0 front
set label 7 "reformer" at 1.9411,82.555 center offset char 0,-1.15091 front
set label 8 "sinkhorn" at 3.0333,83.985 center offset char 0,-3.13064 front
set arrow from first 3.0333,82.578 to first 3.0333,77.1865 nohead lw 0.8 lc rgb '#999999' back
set label 9 "mixer" at 8.1942,84.52 center offset char 0,0.994486 front
set arrow from graph 0, first 10 to graph 1, first 10 nohead dt 2 lc rgb '#888888'
set label 10 "chance (majority class)" at graph 0.01, first 10 offset 0,0.6 left textcolor rgb '#888888'
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
set output 'chart-image.png'
set title "Image on this CPU (preset full)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 128), log scale"
set ylabel "test accuracy (%): Image"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.232889:14.7496]
set yrange [0.762315:96.2184]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10)
set label 1 "full" at 0.4192,83.705 center offset char 0,2.16 front
set label 2 "local" at 4.0628,84.005 center offset char 0,1.0721 front
set label 3 "bigbird" at 2.4977,84.09 center offset char -4.91863,1.1566 front
set label 4 "linformer" at 2.8621,86.91 center offset char 0,1.11287 front
set label 5 "performer" at 3,82.57 center offset char 0,-1.16333 front
set label 6 "linear" at 4.172,83.185 center offset char 4.24374,0 front
set label 7 "reformer" at 1.9411,82.555 center offset char 0,-1.15091 front
set label 8 "sinkhorn" at 3.0333,83.985 center offset char 0,-3.13064 front
set arrow from first 3.0333,82.578 to first 3.0333,77.1865 nohead lw 0.8 lc rgb '#999999' back
set label 9 "mixer" at 8.1942,84.52 center offset char 0,0.994486 front
set arrow from graph 0, first 10 to graph 1, first 10 nohead dt 2 lc rgb '#888888'
set label 10 "chance (majority class)" at graph 0.01, first 10 offset 0,0.6 left textcolor rgb '#888888'
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
