# chart-lra.svg and chart-lra.png, written by attnzoo; rerun with `gnuplot chart-lra.gp` in this folder.
$f0 << EOD
"full" 0.4564 61.971 7 0.321462
"flash" 1.2127 62.0377 1.61669 0.302001
EOD
$f1 << EOD
"bigbird" 3.075 62.2974 2.1789 0.340059
"global" 10.7856 60.1654 1.61575 0.503494
"local" 6.4343 62.2969 1.76569 0.505142
"longformer" 5.9459 62.0578 1.77338 0.429567
"strided" 9.4747 61.8764 1.68543 0.464096
EOD
$f2 << EOD
"compressed" 2.1954 62.1033 1.65828 0.174897
"efficient" 7.3974 61.5749 1.60353 0.497405
"linear" 8.9409 56.5487 1.60447 0.325421
"linformer" 4.3127 62.1673 1.86854 0.294642
"performer" 8.6862 62.0126 1.82677 0.363396
"rfa" 3.8859 57.1225 2.14671 0.358333
"synthesizer" 0.7532 58.6931 1.68319 0.74922
EOD
$f3 << EOD
"fnet" 12.436 58.8404 1.39779 0.435406
"gmlp" 0.5856 61.7324 3.29274 0.22263
"mixer" 14.4824 61.3364 1.47728 0.235573
EOD
$f4 << EOD
"reformer" 2.4818 56.3588 1.9303 0.456955
"routing" 3.6191 61.8124 1.67055 0.31689
"sinkhorn" 6.5228 61.686 1.83998 0.315677
"reformer+lra" 2.9069 61.6522 1.6302 0.552068
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-lra.svg'
set title "LRA's five tasks on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "LRA mean test accuracy (%) over ListOps, Text, Retrieval, Image and Pathfinder"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [36.69:65.802]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4564,61.971 center offset char 0,2.16 front
set label 2 "bigbird" at 3.075,62.2974 center offset char 0,1.1315 front
set label 3 "compressed" at 2.1954,62.1033 center offset char -6.16331,1.02043 front
set label 4 "efficient" at 7.3974,61.5749 center offset char 0,-1.00875 front
set label 5 "flash" at 1.2127,62.0377 center offset char 0,-1.01156 front
set label 6 "fnet" at 12.436,58.8404 center offset char 0,-0.964863 front
set label 7 "global" at 10.7856,60.1654 center offset char 4.1463,0 front
set label 8 "gmlp" at 0.5856,61.7324 center offset char 3.8171,0 front
set label 9 "linear" at 8.9409,56.5487 center offset char 0,1.00895 front
set label 10 "linformer" at 4.3127,62.1673 center offset char 5.74742,1.06529 front
set label 11 "local" at 6.4343,62.2969 center offset char 0,2.04335 front
set arrow from first 6.4343,62.6554 to first 6.4343,63.491 nohead lw 0.8 lc rgb '#999999' back
set label 12 "longformer" at 5.9459,62.0578 center offset char -6.20935,-2.04499 front
set arrow from first 5.71693,61.8688 to first 4.61392,60.8368 nohead lw 0.8 lc rgb '#999999' back
set label 13 "mixer" at 14.4824,61.3364 center offset char 0,0.981819 front
set label 14 "performer" at 8.6862,62.0126 center offset char 5.73071,2.05638 front
set arrow from first 9.03413,62.2186 to first 10.9784,63.241 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.4818,56.3588 center offset char 0,1.07846 front
set label 16 "rfa" at 3.8859,57.1225 center offset char 0,1.12463 front
set label 17 "routing" at 3.6191,61.8124 center offset char 0,3.02305 front
set arrow from first 3.6191,62.1545 to first 3.6191,63.7988 nohead lw 0.8 lc rgb '#999999' back
set label 18 "sinkhorn" at 6.5228,61.686 center offset char 0,-3.0592 front
set arrow from first 6.5228,61.3146 to first 6.5228,59.6703 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 9.4747,61.8764 center offset char 0,4.02623 front
set arrow from first 9.4747,62.2211 to first 9.4747,64.674 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.7532,58.6931 center offset char 0,1.02575 front
set label 21 "reformer+lra" at 2.9069,61.6522 center offset char -7.15208,-1.01444 front
set arrow from graph 0, first 39.69 to graph 1, first 39.69 nohead dt 2 lc rgb '#888888'
set label 22 "chance (majority class)" at graph 0.01, first 39.69 offset 0,0.6 left textcolor rgb '#888888'
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
set output 'chart-lra.png'
set title "LRA's five tasks on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "LRA mean test accuracy (%) over ListOps, Text, Retrieval, Image and Pathfinder"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [36.69:65.802]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4564,61.971 center offset char 0,2.16 front
set label 2 "bigbird" at 3.075,62.2974 center offset char 0,1.1315 front
set label 3 "compressed" at 2.1954,62.1033 center offset char -6.16331,1.02043 front
set label 4 "efficient" at 7.3974,61.5749 center offset char 0,-1.00875 front
set label 5 "flash" at 1.2127,62.0377 center offset char 0,-1.01156 front
set label 6 "fnet" at 12.436,58.8404 center offset char 0,-0.964863 front
set label 7 "global" at 10.7856,60.1654 center offset char 4.1463,0 front
set label 8 "gmlp" at 0.5856,61.7324 center offset char 3.8171,0 front
set label 9 "linear" at 8.9409,56.5487 center offset char 0,1.00895 front
set label 10 "linformer" at 4.3127,62.1673 center offset char 5.74742,1.06529 front
set label 11 "local" at 6.4343,62.2969 center offset char 0,2.04335 front
set arrow from first 6.4343,62.6554 to first 6.4343,63.491 nohead lw 0.8 lc rgb '#999999' back
set label 12 "longformer" at 5.9459,62.0578 center offset char -6.20935,-2.04499 front
set arrow from first 5.71693,61.8688 to first 4.61392,60.8368 nohead lw 0.8 lc rgb '#999999' back
set label 13 "mixer" at 14.4824,61.3364 center offset char 0,0.981819 front
set label 14 "performer" at 8.6862,62.0126 center offset char 5.73071,2.05638 front
set arrow from first 9.03413,62.2186 to first 10.9784,63.241 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.4818,56.3588 center offset char 0,1.07846 front
set label 16 "rfa" at 3.8859,57.1225 center offset char 0,1.12463 front
set label 17 "routing" at 3.6191,61.8124 center offset char 0,3.02305 front
set arrow from first 3.6191,62.1545 to first 3.6191,63.7988 nohead lw 0.8 lc rgb '#999999' back
set label 18 "sinkhorn" at 6.5228,61.686 center offset char 0,-3.0592 front
set arrow from first 6.5228,61.3146 to first 6.5228,59.6703 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 9.4747,61.8764 center offset char 0,4.02623 front
set arrow from first 9.4747,62.2211 to first 9.4747,64.674 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.7532,58.6931 center offset char 0,1.02575 front
set label 21 "reformer+lra" at 2.9069,61.6522 center offset char -7.15208,-1.01444 front
set arrow from graph 0, first 39.69 to graph 1, first 39.69 nohead dt 2 lc rgb '#888888'
set label 22 "chance (majority class)" at graph 0.01, first 39.69 offset 0,0.6 left textcolor rgb '#888888'
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
