# chart-mqar.svg and chart-mqar.png, written by attnzoo; rerun with `gnuplot chart-mqar.gp` in this folder.
$f0 << EOD
"full" 0.4564 99.9896 7 0.00721688
"flash" 1.2127 99.9958 1.61669 0.00360844
EOD
$f1 << EOD
"bigbird" 3.075 99.9813 2.1789 0.0125
"global" 10.7856 65.2208 1.61575 6.60077
"local" 6.4343 42.7354 1.76569 19.2127
"longformer" 5.9459 16.275 1.77338 18.6501
"strided" 9.4747 0.422917 1.68543 0.0538855
EOD
$f2 << EOD
"compressed" 2.1954 1.28125 1.65828 0.0962175
"efficient" 7.3974 75.0604 1.60353 4.98514
"linear" 8.9409 6.25833 1.60447 0.283693
"linformer" 4.3127 37.2479 1.86854 54.3451
"performer" 8.6862 5.19167 1.82677 0.512131
"rfa" 3.8859 5.60833 2.14671 0.226413
"synthesizer" 0.7532 6.24792 1.68319 0.179663
EOD
$f3 << EOD
"fnet" 12.436 0.402083 1.39779 0.0607033
"gmlp" 0.5856 3.19583 3.29274 2.27054
"mixer" 14.4824 6.91667 1.47728 0.0893408
EOD
$f4 << EOD
"reformer" 2.4818 99.3604 1.9303 0.763584
"routing" 3.6191 1.475 1.67055 0.880075
"sinkhorn" 6.5228 19.1417 1.83998 13.8121
"reformer+lra" 2.9069 0.40625 1.6302 0.0330719
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-mqar.svg'
set title "Recall on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Recall"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [-31.1637:114.191]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4564,99.9896 center offset char 0,2.16 front
set label 2 "bigbird" at 3.075,99.9813 center offset char 0,1.1315 front
set label 3 "compressed" at 2.1954,1.28125 center offset char 0,1.02043 front
set label 4 "efficient" at 7.3974,75.0604 center offset char 0,1.00875 front
set label 5 "flash" at 1.2127,99.9958 center offset char 0,1.01156 front
set label 6 "fnet" at 12.436,0.402083 center offset char 0,0.964863 front
set label 7 "global" at 10.7856,65.2208 center offset char 0,1.01136 front
set label 8 "gmlp" at 0.5856,3.19583 center offset char 0,1.36912 front
set label 9 "linear" at 8.9409,6.25833 center offset char 0,1.00895 front
set label 10 "linformer" at 4.3127,37.2479 center offset char 0,1.06529 front
set label 11 "local" at 6.4343,42.7354 center offset char 0,1.04335 front
set label 12 "longformer" at 5.9459,16.275 center offset char -6.20935,0 front
set label 13 "mixer" at 14.4824,6.91667 center offset char 0,0.981819 front
set label 14 "performer" at 8.6862,5.19167 center offset char -5.73071,0 front
set label 15 "reformer" at 2.4818,99.3604 center offset char 0,-1.07846 front
set label 16 "rfa" at 3.8859,5.60833 center offset char 0,1.12463 front
set label 17 "routing" at 3.6191,1.475 center offset char 4.66822,-1.02305 front
set label 18 "sinkhorn" at 6.5228,19.1417 center offset char 5.23599,0 front
set label 19 "strided" at 9.4747,0.422917 center offset char 0,-1.02623 front
set label 20 "synthesizer" at 0.7532,6.24792 center offset char 6.67328,0 front
set label 21 "reformer+lra" at 2.9069,0.40625 center offset char -7.15208,-1.01444 front
set arrow from graph 0, first 0.5625 to graph 1, first 0.5625 nohead dt 2 lc rgb '#888888'
set label 22 "chance (majority class)" at graph 0.01, first 0.5625 offset 0,0.6 left textcolor rgb '#888888'
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
set output 'chart-mqar.png'
set title "Recall on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Recall"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [-31.1637:114.191]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4564,99.9896 center offset char 0,2.16 front
set label 2 "bigbird" at 3.075,99.9813 center offset char 0,1.1315 front
set label 3 "compressed" at 2.1954,1.28125 center offset char 0,1.02043 front
set label 4 "efficient" at 7.3974,75.0604 center offset char 0,1.00875 front
set label 5 "flash" at 1.2127,99.9958 center offset char 0,1.01156 front
set label 6 "fnet" at 12.436,0.402083 center offset char 0,0.964863 front
set label 7 "global" at 10.7856,65.2208 center offset char 0,1.01136 front
set label 8 "gmlp" at 0.5856,3.19583 center offset char 0,1.36912 front
set label 9 "linear" at 8.9409,6.25833 center offset char 0,1.00895 front
set label 10 "linformer" at 4.3127,37.2479 center offset char 0,1.06529 front
set label 11 "local" at 6.4343,42.7354 center offset char 0,1.04335 front
set label 12 "longformer" at 5.9459,16.275 center offset char -6.20935,0 front
set label 13 "mixer" at 14.4824,6.91667 center offset char 0,0.981819 front
set label 14 "performer" at 8.6862,5.19167 center offset char -5.73071,0 front
set label 15 "reformer" at 2.4818,99.3604 center offset char 0,-1.07846 front
set label 16 "rfa" at 3.8859,5.60833 center offset char 0,1.12463 front
set label 17 "routing" at 3.6191,1.475 center offset char 4.66822,-1.02305 front
set label 18 "sinkhorn" at 6.5228,19.1417 center offset char 5.23599,0 front
set label 19 "strided" at 9.4747,0.422917 center offset char 0,-1.02623 front
set label 20 "synthesizer" at 0.7532,6.24792 center offset char 6.67328,0 front
set label 21 "reformer+lra" at 2.9069,0.40625 center offset char -7.15208,-1.01444 front
set arrow from graph 0, first 0.5625 to graph 1, first 0.5625 nohead dt 2 lc rgb '#888888'
set label 22 "chance (majority class)" at graph 0.01, first 0.5625 offset 0,0.6 left textcolor rgb '#888888'
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
