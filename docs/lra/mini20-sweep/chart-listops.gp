# chart-listops.svg and chart-listops.png, written by attnzoo; rerun with `gnuplot chart-listops.gp` in this folder.
$f0 << EOD
"full" 0.4564 36.3167 7 0.11547
"flash" 1.2127 36.3 1.61669 0.0866025
EOD
$f1 << EOD
"bigbird" 3.075 36.0667 2.1789 0.765398
"global" 10.7856 36.2167 1.61575 1.44943
"local" 6.4343 35.7667 1.76569 0.57735
"longformer" 5.9459 36.05 1.77338 0.785812
"strided" 9.4747 36.1167 1.68543 0.529937
EOD
$f2 << EOD
"compressed" 2.1954 35.8 1.65828 0.458258
"efficient" 7.3974 35.9333 1.60353 0.678847
"linear" 8.9409 17.0833 1.60447 0.404145
"linformer" 4.3127 35.6833 1.86854 0.680686
"performer" 8.6862 36.4 1.82677 0.35
"rfa" 3.8859 17.1167 2.14671 0.46188
"synthesizer" 0.7532 34.6333 1.68319 3.32916
EOD
$f3 << EOD
"fnet" 12.436 36.0667 1.39779 0.765398
"gmlp" 0.5856 35.75 3.29274 0.672681
"mixer" 14.4824 35.9 1.47728 0.589491
EOD
$f4 << EOD
"reformer" 2.4818 16.9667 1.9303 0.202073
"routing" 3.6191 35.55 1.67055 0.304138
"sinkhorn" 6.5228 36.6833 1.83998 0.40104
"reformer+lra" 2.9069 34.45 1.6302 1.36107
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-listops.svg'
set title "ListOps on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): ListOps"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [13.6548:40.9625]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4564,36.3167 center offset char 0,2.16 front
set label 2 "bigbird" at 3.075,36.0667 center offset char 0,1.1315 front
set label 3 "compressed" at 2.1954,35.8 center offset char -6.16331,-1.02043 front
set label 4 "efficient" at 7.3974,35.9333 center offset char 5.64141,-1.00875 front
set label 5 "flash" at 1.2127,36.3 center offset char 0,1.01156 front
set label 6 "fnet" at 12.436,36.0667 center offset char 3.05912,0.964863 front
set label 7 "global" at 10.7856,36.2167 center offset char 0,1.01136 front
set label 8 "gmlp" at 0.5856,35.75 center offset char 0,-1.36912 front
set label 9 "linear" at 8.9409,17.0833 center offset char 0,1.00895 front
set label 10 "linformer" at 4.3127,35.6833 center offset char 0,-1.06529 front
set label 11 "local" at 6.4343,35.7667 center offset char 0,-1.04335 front
set label 12 "longformer" at 5.9459,36.05 center offset char 0,2.04499 front
set arrow from first 5.9459,36.3875 to first 5.9459,37.1714 nohead lw 0.8 lc rgb '#999999' back
set label 13 "mixer" at 14.4824,35.9 center offset char 3.59091,0 front
set label 14 "performer" at 8.6862,36.4 center offset char 0,3.05638 front
set arrow from first 8.6862,36.7462 to first 8.6862,38.2886 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.4818,16.9667 center offset char 0,1.07846 front
set label 16 "rfa" at 3.8859,17.1167 center offset char 0,1.12463 front
set label 17 "routing" at 3.6191,35.55 center offset char 4.66822,-2.02305 front
set arrow from first 3.74447,35.3476 to first 4.37223,34.4266 nohead lw 0.8 lc rgb '#999999' back
set label 18 "sinkhorn" at 6.5228,36.6833 center offset char -5.23599,3.0592 front
set arrow from first 6.31668,36.9406 to first 5.14312,38.5873 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 9.4747,36.1167 center offset char 0,-3.02623 front
set arrow from first 9.4747,35.7934 to first 9.4747,34.251 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.7532,34.6333 center offset char 0,-1.02575 front
set label 21 "reformer+lra" at 2.9069,34.45 center offset char -7.15208,-1.01444 front
set arrow from graph 0, first 16.85 to graph 1, first 16.85 nohead dt 2 lc rgb '#888888'
set label 22 "chance (majority class)" at graph 0.01, first 16.85 offset 0,0.6 left textcolor rgb '#888888'
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
set output 'chart-listops.png'
set title "ListOps on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): ListOps"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [13.6548:40.9625]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4564,36.3167 center offset char 0,2.16 front
set label 2 "bigbird" at 3.075,36.0667 center offset char 0,1.1315 front
set label 3 "compressed" at 2.1954,35.8 center offset char -6.16331,-1.02043 front
set label 4 "efficient" at 7.3974,35.9333 center offset char 5.64141,-1.00875 front
set label 5 "flash" at 1.2127,36.3 center offset char 0,1.01156 front
set label 6 "fnet" at 12.436,36.0667 center offset char 3.05912,0.964863 front
set label 7 "global" at 10.7856,36.2167 center offset char 0,1.01136 front
set label 8 "gmlp" at 0.5856,35.75 center offset char 0,-1.36912 front
set label 9 "linear" at 8.9409,17.0833 center offset char 0,1.00895 front
set label 10 "linformer" at 4.3127,35.6833 center offset char 0,-1.06529 front
set label 11 "local" at 6.4343,35.7667 center offset char 0,-1.04335 front
set label 12 "longformer" at 5.9459,36.05 center offset char 0,2.04499 front
set arrow from first 5.9459,36.3875 to first 5.9459,37.1714 nohead lw 0.8 lc rgb '#999999' back
set label 13 "mixer" at 14.4824,35.9 center offset char 3.59091,0 front
set label 14 "performer" at 8.6862,36.4 center offset char 0,3.05638 front
set arrow from first 8.6862,36.7462 to first 8.6862,38.2886 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.4818,16.9667 center offset char 0,1.07846 front
set label 16 "rfa" at 3.8859,17.1167 center offset char 0,1.12463 front
set label 17 "routing" at 3.6191,35.55 center offset char 4.66822,-2.02305 front
set arrow from first 3.74447,35.3476 to first 4.37223,34.4266 nohead lw 0.8 lc rgb '#999999' back
set label 18 "sinkhorn" at 6.5228,36.6833 center offset char -5.23599,3.0592 front
set arrow from first 6.31668,36.9406 to first 5.14312,38.5873 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 9.4747,36.1167 center offset char 0,-3.02623 front
set arrow from first 9.4747,35.7934 to first 9.4747,34.251 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.7532,34.6333 center offset char 0,-1.02575 front
set label 21 "reformer+lra" at 2.9069,34.45 center offset char -7.15208,-1.01444 front
set arrow from graph 0, first 16.85 to graph 1, first 16.85 nohead dt 2 lc rgb '#888888'
set label 22 "chance (majority class)" at graph 0.01, first 16.85 offset 0,0.6 left textcolor rgb '#888888'
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
