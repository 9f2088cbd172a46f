# chart-image.svg and chart-image.png, written by attnzoo; rerun with `gnuplot chart-image.gp` in this folder.
$f0 << EOD
"full" 0.4564 77.1167 7 1.10943
"flash" 1.2127 77.1167 1.61669 1.10943
EOD
$f1 << EOD
"bigbird" 3.075 78.0333 2.1789 0.941187
"global" 10.7856 64.5667 1.61575 0.80829
"local" 6.4343 77.0833 1.76569 1.14054
"longformer" 5.9459 76.7667 1.77338 1.68622
"strided" 9.4747 76.2333 1.68543 1.94058
EOD
$f2 << EOD
"compressed" 2.1954 79.9 1.65828 0.458258
"efficient" 7.3974 76.5833 1.60353 1.37143
"linear" 8.9409 71.9167 1.60447 1.10038
"linformer" 4.3127 82.9 1.86854 0.34641
"performer" 8.6862 77.6667 1.82677 1.11841
"rfa" 3.8859 75.1 2.14671 1.62096
"synthesizer" 0.7532 66 1.68319 1.44222
EOD
$f3 << EOD
"fnet" 12.436 69.9667 1.39779 1.99646
"gmlp" 0.5856 82.2833 3.29274 0.375278
"mixer" 14.4824 78.6667 1.47728 0.814453
EOD
$f4 << EOD
"reformer" 2.4818 70.45 1.9303 0.61441
"routing" 3.6191 78.2833 1.67055 0.525198
"sinkhorn" 6.5228 77.9833 1.83998 0.63705
"reformer+lra" 2.9069 77.75 1.6302 0.754983
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-image.svg'
set title "Image on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Image"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [2.38643:91.91]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4564,77.1167 center offset char 0,2.16 front
set label 2 "bigbird" at 3.075,78.0333 center offset char 0,1.1315 front
set label 3 "compressed" at 2.1954,79.9 center offset char -6.16331,0 front
set label 4 "efficient" at 7.3974,76.5833 center offset char 0,-1.00875 front
set label 5 "flash" at 1.2127,77.1167 center offset char 0,-1.01156 front
set label 6 "fnet" at 12.436,69.9667 center offset char 0,0.964863 front
set label 7 "global" at 10.7856,64.5667 center offset char 0,-1.01136 front
set label 8 "gmlp" at 0.5856,82.2833 center offset char 0,1.36912 front
set label 9 "linear" at 8.9409,71.9167 center offset char 0,-1.00895 front
set label 10 "linformer" at 4.3127,82.9 center offset char 0,1.06529 front
set label 11 "local" at 6.4343,77.0833 center offset char -3.70627,1.04335 front
set label 12 "longformer" at 5.9459,76.7667 center offset char 6.20935,2.04499 front
set arrow from first 6.18405,77.3481 to first 7.6624,80.5216 nohead lw 0.8 lc rgb '#999999' back
set label 13 "mixer" at 14.4824,78.6667 center offset char 0,0.981819 front
set label 14 "performer" at 8.6862,77.6667 center offset char 0,3.05638 front
set arrow from first 8.6862,78.8016 to first 8.6862,83.858 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.4818,70.45 center offset char 0,1.07846 front
set label 16 "rfa" at 3.8859,75.1 center offset char 0,-1.12463 front
set label 17 "routing" at 3.6191,78.2833 center offset char 0,4.02305 front
set arrow from first 3.6191,79.3354 to first 3.6191,86.8786 nohead lw 0.8 lc rgb '#999999' back
set label 18 "sinkhorn" at 6.5228,77.9833 center offset char 0,4.0592 front
set arrow from first 6.5228,79.1252 to first 6.5228,86.6684 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 9.4747,76.2333 center offset char 4.67417,0 front
set label 20 "synthesizer" at 0.7532,66 center offset char 0,1.02575 front
set label 21 "reformer+lra" at 2.9069,77.75 center offset char -7.15208,3.01444 front
set arrow from first 2.8105,78.389 to first 2.10117,83.9 nohead lw 0.8 lc rgb '#999999' back
set arrow from graph 0, first 11.05 to graph 1, first 11.05 nohead dt 2 lc rgb '#888888'
set label 22 "chance (majority class)" at graph 0.01, first 11.05 offset 0,0.6 left textcolor rgb '#888888'
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
set output 'chart-image.png'
set title "Image on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Image"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [2.38643:91.91]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4564,77.1167 center offset char 0,2.16 front
set label 2 "bigbird" at 3.075,78.0333 center offset char 0,1.1315 front
set label 3 "compressed" at 2.1954,79.9 center offset char -6.16331,0 front
set label 4 "efficient" at 7.3974,76.5833 center offset char 0,-1.00875 front
set label 5 "flash" at 1.2127,77.1167 center offset char 0,-1.01156 front
set label 6 "fnet" at 12.436,69.9667 center offset char 0,0.964863 front
set label 7 "global" at 10.7856,64.5667 center offset char 0,-1.01136 front
set label 8 "gmlp" at 0.5856,82.2833 center offset char 0,1.36912 front
set label 9 "linear" at 8.9409,71.9167 center offset char 0,-1.00895 front
set label 10 "linformer" at 4.3127,82.9 center offset char 0,1.06529 front
set label 11 "local" at 6.4343,77.0833 center offset char -3.70627,1.04335 front
set label 12 "longformer" at 5.9459,76.7667 center offset char 6.20935,2.04499 front
set arrow from first 6.18405,77.3481 to first 7.6624,80.5216 nohead lw 0.8 lc rgb '#999999' back
set label 13 "mixer" at 14.4824,78.6667 center offset char 0,0.981819 front
set label 14 "performer" at 8.6862,77.6667 center offset char 0,3.05638 front
set arrow from first 8.6862,78.8016 to first 8.6862,83.858 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.4818,70.45 center offset char 0,1.07846 front
set label 16 "rfa" at 3.8859,75.1 center offset char 0,-1.12463 front
set label 17 "routing" at 3.6191,78.2833 center offset char 0,4.02305 front
set arrow from first 3.6191,79.3354 to first 3.6191,86.8786 nohead lw 0.8 lc rgb '#999999' back
set label 18 "sinkhorn" at 6.5228,77.9833 center offset char 0,4.0592 front
set arrow from first 6.5228,79.1252 to first 6.5228,86.6684 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 9.4747,76.2333 center offset char 4.67417,0 front
set label 20 "synthesizer" at 0.7532,66 center offset char 0,1.02575 front
set label 21 "reformer+lra" at 2.9069,77.75 center offset char -7.15208,3.01444 front
set arrow from first 2.8105,78.389 to first 2.10117,83.9 nohead lw 0.8 lc rgb '#999999' back
set arrow from graph 0, first 11.05 to graph 1, first 11.05 nohead dt 2 lc rgb '#888888'
set label 22 "chance (majority class)" at graph 0.01, first 11.05 offset 0,0.6 left textcolor rgb '#888888'
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
