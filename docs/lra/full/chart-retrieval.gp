# chart-retrieval.svg and chart-retrieval.png, written by attnzoo; rerun with `gnuplot chart-retrieval.gp` in this folder.
$f0 << EOD
"local" 4.0628 50.1698 5.7143 0.30013
"bigbird" 2.4977 51.5068 6.90526 1.77077
EOD
$f1 << EOD
"linformer" 2.8621 49.9151 6.28884 0.30013
"performer" 3 49.3633 7 0.240104
"linear" 4.172 49.8939 5.59063 0.030013
EOD
$f2 << EOD
"reformer" 1.9411 49.6817 6.82497 1.17051
"sinkhorn" 3.0333 50.1273 6.5393 0.240104
EOD
$f3 << EOD
"mixer" 8.1942 50 4.62035 0.30013
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-retrieval.svg'
set title "Retrieval on this CPU (preset full)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 128), log scale"
set ylabel "test accuracy (%): Retrieval"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [1.07839:14.7496]
set yrange [45.5112:56.2776]
set xtics ("2" 2, "5" 5, "10" 10)
set label 1 "local" at 4.0628,50.1698 center offset char 0,2.02041 front
set label 2 "bigbird" at 2.4977,51.5068 center offset char 0,2.29263 front
set label 3 "linformer" at 2.8621,49.9151 center offset char -7.94633,2.15174 front
set label 4 "performer" at 3,49.3633 center offset char 0,-2.31429 front
set label 5 "linear" at 4.172,49.8939 center offset char 0,-1.99214 front
set label 6 "reformer" at 1.9411,49.6817 center offset char 0,-2.27428 front
set label 7 "sinkhorn" at 3.0333,50.1273 center offset char 0,2.20898 front
set label 8 "mixer" at 8.1942,50 center offset char 0,1.77036 front
set arrow from graph 0, first 50 to graph 1, first 50 nohead dt 2 lc rgb '#888888'
set label 9 'chance (majority class)' at graph 0.01, first 50 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart-retrieval.png'
set title "Retrieval on this CPU (preset full)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 128), log scale"
set ylabel "test accuracy (%): Retrieval"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [1.07839:14.7496]
set yrange [45.5112:56.2776]
set xtics ("2" 2, "5" 5, "10" 10)
set label 1 "local" at 4.0628,50.1698 center offset char 0,2.02041 front
set label 2 "bigbird" at 2.4977,51.5068 center offset char 0,2.29263 front
set label 3 "linformer" at 2.8621,49.9151 center offset char -7.94633,2.15174 front
set label 4 "performer" at 3,49.3633 center offset char 0,-2.31429 front
set label 5 "linear" at 4.172,49.8939 center offset char 0,-1.99214 front
set label 6 "reformer" at 1.9411,49.6817 center offset char 0,-2.27428 front
set label 7 "sinkhorn" at 3.0333,50.1273 center offset char 0,2.20898 front
set label 8 "mixer" at 8.1942,50 center offset char 0,1.77036 front
set arrow from graph 0, first 50 to graph 1, first 50 nohead dt 2 lc rgb '#888888'
set label 9 'chance (majority class)' at graph 0.01, first 50 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle

unset output
