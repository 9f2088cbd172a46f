# chart-retrieval.svg and chart-retrieval.png, written by attnzoo; rerun with `gnuplot chart-retrieval.gp` in this folder.
$f0 << EOD
"full" 0.4192 49.5331 7 0.660286
EOD
$f1 << EOD
"local" 4.0628 50.1698 1.90048 0.30013
"bigbird" 2.4977 51.5068 2.29658 1.77077
EOD
$f2 << EOD
"linformer" 2.8621 49.9151 2.09157 0.30013
"performer" 3 49.3633 2.32809 0.240104
"linear" 4.172 49.8939 1.85935 0.030013
EOD
$f3 << EOD
"reformer" 1.9411 49.6817 2.26988 1.17051
"sinkhorn" 3.0333 50.1273 2.17487 0.240104
EOD
$f4 << EOD
"mixer" 8.1942 50 1.53665 0.30013
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-retrieval.svg'
set title "Retrieval on this CPU (preset full)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 128), log scale"
set ylabel "test accuracy (%): Retrieval"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.232889:14.7496]
set yrange [45.5112:56.2776]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10)
set label 1 "full" at 0.4192,49.5331 center offset char 0,2.16 front
set label 2 "local" at 4.0628,50.1698 center offset char 0,1.0721 front
set label 3 "bigbird" at 2.4977,51.5068 center offset char 0,1.1566 front
set label 4 "linformer" at 2.8621,49.9151 center offset char -5.83663,1.11287 front
set label 5 "performer" at 3,49.3633 center offset char 0,-1.16333 front
set label 6 "linear" at 4.172,49.8939 center offset char 0,-1.06333 front
set label 7 "reformer" at 1.9411,49.6817 center offset char 0,-1.15091 front
set label 8 "sinkhorn" at 3.0333,50.1273 center offset char 5.36995,3.13064 front
set arrow from first 3.1359,50.2444 to first 3.77719,50.8994 nohead lw 0.8 lc rgb '#999999' back
set label 9 "mixer" at 8.1942,50 center offset char 0,0.994486 front
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
set output 'chart-retrieval.png'
set title "Retrieval on this CPU (preset full)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 128), log scale"
set ylabel "test accuracy (%): Retrieval"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.232889:14.7496]
set yrange [45.5112:56.2776]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10)
set label 1 "full" at 0.4192,49.5331 center offset char 0,2.16 front
set label 2 "local" at 4.0628,50.1698 center offset char 0,1.0721 front
set label 3 "bigbird" at 2.4977,51.5068 center offset char 0,1.1566 front
set label 4 "linformer" at 2.8621,49.9151 center offset char -5.83663,1.11287 front
set label 5 "performer" at 3,49.3633 center offset char 0,-1.16333 front
set label 6 "linear" at 4.172,49.8939 center offset char 0,-1.06333 front
set label 7 "reformer" at 1.9411,49.6817 center offset char 0,-1.15091 front
set label 8 "sinkhorn" at 3.0333,50.1273 center offset char 5.36995,3.13064 front
set arrow from first 3.1359,50.2444 to first 3.77719,50.8994 nohead lw 0.8 lc rgb '#999999' back
set label 9 "mixer" at 8.1942,50 center offset char 0,0.994486 front
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
