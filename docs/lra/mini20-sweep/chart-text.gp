# chart-text.svg and chart-text.png, written by attnzoo; rerun with `gnuplot chart-text.gp` in this folder.
$f0 << EOD
"full" 0.4564 92.8333 7 1.01283
"flash" 1.2127 92.8333 1.61669 1.01283
EOD
$f1 << EOD
"bigbird" 3.075 93.05 2.1789 0.327872
"global" 10.7856 89.9333 1.61575 0.748888
"local" 6.4343 93.6333 1.76569 0.490748
"longformer" 5.9459 93.3833 1.77338 0.189297
"strided" 9.4747 93.25 1.68543 0.35
EOD
$f2 << EOD
"compressed" 2.1954 94.05 1.65828 0.1
"efficient" 7.3974 93.0833 1.60353 0.431084
"linear" 8.9409 92.4833 1.60447 0.125831
"linformer" 4.3127 91.7833 1.86854 1.12509
"performer" 8.6862 93.4167 1.82677 0.500833
"rfa" 3.8859 92.7167 2.14671 0.152753
"synthesizer" 0.7532 92.2333 1.68319 0.464579
EOD
$f3 << EOD
"fnet" 12.436 88.2 1.39779 0.1
"gmlp" 0.5856 91.5667 3.29274 0.305505
"mixer" 14.4824 91.5167 1.47728 0.0288675
EOD
$f4 << EOD
"reformer" 2.4818 92.2833 1.9303 0.208167
"routing" 3.6191 93.25 1.67055 0.327872
"sinkhorn" 6.5228 93.4667 1.83998 0.236291
"reformer+lra" 2.9069 92.2667 1.6302 0.0763763
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-text.svg'
set title "Text on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Text"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [67.55:97.15]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4564,92.8333 center offset char 0,2.16 front
set label 2 "bigbird" at 3.075,93.05 center offset char -4.87156,0 front
set label 3 "compressed" at 2.1954,94.05 center offset char 0,1.02043 front
set label 4 "efficient" at 7.3974,93.0833 center offset char 0,2.00875 front
set arrow from first 7.3974,93.4194 to first 7.3974,94.269 nohead lw 0.8 lc rgb '#999999' back
set label 5 "flash" at 1.2127,92.8333 center offset char 0,1.01156 front
set label 6 "fnet" at 12.436,88.2 center offset char 0,0.964863 front
set label 7 "global" at 10.7856,89.9333 center offset char 0,1.01136 front
set label 8 "gmlp" at 0.5856,91.5667 center offset char 0,-1.36912 front
set label 9 "linear" at 8.9409,92.4833 center offset char 0,-1.00895 front
set label 10 "linformer" at 4.3127,91.7833 center offset char 0,-1.06529 front
set label 11 "local" at 6.4343,93.6333 center offset char 0,-2.04335 front
set arrow from first 6.4343,93.2688 to first 6.4343,92.4192 nohead lw 0.8 lc rgb '#999999' back
set label 12 "longformer" at 5.9459,93.3833 center offset char -6.20935,1.04499 front
set label 13 "mixer" at 14.4824,91.5167 center offset char 0,0.981819 front
set label 14 "performer" at 8.6862,93.4167 center offset char 0,3.05638 front
set arrow from first 8.6862,93.7919 to first 8.6862,95.4638 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.4818,92.2833 center offset char 0,-1.07846 front
set label 16 "rfa" at 3.8859,92.7167 center offset char 2.85868,0 front
set label 17 "routing" at 3.6191,93.25 center offset char 0,3.02305 front
set arrow from first 3.6191,93.5978 to first 3.6191,95.2697 nohead lw 0.8 lc rgb '#999999' back
set label 18 "sinkhorn" at 6.5228,93.4667 center offset char 0,4.0592 front
set arrow from first 6.5228,93.8442 to first 6.5228,96.3383 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 9.4747,93.25 center offset char 4.67417,0 front
set label 20 "synthesizer" at 0.7532,92.2333 center offset char 0,1.02575 front
set label 21 "reformer+lra" at 2.9069,92.2667 center offset char 0,-3.01444 front
set arrow from first 2.9069,91.9259 to first 2.9069,90.2541 nohead lw 0.8 lc rgb '#999999' back
set arrow from graph 0, first 70.55 to graph 1, first 70.55 nohead dt 2 lc rgb '#888888'
set label 22 "chance (majority class)" at graph 0.01, first 70.55 offset 0,0.6 left textcolor rgb '#888888'
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
set output 'chart-text.png'
set title "Text on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Text"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [67.55:97.15]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4564,92.8333 center offset char 0,2.16 front
set label 2 "bigbird" at 3.075,93.05 center offset char -4.87156,0 front
set label 3 "compressed" at 2.1954,94.05 center offset char 0,1.02043 front
set label 4 "efficient" at 7.3974,93.0833 center offset char 0,2.00875 front
set arrow from first 7.3974,93.4194 to first 7.3974,94.269 nohead lw 0.8 lc rgb '#999999' back
set label 5 "flash" at 1.2127,92.8333 center offset char 0,1.01156 front
set label 6 "fnet" at 12.436,88.2 center offset char 0,0.964863 front
set label 7 "global" at 10.7856,89.9333 center offset char 0,1.01136 front
set label 8 "gmlp" at 0.5856,91.5667 center offset char 0,-1.36912 front
set label 9 "linear" at 8.9409,92.4833 center offset char 0,-1.00895 front
set label 10 "linformer" at 4.3127,91.7833 center offset char 0,-1.06529 front
set label 11 "local" at 6.4343,93.6333 center offset char 0,-2.04335 front
set arrow from first 6.4343,93.2688 to first 6.4343,92.4192 nohead lw 0.8 lc rgb '#999999' back
set label 12 "longformer" at 5.9459,93.3833 center offset char -6.20935,1.04499 front
set label 13 "mixer" at 14.4824,91.5167 center offset char 0,0.981819 front
set label 14 "performer" at 8.6862,93.4167 center offset char 0,3.05638 front
set arrow from first 8.6862,93.7919 to first 8.6862,95.4638 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.4818,92.2833 center offset char 0,-1.07846 front
set label 16 "rfa" at 3.8859,92.7167 center offset char 2.85868,0 front
set label 17 "routing" at 3.6191,93.25 center offset char 0,3.02305 front
set arrow from first 3.6191,93.5978 to first 3.6191,95.2697 nohead lw 0.8 lc rgb '#999999' back
set label 18 "sinkhorn" at 6.5228,93.4667 center offset char 0,4.0592 front
set arrow from first 6.5228,93.8442 to first 6.5228,96.3383 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 9.4747,93.25 center offset char 4.67417,0 front
set label 20 "synthesizer" at 0.7532,92.2333 center offset char 0,1.02575 front
set label 21 "reformer+lra" at 2.9069,92.2667 center offset char 0,-3.01444 front
set arrow from first 2.9069,91.9259 to first 2.9069,90.2541 nohead lw 0.8 lc rgb '#999999' back
set arrow from graph 0, first 70.55 to graph 1, first 70.55 nohead dt 2 lc rgb '#888888'
set label 22 "chance (majority class)" at graph 0.01, first 70.55 offset 0,0.6 left textcolor rgb '#888888'
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
