# chart-pathfinder.svg and chart-pathfinder.png, written by attnzoo; rerun with `gnuplot chart-pathfinder.gp` in this folder.
$f0 << EOD
"full" 0.4564 49.6833 7 0.548483
"flash" 1.2127 50.0333 1.61669 0.057735
EOD
$f1 << EOD
"bigbird" 3.075 50.05 2.1789 0.0866025
"global" 10.7856 50.15 1.61575 0.259808
"local" 6.4343 49.95 1.76569 0.0866025
"longformer" 5.9459 50.2833 1.77338 0.301386
"strided" 9.4747 50.2167 1.68543 0.202073
EOD
$f2 << EOD
"compressed" 2.1954 50.0167 1.65828 0.0288675
"efficient" 7.3974 49.8833 1.60353 0.104083
"linear" 8.9409 50.1 1.60447 0.173205
"linformer" 4.3127 50.3 1.86854 0.47697
"performer" 8.6862 50.2167 1.82677 0.202073
"rfa" 3.8859 50 2.14671 0
"synthesizer" 0.7532 49.75 1.68319 0.433013
EOD
$f3 << EOD
"fnet" 12.436 50.1667 1.39779 0.288675
"gmlp" 0.5856 49.7833 3.29274 0.292973
"mixer" 14.4824 50.2167 1.47728 0.25658
EOD
$f4 << EOD
"reformer" 2.4818 50 1.9303 0
"routing" 3.6191 49.5167 1.67055 0.425245
"sinkhorn" 6.5228 50.1833 1.83998 0.236291
"reformer+lra" 2.9069 50.0167 1.6302 0.0288675
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-pathfinder.svg'
set title "Pathfinder on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Pathfinder"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [46.0914:53.777]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4564,49.6833 center offset char 0,2.16 front
set label 2 "bigbird" at 3.075,50.05 center offset char 0,1.1315 front
set label 3 "compressed" at 2.1954,50.0167 center offset char 0,-1.02043 front
set label 4 "efficient" at 7.3974,49.8833 center offset char 0,-1.00875 front
set label 5 "flash" at 1.2127,50.0333 center offset char 0,1.01156 front
set label 6 "fnet" at 12.436,50.1667 center offset char 0,0.964863 front
set label 7 "global" at 10.7856,50.15 center offset char 4.1463,-1.01136 front
set label 8 "gmlp" at 0.5856,49.7833 center offset char 3.8171,1.36912 front
set label 9 "linear" at 8.9409,50.1 center offset char 0,2.00895 front
set arrow from first 8.9409,50.1873 to first 8.9409,50.4079 nohead lw 0.8 lc rgb '#999999' back
set label 10 "linformer" at 4.3127,50.3 center offset char 0,1.06529 front
set label 11 "local" at 6.4343,49.95 center offset char -3.70627,0 front
set label 12 "longformer" at 5.9459,50.2833 center offset char 0,3.04499 front
set arrow from first 5.9459,50.3783 to first 5.9459,50.8124 nohead lw 0.8 lc rgb '#999999' back
set label 13 "mixer" at 14.4824,50.2167 center offset char 3.59091,0 front
set label 14 "performer" at 8.6862,50.2167 center offset char 5.73071,3.05638 front
set arrow from first 8.98186,50.2856 to first 11.2683,50.7524 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.4818,50 center offset char -5.27212,1.07846 front
set label 16 "rfa" at 3.8859,50 center offset char 0,-1.12463 front
set label 17 "routing" at 3.6191,49.5167 center offset char 0,-1.02305 front
set label 18 "sinkhorn" at 6.5228,50.1833 center offset char 0,-4.0592 front
set arrow from first 6.5228,50.0853 to first 6.5228,49.4377 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 9.4747,50.2167 center offset char 4.67417,-3.02623 front
set arrow from first 9.7448,50.1464 to first 11.7057,49.6883 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.7532,49.75 center offset char 6.67328,0 front
set label 21 "reformer+lra" at 2.9069,50.0167 center offset char -7.15208,3.01444 front
set arrow from first 2.8105,50.0715 to first 2.10117,50.5446 nohead lw 0.8 lc rgb '#999999' back
set arrow from graph 0, first 50 to graph 1, first 50 nohead dt 2 lc rgb '#888888'
set label 22 "chance (majority class)" at graph 0.01, first 50 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart-pathfinder.png'
set title "Pathfinder on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Pathfinder"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [46.0914:53.777]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4564,49.6833 center offset char 0,2.16 front
set label 2 "bigbird" at 3.075,50.05 center offset char 0,1.1315 front
set label 3 "compressed" at 2.1954,50.0167 center offset char 0,-1.02043 front
set label 4 "efficient" at 7.3974,49.8833 center offset char 0,-1.00875 front
set label 5 "flash" at 1.2127,50.0333 center offset char 0,1.01156 front
set label 6 "fnet" at 12.436,50.1667 center offset char 0,0.964863 front
set label 7 "global" at 10.7856,50.15 center offset char 4.1463,-1.01136 front
set label 8 "gmlp" at 0.5856,49.7833 center offset char 3.8171,1.36912 front
set label 9 "linear" at 8.9409,50.1 center offset char 0,2.00895 front
set arrow from first 8.9409,50.1873 to first 8.9409,50.4079 nohead lw 0.8 lc rgb '#999999' back
set label 10 "linformer" at 4.3127,50.3 center offset char 0,1.06529 front
set label 11 "local" at 6.4343,49.95 center offset char -3.70627,0 front
set label 12 "longformer" at 5.9459,50.2833 center offset char 0,3.04499 front
set arrow from first 5.9459,50.3783 to first 5.9459,50.8124 nohead lw 0.8 lc rgb '#999999' back
set label 13 "mixer" at 14.4824,50.2167 center offset char 3.59091,0 front
set label 14 "performer" at 8.6862,50.2167 center offset char 5.73071,3.05638 front
set arrow from first 8.98186,50.2856 to first 11.2683,50.7524 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.4818,50 center offset char -5.27212,1.07846 front
set label 16 "rfa" at 3.8859,50 center offset char 0,-1.12463 front
set label 17 "routing" at 3.6191,49.5167 center offset char 0,-1.02305 front
set label 18 "sinkhorn" at 6.5228,50.1833 center offset char 0,-4.0592 front
set arrow from first 6.5228,50.0853 to first 6.5228,49.4377 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 9.4747,50.2167 center offset char 4.67417,-3.02623 front
set arrow from first 9.7448,50.1464 to first 11.7057,49.6883 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.7532,49.75 center offset char 6.67328,0 front
set label 21 "reformer+lra" at 2.9069,50.0167 center offset char -7.15208,3.01444 front
set arrow from first 2.8105,50.0715 to first 2.10117,50.5446 nohead lw 0.8 lc rgb '#999999' back
set arrow from graph 0, first 50 to graph 1, first 50 nohead dt 2 lc rgb '#888888'
set label 22 "chance (majority class)" at graph 0.01, first 50 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle

unset output
